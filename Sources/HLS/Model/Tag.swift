/// A tag of RFC 8216 and its successor rfc8216bis (protocol version up to 12), with typed values.
///
/// Tags Carryon does not know are kept as ``unknown(name:value:)`` and written back verbatim, as
/// the specification asks clients to ignore them.
public enum Tag: Sendable, Hashable {
    // MARK: Basic tags (4.4.1)
    /// `#EXTM3U`: the first line of every playlist.
    case m3u
    /// `#EXT-X-VERSION`: the protocol compatibility version.
    case version(Int)

    // MARK: Media or multivariant playlist tags (4.4.2)
    /// `#EXT-X-INDEPENDENT-SEGMENTS`: every sample can be decoded without other segments.
    case independentSegments
    /// `#EXT-X-START`: the preferred point at which to start playing.
    case start(Start)
    /// `#EXT-X-DEFINE`: a variable definition.
    case define(Define)

    // MARK: Media playlist tags (4.4.3)
    /// `#EXT-X-TARGETDURATION`: the maximum segment duration, in seconds.
    case targetDuration(Int)
    /// `#EXT-X-MEDIA-SEQUENCE`: the media sequence number of the first segment.
    case mediaSequence(Int)
    /// `#EXT-X-DISCONTINUITY-SEQUENCE`: the discontinuity sequence number of the first segment.
    case discontinuitySequence(Int)
    /// `#EXT-X-ENDLIST`: no more segments will be added.
    case endList
    /// `#EXT-X-PLAYLIST-TYPE`: `EVENT` or `VOD`.
    case playlistType(PlaylistType)
    /// `#EXT-X-I-FRAMES-ONLY`: each segment is a single I-frame.
    case iFramesOnly
    /// `#EXT-X-PART-INF`: low-latency partial segment information.
    case partInf(PartInf)
    /// `#EXT-X-SERVER-CONTROL`: delivery directives the server supports.
    indirect case serverControl(ServerControl)

    // MARK: Media segment tags (4.4.4)
    /// `#EXTINF`: the duration (and optional title) of the next segment.
    case inf(Inf)
    /// `#EXT-X-BYTERANGE`: the next segment is a sub-range of its resource.
    case byteRange(ByteRange)
    /// `#EXT-X-DISCONTINUITY`: a discontinuity between the segments around it.
    case discontinuity
    /// `#EXT-X-KEY`: how the following segments are encrypted.
    indirect case key(Key)
    /// `#EXT-X-MAP`: the media initialization section of the following segments.
    indirect case map(Map)
    /// `#EXT-X-PROGRAM-DATE-TIME`: the wall-clock time of the first sample of the next segment.
    case programDateTime(DateTime)
    /// `#EXT-X-GAP`: the next segment is missing and must not be loaded.
    case gap
    /// `#EXT-X-BITRATE`: the approximate bitrate of the following segments, in kbit/s.
    case bitrate(Int)
    /// `#EXT-X-PART`: a partial segment (low-latency HLS).
    indirect case part(Part)

    // MARK: Media metadata tags (4.4.5)
    /// `#EXT-X-DATERANGE`: a range of time with attributes (ads, chapters, SCTE-35).
    indirect case dateRange(DateRange)
    /// `#EXT-X-SKIP`: segments skipped in a playlist delta update.
    indirect case skip(Skip)
    /// `#EXT-X-PRELOAD-HINT`: a resource the client is likely to need soon.
    indirect case preloadHint(PreloadHint)
    /// `#EXT-X-RENDITION-REPORT`: the last segment and part of another rendition.
    indirect case renditionReport(RenditionReport)

    // MARK: Multivariant playlist tags (4.4.6)
    /// `#EXT-X-MEDIA`: a rendition (alternative audio, video, subtitles or closed captions).
    indirect case media(Rendition)
    /// `#EXT-X-STREAM-INF`: a variant stream; the next URI line is its media playlist.
    indirect case streamInf(StreamInf)
    /// `#EXT-X-I-FRAME-STREAM-INF`: an I-frame variant with its own `URI` attribute.
    indirect case iFrameStreamInf(StreamInf)
    /// `#EXT-X-SESSION-DATA`: arbitrary session data.
    indirect case sessionData(SessionData)
    /// `#EXT-X-SESSION-KEY`: a key that media playlists will use, for preloading.
    indirect case sessionKey(Key)
    /// `#EXT-X-CONTENT-STEERING`: the content steering server.
    indirect case contentSteering(ContentSteering)

    /// A tag (`#EXT…`) this parser does not know: its name without `#`, and the text after the
    /// colon, if any. Written back as read.
    case unknown(name: String, value: String?)
}

extension Tag {
    /// Where a tag may appear (RFC 8216bis section 4.4).
    public enum Scope: Sendable {
        /// In either kind of playlist.
        case any
        /// Only in media playlists.
        case media
        /// Only in multivariant playlists.
        case multivariant
    }

    /// Where this tag may appear.
    public var scope: Scope {
        switch self {
        case .m3u, .version, .independentSegments, .start, .define, .unknown: .any
        case .media, .streamInf, .iFrameStreamInf, .sessionData, .sessionKey, .contentSteering:
            .multivariant
        default: .media
        }
    }

    /// Whether this is a tag the parser does not know.
    public var isUnknown: Bool {
        if case .unknown = self { return true }
        return false
    }

    /// Whether this is a tag of a name RFC 8216bis defines that a lenient parse could not read
    /// and ignored (`#EXT-X-VERSION:` with no value, `#EXT-X-PLAYLIST-TYPE:LIVE`), kept as
    /// ``unknown(name:value:)`` so that no line is lost.
    public var isIgnoredKnownTag: Bool {
        if case .unknown(let name, _) = self { return TagName(rawValue: name) != nil }
        return false
    }

    /// The tag's name as written, without the leading `#`, e.g. `EXT-X-STREAM-INF`.
    public var name: String {
        switch self {
        case .unknown(let name, _): name
        default: knownName.rawValue
        }
    }

    var knownName: TagName {
        switch self {
        case .m3u: .m3u
        case .version: .version
        case .independentSegments: .independentSegments
        case .start: .start
        case .define: .define
        case .targetDuration: .targetDuration
        case .mediaSequence: .mediaSequence
        case .discontinuitySequence: .discontinuitySequence
        case .endList: .endList
        case .playlistType: .playlistType
        case .iFramesOnly: .iFramesOnly
        case .partInf: .partInf
        case .serverControl: .serverControl
        case .inf: .inf
        case .byteRange: .byteRange
        case .discontinuity: .discontinuity
        case .key: .key
        case .map: .map
        case .programDateTime: .programDateTime
        case .gap: .gap
        case .bitrate: .bitrate
        case .part: .part
        case .dateRange: .dateRange
        case .skip: .skip
        case .preloadHint: .preloadHint
        case .renditionReport: .renditionReport
        case .media: .media
        case .streamInf: .streamInf
        case .iFrameStreamInf: .iFrameStreamInf
        case .sessionData: .sessionData
        case .sessionKey: .sessionKey
        case .contentSteering: .contentSteering
        case .unknown: preconditionFailure("unknown tags have no known name")
        }
    }
}

/// The names of the tags Carryon knows, as written after `#`.
enum TagName: String, CaseIterable, Sendable {
    case m3u = "EXTM3U"
    case version = "EXT-X-VERSION"
    case independentSegments = "EXT-X-INDEPENDENT-SEGMENTS"
    case start = "EXT-X-START"
    case define = "EXT-X-DEFINE"
    case targetDuration = "EXT-X-TARGETDURATION"
    case mediaSequence = "EXT-X-MEDIA-SEQUENCE"
    case discontinuitySequence = "EXT-X-DISCONTINUITY-SEQUENCE"
    case endList = "EXT-X-ENDLIST"
    case playlistType = "EXT-X-PLAYLIST-TYPE"
    case iFramesOnly = "EXT-X-I-FRAMES-ONLY"
    case partInf = "EXT-X-PART-INF"
    case serverControl = "EXT-X-SERVER-CONTROL"
    case inf = "EXTINF"
    case byteRange = "EXT-X-BYTERANGE"
    case discontinuity = "EXT-X-DISCONTINUITY"
    case key = "EXT-X-KEY"
    case map = "EXT-X-MAP"
    case programDateTime = "EXT-X-PROGRAM-DATE-TIME"
    case gap = "EXT-X-GAP"
    case bitrate = "EXT-X-BITRATE"
    case part = "EXT-X-PART"
    case dateRange = "EXT-X-DATERANGE"
    case skip = "EXT-X-SKIP"
    case preloadHint = "EXT-X-PRELOAD-HINT"
    case renditionReport = "EXT-X-RENDITION-REPORT"
    case media = "EXT-X-MEDIA"
    case streamInf = "EXT-X-STREAM-INF"
    case iFrameStreamInf = "EXT-X-I-FRAME-STREAM-INF"
    case sessionData = "EXT-X-SESSION-DATA"
    case sessionKey = "EXT-X-SESSION-KEY"
    case contentSteering = "EXT-X-CONTENT-STEERING"
}
