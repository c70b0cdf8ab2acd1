/// The segments' times, durations and numbers of a SegmentTemplate or SegmentList, from its
/// SegmentTimeline or from `@duration` over the Period.
extension SegmentAddressing {
    struct Slot {
        var time: Int64
        var duration: Int64
        var number: Int64
    }

    /// The segments' times, durations and numbers of a SegmentTemplate or SegmentList:
    /// from its SegmentTimeline, or from `@duration` over the Period.
    /// With `available` (a dynamic MPD's `$Number$` template timed by the clock: see
    /// `available(of:…)`), the segments at those positions (0 the Period's first) only.
    static func slots(of info: SegmentInfo, timescale: Int64, offset: Int64, periodEnd: Int64?,
                      representation: String, available: Range<Int64>? = nil) throws(MPDError) -> [Slot] {
        let startNumber = info.startNumber ?? 1
        var slots: [Slot] = []
        if let timeline = info.timeline {
            // The next segment's time and number; an overflow is refused only when a segment
            // would take them.
            var time: Int64 = 0, timeOverflowed = false
            var number = startNumber, numberOverflowed = false
            for (position, entry) in timeline.entries.enumerated() {
                if let start = entry.time { (time, timeOverflowed) = (start, false) }
                if let first = entry.number { (number, numberOverflowed) = (first, false) }
                let room = Int64(maximumSegments) - Int64(slots.count)
                var count: Int64
                if entry.repeatCount == -1 {
                    let next = timeline.entries.dropFirst(position + 1).first?.time
                    guard let end = next ?? periodEnd else {
                        throw MPDError(line: entry.line, "S@r=-1 repeats to the Period's end, which the MPD does not give")
                    }
                    guard !timeOverflowed else { throw overflowError(line: entry.line, "the time of the S element's first segment") }
                    // Every segment that starts before the end: ceil((end - time) / d).
                    let span = try difference(end, time, line: entry.line, "the time from the S element's start to its end")
                    count = span <= 0 ? 0 : span / entry.duration + (span % entry.duration > 0 ? 1 : 0)
                } else {
                    count = entry.repeatCount < room ? entry.repeatCount + 1 : room + 1
                }
                guard count <= room else {
                    throw MPDError(line: entry.line, "the SegmentTimeline of Representation \(representation) has more than \(maximumSegments) segments")
                }
                for _ in 0..<count {
                    if let periodEnd, !slots.isEmpty, timeOverflowed || time >= periodEnd { break }
                    guard !timeOverflowed else { throw overflowError(line: entry.line, "the time of a segment of the S element") }
                    guard !numberOverflowed else { throw overflowError(line: entry.line, "the number of a segment of the S element") }
                    slots.append(Slot(time: time, duration: entry.duration, number: number))
                    (time, timeOverflowed) = time.addingReportingOverflow(entry.duration)
                    (number, numberOverflowed) = number.addingReportingOverflow(1)
                }
            }
        } else {
            guard let duration = info.duration else {
                throw MPDError(line: info.line, "the segment information of Representation \(representation) has neither @duration nor a SegmentTimeline")
            }
            var count: Int64
            var first: Int64 = 0
            let line = info.line
            var bounded: Int64?
            if let end = info.endNumber {
                bounded = try sum(difference(end, startNumber, line: line, "@endNumber less @startNumber"), 1, line: line, "the segment count")
            } else if let periodEnd {
                // ceil(Period length / @duration); the end is rounded up already.
                let length = try difference(periodEnd, offset, line: line, "the Period's length")
                bounded = length <= 0 ? 0 : length / duration + (length % duration > 0 ? 1 : 0)
            }
            if let available {
                // Those available now, within the Period's or @endNumber's bound.
                let upper = bounded.map { min(available.upperBound, max(0, $0)) } ?? available.upperBound
                (first, count) = (available.lowerBound, max(0, upper - available.lowerBound))
            } else if let bounded {
                count = bounded
            } else {
                throw MPDError(line: info.line, "Representation \(representation) names its segments by $Number$ in a Period whose length the MPD does not give")
            }
            guard count <= Int64(maximumSegments) else {
                throw MPDError(line: info.line, "Representation \(representation) has \(count) segments, more than the \(maximumSegments) Carryon plans")
            }
            count = max(0, count)
            slots.reserveCapacity(Int(count))
            for index in first..<(first + count) {
                let what = "the time of segment \(index + 1) of Representation \(representation)"
                let time = try sum(offset, product(index, duration, line: line, what), line: line, what)
                let number = try sum(startNumber, index, line: line, "the number of segment \(index + 1) of Representation \(representation)")
                var length = duration
                // Cut at the Period's end; past it (an @endNumber beyond), 1.
                if let periodEnd { length = periodEnd > time ? min(duration, periodEnd - time) : 0 }
                slots.append(Slot(time: time, duration: max(1, length), number: number))
            }
        }
        if let end = info.endNumber { slots.removeAll { $0.number > end } }
        return slots
    }

    /// The most segments of a `$Number$` template timed by the clock that are named at once:
    /// a stream that started days ago, without a `@timeShiftBufferDepth`, is not worked out
    /// back to its start at every reload (ten thousand 2 s segments are five and a half hours).
    public static let maximumLiveWindow = 10_000

    /// The positions (0 the Period's first) of a dynamic MPD's `$Number$` template segments of
    /// `duration` available at `now` (seconds since 1970): each that has ended by `now` since
    /// `@availabilityStartTime` and the Period's start (less the newest `holdingBack`), back to
    /// `@timeShiftBufferDepth` before `now` (all since the start without one), at most the last
    /// ``maximumLiveWindow``. Nil without `@availabilityStartTime`.
    static func available(of info: SegmentInfo, duration: Int64, timescale: Int64, timing: MPD.PeriodTiming, mpd: MPD,
                          now: Double, holdingBack: Int, representation: String) throws(MPDError) -> Range<Int64>? {
        guard let start = mpd.availabilityStartTime else { return nil }
        let length = Double(duration) / Double(timescale)
        // Seconds into the Period at `now`; segment k (from 0) ends at (k + 1) * length.
        let elapsed = now - start.secondsSince1970 - timing.start.seconds
        let latest = (elapsed / length).rounded(.down) - 1 - Double(max(0, holdingBack))
        guard latest.isFinite, latest < Double(Int64.max / 2) else {
            throw MPDError(line: info.line, "Representation \(representation) would be at segment \(latest) now, past the numbers Carryon computes with")
        }
        var earliest = mpd.timeShiftBufferDepth.map { max(0, ((elapsed - $0.seconds) / length).rounded(.up) - 1) } ?? 0
        earliest = max(earliest, latest - Double(maximumLiveWindow) + 1)
        guard latest >= 0, earliest <= latest else { return 0..<0 }
        return Int64(earliest)..<(Int64(latest) + 1)
    }
}
