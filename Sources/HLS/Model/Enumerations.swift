/// `EXT-X-PLAYLIST-TYPE`: whether a media playlist is an event (segments only added) or
/// video on demand (never changes).
public enum PlaylistType: String, Sendable, Hashable, CaseIterable {
    /// `EVENT`: media segments may only be added to the end of the playlist, never removed or
    /// changed.
    case event = "EVENT"
    /// `VOD`: video on demand; the playlist cannot change.
    case vod = "VOD"
}

/// The `TYPE` of an `EXT-X-MEDIA` rendition.
public enum MediaType: String, Sendable, Hashable, CaseIterable {
    /// `AUDIO`: an alternative audio rendition, such as another language or a commentary.
    case audio = "AUDIO"
    /// `VIDEO`: an alternative video rendition, such as another camera angle.
    case video = "VIDEO"
    /// `SUBTITLES`: a subtitle rendition, with a media playlist of its own (`URI` is required).
    case subtitles = "SUBTITLES"
    /// `CLOSED-CAPTIONS`: captions carried inside the video of the variant stream (CEA-608 or
    /// CEA-708), picked out by `INSTREAM-ID`; such a rendition has no `URI`.
    case closedCaptions = "CLOSED-CAPTIONS"
}

/// The `FORMAT` of `EXT-X-SESSION-DATA`.
public enum SessionDataFormat: String, Sendable, Hashable, CaseIterable {
    /// `JSON` (the default): the resource at `URI` is a JSON document.
    case json = "JSON"
    /// `RAW`: the resource at `URI` is uninterpreted bytes.
    case raw = "RAW"
}

/// An enumerated-string value that later versions of the specification may extend. Known values
/// are static members; unknown ones are kept as written.
public protocol OpenEnumeration: RawRepresentable, Sendable, Hashable, CustomStringConvertible
where RawValue == String {
    /// The value written as `rawValue`, known to this version of the specification or not.
    init(rawValue: String)
}

extension OpenEnumeration {
    public var description: String { rawValue }
}

/// The `METHOD` of `EXT-X-KEY` and `EXT-X-SESSION-KEY`.
public struct KeyMethod: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Segments are not encrypted.
    public static let none = KeyMethod(rawValue: "NONE")
    /// Whole segments are encrypted with AES-128 in CBC mode with PKCS7 padding.
    public static let aes128 = KeyMethod(rawValue: "AES-128")
    /// Media samples are encrypted (MPEG-2 TS, AAC, AC-3 and fMP4 `cbcs`).
    public static let sampleAES = KeyMethod(rawValue: "SAMPLE-AES")
    /// fMP4 samples are encrypted with the `cenc` scheme.
    public static let sampleAESCTR = KeyMethod(rawValue: "SAMPLE-AES-CTR")
}

/// The `VIDEO-RANGE` of a variant stream.
public struct VideoRange: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// `SDR`: standard dynamic range, with an SDR transfer function such as that of BT.709.
    public static let sdr = VideoRange(rawValue: "SDR")
    /// `HLG`: high dynamic range with the hybrid log-gamma transfer function (ITU-R BT.2100).
    public static let hlg = VideoRange(rawValue: "HLG")
    /// `PQ`: high dynamic range with the perceptual quantizer transfer function (SMPTE ST 2084),
    /// as in HDR10.
    public static let pq = VideoRange(rawValue: "PQ")

    /// Whether this is a high-dynamic-range transfer function (HLG or PQ).
    public var isHDR: Bool { self == .hlg || self == .pq }
}

/// The `HDCP-LEVEL` a variant stream requires.
public struct HDCPLevel: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// `TYPE-0`: the variant may fail to play unless the output is protected by HDCP Type 0 or
    /// equivalent.
    public static let type0 = HDCPLevel(rawValue: "TYPE-0")
    /// `TYPE-1`: the variant may fail to play unless the output is protected by HDCP Type 1 or
    /// equivalent.
    public static let type1 = HDCPLevel(rawValue: "TYPE-1")
    /// `NONE`: the content needs no output copy protection.
    public static let none = HDCPLevel(rawValue: "NONE")
}

/// The `TYPE` of `EXT-X-PRELOAD-HINT`.
public struct PreloadHintType: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A partial segment.
    public static let part = PreloadHintType(rawValue: "PART")
    /// A media initialization section.
    public static let map = PreloadHintType(rawValue: "MAP")
}
