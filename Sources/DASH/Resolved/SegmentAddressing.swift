import HLS

/// Where a Representation's init section and segments are, and when each plays: every
/// addressing mode of ISO/IEC 23009-1 worked out into absolute URLs and byte ranges, with times
/// kept as integers in the Representation's timescale.
///
///     let addressing = try SegmentAddressing(representation, in: set, of: period, timing: timing,
///                                            mpd: mpd, mpdURL: url)
///     addressing.segments.count
///
/// SegmentBase addressing (``Mode/base``) knows its segments only once its `sidx` is read:
/// fetch ``index`` and give its bytes to ``reading(index:at:)``.
public struct SegmentAddressing: Sendable, Hashable {
    /// How the segments are named.
    public enum Mode: String, Sendable, Hashable {
        /// SegmentTemplate with `@duration` (`$Number$`).
        case template
        /// SegmentTemplate with a SegmentTimeline.
        case timeline
        /// SegmentList.
        case list
        /// SegmentBase: one file, its segments in its `sidx`.
        case base
        /// A bare BaseURL: one resource, one segment (a WebVTT file, say).
        case url
    }

    /// An absolute URL with an optional byte range.
    public struct Location: Sendable, Hashable {
        /// The absolute URL.
        public var url: String
        /// The bytes, or nil for the whole resource.
        public var range: ByteRange?

        /// `url`, or `range` of it.
        public init(url: String, range: ByteRange? = nil) {
            self.url = url
            self.range = range
        }
    }

    /// One media segment.
    public struct Segment: Sendable, Hashable {
        /// Where it is.
        public var location: Location
        /// Its presentation time, in ``SegmentAddressing/timescale`` units on the media
        /// timeline (``SegmentAddressing/presentationTimeOffset`` is the Period's start).
        public var time: Int64
        /// Its duration in the same units.
        public var duration: Int64
        /// Its number (`$Number$`).
        public var number: Int64
    }

    /// How the segments are named.
    public var mode: Mode
    /// Units per second of the times.
    public var timescale: Int64
    /// The media time at which the Period starts.
    public var presentationTimeOffset: Int64
    /// The init section, when there is one.
    public var initialization: Location?
    /// The segments in order; empty for ``Mode/base`` until its index is read.
    public var segments: [Segment]
    /// ``Mode/base``: the `sidx` to read.
    public var index: Location?
    /// What was read past, for the warnings.
    public var warnings: [MPDWarning] = []

    /// Representations of more segments than this are refused: the plan would not fit memory.
    public static let maximumSegments = 2_000_000

    /// Works out `representation`'s addressing.
    ///
    /// - Throws: ``MPDError`` naming the line when the segments cannot be worked out: a
    ///   template of `$Number$` in a Period of unknown length, a timeline running to an unknown
    ///   end, more than ``maximumSegments``.
    ///
    /// In a dynamic MPD, a `$Number$` template without a SegmentTimeline names the segments
    /// available at `now` (seconds since 1970, the presentation's clock): those that have ended
    /// since `@availabilityStartTime` and are still within `@timeShiftBufferDepth` of it
    /// (ISO/IEC 23009-1 5.3.9.5), within the Period and `@endNumber` when they bound it;
    /// `holdingBack` more of the newest are left out (a recorder's margin, so that it never asks
    /// for a segment the origin may not have written yet). Without `now`, or without an
    /// `@availabilityStartTime`, such a template is read as in a static MPD: over the Period,
    /// refused when the Period does not end.
    public init(_ representation: Representation, in set: AdaptationSet, of period: Period, timing: MPD.PeriodTiming,
                mpd: MPD, mpdURL: String, now: Double? = nil, holdingBack: Int = 0) throws(MPDError) {
        let information = mpd.segmentInformation(of: representation, in: set, of: period)
        let base = mpd.baseURL(of: representation, in: set, of: period, mpdURL: mpdURL)
        // A URL query parameter descriptor's query goes on every request (the MPD URL's token).
        let query = (representation.common.urlQuery ?? set.common.urlQuery ?? period.urlQuery ?? mpd.urlQuery)?.query(mpdURL: mpdURL)
        defer {
            if let query {
                initialization = initialization.map { Location(url: URLQueryInfo.adding(query, to: $0.url), range: $0.range) }
                index = index.map { Location(url: URLQueryInfo.adding(query, to: $0.url), range: $0.range) }
                for position in segments.indices {
                    segments[position].location.url = URLQueryInfo.adding(query, to: segments[position].location.url)
                }
            }
        }
        let info = information.template ?? information.list ?? information.base ?? SegmentInfo()
        mode = .url
        timescale = info.timescale ?? 1
        presentationTimeOffset = info.presentationTimeOffset ?? 0
        segments = []
        let periodEnd = try Self.periodEnd(timing, timescale: timescale, offset: presentationTimeOffset, line: info.line)
        let values = TemplateString.Values(representationID: representation.id, bandwidth: representation.bandwidth ?? 0)
        if let template = information.template {
            mode = template.timeline == nil ? .template : .timeline
            guard let media = template.media else {
                throw MPDError(line: template.line, "the SegmentTemplate of Representation \(representation.id) has no @media")
            }
            let mediaTemplate = TemplateString(media)
            if let initialization = template.initializationTemplate {
                let initTemplate = TemplateString(initialization)
                warnings += initTemplate.problems.map { MPDWarning(line: template.line, $0) }
                self.initialization = Location(url: URIReference.resolve(initTemplate.expand(values), against: base))
            } else if let initialization = template.initialization {
                self.initialization = Self.location(initialization, base: base)
            }
            warnings += mediaTemplate.problems.map { MPDWarning(line: template.line, $0) }
            var available: Range<Int64>?
            if mpd.type == .dynamic, template.timeline == nil, let now, let duration = template.duration, duration > 0 {
                available = try Self.available(of: template, duration: duration, timescale: timescale, timing: timing, mpd: mpd,
                                               now: now, holdingBack: holdingBack, representation: representation.id)
            }
            let slots = try Self.slots(of: template, timescale: timescale, offset: presentationTimeOffset, periodEnd: periodEnd,
                                       representation: representation.id, available: available)
            var segmentValues = values
            segments.reserveCapacity(slots.count)
            let resolver = Resolver(base: base)
            for slot in slots {
                segmentValues.number = slot.number
                segmentValues.time = slot.time
                segments.append(Segment(location: Location(url: resolver.resolve(mediaTemplate.expand(segmentValues))),
                                        time: slot.time, duration: slot.duration, number: slot.number))
            }
        } else if let list = information.list {
            mode = .list
            self.initialization = list.initialization.map { Self.location($0, base: base) }
            let urls = list.segmentURLs ?? []
            var slots: [Slot]
            if list.timeline != nil {
                slots = try Self.slots(of: list, timescale: timescale, offset: presentationTimeOffset, periodEnd: periodEnd,
                                       representation: representation.id)
            } else {
                let line = list.line, id = representation.id
                var duration = list.duration
                if duration == nil, urls.count == 1, let periodEnd {
                    duration = try Self.difference(periodEnd, presentationTimeOffset, line: line, "the Period's length of Representation \(id)")
                }
                guard let duration, duration > 0 else {
                    throw MPDError(line: list.line, "the SegmentList of Representation \(representation.id) has neither @duration nor a SegmentTimeline")
                }
                let first = list.startNumber ?? 1
                slots = []
                slots.reserveCapacity(urls.count)
                for index in Int64(0)..<Int64(urls.count) {
                    let time = try Self.sum(presentationTimeOffset, Self.product(index, duration, line: line, "the time of segment \(index + 1) of Representation \(id)"),
                                            line: line, "the time of segment \(index + 1) of Representation \(id)")
                    let number = try Self.sum(first, index, line: line, "the number of segment \(index + 1) of Representation \(id)")
                    slots.append(Slot(time: time, duration: duration, number: number))
                }
                if let periodEnd, let last = slots.last, periodEnd > last.time, duration > periodEnd - last.time {
                    slots[slots.count - 1].duration = periodEnd - last.time
                }
            }
            if slots.count != urls.count {
                warnings.append(MPDWarning(line: list.line, "the SegmentList of Representation \(representation.id) has \(urls.count) SegmentURLs for \(slots.count) timeline segments; the shorter is used"))
            }
            let resolver = Resolver(base: base)
            for (slot, url) in zip(slots, urls) {
                let location = Location(url: url.media.map(resolver.resolve) ?? base, range: url.mediaRange)
                segments.append(Segment(location: location, time: slot.time, duration: slot.duration, number: slot.number))
            }
        } else if let segmentBase = information.base, segmentBase.indexRange != nil || segmentBase.representationIndex != nil {
            mode = .base
            self.initialization = segmentBase.initialization.map { Self.location($0, base: base) }
            if let index = segmentBase.representationIndex {
                self.index = Self.location(index, base: base)
            } else if let range = segmentBase.indexRange {
                self.index = Location(url: base, range: range)
            }
        } else {
            mode = .url
            self.initialization = information.base?.initialization.map { Self.location($0, base: base) }
            var duration: Int64 = 0
            if let periodEnd {
                duration = try Self.difference(periodEnd, presentationTimeOffset, line: representation.line,
                                               "the Period's length of Representation \(representation.id)")
            }
            segments = [Segment(location: Location(url: base), time: presentationTimeOffset, duration: duration,
                                number: info.startNumber ?? 1)]
        }
        guard segments.count <= Self.maximumSegments else {
            throw MPDError(line: representation.line, "Representation \(representation.id) has \(segments.count) segments, more than the \(Self.maximumSegments) Carryon plans")
        }
        try Self.check([initialization, index].compactMap { $0 }, segments, offset: presentationTimeOffset,
                       line: representation.line, owner: "Representation \(representation.id)")
    }

    /// Refuses what later arithmetic would overflow on: a segment whose end, or whose start or
    /// end on the Period's timeline (less ``presentationTimeOffset``), is past Int64, and a byte
    /// range whose length or next byte is.
    private static func check(_ locations: [Location], _ segments: some Collection<Segment>, offset: Int64, line: Int?,
                              owner: String) throws(MPDError) {
        func checkRange(_ location: Location) throws(MPDError) {
            guard let range = location.range else { return }
            guard range.first >= 0, range.last >= range.first, range.last < .max else {
                throw MPDError(line: line, "the byte range \(range) of \(owner) is past the numbers Carryon computes with")
            }
        }
        for location in locations { try checkRange(location) }
        for segment in segments {
            try checkRange(segment.location)
            let what = "the end of the segment at \(segment.time) of \(owner)"
            let end = try sum(segment.time, segment.duration, line: line, what)
            _ = try difference(segment.time, offset, line: line, what)
            _ = try difference(end, offset, line: line, what)
        }
    }

    /// The Period's end on the media timeline, in `timescale` units: `offset` plus its length
    /// rounded up, so a segment starting before the exact end counts (PT4.5S at timescale 1
    /// ends at 5: a segment at 4 is in it).
    private static func periodEnd(_ timing: MPD.PeriodTiming, timescale: Int64, offset: Int64, line: Int?) throws(MPDError) -> Int64? {
        guard let duration = timing.duration else { return nil }
        guard let length = duration.converted(to: timescale, roundingUp: true) else {
            throw MPDError(line: line, "the Period's length \(duration) at timescale \(timescale) is past the numbers Carryon computes with")
        }
        return try sum(offset, length, line: line, "presentationTimeOffset \(offset) plus the Period's length")
    }

    /// What a `sidx` says: the segments it indexes (in this addressing's ``timescale``) and the
    /// deeper indexes it points at (a hierarchical index), to read next and give here in turn.
    public struct IndexReading: Sendable, Hashable {
        /// The media segments it indexes, in order.
        public var segments: [Segment]
        /// Deeper indexes to read, in order.
        public var subindexes: [Location]
    }

    /// Reads the `sidx` boxes in `bytes`, read from `offset` of the media file.
    public func reading(index bytes: [UInt8], at offset: Int64) throws(MPDError) -> IndexReading {
        let mediaURL = index?.url ?? initialization?.url ?? ""
        var reading = IndexReading(segments: [], subindexes: [])
        var number = Int64(segments.count) + 1
        for box in try SegmentIndex.parse(bytes, at: offset) {
            var time = box.earliestPresentationTime
            for reference in box.references {
                if reference.isIndex {
                    reading.subindexes.append(Location(url: mediaURL, range: reference.range))
                } else {
                    guard let start = MediaTime(time, timescale: box.timescale).converted(to: timescale, roundingUp: false),
                          let duration = MediaTime(reference.duration, timescale: box.timescale).converted(to: timescale, roundingUp: false) else {
                        throw MPDError(line: nil, "a segment time of the sidx box is past the numbers Carryon computes with at timescale \(timescale)")
                    }
                    reading.segments.append(Segment(location: Location(url: mediaURL, range: reference.range), time: start,
                                                    duration: duration, number: number))
                    number = try Self.sum(number, 1, line: nil, "the number of a segment of the sidx box")
                }
                time = try Self.sum(time, reference.duration, line: nil, "a segment time of the sidx box")
            }
        }
        try Self.check(reading.subindexes, reading.segments, offset: presentationTimeOffset, line: nil, owner: "the sidx box")
        return reading
    }

    /// The Representation's last segment ends at or before this many seconds into its Period.
    public var duration: Double {
        guard let last = segments.last else { return 0 }
        return Double(last.time + last.duration - presentationTimeOffset) / Double(timescale)
    }

    /// The addressing mode `information` (a Representation's, inherited) describes.
    public static func mode(of information: SegmentInformation) -> Mode {
        if let template = information.template { return template.timeline == nil ? .template : .timeline }
        if information.list != nil { return .list }
        if let base = information.base, base.indexRange != nil || base.representationIndex != nil { return .base }
        return .url
    }

    /// How many segments `representation` has, worked out from its segment information alone
    /// (no URL made): nil for SegmentBase, whose index says, or when it cannot be worked out.
    /// Cheap for a template or timeline of millions of segments, for showing counts.
    public static func segmentCount(_ representation: Representation, in set: AdaptationSet, of period: Period,
                                    timing: MPD.PeriodTiming, mpd: MPD) -> Int? {
        let information = mpd.segmentInformation(of: representation, in: set, of: period)
        let info = information.template ?? information.list
        guard let info else { return information.base?.indexRange != nil || information.base?.representationIndex != nil ? nil : 1 }
        let timescale = info.timescale ?? 1, offset = info.presentationTimeOffset ?? 0
        if information.template == nil, info.timeline == nil { return info.segmentURLs?.count ?? 0 }
        let periodEnd: Int64?
        do { periodEnd = try Self.periodEnd(timing, timescale: timescale, offset: offset, line: info.line) } catch { return nil }
        guard let slots = try? slots(of: info, timescale: timescale, offset: offset, periodEnd: periodEnd, representation: representation.id) else {
            return nil
        }
        return information.template == nil ? min(slots.count, info.segmentURLs?.count ?? 0) : slots.count
    }

    /// Resolves many references against one base URL: a plain relative path (no scheme,
    /// authority, dot segment or fragment: `chunk-1-00042.m4s`, `v1/42.m4s?t=x`) is appended to
    /// the base's folder, which RFC 3986 resolution gives, without parsing the base again; any
    /// other reference is resolved in full.
    struct Resolver {
        let base: String
        /// The base's folder, with its trailing `/`.
        let folder: String

        init(base: String) {
            self.base = base
            let probe = URIReference.resolve("x", against: base)
            folder = probe.hasSuffix("/x") ? String(probe.dropLast()) : ""
        }

        func resolve(_ reference: String) -> String {
            guard !folder.isEmpty, Self.isPlain(reference) else { return URIReference.resolve(reference, against: base) }
            return folder + reference
        }

        static func isPlain(_ reference: String) -> Bool {
            var segmentLength = 0, dots = 0, inQuery = false, empty = true
            for byte in reference.utf8 {
                empty = false
                switch byte {
                case UInt8(ascii: ":"), UInt8(ascii: "#"), UInt8(ascii: "\\"), UInt8(ascii: " "), UInt8(ascii: "%"):
                    return false
                case _ where inQuery:
                    continue
                case UInt8(ascii: "?"), UInt8(ascii: "/"):
                    // The segment that ends here: not empty (a leading or doubled slash, a bare
                    // query), not `.` or `..`.
                    if segmentLength == 0 || segmentLength == dots && dots <= 2 { return false }
                    if byte == UInt8(ascii: "?") { inQuery = true }
                    segmentLength = 0
                    dots = 0
                case UInt8(ascii: "."):
                    segmentLength += 1
                    dots += 1
                default:
                    segmentLength += 1
                }
            }
            return !empty && (inQuery || (segmentLength > 0 && !(segmentLength == dots && dots <= 2)))
        }
    }

    private static func location(_ reference: URLReference, base: String) -> Location {
        Location(url: reference.sourceURL.map { URIReference.resolve($0, against: base) } ?? base, range: reference.range)
    }
}
