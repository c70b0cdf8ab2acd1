/// Keeps a task's progress: bytes per resource (done, in flight, expected), the rendition's
/// bytes per second of media to refine estimates, loaded time ranges, and the transfer rate
/// over a sliding window. Times are passed in, so it is tested without a clock.
///
/// Every figure is a running total, updated as a resource's bytes arrive or it finishes, so a
/// snapshot costs the number of renditions and requests in flight, not the number of resources:
/// a three-hour asset has thousands of segments and a snapshot follows each one. A resource
/// done is in the totals and in a set of ids kept as ranges only, so that what it holds grows
/// with what is still to fetch, not with a recording's length.
struct ProgressTracker: Sendable {
    struct Item: Sendable {
        var renditionKey: String
        var kind: ResourceKind
        var startTime: Double
        var duration: Double
        var expected: Int
        var exact: Bool
        var done: Bool
        var bytes: Int
    }

    /// What a rendition's unfinished segments of unknown size add up to, and its finished
    /// segments' bytes per second of media.
    private struct Rendition: Sendable {
        var unfinished = 0
        var pendingSeconds = 0.0
        var pendingEstimate = 0
        var doneBytes = 0
        var doneSeconds = 0.0
        var loaded: [DownloadProgress.TimeRange] = []

        /// The estimate for unfinished segments of unknown size lasting `seconds`, whose
        /// bitrate-based estimate is `fallback`.
        func estimate(seconds: Double, fallback: Int) -> Int {
            doneSeconds > 0 ? Int(Double(doneBytes) / doneSeconds * seconds) : fallback
        }
    }

    /// The resources not done yet.
    private var items: [Int64: Item] = [:]
    /// The ids of those done, as ranges of consecutive ids (rows added in order, done mostly in
    /// order): a handful of ranges for thousands of ids.
    private var doneIDs: [ClosedRange<Int64>] = []
    private var renditions: [String: Rendition] = [:]
    private var bytesDone = 0
    private var resourcesDone = 0
    private var expectedKnown = 0        // done resources' bytes + unfinished resources' exact sizes
    private var expectedOther = 0        // unfinished resources of unknown size that are not segments
    private var inexact = 0              // unfinished resources of unknown size
    private var inFlight: Set<Int64> = [] // unfinished resources with bytes written
    private var samples: [(time: Double, bytes: Int)] = []
    private var firstSample = 0
    /// How far back the rate looks, in seconds.
    let window: Double

    init(resources: [ResourceRecord], window: Double = 5) {
        self.window = window
        add(resources)
    }

    /// Counts `resources` too (a resource it has already is counted as it is now).
    mutating func add(_ resources: [ResourceRecord]) {
        for resource in resources {
            guard let id = resource.id else { continue }
            let item = Item(renditionKey: resource.renditionKey, kind: resource.kind, startTime: resource.startTime,
                            duration: resource.duration, expected: resource.bytes ?? resource.expectedBytes,
                            exact: resource.exactSize || resource.state == .done, done: resource.state == .done,
                            bytes: resource.state == .done ? (resource.bytes ?? 0) : 0)
            // One counted already: done stays done; one not done is counted as it is now.
            if isDone(id) { continue }
            if let old = items[id] { count(old, id, sign: -1) }
            count(item, id, sign: 1)
            keep(item, id)
        }
    }

    /// Whether a resource is done.
    func isDone(_ id: Int64) -> Bool {
        // The last range that starts at or before `id`.
        var low = 0, high = doneIDs.count
        while low < high {
            let middle = (low + high) / 2
            if doneIDs[middle].lowerBound <= id { low = middle + 1 } else { high = middle }
        }
        return low > 0 && doneIDs[low - 1].contains(id)
    }

    /// Keeps `item` among those not done, or, done, its id only.
    private mutating func keep(_ item: Item, _ id: Int64) {
        guard item.done else {
            items[id] = item
            return
        }
        items[id] = nil
        var low = 0, high = doneIDs.count
        if let last = doneIDs.last, last.upperBound < id { low = high }
        while low < high {
            let middle = (low + high) / 2
            if doneIDs[middle].upperBound < id { low = middle + 1 } else { high = middle }
        }
        // `low`: the first range that ends at or after `id`.
        if low < doneIDs.count, doneIDs[low].contains(id) { return }
        let joinsBefore = low > 0 && doneIDs[low - 1].upperBound == id - 1
        let joinsAfter = low < doneIDs.count && doneIDs[low].lowerBound == id + 1
        switch (joinsBefore, joinsAfter) {
        case (true, true):
            doneIDs[low - 1] = doneIDs[low - 1].lowerBound...doneIDs[low].upperBound
            doneIDs.remove(at: low)
        case (true, false): doneIDs[low - 1] = doneIDs[low - 1].lowerBound...id
        case (false, true): doneIDs[low] = id...doneIDs[low].upperBound
        case (false, false): doneIDs.insert(id...id, at: low)
        }
    }

    /// The resources of a rendition not yet done.
    func unfinished(in renditionKey: String) -> Int {
        renditions[renditionKey]?.unfinished ?? 0
    }

    /// Bytes written (or discarded, when negative) for a resource in flight.
    mutating func add(_ delta: Int, to id: Int64, at time: Double) {
        // Discarded bytes may include a partial file an earlier process wrote, never counted here.
        update(id) { $0.bytes = max(0, $0.bytes + delta) }
        let total = (samples.last?.bytes ?? 0) + max(0, delta)
        samples.append((time, total))
        while samples.count - firstSample > 2, time - samples[firstSample].time > window { firstSample += 1 }
        if firstSample > 1_024, firstSample * 2 > samples.count {
            samples.removeFirst(firstSample)
            firstSample = 0
        }
    }

    /// A resource is done with `bytes` bytes.
    mutating func finish(_ id: Int64, bytes: Int) {
        update(id) { item in
            item.done = true
            item.bytes = bytes
            item.expected = bytes
            item.exact = true
        }
    }

    /// Bytes not yet confirmed for an unfinished resource are dropped (a suspended request).
    mutating func resetInFlight() {
        for id in inFlight { update(id) { $0.bytes = 0 } }
    }

    func snapshot(at time: Double) -> DownloadProgress {
        var expected = expectedKnown + expectedOther
        var ranges: [String: [DownloadProgress.TimeRange]] = [:]
        for (key, rendition) in renditions {
            expected += rendition.estimate(seconds: rendition.pendingSeconds, fallback: rendition.pendingEstimate)
            if !rendition.loaded.isEmpty { ranges[key] = rendition.loaded }
        }
        // An estimate is never below what a request has already written. A resource past its
        // estimate has no known size: its bytes are reported apart, so that the fraction does
        // not claim a share of a size they have left behind.
        var past = 0
        for id in inFlight {
            guard let item = items[id], !item.exact else { continue }
            let excess = item.bytes - estimate(of: item)
            if excess > 0 {
                expected += excess
                past += item.bytes
            }
        }
        var rate: Double?
        if let last = samples.last {
            let first = samples[firstSample]
            if time - last.time > window {
                // Nothing arrived within the window: the transfer is stalled.
                rate = 0
            } else if last.time - first.time >= 0.5 {
                rate = Double(last.bytes - first.bytes) / (last.time - first.time)
            }
        }
        let remaining = rate.flatMap { $0 > 0 ? Double(max(0, expected - bytesDone)) / $0 : nil }
        return DownloadProgress(bytesDone: bytesDone, bytesExpected: max(expected, bytesDone), isExact: inexact == 0,
                                resourcesDone: resourcesDone, resourcesTotal: items.count + resourcesDone, bytesPerSecond: rate,
                                secondsRemaining: remaining, loadedTimeRanges: ranges, bytesPastEstimate: past > 0 ? past : nil)
    }

    /// Sorts and merges touching ranges (within a millisecond).
    static func merge(_ ranges: [DownloadProgress.TimeRange]) -> [DownloadProgress.TimeRange] {
        var merged: [DownloadProgress.TimeRange] = []
        for range in ranges.sorted(by: { $0.start < $1.start }) {
            insert(range, into: &merged)
        }
        return merged
    }

    /// Adds `range` to sorted, merged `ranges`, merging it with those it touches (within a
    /// millisecond) or overlaps. Appending in order, the common case, costs nothing to search.
    static func insert(_ range: DownloadProgress.TimeRange, into ranges: inout [DownloadProgress.TimeRange]) {
        // The first range that ends at or after this one starts (less the tolerance).
        var low = 0
        var high = ranges.count
        if let last = ranges.last, last.end + 0.001 < range.start { low = high }
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].end + 0.001 < range.start { low = middle + 1 } else { high = middle }
        }
        var merged = range
        var end = low
        while end < ranges.count, ranges[end].start <= merged.end + 0.001 {
            merged.start = min(merged.start, ranges[end].start)
            merged.end = max(merged.end, ranges[end].end)
            end += 1
        }
        ranges.replaceSubrange(low..<end, with: [merged])
    }

    // MARK: Running totals

    private func estimate(of item: Item) -> Int {
        guard item.kind == .segment, let rendition = renditions[item.renditionKey] else { return item.expected }
        return rendition.estimate(seconds: item.duration, fallback: item.expected)
    }

    /// Changes a known resource, taking its old figures out of the totals and its new ones in.
    private mutating func update(_ id: Int64, _ change: (inout Item) -> Void) {
        guard var item = items[id] else { return }
        count(item, id, sign: -1)
        change(&item)
        count(item, id, sign: 1)
        keep(item, id)
    }

    /// Adds (`sign` 1) or takes away (-1) a resource's share of every total. Loaded ranges only
    /// grow: a resource, once done, stays done.
    private mutating func count(_ item: Item, _ id: Int64, sign: Int) {
        bytesDone += sign * item.bytes
        let isSegment = item.kind == .segment
        if item.done {
            resourcesDone += sign
            expectedKnown += sign * item.bytes
            if isSegment, item.duration > 0 {
                renditions[item.renditionKey, default: .init()].doneBytes += sign * item.bytes
                renditions[item.renditionKey, default: .init()].doneSeconds += Double(sign) * item.duration
            }
            if isSegment, sign > 0 {
                Self.insert(.init(start: item.startTime, end: item.startTime + item.duration),
                            into: &renditions[item.renditionKey, default: .init()].loaded)
            }
            return
        }
        renditions[item.renditionKey, default: .init()].unfinished += sign
        if sign > 0, item.bytes > 0 { inFlight.insert(id) } else if sign < 0 { inFlight.remove(id) }
        if item.exact {
            expectedKnown += sign * item.expected
            return
        }
        inexact += sign
        if isSegment {
            renditions[item.renditionKey, default: .init()].pendingSeconds += Double(sign) * item.duration
            renditions[item.renditionKey, default: .init()].pendingEstimate += sign * item.expected
        } else {
            expectedOther += sign * item.expected
        }
    }
}
