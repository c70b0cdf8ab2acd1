import HLS

/// A live HLS media playlist as recorded: the segments each reload brings that the recording
/// does not have yet, appended in media sequence order to one playlist that only grows, written
/// strictly (absolute URIs, explicit byte range offsets, the key and map in effect restated
/// where they change). While the recording goes on it is an `EVENT` playlist; finished, a `VOD`
/// one with `EXT-X-ENDLIST`. The HLS planner plans it as it plans any media playlist.
///
/// Media sequence numbers are the origin's, so that an IV derived from them stays right; what a
/// reload shows the recording missed (the window moved on while it was stopped) is kept as
/// `EXT-X-GAP` segments of the target duration, one per number missed. A stream that starts
/// over (its numbers go back, the segment last recorded is gone) goes on after an
/// `EXT-X-DISCONTINUITY`, numbered after the last one recorded, its keys' IVs written out.
///
/// A long recording need not hold every segment: those the bundle's copy has can be let go
/// (``spill(keeping:)``), only their count, seconds, gaps, discontinuities and whether a key
/// among them was inline kept, and taken back from the copy (``restore(_:)``) for what needs
/// them all: the whole text, a gap among them, the finish, the copy written whole.
struct RecordedPlaylist: Sendable, Codable, Hashable {
    /// One segment recorded: the text of its tags and URI, and what recording needs of it.
    struct RecordedSegment: Sendable, Codable, Hashable {
        /// The tags before `EXTINF` (discontinuity, key, map, program date), as written.
        var prefix: String
        /// The `EXTINF` line, byte range and URI, as written.
        var body: String
        var uri: String
        var rangeOffset: Int?
        var duration: Double
        /// The origin's media sequence number (nil for a gap).
        var origin: Int?
        var isGap: Bool
    }

    /// Where another rendition of the same recording started: its first segment's number and
    /// program date, for a rendition that starts after it to start at the same instant.
    struct Anchor: Sendable, Hashable {
        var sequence: Int
        var date: Double?
    }

    /// Whether a key line recorded may give its key inline: `data:` in any case, quoted or not
    /// (as ``HLSFormat`` redacts origin playlists).
    var holdsInlineKeys: Bool {
        spilled.inlineKeys || HLSFormat.mentionsData(Array(keyText.utf8)) || held.contains { HLSFormat.mentionsData(Array($0.prefix.utf8)) }
    }

    /// Where this recording started, for the renditions recorded beside it.
    var anchor: Anchor? {
        guard count > 0 else { return nil }
        return Anchor(sequence: firstSequence, date: firstDate)
    }

    /// The most segments a reload may show the recording missed (5.5 hours of 2 s segments):
    /// numbers further ahead are a jump (a careless or hostile playlist), which goes on after a
    /// discontinuity instead of adding millions of gaps.
    static let largestGap = 10_000

    /// The segments held: all of them, or those after the ones let go (``spilled``).
    private(set) var held: [RecordedSegment] = []
    /// What the segments let go (the first ones) add up to.
    private(set) var spilled = Spilled()
    /// The segments recorded, held or not.
    var count: Int { spilled.count + held.count }
    /// Every segment, when all are held (a recording not spilled).
    var segments: [RecordedSegment] {
        precondition(spilled.count == 0, "the segments of a recording that let some go")
        return held
    }

    /// The first segments of the recording, let go: their count and what the recording needs
    /// of them.
    struct Spilled: Sendable, Hashable {
        var count = 0
        var seconds = 0.0
        var gaps = 0
        var discontinuities = 0
        var inlineKeys = false
    }
    /// `EXT-X-MEDIA-SEQUENCE` of the recording: the number of its first segment.
    private(set) var firstSequence = 0
    private(set) var discontinuitySequence = 0
    private(set) var targetDuration = 1
    private(set) var version: Int?
    private(set) var independentSegments = false
    /// The first segment's program date (`EXT-X-PROGRAM-DATE-TIME`), in seconds since 1970.
    private var firstDate: Double?
    /// The `EXT-X-KEY` and `EXT-X-MAP` lines in effect after the last segment, as written.
    private var keyText = ""
    private var mapText = ""
    /// Whether the origin ended the playlist (`EXT-X-ENDLIST`).
    private(set) var originEnded = false
    /// Whether the recording is finished: no segment is added any more, and the text ends.
    private(set) var isFinished = false

    /// The recorded duration, gaps included.
    var duration: Double { held.reduce(spilled.seconds) { $0 + $1.duration } }
    var isEmpty: Bool { count == 0 }
    /// How many segments were missed, and their seconds.
    var gapCount: Int { spilled.gaps + held.count(where: \.isGap) }

    private enum CodingKeys: String, CodingKey {
        case held = "segments", firstSequence, discontinuitySequence, targetDuration, version, independentSegments, firstDate, keyText,
             mapText, originEnded, isFinished
    }

    /// Written only whole: a recording that let segments go takes them back first.
    func encode(to encoder: any Encoder) throws {
        guard spilled.count == 0 else {
            throw EncodingError.invalidValue(spilled.count, .init(codingPath: encoder.codingPath, debugDescription: "\(spilled.count) segments not held"))
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(held, forKey: .held)
        try container.encode(firstSequence, forKey: .firstSequence)
        try container.encode(discontinuitySequence, forKey: .discontinuitySequence)
        try container.encode(targetDuration, forKey: .targetDuration)
        try container.encodeIfPresent(version, forKey: .version)
        try container.encode(independentSegments, forKey: .independentSegments)
        try container.encodeIfPresent(firstDate, forKey: .firstDate)
        try container.encode(keyText, forKey: .keyText)
        try container.encode(mapText, forKey: .mapText)
        try container.encode(originEnded, forKey: .originEnded)
        try container.encode(isFinished, forKey: .isFinished)
    }

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        held = try container.decode([RecordedSegment].self, forKey: .held)
        firstSequence = try container.decode(Int.self, forKey: .firstSequence)
        discontinuitySequence = try container.decode(Int.self, forKey: .discontinuitySequence)
        targetDuration = try container.decode(Int.self, forKey: .targetDuration)
        version = try container.decodeIfPresent(Int.self, forKey: .version)
        independentSegments = try container.decode(Bool.self, forKey: .independentSegments)
        firstDate = try container.decodeIfPresent(Double.self, forKey: .firstDate)
        keyText = try container.decode(String.self, forKey: .keyText)
        mapText = try container.decode(String.self, forKey: .mapText)
        originEnded = try container.decode(Bool.self, forKey: .originEnded)
        isFinished = try container.decode(Bool.self, forKey: .isFinished)
    }

    /// Adds what `media`, a fresh reading of the live playlist, has that the recording does
    /// not: on the first reading from `start` — or, beside a rendition that started already
    /// (`anchor`), from the segment of the same program date, else of the same number — then
    /// every segment after the last recorded, until the recording holds `limit` seconds (nil:
    /// no limit).
    ///
    /// With `offset` (`--start` on a live stream), the first reload starts at the segment that
    /// holds that many seconds from the start of the window; one past the window's end is
    /// refused, naming its length.
    mutating func merge(_ media: MediaPlaylist, start: LiveRecording.Start, limit: Double?, anchor: Anchor? = nil,
                        offset: Double? = nil) throws(PlaylistError) -> LiveRecording.Merge {
        var merge = LiveRecording.Merge()
        guard !isFinished else { return merge }
        targetDuration = max(targetDuration, media.targetDuration)
        version = max(version ?? 0, media.version ?? 0)
        independentSegments = independentSegments || media.independentSegments
        let incoming = media.segments
        var from = 0
        var discontinuity = false
        if let last = held.last(where: { $0.origin != nil }), let lastSequence = last.origin {
            if let index = incoming.firstIndex(where: { $0.mediaSequence == lastSequence }),
               incoming[index].uri == last.uri, incoming[index].byteRange?.offset == last.rangeOffset {
                from = index + 1
            } else if let index = incoming.lastIndex(where: { $0.uri == last.uri && $0.byteRange?.offset == last.rangeOffset }) {
                // The same segment under another number: the stream renumbered; go on after it.
                from = index + 1
            } else if let first = incoming.first, first.mediaSequence > lastSequence {
                // The window moved past what the recording has: each number missed is a gap.
                let missed = first.mediaSequence - lastSequence - 1
                let seconds = Double(targetDuration)
                if missed > Self.largestGap {
                    merge.jumped = first.mediaSequence - lastSequence
                    discontinuity = true
                } else {
                    merge.missed = missed
                    merge.missedSeconds = Double(missed) * seconds
                }
                if missed > Self.largestGap {
                    // Numbered on from the last segment recorded, after a discontinuity.
                } else if firstSequence + count == lastSequence + 1 {
                    for number in 0..<missed {
                        guard !reached(limit) else { break }
                        held.append(RecordedSegment(prefix: "", body: try Self.gapBody(seconds, number: lastSequence + 1 + number),
                                                        uri: "", rangeOffset: nil, duration: seconds, origin: nil, isGap: true))
                    }
                } else {
                    // Numbered apart from the origin since a restart: the gap is a discontinuity.
                    discontinuity = true
                }
            } else if !incoming.isEmpty {
                // Numbers that went back, and the last segment gone: the stream started over.
                discontinuity = true
                merge.restarted = true
            }
        } else if !incoming.isEmpty, count == 0 {
            if anchor == nil, let offset {
                switch LiveRecording.index(at: offset, of: incoming.map(\.duration)) {
                case .success(let index): from = index
                case .failure(let past): throw PlaylistError(.structure, past.message)
                }
            } else {
                from = anchor.flatMap { Self.index(of: $0, in: incoming, targetDuration: Double(media.targetDuration)) }
                    ?? (start == .oldest ? 0 : Self.liveEdge(of: incoming, targetDuration: Double(media.targetDuration)))
            }
            firstSequence = incoming[from].mediaSequence
            discontinuitySequence = incoming[from].discontinuitySequence
            firstDate = incoming[from].programDateTime?.secondsSince1970
        }
        for index in incoming.indices.dropFirst(from) {
            guard !reached(limit) else { break }
            try append(incoming[index], discontinuity: discontinuity && index == from)
            merge.added += 1
        }
        if media.hasEndList { originEnded = true }
        return merge
    }

    /// The segment of `segments` that starts where `anchor` does: by program date (within half
    /// a target duration), else by number; nil when none does.
    static func index(of anchor: Anchor, in segments: [Segment], targetDuration: Double) -> Int? {
        if let date = anchor.date {
            let nearest = segments.indices.compactMap { index in
                segments[index].programDateTime.map { (index, abs($0.secondsSince1970 - date)) }
            }.min { $0.1 < $1.1 }
            if let nearest, nearest.1 <= targetDuration / 2 { return nearest.0 }
            if nearest != nil { return nil }
        }
        return segments.firstIndex { $0.mediaSequence == anchor.sequence }
    }

    /// Whether the recording holds `limit` seconds.
    func reached(_ limit: Double?) -> Bool {
        guard let limit else { return false }
        return duration >= limit - 1e-6
    }

    /// The index of the segment a player starts at: the last that starts at least three target
    /// durations before the end (RFC 8216bis 6.3.3), else the first.
    static func liveEdge(of segments: [Segment], targetDuration: Double) -> Int {
        var fromEnd = 0.0
        for index in segments.indices.reversed() {
            fromEnd += segments[index].duration
            if fromEnd >= 3 * targetDuration { return index }
        }
        return 0
    }

    private mutating func append(_ segment: Segment, discontinuity: Bool) throws(PlaylistError) {
        let (sequence, overflow) = firstSequence.addingReportingOverflow(count)
        guard !overflow else {
            throw PlaylistError(.structure, "the recording's media sequence numbers would pass \(Int.max)")
        }
        var prefix: [Line] = []
        if (segment.discontinuity && count > 0) || discontinuity { prefix.append(Line(tag: .discontinuity)) }
        // The key in effect, restated where it changes; an IV derived from a number the
        // recording does not keep (after a restart) is written out.
        var keys: [Line] = segment.keys.map { key in
            let iv = key.ivIsDerived && sequence == segment.mediaSequence ? nil : key.iv
            return Line(tag: .key(Key(method: key.method, uri: key.uri, iv: iv, keyFormat: key.keyFormat == "identity" ? nil : key.keyFormat,
                                      keyFormatVersions: key.keyFormatVersions)))
        }
        if keys.isEmpty && !keyText.isEmpty { keys = [Line(tag: .key(Key(method: .none)))] }
        let keyLines = try Playlist(lines: keys, endsWithNewline: !keys.isEmpty).write()
        if keyLines != keyText, !(keys.isEmpty && keyText.isEmpty) {
            prefix += keys
            keyText = segment.keys.isEmpty ? "" : keyLines
        }
        if let map = segment.initSection {
            let line = Line(tag: .map(Map(uri: map.uri, byteRange: map.byteRange.map { ByteRange(length: $0.length, offset: $0.offset) })))
            let text = try Playlist(lines: [line]).write()
            if text != mapText {
                prefix.append(line)
                mapText = text
            }
        }
        if let date = segment.programDateTime { prefix.append(Line(tag: .programDateTime(date))) }
        var body: [Line] = []
        if segment.isGap { body.append(Line(tag: .gap)) }
        body.append(Line(tag: .inf(Inf(duration: segment.duration, title: segment.title))))
        if let range = segment.byteRange { body.append(Line(tag: .byteRange(ByteRange(length: range.length, offset: range.offset)))) }
        body.append(Line(uri: segment.uri))
        held.append(RecordedSegment(prefix: prefix.isEmpty ? "" : try Playlist(lines: prefix).write(),
                                        body: try Playlist(lines: body).write(), uri: segment.uri,
                                        rangeOffset: segment.byteRange?.offset, duration: segment.duration,
                                        origin: segment.mediaSequence, isGap: segment.isGap))
    }

    private static func gapBody(_ seconds: Double, number: Int) throws(PlaylistError) -> String {
        try Playlist(lines: [Line(tag: .gap), Line(tag: .inf(Inf(duration: seconds))), Line(uri: "missed-\(number).ts")]).write()
    }

    /// Ends the recording: no segment is added any more; the segments not on disk at its end
    /// (`isOnDisk` false) are left out, and those before the last one on disk become gaps.
    /// Returns the gaps this made: how many, and their seconds.
    /// A recording that let segments go takes them back first (``restore(_:)``).
    mutating func finish(isOnDisk: (String, Int?) -> Bool) -> (count: Int, seconds: Double) {
        precondition(spilled.count == 0, "a recording finished without the segments it let go")
        isFinished = true
        while let last = held.last, last.isGap || !isOnDisk(last.uri, last.rangeOffset) {
            held.removeLast()
        }
        return markGaps { !isOnDisk($0.uri, $0.rangeOffset) }
    }

    /// Marks the segments at `uri` (and byte offset) that could not be fetched — gone from the
    /// origin before the recording reached them — as gaps. Returns how many, and their seconds.
    /// Only the segments held are looked at.
    mutating func markMissing(_ uri: String, offset: Int?) -> (count: Int, seconds: Double) {
        markGaps { $0.uri == uri && $0.rangeOffset == offset }
    }

    private mutating func markGaps(where missing: (RecordedSegment) -> Bool) -> (count: Int, seconds: Double) {
        var marked = (count: 0, seconds: 0.0)
        for index in held.indices where !held[index].isGap && missing(held[index]) {
            held[index].isGap = true
            held[index].body = "#EXT-X-GAP\n" + held[index].body
            marked.count += 1
            marked.seconds += held[index].duration
        }
        return marked
    }

    /// The recording with its segments from `index` on only (every other field as it is): what
    /// a journal line of the bundle's copy adds to one that has `index` segments.
    func tail(from index: Int) -> RecordedPlaylist {
        precondition(index >= spilled.count, "a tail from a segment let go")
        var tail = self
        tail.held = Array(held[min(index - spilled.count, held.count)...])
        tail.spilled = Spilled()
        return tail
    }

    /// Adds `tail`, made by ``tail(from:)`` of a recording of `index` segments, to this one of
    /// as many; false (nothing changed) when this one has another number of segments.
    mutating func extend(with tail: RecordedPlaylist, from index: Int) -> Bool {
        guard index == count else { return false }
        var extended = tail
        extended.held = held + tail.held
        extended.spilled = spilled
        self = extended
        return true
    }

    /// Lets go of the segments held before the last `keeping` and before `limit` (those the
    /// bundle's copy has), never the last one the origin numbered (a reload goes on after it).
    mutating func spill(keeping: Int, before limit: Int) {
        let lastNumbered = held.lastIndex { $0.origin != nil } ?? 0
        let drop = min(held.count - keeping, limit - spilled.count, lastNumbered)
        guard drop > 0 else { return }
        for segment in held[..<drop] {
            spilled.seconds += segment.duration
            if segment.isGap { spilled.gaps += 1 }
            if segment.prefix.hasPrefix("#EXT-X-DISCONTINUITY\n") { spilled.discontinuities += 1 }
            if HLSFormat.mentionsData(Array(segment.prefix.utf8)) { spilled.inlineKeys = true }
        }
        spilled.count += drop
        // A new array: one cut at its start keeps the whole capacity.
        held = Array(held[drop...])
    }

    /// Takes back the segments let go, `first` (read from the bundle's copy); false, and
    /// nothing changed, when they are not as many.
    mutating func restore(_ first: ArraySlice<RecordedSegment>) -> Bool {
        guard first.count == spilled.count else { return false }
        held = Array(first) + held
        spilled = Spilled()
        return true
    }
}
