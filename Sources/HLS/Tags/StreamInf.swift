/// The attributes of `EXT-X-STREAM-INF` (a variant stream) and `EXT-X-I-FRAME-STREAM-INF`
/// (an I-frame variant), RFC 8216bis sections 4.4.6.2 and 4.4.6.3.
public struct StreamInf: Sendable, Hashable {
    /// Peak segment bitrate in bits per second. Required by RFC 8216bis; nil when a playlist
    /// read leniently leaves it out (the variant is then ordered last when choosing).
    public var bandwidth: Int?
    /// Average segment bitrate in bits per second.
    public var averageBandwidth: Int?
    /// The author's preference among variants: higher is better.
    public var score: Double?
    /// Codec strings (RFC 6381), comma-separated, e.g. `avc1.64001f,mp4a.40.2`.
    public var codecs: String?
    /// Supplemental codec strings with their compatibility brands, e.g. `dvh1.08.07/db4h`.
    public var supplementalCodecs: String?
    /// The optimal pixel resolution of the video.
    public var resolution: Resolution?
    /// The maximum frame rate, in frames per second.
    public var frameRate: Double?
    /// The HDCP level the output must have.
    public var hdcpLevel: HDCPLevel?
    /// Allowed content protection configurations per key format, e.g.
    /// `com.example.drm1:SMART-TV/PC`.
    public var allowedCPC: String?
    /// SDR, HLG or PQ.
    public var videoRange: VideoRange?
    /// Required video layout, e.g. `CH-STEREO` for stereoscopic video.
    public var requiredVideoLayout: String?
    /// A stable identifier for the variant across playlist reloads and pathways.
    public var stableVariantID: String?
    /// The `GROUP-ID` of the audio renditions to use with this variant.
    public var audio: String?
    /// The `GROUP-ID` of the video renditions to use with this variant.
    public var video: String?
    /// The `GROUP-ID` of the subtitle renditions to use with this variant.
    public var subtitles: String?
    /// The closed-caption renditions to use with this variant.
    public var closedCaptions: ClosedCaptions?
    /// The content steering pathway this variant belongs to.
    public var pathwayID: String?
    /// The I-frame playlist's URI (`EXT-X-I-FRAME-STREAM-INF` only; a variant's URI is the line
    /// after its tag).
    public var uri: String?
    /// Attributes not listed above (client attributes and legacy ones such as `PROGRAM-ID`).
    public var otherAttributes: [Attribute]

    /// Creates the attributes of an `EXT-X-STREAM-INF` or `EXT-X-I-FRAME-STREAM-INF` tag;
    /// `bandwidth` and `averageBandwidth` are in bits per second.
    ///
    /// Give `uri` for an I-frame variant only, and `closedCaptions` for a variant stream only:
    /// writing either in the other tag throws ``PlaylistError`` with code
    /// ``PlaylistError/Code/unwritable``.
    public init(
        bandwidth: Int?, averageBandwidth: Int? = nil, score: Double? = nil, codecs: String? = nil,
        supplementalCodecs: String? = nil, resolution: Resolution? = nil, frameRate: Double? = nil,
        hdcpLevel: HDCPLevel? = nil, allowedCPC: String? = nil, videoRange: VideoRange? = nil,
        requiredVideoLayout: String? = nil, stableVariantID: String? = nil, audio: String? = nil,
        video: String? = nil, subtitles: String? = nil, closedCaptions: ClosedCaptions? = nil,
        pathwayID: String? = nil, uri: String? = nil, otherAttributes: [Attribute] = []
    ) {
        self.bandwidth = bandwidth
        self.averageBandwidth = averageBandwidth
        self.score = score
        self.codecs = codecs
        self.supplementalCodecs = supplementalCodecs
        self.resolution = resolution
        self.frameRate = frameRate
        self.hdcpLevel = hdcpLevel
        self.allowedCPC = allowedCPC
        self.videoRange = videoRange
        self.requiredVideoLayout = requiredVideoLayout
        self.stableVariantID = stableVariantID
        self.audio = audio
        self.video = video
        self.subtitles = subtitles
        self.closedCaptions = closedCaptions
        self.pathwayID = pathwayID
        self.uri = uri
        self.otherAttributes = otherAttributes
    }

    /// The `CLOSED-CAPTIONS` attribute: a group of closed-caption renditions, or `NONE`.
    public enum ClosedCaptions: Sendable, Hashable {
        /// `CLOSED-CAPTIONS=NONE`: the variant has no closed captions.
        case none
        /// The `GROUP-ID` of the closed-caption renditions.
        case group(String)
    }

    /// Legacy attributes accepted without a warning.
    static let legacyAttributes: Set<String> = ["PROGRAM-ID"]

    init(reading reader: inout AttributeReader, iFrame: Bool) throws(TagError) {
        bandwidth = try reader.integer("BANDWIDTH")
        if bandwidth == nil {
            try reader.recover("no-bandwidth", .missingValue,
                               "\(reader.tag) lacks the required attribute BANDWIDTH; the bandwidth is unknown (ordered last when choosing)")
        }
        averageBandwidth = try reader.integer("AVERAGE-BANDWIDTH")
        score = try reader.float("SCORE")
        codecs = try reader.string("CODECS")
        supplementalCodecs = try reader.string("SUPPLEMENTAL-CODECS")
        resolution = try reader.resolution("RESOLUTION")
        frameRate = try reader.float("FRAME-RATE")
        hdcpLevel = try reader.enumerated("HDCP-LEVEL").map(HDCPLevel.init(rawValue:))
        allowedCPC = try reader.string("ALLOWED-CPC")
        videoRange = try reader.enumerated("VIDEO-RANGE").map(VideoRange.init(rawValue:))
        requiredVideoLayout = try reader.string("REQ-VIDEO-LAYOUT")
        stableVariantID = try reader.string("STABLE-VARIANT-ID")
        audio = try reader.string("AUDIO")
        video = try reader.string("VIDEO")
        subtitles = try reader.string("SUBTITLES")
        closedCaptions = nil
        pathwayID = try reader.string("PATHWAY-ID")
        if iFrame {
            uri = try reader.uri()
            if uri == nil { throw TagError(.missingValue, "\(reader.tag) lacks the required attribute URI") }
        } else {
            uri = nil
            closedCaptions = try Self.readClosedCaptions(&reader)
        }
        otherAttributes = reader.rest(quiet: Self.legacyAttributes)
    }

    private static func readClosedCaptions(_ reader: inout AttributeReader) throws(TagError) -> ClosedCaptions? {
        // A quoted group id, or the enumerated string NONE.
        switch reader.value("CLOSED-CAPTIONS") {
        case nil: return nil
        case .quoted(let group)?: return .group(group)
        case .token(let token)?:
            if token == "NONE" { return ClosedCaptions.none }
            if token.uppercased() == "NONE" {
                try reader.recover("lower-case", .invalidValue, "\(reader.tag): CLOSED-CAPTIONS=\(token) is written in lower case; read as NONE")
                return ClosedCaptions.none
            }
            try reader.recover("bare-string", .invalidValue,
                               "\(reader.tag): CLOSED-CAPTIONS=\(token) is neither NONE nor quoted; read as the group \"\(token)\"")
            return .group(token)
        }
    }

    func write(to writer: inout AttributeWriter, iFrame: Bool) throws(PlaylistError) {
        guard let bandwidth else {
            throw PlaylistError(.unwritable, "\(iFrame ? "EXT-X-I-FRAME-STREAM-INF" : "EXT-X-STREAM-INF") needs a BANDWIDTH to be written")
        }
        writer.integer("BANDWIDTH", bandwidth)
        writer.integer("AVERAGE-BANDWIDTH", averageBandwidth)
        try writer.float("SCORE", score)
        try writer.string("CODECS", codecs)
        try writer.string("SUPPLEMENTAL-CODECS", supplementalCodecs)
        writer.token("RESOLUTION", resolution?.description)
        try writer.float("FRAME-RATE", frameRate)
        writer.token("HDCP-LEVEL", hdcpLevel?.rawValue)
        try writer.string("ALLOWED-CPC", allowedCPC)
        writer.token("VIDEO-RANGE", videoRange?.rawValue)
        try writer.string("REQ-VIDEO-LAYOUT", requiredVideoLayout)
        try writer.string("STABLE-VARIANT-ID", stableVariantID)
        try writer.string("AUDIO", audio)
        try writer.string("VIDEO", video)
        try writer.string("SUBTITLES", subtitles)
        try writer.string("PATHWAY-ID", pathwayID)
        // Each tag lacks one of the attributes the struct holds; refuse rather than drop it.
        if iFrame {
            if closedCaptions != nil {
                throw PlaylistError(.unwritable, "EXT-X-I-FRAME-STREAM-INF has no CLOSED-CAPTIONS attribute")
            }
            try writer.string("URI", uri)
        } else {
            if uri != nil {
                throw PlaylistError(.unwritable, "EXT-X-STREAM-INF has no URI attribute: a variant's URI is the line after the tag")
            }
            switch closedCaptions {
            case .none?: writer.token("CLOSED-CAPTIONS", "NONE")
            case .group(let group)?: try writer.string("CLOSED-CAPTIONS", group)
            case nil: break
            }
        }
        try writer.other(otherAttributes)
    }
}
