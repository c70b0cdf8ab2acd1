import DASH
import Foundation

/// A dynamic (live) MPD as recorded: each Representation's segments that each reload brings
/// and the recording does not have yet, appended in time order, and the MPD last read for its
/// structure. Planned as a static MPD (``staticMPD()``): its last Period with each recorded
/// Representation's segments as a `SegmentList` of the origin's absolute URLs with a
/// `SegmentTimeline` (an explicit `t` where segments are missing), a `presentationTimeOffset`
/// that puts the recording's first instant at 0, and `mediaPresentationDuration` what it holds.
///
/// Segments are matched by time, so `$Number$` and `$Time$` templates, and lists, record alike.
/// Where the recording starts: `suggestedPresentationDelay` from the end of the window (three
/// segments without one), or its oldest segment (`timeShiftBufferDepth`) with `--from-start`.
struct RecordedMPD: Sendable, Codable, Hashable {
    /// One Representation recorded.
    struct Track: Sendable, Codable, Hashable {
        var timescale: Int64
        var initialization: String?
        var segments: [Recorded] = []

        var duration: Double { segments.reduce(0) { $0 + Double($1.duration) } / Double(timescale) }
        var end: Int64? { segments.last.map { $0.time + $0.duration } }
    }

    /// One segment recorded: its time and duration in the track's timescale, and its URL.
    struct Recorded: Sendable, Codable, Hashable {
        var time: Int64
        var duration: Int64
        var url: String
    }

    /// The tracks by `AdaptationSet/Representation` (ids, else positions), in the order first seen.
    private(set) var tracks: [String: Track] = [:]
    private(set) var order: [String] = []
    /// The MPD last read, as read: the recording keeps its structure (sets, codecs, keys).
    private var latest = Data()
    /// The URL it was read from.
    private(set) var url = ""
    /// How long to wait between reloads: `minimumUpdatePeriod`, else (or for segments timed by
    /// the clock) the longest segment.
    private(set) var updatePeriod = 2.0
    /// The longest segment of the last reload, in seconds (optional: recordings kept by
    /// earlier releases do not have it).
    private var longestSegment: Double?
    private var segmentLength: Double { longestSegment ?? 2 }
    /// Whether the MPD turned static: the presentation ended.
    private(set) var originEnded = false
    private(set) var isFinished = false

    /// The seconds recorded: the longest track's.
    var duration: Double { tracks.values.map(\.duration).max() ?? 0 }
    var isEmpty: Bool { tracks.values.allSatisfy(\.segments.isEmpty) }

    /// Whether every track holds `limit` seconds.
    func reached(_ limit: Double?) -> Bool {
        guard let limit else { return false }
        return !tracks.isEmpty && tracks.values.allSatisfy { $0.duration >= limit - 1e-6 }
    }

    /// Adds what `mpd` (read from `url` as `bytes`) has that the recording does not, in each
    /// Representation of its last Period, until each holds `limit` seconds.
    ///
    /// `now` is the presentation's clock (seconds since 1970, ``DASHClock``): a `$Number$`
    /// template without a timeline names the segments that have ended by it but the newest, so
    /// that a segment is asked for only once the origin has surely written it.
    ///
    /// With `offset` (`--start` on a live stream), the first track starts at the segment that
    /// holds that many seconds from the start of its window; one past the window's end is
    /// refused, naming its length.
    mutating func merge(_ mpd: MPD, url: String, bytes: [UInt8], start: LiveRecording.Start, offset: Double? = nil,
                        limit: Double?, now: Double) throws(CarryonError) -> LiveRecording.Merge {
        var merge = LiveRecording.Merge()
        guard !isFinished else { return merge }
        latest = Data(bytes)
        self.url = url
        if mpd.type == .static { originEnded = true }
        guard let period = mpd.periods.last, let timing = mpd.periodTimings.last else { return merge }
        // Where the first track started, in seconds, for the others to start at the same instant.
        let anchor = order.first.flatMap { key in tracks[key].flatMap { track in track.segments.first.map { Double($0.time) / Double(track.timescale) } } }
        var longest = 0.0
        // Whether segments are timed by the clock alone: new ones appear each segment's length,
        // whatever minimumUpdatePeriod says of the MPD (ffmpeg writes 500 s).
        var clockTimed = false
        for (setIndex, set) in period.adaptationSets.enumerated() where !set.isTrickMode {
            for representation in set.representations {
                let addressing: SegmentAddressing
                do {
                    addressing = try SegmentAddressing(representation, in: set, of: period, timing: timing, mpd: mpd, mpdURL: url,
                                                       now: now, holdingBack: 1)
                } catch {
                    throw CarryonError(.playlist, "\(url), \(error)", cause: error)
                }
                if addressing.mode == .template { clockTimed = true }
                let incoming = addressing.segments
                guard !incoming.isEmpty, addressing.timescale > 0 else { continue }
                longest = max(longest, incoming.map { Double($0.duration) / Double(addressing.timescale) }.max() ?? 0)
                let key = "\(set.id ?? String(setIndex))/\(representation.id)"
                var track = tracks[key] ?? Track(timescale: addressing.timescale, initialization: addressing.initialization?.url)
                let seconds = { (time: Int64) in Double(time) / Double(track.timescale) }
                var from: Int
                if let end = track.end {
                    // A little slack: times rounded differently by the packager between reloads.
                    let slack = max(1, track.timescale / 1000)
                    guard let next = incoming.firstIndex(where: { $0.time >= end - slack }) else { continue }
                    from = next
                    if incoming[next].time > end + slack, let last = track.segments.last, last.duration > 0 {
                        // The window moved past what the recording has: a gap in its timeline.
                        let missed = Int((Double(incoming[next].time - end) / Double(last.duration)).rounded())
                        if key == order.first {
                            merge.missed += max(1, missed)
                            merge.missedSeconds += seconds(incoming[next].time - end)
                        }
                    }
                } else if let anchor {
                    from = incoming.indices.min { abs(seconds(incoming[$0].time) - anchor) < abs(seconds(incoming[$1].time) - anchor) } ?? 0
                } else if let offset, let origin = incoming.first?.time {
                    guard let index = incoming.firstIndex(where: { seconds($0.time + $0.duration - origin) > offset + 1e-6 }) else {
                        let window = incoming.last.map { seconds($0.time + $0.duration - origin) } ?? 0
                        throw CarryonError(.invalidValue, "\(url): \(LiveRecording.PastLiveEdge(offset: offset, window: window).message)")
                    }
                    from = index
                } else if start == .oldest {
                    from = 0
                } else {
                    let delay = mpd.suggestedPresentationDelay?.seconds
                        ?? 3 * (incoming.map { seconds($0.duration) }.max() ?? 2)
                    from = Self.liveEdge(of: incoming.map { seconds($0.duration) }, delay: delay)
                }
                for segment in incoming[from...] {
                    guard !(limit.map { track.duration >= $0 - 1e-6 } ?? false) else { break }
                    track.segments.append(Recorded(time: segment.time, duration: segment.duration, url: segment.location.url))
                    merge.added += 1
                }
                if tracks[key] == nil { order.append(key) }
                tracks[key] = track
            }
        }
        if longest > 0 { longestSegment = longest }
        updatePeriod = clockTimed ? segmentLength : mpd.minimumUpdatePeriod?.seconds ?? segmentLength
        return merge
    }

    /// The index to start at: the first segment less than `delay` seconds from the end.
    static func liveEdge(of durations: [Double], delay: Double) -> Int {
        var fromEnd = 0.0
        for index in durations.indices.reversed() {
            fromEnd += durations[index]
            if fromEnd >= delay - 1e-6 { return index }
        }
        return 0
    }

    /// Marks the segments at `url` the origin no longer had as missing: left out, a gap in the
    /// timeline. Returns how many, and their seconds.
    mutating func markMissing(_ url: String) -> (count: Int, seconds: Double) {
        removeSegments { $0.url == url }
    }

    /// Ends the recording: no segment is added any more, and each track keeps the segments on
    /// disk, those missing before the last one there leaving gaps. Returns the gaps made.
    mutating func finish(isOnDisk: (String) -> Bool) -> (count: Int, seconds: Double) {
        isFinished = true
        for key in order {
            while let last = tracks[key]?.segments.last, !isOnDisk(last.url) { tracks[key]?.segments.removeLast() }
        }
        return removeSegments { !isOnDisk($0.url) }
    }

    private mutating func removeSegments(where missing: (Recorded) -> Bool) -> (count: Int, seconds: Double) {
        var removed = (count: 0, seconds: 0.0)
        for key in order {
            guard var track = tracks[key] else { continue }
            let before = track.segments
            track.segments.removeAll(where: missing)
            if key == order.first {
                for segment in before where missing(segment) {
                    removed.count += 1
                    removed.seconds += Double(segment.duration) / Double(track.timescale)
                }
            }
            tracks[key] = track
        }
        return removed
    }

    /// The recording as a static MPD, its text.
    func staticMPD() throws(CarryonError) -> [UInt8] {
        guard !isEmpty else {
            throw CarryonError(.playlist, "\(url) is a dynamic (live) MPD whose last Period has no segment to record yet: no SegmentTimeline or SegmentList entry, and no SegmentTemplate segment ended by the presentation's clock (availabilityStartTime, UTCTiming)")
        }
        var mpd: MPD
        do { mpd = try MPD.read(Array(latest)) } catch {
            throw CarryonError(.playlist, "\(url): the recording's MPD cannot be read again: \(error)", cause: error)
        }
        guard var period = mpd.periods.last else {
            throw CarryonError(.playlist, "\(url): the recording's MPD has no Period")
        }
        // The recording's first instant, in seconds: 0 in the static presentation.
        let origin = tracks.values.compactMap { track in track.segments.first.map { Double($0.time) / Double(track.timescale) } }.min() ?? 0
        period.start = nil
        period.duration = nil
        period.segments = SegmentInformation()
        period.xlink = nil
        var sets: [AdaptationSet] = []
        for (setIndex, set) in period.adaptationSets.enumerated() {
            var set = set
            set.segments = SegmentInformation()
            set.representations = set.representations.compactMap { representation in
                guard let track = tracks["\(set.id ?? String(setIndex))/\(representation.id)"], !track.segments.isEmpty else { return nil }
                var representation = representation
                var list = SegmentInfo()
                list.timescale = track.timescale
                list.presentationTimeOffset = Int64((origin * Double(track.timescale)).rounded())
                list.initialization = track.initialization.map { URLReference(sourceURL: $0) }
                list.timeline = SegmentTimeline(entries: Self.timeline(of: track.segments))
                list.segmentURLs = track.segments.map { SegmentURL(media: $0.url) }
                representation.segments = SegmentInformation(list: list)
                return representation
            }
            if !set.representations.isEmpty { sets.append(set) }
        }
        period.adaptationSets = sets
        mpd.periods = [period]
        mpd.type = .static
        mpd.availabilityStartTime = nil
        mpd.publishTime = nil
        mpd.utcTimings = []
        mpd.minimumUpdatePeriod = nil
        mpd.suggestedPresentationDelay = nil
        mpd.timeShiftBufferDepth = nil
        // From the first instant to the last, gaps included.
        let end = tracks.values.compactMap { track in track.end.map { Double($0) / Double(track.timescale) } }.max() ?? origin
        mpd.mediaPresentationDuration = MediaTime(Int64(((end - origin) * 1000).rounded()), timescale: 1000)
        return Array(mpd.written().utf8)
    }

    /// `segments` as `S` entries: runs of equal durations, each contiguous, and an explicit
    /// time wherever one does not follow the last.
    static func timeline(of segments: [Recorded]) -> [SegmentTimeline.Entry] {
        var entries: [SegmentTimeline.Entry] = []
        var end: Int64?
        for segment in segments {
            if segment.time == end, var last = entries.last, last.duration == segment.duration {
                last.repeatCount += 1
                entries[entries.count - 1] = last
            } else {
                entries.append(SegmentTimeline.Entry(time: segment.time == end ? nil : segment.time, duration: segment.duration))
            }
            end = segment.time + segment.duration
        }
        return entries
    }
}
