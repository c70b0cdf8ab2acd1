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
    /// - Throws: ``PlaylistError`` naming the line, for a multivariant playlist, an undefined
    ///   variable, a byte range without offset that follows no range of the same resource, a
    ///   segment without `EXTINF`, or a missing `EXT-X-TARGETDURATION`.
    public init(_ playlist: Playlist, url: String, imports: [String: String]? = nil,
                warnings: [PlaylistWarning] = []) throws(PlaylistError) {
        var resolver = MediaResolver(url: url, imports: imports, warnings: warnings)
        self = try resolver.resolve(playlist)
    }

    /// Parses and resolves M3U8 text. See ``init(_:url:imports:warnings:)``.
    public init(parsing text: String, url: String, imports: [String: String]? = nil) throws(PlaylistError) {
        let parsed = try Playlist.parse(text)
        try self.init(parsed.playlist, url: url, imports: imports, warnings: parsed.warnings)
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

/// A media segment as a downloader needs it.
public struct Segment: Sendable, Hashable {
    /// The absolute URI of the segment's resource.
    public var uri: String
    /// The 1-based line of the URI in the playlist.
    public var line: Int
    /// The media sequence number.
    public var mediaSequence: Int
    /// The discontinuity sequence number.
    public var discontinuitySequence: Int
    /// Whether an `EXT-X-DISCONTINUITY` precedes the segment.
    public var discontinuity: Bool
    /// `EXT-X-GAP`: the segment is missing and must not be loaded.
    public var isGap: Bool
    /// Seconds from the start of the playlist to the segment's start.
    public var startTime: Double
    /// The `EXTINF` duration in seconds.
    public var duration: Double
    /// The `EXTINF` title (empty when none).
    public var title: String
    /// The segment's sub-range of its resource, offsets resolved; nil for the whole resource.
    public var byteRange: ResolvedByteRange?
    /// The keys in effect (one per key format), empty when the segment is in the clear.
    public var keys: [SegmentKey]
    /// The media initialization section in effect, kept once for all the segments it applies to.
    var sharedInitSection: Shared<InitSection>?
    /// The `EXT-X-PROGRAM-DATE-TIME`, boxed: most segments have none, and a million segments
    /// would each carry room for one.
    var sharedProgramDateTime: Shared<DateTime>?
    /// The `EXT-X-BITRATE` in effect, in kbit/s.
    public var bitrate: Int?
    /// The segment's partial segments (low-latency HLS).
    public var parts: [PartialSegment]

    /// The key to use: the `identity` one if there is one, else the first.
    public var key: SegmentKey? { keys.first { $0.keyFormat == "identity" } ?? keys.first }

    /// The media initialization section in effect.
    public var initSection: InitSection? {
        get { sharedInitSection?.value }
        set { sharedInitSection = newValue.map(Shared.init) }
    }

    /// `EXT-X-PROGRAM-DATE-TIME` given for this segment.
    public var programDateTime: DateTime? {
        get { sharedProgramDateTime?.value }
        set { sharedProgramDateTime = newValue.map(Shared.init) }
    }

    /// The segment's end time in seconds from the start of the playlist.
    public var endTime: Double { startTime + duration }
}

/// A byte range with its offset resolved.
public struct ResolvedByteRange: Sendable, Hashable, CustomStringConvertible {
    /// The first byte.
    public var offset: Int
    /// The number of bytes.
    public var length: Int

    /// Creates a range of `length` bytes that starts at byte `offset`. The end, `offset + length`,
    /// must fit in `Int` for ``range`` to be formed.
    public init(offset: Int, length: Int) {
        self.offset = offset
        self.length = length
    }

    /// The bytes as a range, `offset..<offset + length`.
    public var range: Range<Int> { offset..<(offset + length) }

    /// `length@offset`.
    public var description: String { "\(length)@\(offset)" }
}

extension ResolvedByteRange {
    /// A range whose end fits in `Int`, so that ``range`` can be formed.
    static func checked(offset: Int, length: Int) throws(TagError) -> ResolvedByteRange {
        guard !offset.addingReportingOverflow(length).overflow else {
            throw TagError(.byteRange, "the byte range \(length)@\(offset) ends past the largest offset, \(Int.max)")
        }
        return ResolvedByteRange(offset: offset, length: length)
    }

    /// The same for an `EXT-X-BYTERANGE` tag, whose line is not the one being read.
    static func checked(offset: Int, length: Int, line: Int) throws(PlaylistError) -> ResolvedByteRange {
        do throws(TagError) {
            return try checked(offset: offset, length: length)
        } catch {
            throw PlaylistError(error.code, line: line, error.message)
        }
    }
}

/// An encryption key in effect for a segment or init section.
public struct SegmentKey: Sendable, Hashable {
    /// The method (never `NONE`).
    public var method: KeyMethod
    /// The absolute key URI.
    public var uri: String
    /// The IV: explicit, or for AES-128 and SAMPLE-AES without one, derived from the media
    /// sequence number. Nil where none applies.
    public var iv: HexSequence?
    /// Whether ``iv`` was derived from the media sequence number rather than given.
    public var ivIsDerived: Bool
    /// The key format (`identity` when not given).
    public var keyFormat: String
    /// `KEYFORMATVERSIONS`, when given.
    public var keyFormatVersions: String?
    /// The line of the `EXT-X-KEY` tag.
    public var line: Int
}

/// A media initialization section (`EXT-X-MAP`) in effect.
public struct InitSection: Sendable, Hashable {
    /// The absolute URI of its resource.
    public var uri: String
    /// Its sub-range of that resource; nil for the whole resource.
    public var byteRange: ResolvedByteRange?
    /// The keys in effect where the `EXT-X-MAP` tag stands.
    public var keys: [SegmentKey]
    /// The line of the `EXT-X-MAP` tag.
    public var line: Int
}

/// A partial segment (`EXT-X-PART`) with its URI absolute and byte range resolved.
public struct PartialSegment: Sendable, Hashable {
    /// The absolute URI of the partial segment's resource, variables substituted.
    public var uri: String
    /// The `DURATION` in seconds.
    public var duration: Double
    /// Whether the partial segment starts with an independent frame (`INDEPENDENT=YES`).
    public var independent: Bool
    /// Its sub-range of the resource, offsets resolved; nil for the whole resource.
    public var byteRange: ResolvedByteRange?
    /// `GAP=YES`: the partial segment is unavailable and must not be loaded.
    public var isGap: Bool
    /// The 1-based line of the `EXT-X-PART` tag.
    public var line: Int
}

/// Walks the lines once, carrying the state that tags apply to the segments after them.
struct MediaResolver {
    let url: String
    /// `url` split once, for the many segment URIs resolved against it.
    let base: URIReference.Components
    let imports: [String: String]?
    var warnings: [PlaylistWarning]
    var variables = Variables(lineCount: 0)

    init(url: String, imports: [String: String]?, warnings: [PlaylistWarning]) {
        self.url = url
        self.base = URIReference.Components(url)
        self.imports = imports
        self.warnings = warnings
    }

    mutating func resolve(_ playlist: Playlist) throws(PlaylistError) -> MediaPlaylist {
        variables = Variables(lineCount: playlist.lines.count)
        var result = MediaPlaylist(url: url)
        var targetDuration: Int?
        var keys: [SegmentKey] = []
        // Boxed once per EXT-X-MAP, and shared by every segment it applies to.
        var initSection: Shared<InitSection>?
        var bitrate: Int?
        // Tags that apply to the next segment only.
        var inf: (Inf, line: Int)?
        var pendingRange: (ByteRange, line: Int)?
        var pendingDiscontinuity = false
        var pendingGap = false
        var pendingDate: DateTime?
        var pendingParts: [PartialSegment] = []
        var lastPart: PartialSegment?
        // The next segment's number; nil once the numbers are past `Int.max`.
        var nextMediaSequence: Int? = 0
        var discontinuitySequence = 0
        var startTime = 0.0
        var sawSegmentTag = false
        result.segments.reserveCapacity(playlist.lines.count / 2)

        for (index, line) in playlist.lines.enumerated() {
            let number = index + 1
            func fail(_ error: TagError) -> PlaylistError {
                PlaylistError(error.code, line: number, lineText: line.source.map(displayText), error.message)
            }
            switch line.content {
            case .blank, .comment:
                continue
            case .uri(let written):
                guard let (info, _) = inf else {
                    throw fail(TagError(.structure, "the URI line \(written) has no EXTINF before it"))
                }
                let uri: String
                do throws(TagError) { uri = try variables.substitute(written) } catch { throw fail(error) }
                guard let mediaSequence = nextMediaSequence else {
                    throw fail(TagError(.invalidValue, "the segment's media sequence number would be greater than \(Int.max)"))
                }
                let absolute = URIReference.resolve(uri, against: base)
                var range: ResolvedByteRange?
                if let (byteRange, rangeLine) = pendingRange {
                    if let offset = byteRange.offset {
                        range = try ResolvedByteRange.checked(offset: offset, length: byteRange.length, line: rangeLine)
                    } else if let previous = result.segments.last, previous.uri == absolute,
                              let previousRange = previous.byteRange {
                        range = try ResolvedByteRange.checked(offset: previousRange.range.upperBound, length: byteRange.length, line: rangeLine)
                    } else {
                        throw PlaylistError(.byteRange, line: rangeLine,
                            "EXT-X-BYTERANGE:\(byteRange) has no offset, so it must continue a byte range of the same resource in the previous segment, but \(result.segments.last.map { $0.byteRange == nil ? "the previous segment is a whole resource" : "the previous segment is a range of \($0.uri)" } ?? "there is no previous segment")")
                    }
                }
                // Share the list of keys unless an IV has to be derived for this segment.
                var segmentKeys = keys
                if keys.contains(where: { $0.iv == nil && ($0.method == .aes128 || $0.method == .sampleAES) }) {
                    let derived = HexSequence.iv(mediaSequence: mediaSequence)
                    for index in segmentKeys.indices where segmentKeys[index].iv == nil
                        && (segmentKeys[index].method == .aes128 || segmentKeys[index].method == .sampleAES) {
                        segmentKeys[index].iv = derived
                        segmentKeys[index].ivIsDerived = true
                    }
                }
                if let targetDuration, info.duration.rounded() > Double(targetDuration) {
                    warnings.append(PlaylistWarning(line: number, "the segment lasts \(Number.format(info.duration)) s, longer than the target duration of \(targetDuration) s"))
                }
                result.segments.append(Segment(
                    uri: absolute, line: number, mediaSequence: mediaSequence,
                    discontinuitySequence: discontinuitySequence, discontinuity: pendingDiscontinuity, isGap: pendingGap,
                    startTime: startTime, duration: info.duration, title: info.title, byteRange: range,
                    keys: segmentKeys, sharedInitSection: initSection, sharedProgramDateTime: pendingDate.map(Shared.init),
                    bitrate: range == nil ? bitrate : nil, parts: pendingParts))
                startTime += info.duration
                let (next, overflow) = mediaSequence.addingReportingOverflow(1)
                nextMediaSequence = overflow ? nil : next
                inf = nil
                pendingRange = nil
                pendingDiscontinuity = false
                pendingGap = false
                pendingDate = nil
                pendingParts = []
            case .tag(let tag):
                do throws(TagError) {
                    switch tag {
                    case .m3u, .unknown: break
                    case .version(let value): result.version = value
                    case .independentSegments: result.independentSegments = true
                    case .start(let start): result.start = start
                    case .define(let define):
                        try variables.define(define, playlistURL: url, imports: imports, isMultivariant: false)
                    case .targetDuration(let value):
                        targetDuration = value
                    case .mediaSequence(let value):
                        if sawSegmentTag { throw TagError(.structure, "EXT-X-MEDIA-SEQUENCE must come before the first segment") }
                        nextMediaSequence = value
                        result.mediaSequence = value
                    case .discontinuitySequence(let value):
                        if sawSegmentTag { throw TagError(.structure, "EXT-X-DISCONTINUITY-SEQUENCE must come before the first segment") }
                        discontinuitySequence = value
                        result.discontinuitySequence = value
                    case .endList: result.hasEndList = true
                    case .playlistType(let type): result.playlistType = type
                    case .iFramesOnly: result.iFramesOnly = true
                    case .partInf(let value): result.partInf = value
                    case .serverControl(let value): result.serverControl = value
                    case .inf(let value):
                        if let (_, previous) = inf {
                            throw TagError(.structure, "EXTINF follows the EXTINF on line \(previous) without a URI line between them")
                        }
                        inf = (value, number)
                        sawSegmentTag = true
                    case .byteRange(let range):
                        pendingRange = (range, number)
                    case .discontinuity:
                        pendingDiscontinuity = true
                        let (next, overflow) = discontinuitySequence.addingReportingOverflow(1)
                        if overflow {
                            throw TagError(.invalidValue, "EXT-X-DISCONTINUITY makes the discontinuity sequence number greater than \(Int.max)")
                        }
                        discontinuitySequence = next
                        sawSegmentTag = true
                    case .key(let key):
                        if key.method == .none {
                            keys = []
                        } else {
                            let resolved = try key.resolved(variables, base: url)
                            let entry = SegmentKey(method: resolved.method, uri: resolved.uri ?? "", iv: resolved.iv,
                                                   ivIsDerived: false, keyFormat: resolved.effectiveKeyFormat,
                                                   keyFormatVersions: resolved.keyFormatVersions, line: number)
                            keys.removeAll { $0.keyFormat == entry.keyFormat }
                            // Every segment carries every key in effect: bound the work and memory
                            // a hostile playlist can ask for. Real streams use a handful of formats.
                            guard keys.count < MediaPlaylist.maximumKeyFormats else {
                                throw TagError(.invalidValue, "more than \(MediaPlaylist.maximumKeyFormats) key formats would be in effect at once")
                            }
                            keys.append(entry)
                        }
                        sawSegmentTag = true
                    case .map(let map):
                        let uri = URIReference.resolve(try variables.substitute(map.uri), against: url)
                        var range: ResolvedByteRange?
                        if let byteRange = map.byteRange {
                            if byteRange.offset == nil {
                                warnings.append(PlaylistWarning(line: number, "EXT-X-MAP BYTERANGE should give an offset; 0 is assumed"))
                            }
                            range = try ResolvedByteRange.checked(offset: byteRange.offset ?? 0, length: byteRange.length)
                        }
                        if keys.contains(where: { $0.method == .aes128 && $0.iv == nil }) {
                            warnings.append(PlaylistWarning(line: number, "an EXT-X-MAP encrypted with AES-128 needs an EXT-X-KEY with an IV"))
                        }
                        initSection = Shared(InitSection(uri: uri, byteRange: range, keys: keys, line: number))
                        sawSegmentTag = true
                    case .programDateTime(let date):
                        pendingDate = date
                    case .gap:
                        pendingGap = true
                    case .bitrate(let value):
                        bitrate = value
                    case .part(let part):
                        let uri = URIReference.resolve(try variables.substitute(part.uri), against: url)
                        var range: ResolvedByteRange?
                        if let byteRange = part.byteRange {
                            if let offset = byteRange.offset {
                                range = try ResolvedByteRange.checked(offset: offset, length: byteRange.length)
                            } else if let last = lastPart, last.uri == uri, let lastRange = last.byteRange {
                                range = try ResolvedByteRange.checked(offset: lastRange.range.upperBound, length: byteRange.length)
                            } else {
                                throw TagError(.byteRange, "EXT-X-PART BYTERANGE=\"\(byteRange)\" has no offset, so it must continue a range of the same resource in the previous partial segment")
                            }
                        }
                        let partial = PartialSegment(uri: uri, duration: part.duration, independent: part.independent,
                                                     byteRange: range, isGap: part.gap, line: number)
                        pendingParts.append(partial)
                        lastPart = partial
                    case .dateRange(let range):
                        result.dateRanges.append(try range.resolved(variables))
                    case .skip(let skip):
                        result.skip = skip
                        let next = nextMediaSequence.map { $0.addingReportingOverflow(skip.skippedSegments) }
                        guard let next, !next.overflow else {
                            throw TagError(.invalidValue, "EXT-X-SKIP:SKIPPED-SEGMENTS=\(skip.skippedSegments) makes the next media sequence number greater than \(Int.max)")
                        }
                        nextMediaSequence = next.partialValue
                    case .preloadHint(let hint):
                        result.preloadHints.append(try hint.resolved(variables, base: url))
                    case .renditionReport(let report):
                        result.renditionReports.append(try report.resolved(variables, base: url))
                    case .media, .streamInf, .iFrameStreamInf, .sessionData, .sessionKey, .contentSteering:
                        throw TagError(.mixedPlaylist, "\(tag.name) belongs in a multivariant playlist, not a media playlist")
                    }
                } catch {
                    throw fail(error)
                }
            }
        }
        if let (_, line) = inf {
            throw PlaylistError(.structure, line: line, "this EXTINF has no URI line after it")
        }
        guard let targetDuration else {
            throw PlaylistError(.structure, "the media playlist has no EXT-X-TARGETDURATION, which RFC 8216bis requires")
        }
        result.targetDuration = targetDuration
        result.trailingParts = pendingParts
        result.variables = variables.values
        result.warnings = warnings.sorted { $0.line < $1.line }
        return result
    }
}
