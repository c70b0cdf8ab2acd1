/// `EXTINF`: the duration of the next media segment and an optional title
/// (RFC 8216bis section 4.4.4.1).
public struct Inf: Sendable, Hashable {
    /// The duration in seconds. Negative when the playlist writes an unknown duration (IPTV
    /// playlists write `-1`); see ``isDurationKnown``.
    public var duration: Double
    /// The title after the comma, as written (empty when none).
    public var title: String
    /// Attributes between the duration and the comma, as IPTV playlists write them
    /// (`#EXTINF:-1 tvg-id="news" group-title="News",News`); empty in a playlist that follows
    /// RFC 8216bis, which has none.
    public var attributes: [Attribute]

    /// Creates an `EXTINF` for a segment of `duration` seconds, with an optional title.
    /// ``Playlist/write()`` refuses a duration that is negative or not finite.
    public init(duration: Double, title: String = "", attributes: [Attribute] = []) {
        self.duration = duration
        self.title = title
        self.attributes = attributes
    }

    /// Whether the duration is given: false for the negative durations of IPTV playlists.
    public var isDurationKnown: Bool { duration >= 0 }

    /// Whether an `EXTINF` value is exactly what ``Playlist/write()`` writes for the tag it reads
    /// as: a duration in the form ``Number/format(_:)`` writes, a comma, and the title.
    static func isCanonical(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let comma = value.firstIndex(of: UInt8(ascii: ",")) else { return false }
        return Number.isCanonical(UnsafeBufferPointer(rebasing: value[..<comma]))
    }

    /// Reads the value of an `EXTINF` tag: `duration,[title]`, with IPTV attributes between the
    /// duration and the comma read leniently.
    init(reading value: UnsafeBufferPointer<UInt8>, recoveries: Recoveries) throws(TagError) {
        let count = value.count
        var start = 0
        while start < count, value[start] == UInt8(ascii: " ") || value[start] == UInt8(ascii: "\t") { start += 1 }
        var end = start
        while end < count, value[end] != UInt8(ascii: ","), value[end] != UInt8(ascii: " "), value[end] != UInt8(ascii: "\t") {
            end += 1
        }
        let durationBytes = UnsafeBufferPointer(rebasing: value[start..<end])
        if start > 0 {
            try recoveries.recover("space-in-value", .invalidValue, "EXTINF: white space before the duration is ignored")
        }
        if let duration = Number.decimalFloat(durationBytes) {
            self.duration = duration
        } else if let duration = Number.decimalFloat(durationBytes, signed: true), duration < 0 {
            try recoveries.recover("unknown-duration", .invalidValue,
                "EXTINF: the duration \(Number.format(duration)) is negative, which IPTV playlists write for an unknown duration; read as unknown")
            self.duration = duration
        } else {
            throw TagError(.invalidValue, "EXTINF: \"\(String(decoding: durationBytes, as: UTF8.self))\" is not a duration in seconds")
        }
        // IPTV attributes: `name="value"` pairs separated by spaces, up to a comma outside quotes.
        var index = end
        var attributes: [Attribute] = []
        var malformed = false
        while index < count, value[index] != UInt8(ascii: ",") {
            if value[index] == UInt8(ascii: " ") || value[index] == UInt8(ascii: "\t") {
                index += 1
                continue
            }
            let nameStart = index
            while index < count, value[index] != UInt8(ascii: "="), value[index] != UInt8(ascii: ","),
                  value[index] != UInt8(ascii: " ") {
                index += 1
            }
            let name = String(decoding: UnsafeBufferPointer(rebasing: value[nameStart..<index]), as: UTF8.self)
            guard !name.isEmpty, index < count, value[index] == UInt8(ascii: "=") else {
                if index == nameStart { index += 1 }
                malformed = true
                continue
            }
            index += 1
            if index < count, value[index] == UInt8(ascii: "\"") {
                let valueStart = index + 1
                index = valueStart
                while index < count, value[index] != UInt8(ascii: "\"") { index += 1 }
                attributes.append(Attribute(name: name, value: .quoted(String(decoding: UnsafeBufferPointer(rebasing: value[valueStart..<index]), as: UTF8.self))))
                if index < count { index += 1 } else { malformed = true }
            } else {
                let valueStart = index
                while index < count, value[index] != UInt8(ascii: ","), value[index] != UInt8(ascii: " ") { index += 1 }
                attributes.append(Attribute(name: name, value: .token(String(decoding: UnsafeBufferPointer(rebasing: value[valueStart..<index]), as: UTF8.self))))
            }
        }
        if !attributes.isEmpty || malformed {
            try recoveries.recover("extinf-attributes", .malformedAttributeList,
                "EXTINF carries attributes (\(attributes.prefix(3).map(\.name).joined(separator: ", "))\(attributes.count > 3 ? ", …" : "")), an IPTV extension; they are kept\(malformed ? " where they can be read" : "")")
        }
        self.attributes = attributes
        if index == count {
            try recoveries.recover("extinf-comma", .structure, "EXTINF lacks the comma after its duration; the title is empty")
        }
        title = index + 1 < count ? String(decoding: UnsafeBufferPointer(rebasing: value[(index + 1)...]), as: UTF8.self) : ""
    }
}

/// The attributes of `EXT-X-START`: where to start playing (RFC 8216bis section 4.4.2.2).
public struct Start: Sendable, Hashable {
    /// Seconds from the start of the playlist, or from its end when negative. Required.
    public var timeOffset: Double
    /// Whether to start exactly there rather than at the segment containing it.
    public var precise: Bool
    /// Attributes not listed above.
    public var otherAttributes: [Attribute]

    /// Creates the attributes of an `EXT-X-START` tag: start `timeOffset` seconds from the start of
    /// the playlist (from its end when negative), exactly there when `precise` is true.
    public init(timeOffset: Double, precise: Bool = false, otherAttributes: [Attribute] = []) {
        self.timeOffset = timeOffset
        self.precise = precise
        self.otherAttributes = otherAttributes
    }

    init(reading reader: inout AttributeReader) throws(TagError) {
        timeOffset = try reader.float(required: "TIME-OFFSET", signed: true)
        precise = try reader.yesNo("PRECISE") ?? false
        otherAttributes = reader.rest()
    }

    func write(to writer: inout AttributeWriter) throws(PlaylistError) {
        try writer.float("TIME-OFFSET", timeOffset)
        writer.flag("PRECISE", precise)
        try writer.other(otherAttributes)
    }
}

/// `EXT-X-DEFINE`: a variable for `{$name}` references (RFC 8216bis section 4.4.2.3).
public enum Define: Sendable, Hashable {
    /// `NAME` and `VALUE`: a variable with a value given here.
    case value(name: String, value: String)
    /// `IMPORT`: a variable of the same name from the multivariant playlist (media playlists only).
    case `import`(name: String)
    /// `QUERYPARAM`: the value of the query parameter of that name in the playlist's URL.
    case queryParameter(name: String)

    /// The name of the variable defined.
    public var name: String {
        switch self {
        case .value(let name, _), .import(let name), .queryParameter(let name): name
        }
    }

    init(reading reader: inout AttributeReader) throws(TagError) {
        let name = try reader.string("NAME")
        let value = try reader.string("VALUE")
        let imported = try reader.string("IMPORT")
        let query = try reader.string("QUERYPARAM")
        _ = reader.rest()
        switch (name, value, imported, query) {
        case (let name?, let value?, nil, nil): self = .value(name: name, value: value)
        case (nil, nil, let name?, nil): self = .import(name: name)
        case (nil, nil, nil, let name?): self = .queryParameter(name: name)
        case (_?, nil, nil, nil): throw TagError(.variable, "EXT-X-DEFINE has NAME but no VALUE")
        default:
            throw TagError(.variable, "EXT-X-DEFINE must have NAME and VALUE, or IMPORT, or QUERYPARAM, and nothing else")
        }
        let valid = !self.name.isEmpty && self.name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
        guard valid else {
            throw TagError(.variable, "EXT-X-DEFINE: \"\(self.name)\" is not a valid variable name ([a-zA-Z0-9_-]+)")
        }
    }

    func write(to writer: inout AttributeWriter) throws(PlaylistError) {
        switch self {
        case .value(let name, let value):
            try writer.string("NAME", name)
            try writer.string("VALUE", value)
        case .import(let name): try writer.string("IMPORT", name)
        case .queryParameter(let name): try writer.string("QUERYPARAM", name)
        }
    }
}

/// The attributes of `EXT-X-PART-INF` (RFC 8216bis section 4.4.3.7).
public struct PartInf: Sendable, Hashable {
    /// The maximum partial segment duration, in seconds. Required.
    public var partTarget: Double
    /// Attributes not listed above.
    public var otherAttributes: [Attribute]

    /// Creates the attributes of an `EXT-X-PART-INF` tag, with the maximum partial segment
    /// duration in seconds.
    public init(partTarget: Double, otherAttributes: [Attribute] = []) {
        self.partTarget = partTarget
        self.otherAttributes = otherAttributes
    }

    init(reading reader: inout AttributeReader) throws(TagError) {
        partTarget = try reader.float(required: "PART-TARGET")
        otherAttributes = reader.rest()
    }

    func write(to writer: inout AttributeWriter) throws(PlaylistError) {
        try writer.float("PART-TARGET", partTarget)
        try writer.other(otherAttributes)
    }
}

/// The attributes of `EXT-X-SERVER-CONTROL` (RFC 8216bis section 4.4.3.8).
public struct ServerControl: Sendable, Hashable {
    /// The server produces delta updates skipping segments older than this many seconds.
    public var canSkipUntil: Double?
    /// Delta updates can also skip EXT-X-DATERANGE tags.
    public var canSkipDateRanges: Bool
    /// How far from the live edge a client should start, in seconds.
    public var holdBack: Double?
    /// The same in low-latency mode.
    public var partHoldBack: Double?
    /// The server supports blocking playlist reload.
    public var canBlockReload: Bool
    /// Attributes not listed above.
    public var otherAttributes: [Attribute]

    /// Creates the attributes of an `EXT-X-SERVER-CONTROL` tag. Durations are in seconds; nil
    /// leaves an attribute out.
    public init(canSkipUntil: Double? = nil, canSkipDateRanges: Bool = false, holdBack: Double? = nil,
                partHoldBack: Double? = nil, canBlockReload: Bool = false, otherAttributes: [Attribute] = []) {
        self.canSkipUntil = canSkipUntil
        self.canSkipDateRanges = canSkipDateRanges
        self.holdBack = holdBack
        self.partHoldBack = partHoldBack
        self.canBlockReload = canBlockReload
        self.otherAttributes = otherAttributes
    }

    init(reading reader: inout AttributeReader) throws(TagError) {
        canSkipUntil = try reader.float("CAN-SKIP-UNTIL")
        canSkipDateRanges = try reader.yesNo("CAN-SKIP-DATERANGES") ?? false
        holdBack = try reader.float("HOLD-BACK")
        partHoldBack = try reader.float("PART-HOLD-BACK")
        canBlockReload = try reader.yesNo("CAN-BLOCK-RELOAD") ?? false
        otherAttributes = reader.rest()
    }

    func write(to writer: inout AttributeWriter) throws(PlaylistError) {
        try writer.float("CAN-SKIP-UNTIL", canSkipUntil)
        writer.flag("CAN-SKIP-DATERANGES", canSkipDateRanges)
        try writer.float("HOLD-BACK", holdBack)
        try writer.float("PART-HOLD-BACK", partHoldBack)
        writer.flag("CAN-BLOCK-RELOAD", canBlockReload)
        try writer.other(otherAttributes)
    }
}

/// The attributes of `EXT-X-PART`: a partial segment (RFC 8216bis section 4.4.4.9).
public struct Part: Sendable, Hashable {
    /// The partial segment's resource. Required.
    public var uri: String
    /// Its duration in seconds. Required.
    public var duration: Double
    /// It starts with an independent frame.
    public var independent: Bool
    /// Its sub-range of the resource.
    public var byteRange: ByteRange?
    /// It is unavailable and must not be loaded.
    public var gap: Bool
    /// Attributes not listed above.
    public var otherAttributes: [Attribute]

    /// Creates the attributes of an `EXT-X-PART` tag for a partial segment of `duration` seconds.
    public init(uri: String, duration: Double, independent: Bool = false, byteRange: ByteRange? = nil,
                gap: Bool = false, otherAttributes: [Attribute] = []) {
        self.uri = uri
        self.duration = duration
        self.independent = independent
        self.byteRange = byteRange
        self.gap = gap
        self.otherAttributes = otherAttributes
    }

    init(reading reader: inout AttributeReader) throws(TagError) {
        uri = try reader.uri(required: "URI")
        duration = try reader.float(required: "DURATION")
        independent = try reader.yesNo("INDEPENDENT") ?? false
        byteRange = try reader.byteRange("BYTERANGE")
        gap = try reader.yesNo("GAP") ?? false
        otherAttributes = reader.rest()
    }

    func write(to writer: inout AttributeWriter) throws(PlaylistError) {
        try writer.float("DURATION", duration)
        try writer.string("URI", uri)
        writer.flag("INDEPENDENT", independent)
        try writer.string("BYTERANGE", byteRange?.description)
        writer.flag("GAP", gap)
        try writer.other(otherAttributes)
    }
}
