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
    public var format = "carryon-bundle"
    public var version = 1
    public var id: String
    public var name: String
    /// The URL the asset was downloaded from.
    public var url: String
    /// `completed` once every file is present; otherwise the state at the last write.
    public var state: DownloadState
    /// The local multivariant playlist, relative to the bundle.
    public var playlist: String
    public var duration: Double
    public var createdAt: Date
    public var completedAt: Date?
    public var variant: MediaSelection.Variant?
    public var renditions: [Rendition]
    /// Every media file, once the download completed.
    public var files: [File]

    public struct Rendition: Sendable, Codable, Hashable {
        public var key: String
        public var type: String
        public var name: String
        public var language: String?
        /// The local media playlist, relative to the bundle.
        public var playlist: String
        /// The media playlist at the origin.
        public var uri: String
        public var duration: Double
    }

    public struct File: Sendable, Codable, Hashable {
        /// Relative to the bundle.
        public var path: String
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
        encoder.dateEncodingStrategy = .iso8601
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
