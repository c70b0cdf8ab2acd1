/// A media segment as a downloader needs it.
public struct Segment: Sendable, Hashable {
    /// The absolute URI of the segment's resource.
    public var uri: String
    /// The 1-based line of the URI in the playlist.
    public var line: Int
    /// The media sequence number.
    public var mediaSequence: Int
    /// The discontinuity sequence number.
    public var discontinuitySequence: Int
    /// Whether an `EXT-X-DISCONTINUITY` precedes the segment.
    public var discontinuity: Bool
    /// `EXT-X-GAP`: the segment is missing and must not be loaded.
    public var isGap: Bool
    /// Seconds from the start of the playlist to the segment's start.
    public var startTime: Double
    /// The `EXTINF` duration in seconds; 0 when the playlist gives none (see ``isDurationKnown``).
    public var duration: Double
    /// Whether the playlist gives the duration: false for an IPTV-style `#EXTINF:-1` or a lone
    /// URI line read as a single resource.
    public var isDurationKnown: Bool
    /// The `EXTINF` title (empty when none).
    public var title: String
    /// Attributes an IPTV-style `EXTINF` carries between the duration and the title
    /// (`tvg-id="news" group-title="News"`), as written; empty in a playlist that follows RFC 8216bis.
    public var attributes: [Attribute]
    /// The segment's sub-range of its resource, offsets resolved; nil for the whole resource.
    public var byteRange: ResolvedByteRange?
    /// The keys in effect (one per key format), empty when the segment is in the clear.
    public var keys: [SegmentKey]
    /// The media initialization section in effect, kept once for all the segments it applies to.
    var sharedInitSection: Shared<InitSection>?
    /// The `EXT-X-PROGRAM-DATE-TIME`, boxed: most segments have none, and a million segments
    /// would each carry room for one.
    var sharedProgramDateTime: Shared<DateTime>?
    /// The `EXT-X-BITRATE` in effect, in kbit/s.
    public var bitrate: Int?
    /// The segment's partial segments (low-latency HLS).
    public var parts: [PartialSegment]

    /// The key to use: the `identity` one if there is one, else the first.
    public var key: SegmentKey? { keys.first { $0.keyFormat == "identity" } ?? keys.first }

    /// The media initialization section in effect.
    public var initSection: InitSection? {
        get { sharedInitSection?.value }
        set { sharedInitSection = newValue.map(Shared.init) }
    }

    /// `EXT-X-PROGRAM-DATE-TIME` given for this segment.
    public var programDateTime: DateTime? {
        get { sharedProgramDateTime?.value }
        set { sharedProgramDateTime = newValue.map(Shared.init) }
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
