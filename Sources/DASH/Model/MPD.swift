import HLS

/// A Media Presentation Description (ISO/IEC 23009-1) as read: every level keeps what it
/// declares itself; what a Representation inherits from its AdaptationSet, Period and the MPD
/// is worked out by ``MPD/effective(_:in:)`` and the segment addressing
/// (``SegmentAddressing``).
///
///     let mpd = try MPD.read(Array(text.utf8))
///     mpd.type                     // .static
///     mpd.periods[0].adaptationSets[0].representations[0].bandwidth
public struct MPD: Sendable, Hashable {
    /// `static` (on demand: every segment exists) or `dynamic` (live).
    public enum PresentationType: String, Sendable, Hashable {
        /// On demand: every segment exists when the MPD is read.
        case `static`
        /// Live: segments appear over time.
        case dynamic
    }

    /// `@type`: `static` when absent, as the standard says.
    public var type: PresentationType = .static
    /// `@mediaPresentationDuration`.
    public var mediaPresentationDuration: MediaTime?
    /// `@minBufferTime`.
    public var minBufferTime: MediaTime?
    /// `@minimumUpdatePeriod`: how often a dynamic MPD may change.
    public var minimumUpdatePeriod: MediaTime?
    /// `@suggestedPresentationDelay`: how far behind the live edge a player of a dynamic MPD starts.
    public var suggestedPresentationDelay: MediaTime?
    /// `@timeShiftBufferDepth`: how much of a dynamic presentation stays available behind the live edge.
    public var timeShiftBufferDepth: MediaTime?
    /// `@availabilityStartTime`: the wall-clock instant a dynamic presentation's time 0 stands
    /// for, from which its segments become available (5.3.9.5).
    public var availabilityStartTime: DateTime?
    /// `@publishTime`: when this version of the MPD was made.
    public var publishTime: DateTime?
    /// `UTCTiming` elements: where a client reads the clock the presentation's times are
    /// given by, in order of preference (5.8.4.11).
    public var utcTimings: [Descriptor] = []
    /// `@profiles`, split at commas.
    public var profiles: [String] = []
    /// The MPD level's `BaseURL` elements, in order.
    public var baseURLs: [BaseURL] = []
    /// `Location` elements: where the MPD may be read again.
    public var locations: [String] = []
    /// The Periods in document order.
    public var periods: [Period] = []
    /// The MPD level's URL query parameter descriptor, when it has one.
    public var urlQuery: URLQueryInfo?
    /// What the lenient reader read past (see ``MPD/read(_:)``).
    public var warnings: [MPDWarning] = []

    /// An empty one, to fill in (the reader and tests build them so).
    public init() {}
}

/// A `BaseURL` element.
public struct BaseURL: Sendable, Hashable {
    /// The URL, relative or absolute, as written (trimmed).
    public var url: String
    /// `@serviceLocation`.
    public var serviceLocation: String?
    /// The line of the element.
    public var line: Int

    /// A BaseURL of `url`.
    public init(url: String, serviceLocation: String? = nil, line: Int = 0) {
        self.url = url
        self.serviceLocation = serviceLocation
        self.line = line
    }
}

/// An `xlink:href` on a Period or AdaptationSet: the element is to be replaced by the one at
/// `href`.
public struct XLink: Sendable, Hashable {
    /// `xlink:href`.
    public var href: String
    /// `xlink:actuate`: `onLoad` or `onRequest` (the default).
    public var actuate: String
}

/// A `Period`.
public struct Period: Sendable, Hashable {
    /// `@id`.
    public var id: String?
    /// `@start`: its start in the presentation; absent, the end of the Period before.
    public var start: MediaTime?
    /// `@duration`.
    public var duration: MediaTime?
    /// This level's `BaseURL` elements.
    public var baseURLs: [BaseURL] = []
    /// This level's segment information, inherited by its AdaptationSets.
    public var segments = SegmentInformation()
    /// The AdaptationSets in document order (those an unknown `EssentialProperty` drops are
    /// not here: see ``MPD/warnings``).
    public var adaptationSets: [AdaptationSet] = []
    /// A remote Period to load in this one's place.
    public var xlink: XLink?
    /// The Period level's URL query parameter descriptor, when it has one.
    public var urlQuery: URLQueryInfo?
    /// The line of the element.
    public var line: Int = 0

    /// An empty one, to fill in (the reader and tests build them so).
    public init() {}
}

/// An `AdaptationSet`: interchangeable encodings of one content component.
public struct AdaptationSet: Sendable, Hashable {
    /// `@id`.
    public var id: String?
    /// `@contentType` (`video`, `audio`, `text`, `image`), or nil.
    public var contentType: String?
    /// `@lang`.
    public var language: String?
    /// `Label` elements' text.
    public var labels: [String] = []
    /// `Role` descriptors (`urn:mpeg:dash:role:2011`: `main`, `alternate`, `subtitle`, `caption`…).
    public var roles: [Descriptor] = []
    /// `Accessibility` descriptors.
    public var accessibility: [Descriptor] = []
    /// Attributes and elements a Representation inherits.
    public var common = CommonAttributes()
    /// This level's `BaseURL` elements.
    public var baseURLs: [BaseURL] = []
    /// This level's segment information.
    public var segments = SegmentInformation()
    /// The Representations in document order.
    public var representations: [Representation] = []
    /// A remote AdaptationSet to load in this one's place.
    public var xlink: XLink?
    /// The line of the element.
    public var line: Int = 0

    /// An empty one, to fill in (the reader and tests build them so).
    public init() {}

    /// Whether it is a trick-mode set (DASH-IF's `http://dashif.org/guidelines/trickmode`),
    /// kept apart from the sets a player plays, like HLS's I-frame variants.
    public var isTrickMode: Bool {
        (common.essentialProperties + common.supplementalProperties).contains { $0.schemeIdUri == Descriptor.trickMode }
    }
}

/// A `Representation`: one encoding.
public struct Representation: Sendable, Hashable {
    /// `@id`.
    public var id: String = ""
    /// `@bandwidth`, bits per second.
    public var bandwidth: Int?
    /// Its own attributes; ``MPD/effective(_:in:)`` adds what it inherits.
    public var common = CommonAttributes()
    /// This level's `BaseURL` elements.
    public var baseURLs: [BaseURL] = []
    /// This level's segment information.
    public var segments = SegmentInformation()
    /// The line of the element.
    public var line: Int = 0

    /// An empty one, to fill in (the reader and tests build them so).
    public init() {}
}

/// What an AdaptationSet and a Representation may both declare (ISO/IEC 23009-1's
/// RepresentationBaseType); a Representation's own values win.
public struct CommonAttributes: Sendable, Hashable {
    /// `@mimeType` (`video/mp4`).
    public var mimeType: String?
    /// `@codecs` (RFC 6381: `avc1.64001f`).
    public var codecs: String?
    /// `@width` in pixels.
    public var width: Int?
    /// `@height` in pixels.
    public var height: Int?
    /// `@frameRate`.
    public var frameRate: FrameRate?
    /// `@audioSamplingRate`, as written.
    public var audioSamplingRate: String?
    /// `AudioChannelConfiguration` descriptors.
    public var audioChannelConfigurations: [Descriptor] = []
    /// `ContentProtection` elements.
    public var contentProtections: [ContentProtection] = []
    /// `EssentialProperty` descriptors Carryon understands (the others drop their element).
    public var essentialProperties: [Descriptor] = []
    /// `SupplementalProperty` descriptors.
    public var supplementalProperties: [Descriptor] = []
    /// The query to add to segment requests (a URL query parameter descriptor's `UrlQueryInfo`).
    public var urlQuery: URLQueryInfo?

    /// An empty one, to fill in (the reader and tests build them so).
    public init() {}

    /// These values over `parent`'s: each that is not set here comes from `parent`; lists of
    /// descriptors are this level's when it has any.
    public func inheriting(from parent: CommonAttributes) -> CommonAttributes {
        var merged = self
        merged.mimeType = mimeType ?? parent.mimeType
        merged.codecs = codecs ?? parent.codecs
        merged.width = width ?? parent.width
        merged.height = height ?? parent.height
        merged.frameRate = frameRate ?? parent.frameRate
        merged.audioSamplingRate = audioSamplingRate ?? parent.audioSamplingRate
        merged.urlQuery = urlQuery ?? parent.urlQuery
        if audioChannelConfigurations.isEmpty { merged.audioChannelConfigurations = parent.audioChannelConfigurations }
        if contentProtections.isEmpty { merged.contentProtections = parent.contentProtections }
        merged.essentialProperties = parent.essentialProperties + essentialProperties
        merged.supplementalProperties = parent.supplementalProperties + supplementalProperties
        return merged
    }

    /// The channel count `AudioChannelConfiguration` gives (MPEG's scheme, or Dolby's
    /// `tag:dolby.com,2014:dash:audio_channel_configuration:2011` as a channel mask), or nil.
    public var channels: Int? {
        for descriptor in audioChannelConfigurations {
            guard let value = descriptor.value else { continue }
            if descriptor.schemeIdUri.hasPrefix("tag:dolby.com"), let mask = UInt32(value, radix: 16) {
                return mask.nonzeroBitCount
            }
            if let count = Int(value) { return count }
        }
        return nil
    }

    /// The transfer characteristics (`urn:mpeg:mpegB:cicp:TransferCharacteristics`): 16 is
    /// PQ, 18 is HLG, others SDR; nil when not declared.
    public var transferCharacteristics: Int? {
        (essentialProperties + supplementalProperties)
            .first { $0.schemeIdUri == Descriptor.transferCharacteristics }
            .flatMap { $0.value.flatMap(Int.init) }
    }
}

/// `@frameRate`: `25`, `30000/1001`.
public struct FrameRate: Sendable, Hashable, CustomStringConvertible {
    /// Frames per `denominator` seconds.
    public var numerator: Int
    /// Seconds per `numerator` frames.
    public var denominator: Int

    /// Reads `25` or `30000/1001`; nil for anything else or a zero denominator.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard let numerator = parts.first.flatMap({ Int($0.trimmingWhitespace()) }), numerator > 0 else { return nil }
        let denominator = parts.count == 2 ? Int(parts[1].trimmingWhitespace()) : 1
        guard parts.count <= 2, let denominator, denominator > 0 else { return nil }
        self.numerator = numerator
        self.denominator = denominator
    }

    /// Frames per second.
    public var value: Double { Double(numerator) / Double(denominator) }

    public var description: String { denominator == 1 ? "\(numerator)" : "\(numerator)/\(denominator)" }
}

/// A descriptor: `Role`, `Accessibility`, `EssentialProperty`, `AudioChannelConfiguration`…
public struct Descriptor: Sendable, Hashable {
    /// `@schemeIdUri`: what the descriptor means.
    public var schemeIdUri: String
    /// `@value`.
    public var value: String?
    /// `@id`.
    public var id: String?

    /// A descriptor of the scheme `schemeIdUri`.
    public init(schemeIdUri: String, value: String? = nil, id: String? = nil) {
        self.schemeIdUri = schemeIdUri
        self.value = value
        self.id = id
    }

    /// `urn:mpeg:dash:role:2011`.
    public static let role = "urn:mpeg:dash:role:2011"
    /// DASH-IF's trick-mode property.
    public static let trickMode = "http://dashif.org/guidelines/trickmode"
    /// Coding-independent code points: transfer characteristics.
    public static let transferCharacteristics = "urn:mpeg:mpegB:cicp:TransferCharacteristics"
    /// The `EssentialProperty` schemes Carryon understands; any other drops its element.
    public static let understoodEssentialSchemes: Set<String> = [
        trickMode, transferCharacteristics, "urn:mpeg:mpegB:cicp:ColourPrimaries", "urn:mpeg:mpegB:cicp:MatrixCoefficients",
        "urn:mpeg:dash:adaptation-set-switching:2016", "http://dashif.org/guidelines/thumbnail_tile",
        "urn:mpeg:dash:urlparam:2014", "urn:mpeg:dash:urlparam:2016",
    ]
}

/// A `ContentProtection` element.
public struct ContentProtection: Sendable, Hashable {
    /// `@schemeIdUri`: `urn:mpeg:dash:mp4protection:2011`, or a DRM system's `urn:uuid:…`.
    public var schemeIdUri: String
    /// `@value` (`cenc`, `cbcs` for mp4protection).
    public var value: String?
    /// `cenc:default_KID`, as written.
    public var defaultKID: String?
    /// `cenc:pssh`, base64 as written.
    public var pssh: String?
    /// ClearKey's licence server URL (`dashif:Laurl` or `clearkey:Laurl`).
    public var licenseURL: String?

    /// A `ContentProtection` of the scheme `schemeIdUri`.
    public init(schemeIdUri: String, value: String? = nil, defaultKID: String? = nil, pssh: String? = nil, licenseURL: String? = nil) {
        self.schemeIdUri = schemeIdUri
        self.value = value
        self.defaultKID = defaultKID
        self.pssh = pssh
        self.licenseURL = licenseURL
    }

    /// The common-encryption scheme that says a Representation is encrypted.
    public static let mp4Protection = "urn:mpeg:dash:mp4protection:2011"
    /// W3C Clear Key's system id.
    public static let clearKey = "urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e"
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        var text = self
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text
    }
}
