/// The `Content-Type` Carryon's servers give each kind of HLS resource, by file extension.
enum MediaTypes {
    /// Whether `path` names a playlist (`.m3u8` or `.m3u`), by its extension.
    static func isPlaylist(path: String) -> Bool {
        contentType(forPath: path) == "application/vnd.apple.mpegurl"
    }

    static func contentType(forPath path: String) -> String {
        let name = path.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: ".") else { return "application/octet-stream" }
        switch name[name.index(after: dot)...].lowercased() {
        case "m3u8", "m3u": return "application/vnd.apple.mpegurl"
        case "ts": return "video/mp2t"
        case "mp4", "m4s", "m4v", "cmfv", "cmfa": return "video/mp4"
        case "m4a": return "audio/mp4"
        case "aac": return "audio/aac"
        case "ac3": return "audio/ac3"
        case "ec3": return "audio/eac3"
        case "mp3": return "audio/mpeg"
        case "vtt", "webvtt": return "text/vtt"
        case "ttml", "xml": return "application/ttml+xml"
        case "json": return "application/json"
        case "mpd": return "application/dash+xml"
        default: return "application/octet-stream"
        }
    }
}
