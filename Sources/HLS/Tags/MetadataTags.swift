/// The attributes of `EXT-X-DATERANGE`: a range of time with metadata — an ad break, a
/// chapter, SCTE-35 signalling (RFC 8216bis section 4.4.5.1).
public struct DateRange: Sendable, Hashable {
    /// Identifies the range within the playlist. Required.
    public var id: String
    /// A client-defined class the range belongs to.
    public var `class`: String?
    /// When the range starts.
    public var startDate: DateTime?
    /// Trigger points: `PRE`, `POST`, `ONCE`, comma-separated.
    public var cue: String?
    /// When the range ends.
    public var endDate: DateTime?
    /// The range's duration in seconds.
    public var duration: Double?
    /// The expected duration, when the actual one is not yet known.
    public var plannedDuration: Double?
    /// SCTE-35 splice_info_section for a command other than splice out/in.
    public var scte35Command: HexSequence?
    /// SCTE-35 splice out.
    public var scte35Out: HexSequence?
    /// SCTE-35 splice in.
    public var scte35In: HexSequence?
    /// The range ends where the next range of the same class starts.
    public var endOnNext: Bool
    /// Client attributes (`X-…`) and any other attributes, in order.
    public var otherAttributes: [Attribute]

    /// Creates the attributes of an `EXT-X-DATERANGE` tag; durations are in seconds.
    ///
    /// Unlike parsing, this checks nothing: `endOnNext` requires a `class`, and `endDate` must not
    /// be before `startDate`.
    public init(id: String, class: String? = nil, startDate: DateTime? = nil, cue: String? = nil,
                endDate: DateTime? = nil, duration: Double? = nil, plannedDuration: Double? = nil,
                scte35Command: HexSequence? = nil, scte35Out: HexSequence? = nil, scte35In: HexSequence? = nil,
                endOnNext: Bool = false, otherAttributes: [Attribute] = []) {
        self.id = id
        self.class = `class`
        self.startDate = startDate
        self.cue = cue
        self.endDate = endDate
        self.duration = duration
        self.plannedDuration = plannedDuration
        self.scte35Command = scte35Command
        self.scte35Out = scte35Out
        self.scte35In = scte35In
        self.endOnNext = endOnNext
        self.otherAttributes = otherAttributes
    }

    /// The client attributes (`X-…`).
    public var clientAttributes: [Attribute] { otherAttributes.filter { $0.name.hasPrefix("X-") } }

    init(reading reader: inout AttributeReader) throws(TagError) {
        id = try reader.string(required: "ID")
        `class` = try reader.string("CLASS")
        startDate = try reader.dateTime("START-DATE")
        cue = try reader.string("CUE")
        endDate = try reader.dateTime("END-DATE")
        duration = try reader.float("DURATION")
        plannedDuration = try reader.float("PLANNED-DURATION")
        scte35Command = try reader.hex("SCTE35-CMD", keepingMalformed: true)
        scte35Out = try reader.hex("SCTE35-OUT", keepingMalformed: true)
        scte35In = try reader.hex("SCTE35-IN", keepingMalformed: true)
        endOnNext = try reader.yesNo("END-ON-NEXT") ?? false
        otherAttributes = reader.rest()
        if endOnNext, `class` == nil {
            throw TagError(.missingValue, "EXT-X-DATERANGE with END-ON-NEXT=YES lacks the required attribute CLASS")
        }
        if let startDate, let endDate, endDate < startDate {
            throw TagError(.invalidValue, "EXT-X-DATERANGE \"\(id)\": END-DATE is before START-DATE")
        }
    }

    func write(to writer: inout AttributeWriter) throws(PlaylistError) {
        try writer.string("ID", id)
        try writer.string("CLASS", `class`)
        try writer.string("START-DATE", startDate?.text)
        try writer.string("CUE", cue)
        try writer.string("END-DATE", endDate?.text)
        try writer.float("DURATION", duration)
        try writer.float("PLANNED-DURATION", plannedDuration)
        writer.token("SCTE35-CMD", scte35Command?.description)
        writer.token("SCTE35-OUT", scte35Out?.description)
        writer.token("SCTE35-IN", scte35In?.description)
        writer.flag("END-ON-NEXT", endOnNext)
        try writer.other(otherAttributes)
    }
}

/// The attributes of `EXT-X-SKIP`: segments left out of a playlist delta update
/// (RFC 8216bis section 4.4.5.2).
public struct Skip: Sendable, Hashable {
    /// How many segments were skipped. Required.
    public var skippedSegments: Int
    /// IDs of date ranges removed since the last update (tab-separated when written).
    public var recentlyRemovedDateRanges: [String]?
    /// Attributes not listed above.
    public var otherAttributes: [Attribute]

    /// Creates the attributes of an `EXT-X-SKIP` tag.
    public init(skippedSegments: Int, recentlyRemovedDateRanges: [String]? = nil, otherAttributes: [Attribute] = []) {
        self.skippedSegments = skippedSegments
        self.recentlyRemovedDateRanges = recentlyRemovedDateRanges
        self.otherAttributes = otherAttributes
    }

    init(reading reader: inout AttributeReader) throws(TagError) {
        skippedSegments = try reader.integer(required: "SKIPPED-SEGMENTS")
        recentlyRemovedDateRanges = try reader.string("RECENTLY-REMOVED-DATERANGES")
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        otherAttributes = reader.rest()
    }

    func write(to writer: inout AttributeWriter) throws(PlaylistError) {
        writer.integer("SKIPPED-SEGMENTS", skippedSegments)
        try writer.string("RECENTLY-REMOVED-DATERANGES", recentlyRemovedDateRanges?.joined(separator: "\t"))
        try writer.other(otherAttributes)
    }
}

/// The attributes of `EXT-X-PRELOAD-HINT` (RFC 8216bis section 4.4.5.3).
public struct PreloadHint: Sendable, Hashable {
    /// `PART` or `MAP`. Required.
    public var type: PreloadHintType
    /// The hinted resource. Required.
    public var uri: String
    /// The first byte of the hinted range (default 0).
    public var byteRangeStart: Int?
    /// The length of the hinted range (default: to the end of the resource).
    public var byteRangeLength: Int?
    /// Attributes not listed above.
    public var otherAttributes: [Attribute]

    /// Creates the attributes of an `EXT-X-PRELOAD-HINT` tag. The range is in bytes; nil leaves an
    /// attribute out.
    public init(type: PreloadHintType, uri: String, byteRangeStart: Int? = nil, byteRangeLength: Int? = nil,
                otherAttributes: [Attribute] = []) {
        self.type = type
        self.uri = uri
        self.byteRangeStart = byteRangeStart
        self.byteRangeLength = byteRangeLength
        self.otherAttributes = otherAttributes
    }

    init(reading reader: inout AttributeReader) throws(TagError) {
        type = PreloadHintType(rawValue: try reader.enumerated(required: "TYPE"))
        uri = try reader.uri(required: "URI")
        byteRangeStart = try reader.integer("BYTERANGE-START")
        byteRangeLength = try reader.integer("BYTERANGE-LENGTH")
        otherAttributes = reader.rest()
    }

    func write(to writer: inout AttributeWriter) throws(PlaylistError) {
        writer.token("TYPE", type.rawValue)
        try writer.string("URI", uri)
        writer.integer("BYTERANGE-START", byteRangeStart)
        writer.integer("BYTERANGE-LENGTH", byteRangeLength)
        try writer.other(otherAttributes)
    }
}

/// The attributes of `EXT-X-RENDITION-REPORT` (RFC 8216bis section 4.4.5.4).
public struct RenditionReport: Sendable, Hashable {
    /// The other rendition's media playlist, relative to this one.
    public var uri: String?
    /// Its last media sequence number.
    public var lastMediaSequence: Int?
    /// Its last partial segment index.
    public var lastPart: Int?
    /// Attributes not listed above.
    public var otherAttributes: [Attribute]

    /// Creates the attributes of an `EXT-X-RENDITION-REPORT` tag.
    public init(uri: String? = nil, lastMediaSequence: Int? = nil, lastPart: Int? = nil, otherAttributes: [Attribute] = []) {
        self.uri = uri
        self.lastMediaSequence = lastMediaSequence
        self.lastPart = lastPart
        self.otherAttributes = otherAttributes
    }

    init(reading reader: inout AttributeReader) throws(TagError) {
        uri = try reader.uri()
        lastMediaSequence = try reader.integer("LAST-MSN")
        lastPart = try reader.integer("LAST-PART")
        otherAttributes = reader.rest()
    }

    func write(to writer: inout AttributeWriter) throws(PlaylistError) {
        try writer.string("URI", uri)
        writer.integer("LAST-MSN", lastMediaSequence)
        writer.integer("LAST-PART", lastPart)
        try writer.other(otherAttributes)
    }
}
