/// The attributes of `EXT-X-MEDIA`: one rendition — an alternative audio, video, subtitle or
/// closed-caption track — in a group of renditions (RFC 8216bis section 4.4.6.1).
public struct Rendition: Sendable, Hashable {
    /// Audio, video, subtitles or closed captions. Required.
    public var type: MediaType
    /// The rendition's media playlist. Absent for closed captions, and for an audio or video
    /// rendition carried in the variant stream itself.
    public var uri: String?
    /// The group the rendition belongs to. Required.
    public var groupID: String
    /// The primary language, as a BCP 47 tag (e.g. `en`, `pt-BR`).
    public var language: String?
    /// An associated language (e.g. the spoken language of a written subtitle track).
    public var assocLanguage: String?
    /// A human-readable description, unique within its group. Required.
    public var name: String
    /// A stable identifier for the rendition.
    public var stableRenditionID: String?
    /// Whether a client should play this rendition when the user has expressed no preference.
    public var isDefault: Bool
    /// Whether a client may choose this rendition on its own (for example by system language).
    public var autoselect: Bool
    /// Whether subtitles must be shown (forced narrative), whatever the user's preference.
    public var forced: Bool
    /// Which closed-caption channel within the media: `CC1`…`CC4`, `SERVICE1`…`SERVICE63`.
    public var instreamID: String?
    /// Audio bit depth.
    public var bitDepth: Int?
    /// Audio sample rate in Hz.
    public var sampleRate: Int?
    /// Uniform Type Identifiers of accessibility characteristics, comma-separated
    /// (e.g. `public.accessibility.describes-video`).
    public var characteristics: String?
    /// Audio channel information, e.g. `2`, `6/JOC`, `16/-/BINAURAL`.
    public var channels: String?
    /// Attributes not listed above.
    public var otherAttributes: [Attribute]

    /// Creates the attributes of an `EXT-X-MEDIA` tag.
    ///
    /// Unlike parsing, this checks nothing: a ``MediaType/subtitles`` rendition needs a `uri`, a
    /// ``MediaType/closedCaptions`` one needs an `instreamID`, and `isDefault` requires
    /// `autoselect`.
    public init(
        type: MediaType, uri: String? = nil, groupID: String, language: String? = nil,
        assocLanguage: String? = nil, name: String, stableRenditionID: String? = nil,
        isDefault: Bool = false, autoselect: Bool = false, forced: Bool = false, instreamID: String? = nil,
        bitDepth: Int? = nil, sampleRate: Int? = nil, characteristics: String? = nil,
        channels: String? = nil, otherAttributes: [Attribute] = []
    ) {
        self.type = type
        self.uri = uri
        self.groupID = groupID
        self.language = language
        self.assocLanguage = assocLanguage
        self.name = name
        self.stableRenditionID = stableRenditionID
        self.isDefault = isDefault
        self.autoselect = autoselect
        self.forced = forced
        self.instreamID = instreamID
        self.bitDepth = bitDepth
        self.sampleRate = sampleRate
        self.characteristics = characteristics
        self.channels = channels
        self.otherAttributes = otherAttributes
    }

    /// The number of audio channels: the first field of ``channels``, e.g. 6 for `"6/JOC"`.
    public var channelCount: Int? {
        guard let channels, let first = channels.split(separator: "/").first else { return nil }
        return Int(first)
    }

    init(reading reader: inout AttributeReader) throws(TagError) {
        guard let type = try reader.enumeration("TYPE", MediaType.self) else {
            throw TagError(.missingValue, "EXT-X-MEDIA lacks the required attribute TYPE")
        }
        self.type = type
        uri = try reader.uri()
        groupID = try reader.string(required: "GROUP-ID")
        language = try reader.string("LANGUAGE")
        assocLanguage = try reader.string("ASSOC-LANGUAGE")
        name = try reader.string(required: "NAME")
        stableRenditionID = try reader.string("STABLE-RENDITION-ID")
        isDefault = try reader.yesNo("DEFAULT") ?? false
        autoselect = try reader.yesNo("AUTOSELECT") ?? false
        forced = try reader.yesNo("FORCED") ?? false
        instreamID = try reader.string("INSTREAM-ID")
        bitDepth = try reader.integer("BIT-DEPTH")
        sampleRate = try reader.integer("SAMPLE-RATE")
        characteristics = try reader.string("CHARACTERISTICS")
        channels = try reader.string("CHANNELS")
        otherAttributes = reader.rest()
        if isDefault && !autoselect && reader.hasAttribute("AUTOSELECT") {
            try reader.recover("default-autoselect", .structure, "EXT-X-MEDIA \"\(name)\": DEFAULT=YES requires AUTOSELECT=YES")
        }
        switch type {
        case .subtitles where uri == nil:
            throw TagError(.missingValue, "EXT-X-MEDIA with TYPE=SUBTITLES lacks the required attribute URI")
        case .closedCaptions where instreamID == nil:
            throw TagError(.missingValue, "EXT-X-MEDIA with TYPE=CLOSED-CAPTIONS lacks the required attribute INSTREAM-ID")
        default: break
        }
    }

    func write(to writer: inout AttributeWriter) throws(PlaylistError) {
        writer.token("TYPE", type.rawValue)
        try writer.string("GROUP-ID", groupID)
        try writer.string("NAME", name)
        try writer.string("LANGUAGE", language)
        try writer.string("ASSOC-LANGUAGE", assocLanguage)
        try writer.string("STABLE-RENDITION-ID", stableRenditionID)
        writer.flag("DEFAULT", isDefault)
        writer.flag("AUTOSELECT", autoselect)
        writer.flag("FORCED", forced)
        try writer.string("INSTREAM-ID", instreamID)
        writer.integer("BIT-DEPTH", bitDepth)
        writer.integer("SAMPLE-RATE", sampleRate)
        try writer.string("CHARACTERISTICS", characteristics)
        try writer.string("CHANNELS", channels)
        try writer.string("URI", uri)
        try writer.other(otherAttributes)
    }
}

/// The attributes of `EXT-X-SESSION-DATA` (RFC 8216bis section 4.4.6.4).
public struct SessionData: Sendable, Hashable {
    /// The data's identifier, in reverse DNS notation (e.g. `com.example.title`). Required.
    public var dataID: String
    /// The data itself. Exactly one of `value` and `uri` is present.
    public var value: String?
    /// A resource holding the data.
    public var uri: String?
    /// How the resource at `uri` is encoded (default JSON).
    public var format: SessionDataFormat?
    /// The language of `value`, as a BCP 47 tag.
    public var language: String?
    /// Attributes not listed above.
    public var otherAttributes: [Attribute]

    /// Creates the attributes of an `EXT-X-SESSION-DATA` tag. Give exactly one of `value` and
    /// `uri`; unlike parsing, this does not check it.
    public init(dataID: String, value: String? = nil, uri: String? = nil, format: SessionDataFormat? = nil,
                language: String? = nil, otherAttributes: [Attribute] = []) {
        self.dataID = dataID
        self.value = value
        self.uri = uri
        self.format = format
        self.language = language
        self.otherAttributes = otherAttributes
    }

    init(reading reader: inout AttributeReader) throws(TagError) {
        dataID = try reader.string(required: "DATA-ID")
        value = try reader.string("VALUE")
        uri = try reader.uri()
        format = try reader.enumeration("FORMAT", SessionDataFormat.self)
        language = try reader.string("LANGUAGE")
        otherAttributes = reader.rest()
        if (value == nil) == (uri == nil) {
            throw TagError(.invalidValue, "EXT-X-SESSION-DATA must have exactly one of VALUE and URI")
        }
    }

    func write(to writer: inout AttributeWriter) throws(PlaylistError) {
        try writer.string("DATA-ID", dataID)
        try writer.string("VALUE", value)
        try writer.string("URI", uri)
        writer.token("FORMAT", format?.rawValue)
        try writer.string("LANGUAGE", language)
        try writer.other(otherAttributes)
    }
}

/// The attributes of `EXT-X-CONTENT-STEERING` (RFC 8216bis section 4.4.6.6).
public struct ContentSteering: Sendable, Hashable {
    /// The steering manifest's URI. Required.
    public var serverURI: String
    /// The pathway to start with.
    public var pathwayID: String?
    /// Attributes not listed above.
    public var otherAttributes: [Attribute]

    /// Creates the attributes of an `EXT-X-CONTENT-STEERING` tag.
    public init(serverURI: String, pathwayID: String? = nil, otherAttributes: [Attribute] = []) {
        self.serverURI = serverURI
        self.pathwayID = pathwayID
        self.otherAttributes = otherAttributes
    }

    init(reading reader: inout AttributeReader) throws(TagError) {
        serverURI = try reader.string(required: "SERVER-URI")
        pathwayID = try reader.string("PATHWAY-ID")
        otherAttributes = reader.rest()
    }

    func write(to writer: inout AttributeWriter) throws(PlaylistError) {
        try writer.string("SERVER-URI", serverURI)
        try writer.string("PATHWAY-ID", pathwayID)
        try writer.other(otherAttributes)
    }
}
