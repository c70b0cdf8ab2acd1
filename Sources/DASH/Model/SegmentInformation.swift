/// The segment information one level (MPD Period, AdaptationSet or Representation) declares:
/// its `SegmentBase`, `SegmentList` and `SegmentTemplate`, each inheriting attribute by
/// attribute from the same element one level up (see ``SegmentInfo/inheriting(from:)``).
public struct SegmentInformation: Sendable, Hashable {
    /// `SegmentBase`.
    public var base: SegmentInfo?
    /// `SegmentList`.
    public var list: SegmentInfo?
    /// `SegmentTemplate`.
    public var template: SegmentInfo?

    /// The given elements.
    public init(base: SegmentInfo? = nil, list: SegmentInfo? = nil, template: SegmentInfo? = nil) {
        self.base = base
        self.list = list
        self.template = template
    }

    /// This level's elements over `parent`'s.
    public func inheriting(from parent: SegmentInformation) -> SegmentInformation {
        SegmentInformation(base: Self.merge(base, parent.base), list: Self.merge(list, parent.list),
                           template: Self.merge(template, parent.template))
    }

    private static func merge(_ child: SegmentInfo?, _ parent: SegmentInfo?) -> SegmentInfo? {
        guard let child else { return parent }
        guard let parent else { return child }
        return child.inheriting(from: parent)
    }
}

/// One `SegmentBase`, `SegmentList` or `SegmentTemplate` element's attributes and children.
/// Times are integers in ``timescale`` units, never floating point: `$Time$` values past 2^53
/// occur.
public struct SegmentInfo: Sendable, Hashable {
    /// `@timescale` (1 when absent everywhere).
    public var timescale: Int64?
    /// `@presentationTimeOffset`, in ``timescale`` units.
    public var presentationTimeOffset: Int64?
    /// `@indexRange` (SegmentBase): where the `sidx` is.
    public var indexRange: ByteRange?
    /// `Initialization`: the init section's URL and range.
    public var initialization: URLReference?
    /// `RepresentationIndex`.
    public var representationIndex: URLReference?
    /// `@duration`, in ``timescale`` units: every segment's, but the last may be shorter.
    public var duration: Int64?
    /// `@startNumber` (1 when absent everywhere).
    public var startNumber: Int64?
    /// `@endNumber`: the last segment's number.
    public var endNumber: Int64?
    /// `SegmentTimeline`.
    public var timeline: SegmentTimeline?
    /// `SegmentURL` elements (SegmentList).
    public var segmentURLs: [SegmentURL]?
    /// `@media` (SegmentTemplate): `chunk-$RepresentationID$-$Number%05d$.m4s`.
    public var media: String?
    /// `@index` (SegmentTemplate).
    public var index: String?
    /// `@initialization` (SegmentTemplate).
    public var initializationTemplate: String?
    /// The line of the element.
    public var line: Int = 0

    /// An element with no attribute set.
    public init() {}

    /// These values over `parent`'s, attribute by attribute.
    public func inheriting(from parent: SegmentInfo) -> SegmentInfo {
        var merged = self
        merged.timescale = timescale ?? parent.timescale
        merged.presentationTimeOffset = presentationTimeOffset ?? parent.presentationTimeOffset
        merged.indexRange = indexRange ?? parent.indexRange
        merged.initialization = initialization ?? parent.initialization
        merged.representationIndex = representationIndex ?? parent.representationIndex
        merged.duration = duration ?? parent.duration
        merged.startNumber = startNumber ?? parent.startNumber
        merged.endNumber = endNumber ?? parent.endNumber
        merged.timeline = timeline ?? parent.timeline
        merged.segmentURLs = segmentURLs ?? parent.segmentURLs
        merged.media = media ?? parent.media
        merged.index = index ?? parent.index
        merged.initializationTemplate = initializationTemplate ?? parent.initializationTemplate
        return merged
    }
}

/// A `SegmentTimeline`: runs of segments, each `S` element a start, a duration and a repeat
/// count.
public struct SegmentTimeline: Sendable, Hashable {
    /// One `S` element.
    public struct Entry: Sendable, Hashable {
        /// `@t`: the first segment's time; absent, the end of the entry before (0 for the first).
        public var time: Int64?
        /// `@n`: the first segment's number.
        public var number: Int64?
        /// `@d`: each segment's duration.
        public var duration: Int64
        /// `@r`: how many more segments of the same duration follow; -1 until the next `S@t`
        /// or the Period's end.
        public var repeatCount: Int64
        /// The line of the element.
        public var line: Int

        /// An `S` element.
        public init(time: Int64? = nil, number: Int64? = nil, duration: Int64, repeatCount: Int64 = 0, line: Int = 0) {
            self.time = time
            self.number = number
            self.duration = duration
            self.repeatCount = repeatCount
            self.line = line
        }
    }

    /// The `S` elements in order.
    public var entries: [Entry]

    /// A timeline of `entries`.
    public init(entries: [Entry]) {
        self.entries = entries
    }
}

/// A `SegmentURL` of a SegmentList.
public struct SegmentURL: Sendable, Hashable {
    /// `@media`; absent, the Representation's BaseURL.
    public var media: String?
    /// `@mediaRange`.
    public var mediaRange: ByteRange?
    /// The line of the element.
    public var line: Int

    /// A `SegmentURL`.
    public init(media: String? = nil, mediaRange: ByteRange? = nil, line: Int = 0) {
        self.media = media
        self.mediaRange = mediaRange
        self.line = line
    }
}

/// `Initialization` or `RepresentationIndex`: a URL (absent, the BaseURL) and a byte range.
public struct URLReference: Sendable, Hashable {
    /// `@sourceURL`; absent, the BaseURL.
    public var sourceURL: String?
    /// `@range`.
    public var range: ByteRange?

    /// A reference to `sourceURL` (or the BaseURL) and `range`.
    public init(sourceURL: String? = nil, range: ByteRange? = nil) {
        self.sourceURL = sourceURL
        self.range = range
    }
}

/// A byte range as DASH writes it, `first-last` (both inclusive).
public struct ByteRange: Sendable, Hashable, CustomStringConvertible {
    /// The first byte.
    public var first: Int64
    /// The last byte, included.
    public var last: Int64

    /// The bytes `first` to `last`, both included.
    public init(first: Int64, last: Int64) {
        self.first = first
        self.last = last
    }

    /// Reads `100-499`; nil for anything else, a first past the last, or negative numbers.
    public init?(_ text: String) {
        // Over UTF-8: a SegmentList of 10,000 ranges reads 10,000 of these.
        let utf8 = text.utf8
        guard let dash = utf8.firstIndex(of: UInt8(ascii: "-")),
              let first = Self.number(Substring(utf8[..<dash])), let last = Self.number(Substring(utf8[utf8.index(after: dash)...])),
              first >= 0, last >= first else { return nil }
        self.first = first
        self.last = last
    }

    /// The number of bytes.
    public var length: Int64 { last - first + 1 }

    private static func number(_ text: Substring) -> Int64? {
        Int64(text) ?? Int64(text.trimmingWhitespace())
    }

    public var description: String { "\(first)-\(last)" }
}

/// A time as an integer count of `timescale` units per second: exact, as DASH's times are.
public struct MediaTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The count of units.
    public var value: Int64
    /// Units per second.
    public var timescale: Int64

    /// `value` units of `timescale` per second (a timescale below 1 counts as 1).
    public init(_ value: Int64, timescale: Int64) {
        self.value = value
        self.timescale = max(1, timescale)
    }

    /// No time.
    public static let zero = MediaTime(0, timescale: 1)

    /// In seconds, for display and for HLS's `EXTINF`.
    public var seconds: Double { Double(value) / Double(timescale) }

    /// The same time in `units` per second, rounded toward zero; exact while the result fits,
    /// else the largest or smallest Int64 of its sign.
    public func converted(to units: Int64) -> Int64 {
        converted(to: units, roundingUp: false) ?? (value < 0 ? .min : .max)
    }

    /// The same time in `units` per second, exactly rounded toward zero, or up (toward
    /// +infinity) when `roundingUp`; nil when it does not fit an Int64 (or `units` is not
    /// positive).
    public func converted(to units: Int64, roundingUp: Bool) -> Int64? {
        if units == timescale { return value }
        guard units > 0, timescale > 0 else { return nil }
        let whole = value / timescale, rest = value % timescale
        let (wholeUnits, overflow) = whole.multipliedReportingOverflow(by: units)
        guard !overflow else { return nil }
        // |rest × units| < timescale × units, so the quotient fits.
        let (quotient, remainder) = timescale.dividingFullWidth(rest.multipliedFullWidth(by: units))
        let part = roundingUp && remainder > 0 ? quotient + 1 : quotient
        let (sum, sumOverflow) = wholeUnits.addingReportingOverflow(part)
        return sumOverflow ? nil : sum
    }

    /// The sum, in the finer of the two timescales; clamped to the Int64 range, never
    /// trapping, for a hostile MPD's durations.
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        let units = max(lhs.timescale, rhs.timescale)
        let (a, b) = (lhs.converted(to: units), rhs.converted(to: units))
        let (sum, overflow) = a.addingReportingOverflow(b)
        return MediaTime(overflow ? (a < 0 ? .min : .max) : sum, timescale: units)
    }

    /// The difference, in the finer of the two timescales; clamped like ``+(_:_:)``.
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        lhs + MediaTime(rhs.value == .min ? .max : -rhs.value, timescale: rhs.timescale)
    }

    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool {
        let (a, b) = (lhs.value.multipliedFullWidth(by: rhs.timescale), rhs.value.multipliedFullWidth(by: lhs.timescale))
        return a.high != b.high ? a.high < b.high : a.low < b.low
    }

    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool {
        !(lhs < rhs) && !(rhs < lhs)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(seconds)
    }

    public var description: String { "\(seconds) s" }
}
