/// Writing an MPD from the model: strict, whatever was read leniently. Carryon writes each
/// bundle's local `main.mpd` this way (static, the chosen Representations, SegmentLists of
/// local files).
///
///     let text = mpd.written()
extension MPD {
    /// The MPD as XML text.
    public func written() -> String {
        var xml = XMLWriter()
        xml.text += "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
        var attributes: [(String, String?)] = [
            ("xmlns", "urn:mpeg:dash:schema:mpd:2011"), ("xmlns:cenc", "urn:mpeg:cenc:2013"),
            ("xmlns:dashif", "https://dashif.org/CPS"),
            ("profiles", profiles.isEmpty ? nil : profiles.joined(separator: ",")), ("type", type.rawValue),
        ]
        // A dynamic MPD's timing; a static one has none of these (written only when set).
        attributes += [("availabilityStartTime", availabilityStartTime?.text), ("publishTime", publishTime?.text),
                       ("minimumUpdatePeriod", minimumUpdatePeriod.map(Self.iso)), ("timeShiftBufferDepth", timeShiftBufferDepth.map(Self.iso)),
                       ("suggestedPresentationDelay", suggestedPresentationDelay.map(Self.iso))]
        attributes += [("mediaPresentationDuration", mediaPresentationDuration.map(Self.iso)), ("minBufferTime", minBufferTime.map(Self.iso))]
        xml.open("MPD", attributes)
        for location in locations { xml.leaf("Location", [], text: location) }
        for base in baseURLs { xml.leaf("BaseURL", [], text: base.url) }
        for period in periods {
            xml.open("Period", [("id", period.id), ("start", period.start.map(Self.iso)), ("duration", period.duration.map(Self.iso))])
            for base in period.baseURLs { xml.leaf("BaseURL", [], text: base.url) }
            Self.write(period.segments, into: &xml)
            for set in period.adaptationSets {
                xml.open("AdaptationSet", [("id", set.id), ("contentType", set.contentType), ("lang", set.language)] + Self.attributes(set.common))
                for label in set.labels { xml.leaf("Label", [], text: label) }
                Self.write(set.common, into: &xml)
                for role in set.roles { xml.leaf("Role", Self.attributes(role)) }
                for descriptor in set.accessibility { xml.leaf("Accessibility", Self.attributes(descriptor)) }
                for base in set.baseURLs { xml.leaf("BaseURL", [], text: base.url) }
                Self.write(set.segments, into: &xml)
                for representation in set.representations {
                    xml.open("Representation", [("id", representation.id), ("bandwidth", representation.bandwidth.map(String.init))]
                             + Self.attributes(representation.common))
                    Self.write(representation.common, into: &xml)
                    for base in representation.baseURLs { xml.leaf("BaseURL", [], text: base.url) }
                    Self.write(representation.segments, into: &xml)
                    xml.close("Representation")
                }
                xml.close("AdaptationSet")
            }
            xml.close("Period")
        }
        xml.close("MPD")
        return xml.text
    }

    /// `PT12.5S`: an exact ISO 8601 duration in seconds (up to microseconds).
    static func iso(_ time: MediaTime) -> String {
        let micros = time.converted(to: 1_000_000)
        let sign = micros < 0 ? "-" : ""
        let magnitude = micros.magnitude
        let whole = magnitude / 1_000_000, fraction = magnitude % 1_000_000
        guard fraction > 0 else { return "\(sign)PT\(whole)S" }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 6 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(sign)PT\(whole).\(digits)S"
    }

    private static func attributes(_ common: CommonAttributes) -> [(String, String?)] {
        [("mimeType", common.mimeType), ("codecs", common.codecs), ("width", common.width.map(String.init)),
         ("height", common.height.map(String.init)), ("frameRate", common.frameRate?.description),
         ("audioSamplingRate", common.audioSamplingRate)]
    }

    private static func attributes(_ descriptor: Descriptor) -> [(String, String?)] {
        [("schemeIdUri", descriptor.schemeIdUri), ("value", descriptor.value), ("id", descriptor.id)]
    }

    private static func write(_ common: CommonAttributes, into xml: inout XMLWriter) {
        for descriptor in common.audioChannelConfigurations { xml.leaf("AudioChannelConfiguration", attributes(descriptor)) }
        for protection in common.contentProtections {
            xml.open("ContentProtection", [("schemeIdUri", protection.schemeIdUri), ("value", protection.value),
                                           ("cenc:default_KID", protection.defaultKID)])
            if let pssh = protection.pssh { xml.leaf("cenc:pssh", [], text: pssh) }
            if let license = protection.licenseURL { xml.leaf("dashif:Laurl", [], text: license) }
            xml.close("ContentProtection")
        }
        for descriptor in common.essentialProperties { xml.leaf("EssentialProperty", attributes(descriptor)) }
        for descriptor in common.supplementalProperties { xml.leaf("SupplementalProperty", attributes(descriptor)) }
    }

    private static func write(_ information: SegmentInformation, into xml: inout XMLWriter) {
        if let base = information.base { write(base, element: "SegmentBase", into: &xml) }
        if let list = information.list { write(list, element: "SegmentList", into: &xml) }
        if let template = information.template { write(template, element: "SegmentTemplate", into: &xml) }
    }

    private static func write(_ info: SegmentInfo, element: String, into xml: inout XMLWriter) {
        xml.open(element, [
            ("timescale", info.timescale.map(String.init)), ("presentationTimeOffset", info.presentationTimeOffset.map(String.init)),
            ("duration", info.duration.map(String.init)), ("startNumber", info.startNumber.map(String.init)),
            ("endNumber", info.endNumber.map(String.init)), ("indexRange", info.indexRange?.description),
            ("media", info.media), ("index", info.index), ("initialization", info.initializationTemplate),
        ])
        if let initialization = info.initialization {
            xml.leaf("Initialization", [("sourceURL", initialization.sourceURL), ("range", initialization.range?.description)])
        }
        if let index = info.representationIndex {
            xml.leaf("RepresentationIndex", [("sourceURL", index.sourceURL), ("range", index.range?.description)])
        }
        if let timeline = info.timeline {
            xml.open("SegmentTimeline", [])
            for entry in timeline.entries {
                xml.leaf("S", [("t", entry.time.map(String.init)), ("n", entry.number.map(String.init)), ("d", String(entry.duration)),
                               ("r", entry.repeatCount == 0 ? nil : String(entry.repeatCount))])
            }
            xml.close("SegmentTimeline")
        }
        for url in info.segmentURLs ?? [] {
            xml.leaf("SegmentURL", [("media", url.media), ("mediaRange", url.mediaRange?.description)])
        }
        xml.close(element)
    }
}

/// Indented XML out, attribute values and text escaped.
struct XMLWriter {
    var text = ""
    var depth = 0

    mutating func open(_ name: String, _ attributes: [(String, String?)]) {
        text += indent + "<" + name + Self.render(attributes) + ">\n"
        depth += 1
    }

    mutating func close(_ name: String) {
        depth -= 1
        text += indent + "</" + name + ">\n"
    }

    mutating func leaf(_ name: String, _ attributes: [(String, String?)], text content: String? = nil) {
        if let content {
            text += indent + "<" + name + Self.render(attributes) + ">" + Self.escape(content) + "</" + name + ">\n"
        } else {
            text += indent + "<" + name + Self.render(attributes) + "/>\n"
        }
    }

    private var indent: String { String(repeating: "  ", count: depth) }

    private static func render(_ attributes: [(String, String?)]) -> String {
        attributes.reduce(into: "") { result, attribute in
            if let value = attribute.1 { result += " \(attribute.0)=\"\(escape(value))\"" }
        }
    }

    static func escape(_ value: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(value.utf8.count)
        for character in value {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
