import HLS
/// Reading an MPD's text into the model, leniently: what players read past is read past with a
/// warning (``MPD/warnings``) naming the line and what was assumed; only what cannot be
/// downloaded is refused.
extension MPD {
    /// Reads an MPD.
    ///
    /// - Throws: ``MPDError`` for text that is not XML with an `MPD` root, a DOCTYPE that
    ///   declares entities, or nesting too deep.
    public static func read(_ bytes: [UInt8]) throws(MPDError) -> MPD {
        let document = try XMLReader.read(bytes)
        guard document.element.name == "MPD" else {
            throw MPDError(line: document.element.line, "the root element is <\(document.element.name)>, not <MPD>")
        }
        var builder = MPDBuilder(warnings: document.warnings)
        var mpd = builder.mpd(document.element)
        mpd.warnings = builder.warnings
        return mpd
    }

    /// Reads the Periods of a remote element an `xlink:href` names (one `Period`, or several
    /// under any root), with their warnings.
    public static func readPeriods(_ bytes: [UInt8]) throws(MPDError) -> (periods: [Period], warnings: [MPDWarning]) {
        let document = try XMLReader.read(bytes)
        var builder = MPDBuilder(warnings: document.warnings)
        let elements = document.element.name == "Period" ? [document.element] : document.element.children(named: "Period")
        return (elements.map { builder.period($0) }, builder.warnings)
    }

    /// Reads the AdaptationSets of a remote element an `xlink:href` names.
    public static func readAdaptationSets(_ bytes: [UInt8]) throws(MPDError) -> (adaptationSets: [AdaptationSet], warnings: [MPDWarning]) {
        let document = try XMLReader.read(bytes)
        var builder = MPDBuilder(warnings: document.warnings)
        let elements = document.element.name == "AdaptationSet" ? [document.element] : document.element.children(named: "AdaptationSet")
        return (elements.compactMap { builder.adaptationSet($0) }, builder.warnings)
    }
}

private struct MPDBuilder {
    var warnings: [MPDWarning]

    mutating func mpd(_ element: XMLReader.Element) -> MPD {
        var mpd = MPD()
        switch element["type"] {
        case nil, "static": mpd.type = .static
        case "dynamic": mpd.type = .dynamic
        case let other?:
            warnings.append(MPDWarning(line: element.line, "MPD@type \"\(other)\" is neither static nor dynamic; read as static"))
        }
        mpd.mediaPresentationDuration = duration(element, "mediaPresentationDuration")
        mpd.minBufferTime = duration(element, "minBufferTime")
        mpd.minimumUpdatePeriod = duration(element, "minimumUpdatePeriod")
        mpd.suggestedPresentationDelay = duration(element, "suggestedPresentationDelay")
        mpd.timeShiftBufferDepth = duration(element, "timeShiftBufferDepth")
        mpd.availabilityStartTime = dateTime(element, "availabilityStartTime")
        mpd.publishTime = dateTime(element, "publishTime")
        mpd.utcTimings = descriptors(element, "UTCTiming")
        mpd.profiles = element["profiles"].map { $0.split(separator: ",").map { String($0.trimmingWhitespace()) } } ?? []
        mpd.baseURLs = baseURLs(element)
        mpd.urlQuery = urlQuery(element)
        mpd.locations = element.children(named: "Location").map { $0.text.trimmingCharacters() }.filter { !$0.isEmpty }
        mpd.periods = element.children(named: "Period").map { period($0) }
        if mpd.periods.isEmpty {
            warnings.append(MPDWarning(line: element.line, "the MPD has no Period"))
        }
        return mpd
    }

    mutating func period(_ element: XMLReader.Element) -> Period {
        var period = Period()
        period.line = element.line
        period.id = element["id"]
        period.start = duration(element, "start")
        period.duration = duration(element, "duration")
        period.baseURLs = baseURLs(element)
        period.segments = segmentInformation(element)
        period.xlink = xlink(element)
        period.urlQuery = urlQuery(element)
        period.adaptationSets = element.children(named: "AdaptationSet").compactMap { adaptationSet($0) }
        return period
    }

    /// An AdaptationSet, or nil when an `EssentialProperty` Carryon does not understand drops
    /// it (ISO/IEC 23009-1 5.8.4.8: a client that does not understand it ignores the element).
    mutating func adaptationSet(_ element: XMLReader.Element) -> AdaptationSet? {
        var set = AdaptationSet()
        set.line = element.line
        set.id = element["id"]
        set.contentType = element["contentType"]
        set.language = element["lang"]
        set.labels = element.children(named: "Label").map { $0.text.trimmingCharacters() }.filter { !$0.isEmpty }
        set.roles = descriptors(element, "Role")
        set.accessibility = descriptors(element, "Accessibility")
        set.common = common(element)
        guard understood(set.common, element: element) else { return nil }
        set.baseURLs = baseURLs(element)
        set.segments = segmentInformation(element)
        set.xlink = xlink(element)
        // A ContentComponent may carry what the set does not (older MPDs).
        if let component = element.child(named: "ContentComponent") {
            set.contentType = set.contentType ?? component["contentType"]
            set.language = set.language ?? component["lang"]
            if set.roles.isEmpty { set.roles = descriptors(component, "Role") }
        }
        var ids = Set<String>()
        for child in element.children(named: "Representation") {
            guard let representation = representation(child) else { continue }
            if !ids.insert(representation.id).inserted {
                warnings.append(MPDWarning(line: child.line, "a second Representation with id \"\(representation.id)\" in the AdaptationSet; ignored"))
                continue
            }
            set.representations.append(representation)
        }
        if set.representations.isEmpty && set.xlink == nil {
            warnings.append(MPDWarning(line: element.line, "the AdaptationSet\(set.id.map { " \($0)" } ?? "") has no Representation; ignored"))
            return nil
        }
        return set
    }

    mutating func representation(_ element: XMLReader.Element) -> Representation? {
        var representation = Representation()
        representation.line = element.line
        if let id = element["id"], !id.isEmpty {
            representation.id = id
        } else {
            representation.id = "line\(element.line)"
            warnings.append(MPDWarning(line: element.line, "the Representation has no id; named \(representation.id)"))
        }
        if let text = element["bandwidth"] {
            if let bandwidth = Int(text.trimmingCharacters()), bandwidth > 0 {
                representation.bandwidth = bandwidth
            } else {
                warnings.append(MPDWarning(line: element.line, "Representation@bandwidth \"\(text)\" is not a positive integer; ignored"))
            }
        } else {
            warnings.append(MPDWarning(line: element.line, "the Representation \(representation.id) has no bandwidth"))
        }
        representation.common = common(element)
        guard understood(representation.common, element: element) else { return nil }
        representation.baseURLs = baseURLs(element)
        representation.segments = segmentInformation(element)
        return representation
    }

    private mutating func understood(_ common: CommonAttributes, element: XMLReader.Element) -> Bool {
        if let unknown = common.essentialProperties.first(where: { !Descriptor.understoodEssentialSchemes.contains($0.schemeIdUri) }) {
            warnings.append(MPDWarning(line: element.line, "the \(element.name) has an EssentialProperty of the scheme \(unknown.schemeIdUri), which Carryon does not understand; the \(element.name) is ignored, as the standard says"))
            return false
        }
        return true
    }

    private mutating func common(_ element: XMLReader.Element) -> CommonAttributes {
        var common = CommonAttributes()
        common.mimeType = element["mimeType"]
        common.codecs = element["codecs"]
        common.width = positiveInteger(element, "width")
        common.height = positiveInteger(element, "height")
        if let text = element["frameRate"] {
            common.frameRate = FrameRate(text)
            if common.frameRate == nil {
                warnings.append(MPDWarning(line: element.line, "@frameRate \"\(text)\" is not a frame rate; ignored"))
            }
        }
        common.audioSamplingRate = element["audioSamplingRate"]
        common.audioChannelConfigurations = descriptors(element, "AudioChannelConfiguration")
        common.essentialProperties = descriptors(element, "EssentialProperty")
        common.supplementalProperties = descriptors(element, "SupplementalProperty")
        common.urlQuery = urlQuery(element)
        common.contentProtections = element.children(named: "ContentProtection").map { protection in
            let license = protection.children.first { $0.name == "Laurl" || $0.name == "laurl" }
            return ContentProtection(
                schemeIdUri: (protection["schemeIdUri"] ?? "").trimmingCharacters().lowercased(), value: protection["value"],
                defaultKID: protection["default_KID"], pssh: protection.child(named: "pssh")?.text.trimmingCharacters(),
                licenseURL: (license?.text.trimmingCharacters()).flatMap { $0.isEmpty ? nil : $0 } ?? license?["licenseUrl"])
        }
        return common
    }

    private mutating func segmentInformation(_ element: XMLReader.Element) -> SegmentInformation {
        var information = SegmentInformation()
        if let base = element.child(named: "SegmentBase") { information.base = segmentInfo(base) }
        if let list = element.child(named: "SegmentList") {
            var info = segmentInfo(list)
            var urls: [SegmentURL] = []
            urls.reserveCapacity(list.children.count)
            for url in list.children where url.name == "SegmentURL" {
                urls.append(SegmentURL(media: url["media"], mediaRange: range(url, "mediaRange"), line: url.line))
            }
            info.segmentURLs = urls
            information.list = info
        }
        if let template = element.child(named: "SegmentTemplate") {
            var info = segmentInfo(template)
            info.media = template["media"]
            info.index = template["index"]
            info.initializationTemplate = template["initialization"]
            information.template = info
        }
        return information
    }

    private mutating func segmentInfo(_ element: XMLReader.Element) -> SegmentInfo {
        var info = SegmentInfo()
        info.line = element.line
        info.timescale = positiveInteger64(element, "timescale")
        info.presentationTimeOffset = integer64(element, "presentationTimeOffset")
        info.indexRange = range(element, "indexRange")
        info.duration = positiveInteger64(element, "duration")
        info.startNumber = integer64(element, "startNumber")
        info.endNumber = integer64(element, "endNumber")
        if let initialization = element.child(named: "Initialization") {
            info.initialization = URLReference(sourceURL: initialization["sourceURL"], range: range(initialization, "range"))
        }
        if let index = element.child(named: "RepresentationIndex") {
            info.representationIndex = URLReference(sourceURL: index["sourceURL"], range: range(index, "range"))
        }
        if let timeline = element.child(named: "SegmentTimeline") {
            var entries: [SegmentTimeline.Entry] = []
            entries.reserveCapacity(timeline.children.count)
            for entry in timeline.children where entry.name == "S" {
                guard let duration = positiveInteger64(entry, "d") else {
                    warnings.append(MPDWarning(line: entry.line, "an S element without a positive @d; ignored"))
                    continue
                }
                let repeatCount = integer64(entry, "r") ?? 0
                if repeatCount < -1 {
                    warnings.append(MPDWarning(line: entry.line, "S@r \(repeatCount) is below -1; read as 0"))
                }
                entries.append(.init(time: integer64(entry, "t"), number: integer64(entry, "n"), duration: duration,
                                     repeatCount: repeatCount < -1 ? 0 : repeatCount, line: entry.line))
            }
            info.timeline = SegmentTimeline(entries: entries)
        }
        return info
    }

    private mutating func baseURLs(_ element: XMLReader.Element) -> [BaseURL] {
        element.children(named: "BaseURL").compactMap { child in
            let url = child.text.trimmingCharacters()
            guard !url.isEmpty else {
                warnings.append(MPDWarning(line: child.line, "an empty BaseURL; ignored"))
                return nil
            }
            return BaseURL(url: url, serviceLocation: child["serviceLocation"], line: child.line)
        }
    }

    /// The `UrlQueryInfo` of a URL query parameter descriptor among `element`'s properties.
    private mutating func urlQuery(_ element: XMLReader.Element) -> URLQueryInfo? {
        for property in element.children where property.name == "EssentialProperty" || property.name == "SupplementalProperty" {
            guard URLQueryInfo.schemes.contains((property["schemeIdUri"] ?? "").trimmingCharacters()) else { continue }
            guard let info = property.child(named: "UrlQueryInfo") ?? property.child(named: "ExtUrlQueryInfo") else {
                warnings.append(MPDWarning(line: property.line, "a URL query parameter descriptor without UrlQueryInfo; ignored"))
                continue
            }
            return URLQueryInfo(queryTemplate: info["queryTemplate"] ?? "", useMPDURLQuery: info["useMPDUrlQuery"] == "true",
                                queryString: info["queryString"])
        }
        return nil
    }

    private func descriptors(_ element: XMLReader.Element, _ name: String) -> [Descriptor] {
        element.children(named: name).map {
            Descriptor(schemeIdUri: ($0["schemeIdUri"] ?? "").trimmingCharacters(), value: $0["value"], id: $0["id"])
        }
    }

    private func xlink(_ element: XMLReader.Element) -> XLink? {
        guard let href = element["href"], element.attributes.contains(where: { $0.name.hasSuffix(":href") }) else { return nil }
        return XLink(href: href.trimmingCharacters(), actuate: element["actuate"] ?? "onRequest")
    }

    private mutating func duration(_ element: XMLReader.Element, _ name: String) -> MediaTime? {
        guard let text = element[name] else { return nil }
        guard let time = ISODuration.parse(text) else {
            warnings.append(MPDWarning(line: element.line, "\(element.name)@\(name) \"\(text)\" is not an ISO 8601 duration; ignored"))
            return nil
        }
        return time
    }

    /// An `xs:dateTime`; one without a time zone is read as UTC (DASH-IF IOP: the MPD's times
    /// are UTC), with a warning.
    private mutating func dateTime(_ element: XMLReader.Element, _ name: String) -> DateTime? {
        guard let raw = element[name] else { return nil }
        let text = raw.trimmingCharacters()
        if let date = DateTime(text) { return date }
        if let date = DateTime(text + "Z") {
            warnings.append(MPDWarning(line: element.line, "\(element.name)@\(name) \"\(text)\" gives no time zone; read as UTC"))
            return date
        }
        warnings.append(MPDWarning(line: element.line, "\(element.name)@\(name) \"\(text)\" is not an xs:dateTime; ignored"))
        return nil
    }

    private mutating func range(_ element: XMLReader.Element, _ name: String) -> ByteRange? {
        guard let text = element[name] else { return nil }
        guard let range = ByteRange(text) else {
            warnings.append(MPDWarning(line: element.line, "\(element.name)@\(name) \"\(text)\" is not a byte range first-last; ignored"))
            return nil
        }
        return range
    }

    private mutating func integer64(_ element: XMLReader.Element, _ name: String) -> Int64? {
        guard let text = element[name] else { return nil }
        guard let value = Int64(text) ?? Int64(text.trimmingCharacters()) else {
            warnings.append(MPDWarning(line: element.line, "\(element.name)@\(name) \"\(text)\" is not an integer; ignored"))
            return nil
        }
        return value
    }

    private mutating func positiveInteger64(_ element: XMLReader.Element, _ name: String) -> Int64? {
        guard let value = integer64(element, name) else { return nil }
        guard value > 0 else {
            warnings.append(MPDWarning(line: element.line, "\(element.name)@\(name) \(value) is not positive; ignored"))
            return nil
        }
        return value
    }

    private mutating func positiveInteger(_ element: XMLReader.Element, _ name: String) -> Int? {
        positiveInteger64(element, name).flatMap { Int(exactly: $0) }
    }
}
