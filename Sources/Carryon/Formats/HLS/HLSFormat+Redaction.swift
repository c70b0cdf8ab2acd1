import HLS

extension HLSFormat {
    /// A playlist as fetched, with every `data:` key URI (which holds the key itself) replaced,
    /// for the copy kept in the bundle. Edited through the `HLS` model, so every other line stays
    /// as the origin sent it; text that does not read as a playlist is kept only without any
    /// `data:` in it.
    static func redactingDataKeys(in text: [UInt8]) -> [UInt8] {
        // Most playlists have no `data:` at all: found over the bytes, not with Foundation's
        // locale-aware search of the whole text (half a second for a million segments).
        guard mentionsData(text) else { return text }
        let unreadable = Array("#EXTM3U\n# removed by Carryon: it mentions data: and cannot be read as a playlist\n".utf8)
        guard var playlist = try? Playlist.parse(bytes: text).playlist else { return unreadable }
        for index in playlist.lines.indices {
            guard let tag = playlist.lines[index].tag, let uri = tag.uri, uri.lowercased().hasPrefix("data:") else { continue }
            switch tag {
            case .key, .sessionKey:
                playlist.lines[index].content = .tag(tag.naming("data:,removed-by-carryon-the-key-is-in-the-key-store"))
            default:
                continue
            }
        }
        guard let written = try? playlist.write() else { return unreadable }
        return Array(written.utf8)
    }

    /// Whether `text` holds `data:` in any case, found over its bytes (`| 0x20` folds ASCII
    /// letters to lower case and leaves `:` as it is; a false match only sends the text down
    /// the exact path).
    static func mentionsData(_ text: [UInt8]) -> Bool {
        let pattern: [UInt8] = Array("data:".utf8)
        guard text.count >= pattern.count else { return false }
        for start in 0...(text.count - pattern.count) where text[start] | 0x20 == pattern[0] {
            var matches = true
            for offset in 1..<pattern.count where text[start + offset] | 0x20 != pattern[offset] {
                matches = false
                break
            }
            if matches { return true }
        }
        return false
    }
}
