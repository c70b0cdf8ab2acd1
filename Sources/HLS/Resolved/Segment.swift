/// A media segment as a downloader needs it.
///
/// A long playlist has a million of these, so what few segments have — a title, IPTV
/// attributes, partial segments, a program date — is kept in one box that most segments do not
/// have, and the fields are ordered to leave no padding: 112 bytes a segment. A program date
/// is kept as its instant, and its text only when not written as Carryon writes one, as some
/// playlists give one on every segment.
public struct Segment: Sendable, Hashable {
    /// The absolute URI of the segment's resource.
    public var uri: String
    /// The media sequence number.
    public var mediaSequence: Int
    /// The discontinuity sequence number.
    public var discontinuitySequence: Int
    /// Seconds from the start of the playlist to the segment's start.
    public var startTime: Double
    /// The `EXTINF` duration in seconds; 0 when the playlist gives none (see ``isDurationKnown``).
    public var duration: Double
    /// The keys in effect (one per key format), empty when the segment is in the clear.
    public var keys: [SegmentKey]
    /// The media initialization section in effect, kept once for all the segments it applies to.
    var sharedInitSection: Shared<InitSection>?
    /// What few segments have; nil when the segment has none of it.
    private var extras: Shared<Extras>?
    /// ``bitrate``, `Int.min` (which no bitrate is) for none: an optional would take a byte more,
    /// and with the byte range's, eight bytes more a segment.
    private var storedBitrate: Int
    /// ``byteRange``'s offset and length; the length `Int.min` (which no range has) for none.
    private var rangeOffset: Int
    private var rangeLength: Int
    /// The instant of ``programDateTime``; minus infinity (which no date is) for none.
    private var programDateSeconds: Double
    /// ``line``, in four bytes.
    private var storedLine: UInt32
    /// Whether an `EXT-X-DISCONTINUITY` precedes the segment.
    public var discontinuity: Bool
    /// `EXT-X-GAP`: the segment is missing and must not be loaded.
    public var isGap: Bool
    /// Whether the playlist gives the duration: false for an IPTV-style `#EXTINF:-1` or a lone
    /// URI line read as a single resource.
    public var isDurationKnown: Bool

    /// The fields most segments leave empty.
    private struct Extras: Sendable, Hashable {
        var title = ""
        var attributes: [Attribute] = []
        /// The text of ``programDateTime`` when it is not the canonical text of its instant.
        var programDateText: String?
        var parts: [PartialSegment] = []

        static let none = Extras()
    }

    init(uri: String, line: Int, mediaSequence: Int, discontinuitySequence: Int, discontinuity: Bool, isGap: Bool,
         startTime: Double, duration: Double, isDurationKnown: Bool, title: String, attributes: [Attribute],
         byteRange: ResolvedByteRange?, keys: [SegmentKey], sharedInitSection: Shared<InitSection>?,
         programDateTime: DateTime?, bitrate: Int?, parts: [PartialSegment]) {
        self.uri = uri
        self.storedLine = UInt32(clamping: line)
        self.mediaSequence = mediaSequence
        self.discontinuitySequence = discontinuitySequence
        self.startTime = startTime
        self.duration = duration
        self.keys = keys
        self.sharedInitSection = sharedInitSection
        self.programDateSeconds = programDateTime?.secondsSince1970 ?? -.infinity
        if title.isEmpty, attributes.isEmpty, programDateTime?.written == nil, parts.isEmpty {
            self.extras = nil
        } else {
            self.extras = Shared(Extras(title: title, attributes: attributes, programDateText: programDateTime?.written, parts: parts))
        }
        self.storedBitrate = bitrate ?? .min
        self.rangeOffset = byteRange?.offset ?? 0
        self.rangeLength = byteRange?.length ?? .min
        self.discontinuity = discontinuity
        self.isGap = isGap
        self.isDurationKnown = isDurationKnown
    }

    /// Changes what few segments have, keeping no box when none of it is left.
    private mutating func changeExtras(_ change: (inout Extras) -> Void) {
        var value = extras?.value ?? .none
        change(&value)
        extras = value == .none ? nil : Shared(value)
    }

    /// The `EXTINF` title (empty when none).
    public var title: String {
        get { extras?.value.title ?? "" }
        set { changeExtras { $0.title = newValue } }
    }

    /// Attributes an IPTV-style `EXTINF` carries between the duration and the title
    /// (`tvg-id="news" group-title="News"`), as written; empty in a playlist that follows RFC 8216bis.
    public var attributes: [Attribute] {
        get { extras?.value.attributes ?? [] }
        set { changeExtras { $0.attributes = newValue } }
    }

    /// The segment's partial segments (low-latency HLS).
    public var parts: [PartialSegment] {
        get { extras?.value.parts ?? [] }
        set { changeExtras { $0.parts = newValue } }
    }

    /// The `EXT-X-BITRATE` in effect, in kbit/s.
    public var bitrate: Int? {
        get { storedBitrate == .min ? nil : storedBitrate }
        set { storedBitrate = newValue ?? .min }
    }

    /// The segment's sub-range of its resource, offsets resolved; nil for the whole resource.
    public var byteRange: ResolvedByteRange? {
        get { rangeLength == .min ? nil : ResolvedByteRange(offset: rangeOffset, length: rangeLength) }
        set {
            rangeOffset = newValue?.offset ?? 0
            rangeLength = newValue?.length ?? .min
        }
    }

    /// The 1-based line of the URI in the playlist (at most 4 294 967 295: a playlist of more
    /// lines would be gigabytes of text).
    public var line: Int {
        get { Int(storedLine) }
        set { storedLine = UInt32(clamping: newValue) }
    }

    /// The key to use: the `identity` one if there is one, else the first.
    public var key: SegmentKey? { keys.first { $0.keyFormat == "identity" } ?? keys.first }

    /// The media initialization section in effect.
    public var initSection: InitSection? {
        get { sharedInitSection?.value }
        set { sharedInitSection = newValue.map(Shared.init) }
    }

    /// `EXT-X-PROGRAM-DATE-TIME` given for this segment.
    public var programDateTime: DateTime? {
        get {
            programDateSeconds == -.infinity ? nil
                : DateTime(written: extras?.value.programDateText, secondsSince1970: programDateSeconds)
        }
        set {
            programDateSeconds = newValue?.secondsSince1970 ?? -.infinity
            if newValue?.written != extras?.value.programDateText {
                changeExtras { $0.programDateText = newValue?.written }
            }
        }
    }

    /// The segment's end time in seconds from the start of the playlist.
    public var endTime: Double { startTime + duration }
}

/// A byte range with its offset resolved.
public struct ResolvedByteRange: Sendable, Hashable, CustomStringConvertible {
    /// The first byte.
    public var offset: Int
    /// The number of bytes.
    public var length: Int

    /// Creates a range of `length` bytes that starts at byte `offset`. The end, `offset + length`,
    /// must fit in `Int` for ``range`` to be formed.
    public init(offset: Int, length: Int) {
        self.offset = offset
        self.length = length
    }

    /// The bytes as a range, `offset..<offset + length`.
    public var range: Range<Int> { offset..<(offset + length) }

    /// `length@offset`.
    public var description: String { "\(length)@\(offset)" }
}

extension ResolvedByteRange {
    /// A range whose end fits in `Int`, so that ``range`` can be formed.
    static func checked(offset: Int, length: Int) throws(TagError) -> ResolvedByteRange {
        guard !offset.addingReportingOverflow(length).overflow else {
            throw TagError(.byteRange, "the byte range \(length)@\(offset) ends past the largest offset, \(Int.max)")
        }
        return ResolvedByteRange(offset: offset, length: length)
    }

    /// The same for an `EXT-X-BYTERANGE` tag, whose line is not the one being read.
    static func checked(offset: Int, length: Int, line: Int) throws(PlaylistError) -> ResolvedByteRange {
        do throws(TagError) {
            return try checked(offset: offset, length: length)
        } catch {
            throw PlaylistError(error.code, line: line, error.message)
        }
    }
}

/// An encryption key in effect for a segment or init section.
public struct SegmentKey: Sendable, Hashable {
    /// The method (never `NONE`).
    public var method: KeyMethod
    /// The absolute key URI.
    public var uri: String
    /// The IV: explicit, or for AES-128 and SAMPLE-AES without one, derived from the media
    /// sequence number. Nil where none applies.
    public var iv: HexSequence?
    /// Whether ``iv`` was derived from the media sequence number rather than given.
    public var ivIsDerived: Bool
    /// The key format (`identity` when not given).
    public var keyFormat: String
    /// `KEYFORMATVERSIONS`, when given.
    public var keyFormatVersions: String?
    /// The line of the `EXT-X-KEY` tag.
    public var line: Int
}

/// A media initialization section (`EXT-X-MAP`) in effect.
public struct InitSection: Sendable, Hashable {
    /// The absolute URI of its resource.
    public var uri: String
    /// Its sub-range of that resource; nil for the whole resource.
    public var byteRange: ResolvedByteRange?
    /// The keys in effect where the `EXT-X-MAP` tag stands.
    public var keys: [SegmentKey]
    /// The line of the `EXT-X-MAP` tag.
    public var line: Int
}

/// A partial segment (`EXT-X-PART`) with its URI absolute and byte range resolved.
public struct PartialSegment: Sendable, Hashable {
    /// The absolute URI of the partial segment's resource, variables substituted.
    public var uri: String
    /// The `DURATION` in seconds.
    public var duration: Double
    /// Whether the partial segment starts with an independent frame (`INDEPENDENT=YES`).
    public var independent: Bool
    /// Its sub-range of the resource, offsets resolved; nil for the whole resource.
    public var byteRange: ResolvedByteRange?
    /// `GAP=YES`: the partial segment is unavailable and must not be loaded.
    public var isGap: Bool
    /// The 1-based line of the `EXT-X-PART` tag.
    public var line: Int
}
