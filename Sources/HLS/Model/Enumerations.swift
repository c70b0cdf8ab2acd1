/// `EXT-X-PLAYLIST-TYPE`: whether a media playlist is an event (segments only added) or
/// video on demand (never changes).
public enum PlaylistType: String, Sendable, Hashable, CaseIterable {
    case event = "EVENT"
    case vod = "VOD"
}

/// The `TYPE` of an `EXT-X-MEDIA` rendition.
public enum MediaType: String, Sendable, Hashable, CaseIterable {
    case audio = "AUDIO"
    case video = "VIDEO"
    case subtitles = "SUBTITLES"
    case closedCaptions = "CLOSED-CAPTIONS"
}

/// The `FORMAT` of `EXT-X-SESSION-DATA`.
public enum SessionDataFormat: String, Sendable, Hashable, CaseIterable {
    case json = "JSON"
    case raw = "RAW"
}

/// An enumerated-string value that later versions of the specification may extend. Known values
/// are static members; unknown ones are kept as written.
public protocol OpenEnumeration: RawRepresentable, Sendable, Hashable, CustomStringConvertible
where RawValue == String {
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
    public static let sdr = VideoRange(rawValue: "SDR")
    public static let hlg = VideoRange(rawValue: "HLG")
    public static let pq = VideoRange(rawValue: "PQ")

    /// Whether this is a high-dynamic-range transfer function (HLG or PQ).
    public var isHDR: Bool { self == .hlg || self == .pq }
}

/// The `HDCP-LEVEL` a variant stream requires.
public struct HDCPLevel: OpenEnumeration {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let type0 = HDCPLevel(rawValue: "TYPE-0")
    public static let type1 = HDCPLevel(rawValue: "TYPE-1")
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
