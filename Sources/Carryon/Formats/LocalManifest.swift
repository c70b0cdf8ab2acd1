/// A manifest at the top of a bundle that players open: `main.m3u8` in every bundle — HLS,
/// whatever the source's format, so that every player plays every bundle — and beside it the
/// manifests a format adds of the same files (`main.mpd` for an MPEG-DASH source).
///
/// The playback server serves each at `<asset id>/<path>`; ``AssetSnapshot`` names their files.
public struct LocalManifest: Sendable, Hashable, Codable {
    /// Its path in the bundle (`main.mpd`).
    public var path: String
    /// The format players read it as (`dash`): the name of the format that writes it.
    public var format: String
    /// The media type it is served with (`application/dash+xml`).
    public var contentType: String

    /// A manifest at `path`, read by players as `format`, served as `contentType`.
    public init(path: String, format: String, contentType: String) {
        self.path = path
        self.format = format
        self.contentType = contentType
    }

    /// `main.m3u8`, every bundle's: the HLS multivariant playlist of what it holds.
    public static let main = LocalManifest(path: "main.m3u8", format: HLSFormat.formatName, contentType: "application/vnd.apple.mpegurl")

    /// `main.mpd`, an MPEG-DASH bundle's: its MPD of the same files, for DASH players.
    public static let mpd = LocalManifest(path: "main.mpd", format: "dash", contentType: "application/dash+xml")

    /// The name of each media playlist in a bundle (`<rendition>/index.m3u8`).
    public static let renditionPlaylistName = "index.m3u8"

    /// The local manifests of a bundle whose source is of format `format`: ``main`` first, then
    /// the format's own. A format Carryon does not know gives bundles ``main`` alone.
    public static func manifests(ofFormat format: String) -> [LocalManifest] {
        manifests(ofFormat: format, among: StreamFormats.standard)
    }

    /// The local manifests of a bundle of format `format`, as one of `formats` writes them.
    static func manifests(ofFormat format: String, among formats: [any StreamFormat]) -> [LocalManifest] {
        [main] + (formats.first { $0.name == format }?.localManifests ?? [])
    }

    /// The formats players read the manifests of Carryon's bundles as (`hls`, `dash`).
    public static var playerFormats: [String] {
        var names: [String] = []
        for manifest in StreamFormats.standard.flatMap({ [main] + $0.localManifests }) where !names.contains(manifest.format) {
            names.append(manifest.format)
        }
        return names
    }

    /// The name people know format `format` by (`MPEG-DASH`); an unknown one as recorded.
    public static func displayName(ofFormat format: String) -> String {
        StreamFormats.standard.first { $0.name == format }?.displayName ?? format
    }

    /// Whether a playback request for the bundle path `path` asks for media — a segment, an
    /// init section, a file of byte ranges — rather than a manifest, a media playlist, a key or
    /// a licence: what the playback KPIs count as segments. A bundle keeps its media in its
    /// renditions' folders, whatever its format, and its manifests at the top (each rendition's
    /// media playlist, `index.m3u8`, beside its media; keys under `keys/`).
    public static func isMediaRequest(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count >= 2 && parts[0] != "keys" && parts.last != Substring(renditionPlaylistName) && !parts.contains("")
    }
}

/// The formats Carryon reads unless a session is given others.
enum StreamFormats {
    /// HLS, then MPEG-DASH: what nothing recognises is read as HLS, whose reading says why not.
    static let standard: [any StreamFormat] = [HLSFormat(), DASHFormat()]
}
