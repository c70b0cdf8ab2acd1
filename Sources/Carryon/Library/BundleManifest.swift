import Foundation

/// `manifest.json`: what makes a bundle self-describing. A bundle can be understood — and
/// checked file by file — without the library's index.
///
/// ```json
/// { "format": "carryon-bundle", "version": 1, "id": "…", "name": "…", "url": "https://…/main.m3u8",
///   "state": "completed", "playlist": "main.m3u8", "duration": 634.6,
///   "variant": { "uri": "…", "bandwidth": 2500000, "resolution": "1280x720", … },
///   "renditions": [ { "key": "video", "type": "VIDEO", "playlist": "video/index.m3u8", … } ],
///   "files": [ { "path": "video/00001.ts", "bytes": 187652, "uri": "https://…/seg1.ts" } ] }
/// ```
public struct BundleManifest: Sendable, Codable, Hashable {
    /// Its file in the bundle: `manifest.json`.
    public static let fileName = "manifest.json"

    /// Always `carryon-bundle`: it marks the folder as a Carryon bundle.
    public var format = "carryon-bundle"
    /// The version of the manifest's format, `1`.
    public var version = 1
    /// The format of the stream the bundle was downloaded from: `hls`. Absent in bundles
    /// written before formats were recorded, which are all HLS. The bundle's own playlists are
    /// HLS whatever it is.
    public var streamFormat: String?
    /// The asset's id in the library, which is also the name of the bundle's folder.
    public var id: String
    /// The asset's name: the one given when the task was made, else one taken from the
    /// URL's path (`main.m3u8` names the folder it is in).
    public var name: String
    /// The URL the asset was downloaded from.
    public var url: String
    /// `completed` once every file is present; otherwise the state at the last write.
    public var state: DownloadState
    /// The local multivariant playlist, relative to the bundle.
    public var playlist: String
    /// The presentation's duration in seconds, that of its longest rendition.
    public var duration: Double
    /// When the download task was made, in ISO 8601.
    public var createdAt: Date
    /// When the download last completed, in ISO 8601; absent until it has.
    public var completedAt: Date?
    /// The variant chosen from the multivariant playlist (`uri`, `bandwidth`,
    /// `resolution`, `codecs`, …); absent when the URL was a single media playlist.
    public var variant: MediaSelection.Variant?
    /// Every media playlist of the bundle, the main selection first.
    public var renditions: [Rendition]
    /// Every media file, once the download completed.
    public var files: [File]
    /// The part of the stream the bundle holds (`{"start": 600, "end": 720}`, in seconds from
    /// the start of the presentation), when the download was asked for one; absent: all of it.
    public var timeRange: TimeRange?

    /// An entry of ``BundleManifest/renditions``: one media playlist of the bundle, the folder
    /// that holds its files, and where it came from.
    public struct Rendition: Sendable, Codable, Hashable {
        /// The rendition's folder in the bundle, unique within it (`video`, `media`, `audio-en`,
        /// `audio-en-2`, `subtitles-de`, …).
        public var key: String
        /// The rendition's type: `VIDEO` (a variant's own media), `MEDIA` (a single media
        /// playlist), `AUDIO` or `SUBTITLES`.
        public var type: String
        /// The rendition's name: the `NAME` attribute of an audio or subtitle rendition; for a
        /// variant its resolution (`1280x720`) or `video`; `media` for a single media playlist.
        public var name: String
        /// The rendition's `LANGUAGE` attribute (`en`); absent when it has none.
        public var language: String?
        /// The local media playlist, relative to the bundle.
        public var playlist: String
        /// The media playlist at the origin.
        public var uri: String
        /// The media playlist's duration in seconds (the sum of its segments').
        public var duration: Double
    }

    /// An entry of ``BundleManifest/files``: one media file of the bundle (a segment, an init
    /// section, or a file of byte ranges), to check the bundle file by file.
    public struct File: Sendable, Codable, Hashable {
        /// Relative to the bundle.
        public var path: String
        /// The file's size in bytes when the manifest was written (0 when it was missing).
        public var bytes: Int
        /// Where it came from.
        public var uri: String
    }
}

extension BundleManifest {
    /// The manifest as pretty-printed JSON with sorted keys, each file on a line of its own.
    ///
    /// The files are encoded one at a time: JSONEncoder builds a tree of the whole value first,
    /// which for the thousands of files of a long asset took more memory than the download.
    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // `.iso8601`'s text, written without the Calendar and TimeZone that load ICU's data.
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(UTCComponents(date).internetDateTimeText)
        }
        var head = self
        head.files = []
        let text = String(decoding: try encoder.encode(head), as: UTF8.self)
        let empty = "\n  \"files\" : [\n\n  ]"
        guard !files.isEmpty, let range = text.range(of: empty) else { return try encoder.encode(self) }
        let line = JSONEncoder()
        line.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var output = Data(text[..<range.lowerBound].utf8)
        output.append(contentsOf: Array("\n  \"files\" : [\n".utf8))
        for (index, file) in files.enumerated() {
            output.append(contentsOf: Array("    ".utf8))
            output.append(try line.encode(file))
            output.append(contentsOf: Array((index + 1 < files.count ? ",\n" : "\n").utf8))
        }
        output.append(contentsOf: Array("  ]".utf8))
        output.append(contentsOf: Array(text[range.upperBound...].utf8))
        return output
    }
}
