/// A media playlist resolved for a downloader or player: every segment with its absolute URI,
/// media sequence number, discontinuity sequence, start time, effective keys (with the IV,
/// explicit or derived), effective init section, and byte range with implicit offsets resolved.
///
/// ```swift
/// let media = try MediaPlaylist(parsing: text, url: "https://cdn.example/v/720p.m3u8")
/// for segment in media.segments {
///     print(segment.mediaSequence, segment.uri, segment.byteRange?.range ?? 0..<0)
/// }
/// print(media.duration, media.presentation)   // 634.6 vod
/// ```
public struct MediaPlaylist: Sendable, Hashable {
    /// The URL the playlist was read from; every URI is resolved against it.
    public var url: String
    /// `EXT-X-VERSION`, when present.
    public var version: Int?
    /// `EXT-X-TARGETDURATION`: the maximum segment duration, in whole seconds.
    public var targetDuration: Int
    /// The media sequence number of the first segment (`EXT-X-MEDIA-SEQUENCE`, default 0).
    public var mediaSequence: Int
    /// The discontinuity sequence number of the first segment (default 0).
    public var discontinuitySequence: Int
    /// `EXT-X-PLAYLIST-TYPE`, when present.
    public var playlistType: PlaylistType?
    /// Whether `EXT-X-ENDLIST` is present: no segment will be added.
    public var hasEndList: Bool
    /// `EXT-X-I-FRAMES-ONLY`.
    public var iFramesOnly: Bool
    /// `EXT-X-INDEPENDENT-SEGMENTS`.
    public var independentSegments: Bool
    /// `EXT-X-START`.
    public var start: Start?
    /// `EXT-X-PART-INF`.
    public var partInf: PartInf?
    /// `EXT-X-SERVER-CONTROL`.
    public var serverControl: ServerControl?
    /// `EXT-X-SKIP`, in a playlist delta update.
    public var skip: Skip?
    /// The segments, in order.
    public var segments: [Segment]
    /// Partial segments after the last complete segment (the live edge of low-latency HLS).
    public var trailingParts: [PartialSegment]
    /// `EXT-X-DATERANGE` tags, with variables substituted.
    public var dateRanges: [DateRange]
    /// `EXT-X-PRELOAD-HINT` tags, URIs absolute.
    public var preloadHints: [PreloadHint]
    /// `EXT-X-RENDITION-REPORT` tags, URIs absolute.
    public var renditionReports: [RenditionReport]
    /// The playlist's variables after `EXT-X-DEFINE` processing.
    public var variables: [String: String]
    /// What the resolver (and the parser, when it parsed) recovered from.
    public var warnings: [PlaylistWarning]

    /// Video on demand, an event, or live: what a client may expect of the playlist.
    public enum Presentation: String, Sendable, Hashable {
        /// Complete: `PLAYLIST-TYPE=VOD`, or `EXT-X-ENDLIST` without a type.
        case vod
        /// `PLAYLIST-TYPE=EVENT`: segments are only appended (complete once it has `EXT-X-ENDLIST`).
        case event
        /// Neither: segments come and go.
        case live
    }

    /// Whether the playlist is VOD, an event or live.
    public var presentation: Presentation {
        switch playlistType {
        case .vod?: .vod
        case .event?: .event
        case nil: hasEndList ? .vod : .live
        }
    }

    /// The sum of the segment durations, in seconds.
    public var duration: Double { segments.reduce(0) { $0 + $1.duration } }

    /// Whether any segment or init section is encrypted.
    public var isEncrypted: Bool {
        segments.contains { !$0.keys.isEmpty || !($0.initSection?.keys.isEmpty ?? true) }
    }

    /// The most `EXT-X-KEY` formats that may be in effect at once; more is refused as hostile.
    public static let maximumKeyFormats = 16

    /// Resolves a parsed playlist.
    ///
    /// - Parameters:
    ///   - playlist: A media playlist.
    ///   - url: The absolute URL it was read from (`https://…`, `file:///…`).
    ///   - imports: The multivariant playlist's variables, for `EXT-X-DEFINE:IMPORT`. Nil when the
    ///     playlist was not reached through a multivariant playlist.
    ///   - warnings: Warnings from parsing, carried into ``warnings``.
    ///   - options: ``Playlist/ParseOptions/strict`` to refuse what is otherwise recovered from
    ///     with a warning: a missing `EXT-X-TARGETDURATION` (taken as the longest segment, rounded
    ///     up), an `EXT-X-MEDIA-SEQUENCE` after the first segment or repeated (ignored), a tag of
    ///     a multivariant playlist (`EXT-X-SESSION-KEY` is applied as an `EXT-X-KEY`, the others
    ///     are ignored), a lone URI line without `EXTINF` (a single resource of unknown duration).
    /// - Throws: ``PlaylistError`` naming the line, for a multivariant playlist, an undefined
    ///   variable, a byte range without offset that follows no range of the same resource or one
    ///   that overlaps the previous range, or a segment without `EXTINF`.
    public init(_ playlist: Playlist, url: String, imports: [String: String]? = nil,
                warnings: [PlaylistWarning] = [], options: Playlist.ParseOptions = []) throws(PlaylistError) {
        var resolver = MediaResolver(url: url, imports: imports, warnings: warnings, strict: options.contains(.strict))
        self = try resolver.resolve(playlist)
    }

    /// Parses and resolves M3U8 text. See ``init(_:url:imports:warnings:options:)``.
    public init(parsing text: String, url: String, imports: [String: String]? = nil,
                options: Playlist.ParseOptions = []) throws(PlaylistError) {
        let parsed = try Playlist.parse(text, options: options)
        try self.init(parsed.playlist, url: url, imports: imports, warnings: parsed.warnings, options: options)
    }

    init(url: String) {
        self.url = url
        version = nil
        targetDuration = 0
        mediaSequence = 0
        discontinuitySequence = 0
        playlistType = nil
        hasEndList = false
        iFramesOnly = false
        independentSegments = false
        start = nil
        partInf = nil
        serverControl = nil
        skip = nil
        segments = []
        trailingParts = []
        dateRanges = []
        preloadHints = []
        renditionReports = []
        variables = [:]
        warnings = []
    }
}
