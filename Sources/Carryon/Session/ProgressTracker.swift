/// Keeps a task's progress: bytes per resource (done, in flight, expected), the rendition's
/// bytes per second of media to refine estimates, loaded time ranges, and the transfer rate
/// over a sliding window. Times are passed in, so it is tested without a clock.
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

    private(set) var items: [Int64: Item] = [:]
    private var samples: [(time: Double, bytes: Int)] = []
    /// How far back the rate looks, in seconds.
    let window: Double

    init(resources: [ResourceRecord], window: Double = 5) {
        self.window = window
        for resource in resources {
            guard let id = resource.id else { continue }
            items[id] = Item(renditionKey: resource.renditionKey, kind: resource.kind, startTime: resource.startTime,
                             duration: resource.duration, expected: resource.bytes ?? resource.expectedBytes,
                             exact: resource.exactSize || resource.state == .done, done: resource.state == .done,
                             bytes: resource.state == .done ? (resource.bytes ?? 0) : 0)
        }
    }

    /// Bytes written (or discarded, when negative) for a resource in flight.
    mutating func add(_ delta: Int, to id: Int64, at time: Double) {
        // Discarded bytes may include a partial file an earlier process wrote, never counted here.
        if let bytes = items[id]?.bytes { items[id]?.bytes = max(0, bytes + delta) }
        let total = (samples.last?.bytes ?? 0) + max(0, delta)
        samples.append((time, total))
        while let first = samples.first, time - first.time > window, samples.count > 2 { samples.removeFirst() }
    }

    /// A resource is done with `bytes` bytes.
    mutating func finish(_ id: Int64, bytes: Int) {
        items[id]?.done = true
        items[id]?.bytes = bytes
        items[id]?.expected = bytes
        items[id]?.exact = true
    }

    /// Bytes not yet confirmed for an unfinished resource are dropped (a suspended request).
    mutating func resetInFlight() {
        for (id, item) in items where !item.done { items[id]?.bytes = 0 }
    }

    func snapshot(at time: Double) -> DownloadProgress {
        // Bytes per second of media, per rendition, from finished segments of unknown length.
        var rates: [String: (bytes: Int, seconds: Double)] = [:]
        for item in items.values where item.done && item.kind == .segment && item.duration > 0 {
            rates[item.renditionKey, default: (0, 0)].bytes += item.bytes
            rates[item.renditionKey, default: (0, 0)].seconds += item.duration
        }
        var done = 0
        var expected = 0
        var exact = true
        var resourcesDone = 0
        var ranges: [String: [DownloadProgress.TimeRange]] = [:]
        for item in items.values {
            done += item.bytes
            if item.done {
                resourcesDone += 1
                expected += item.bytes
                if item.kind == .segment {
                    ranges[item.renditionKey, default: []].append(.init(start: item.startTime, end: item.startTime + item.duration))
                }
            } else if item.exact {
                expected += item.expected
            } else {
                exact = false
                var estimate = item.expected
                if item.kind == .segment, let rate = rates[item.renditionKey], rate.seconds > 0 {
                    estimate = Int(Double(rate.bytes) / rate.seconds * item.duration)
                }
                expected += max(estimate, item.bytes)
            }
        }
        var rate: Double?
        if let first = samples.first, let last = samples.last {
            if time - last.time > window {
                // Nothing arrived within the window: the transfer is stalled.
                rate = 0
            } else if last.time - first.time >= 0.5 {
                rate = Double(last.bytes - first.bytes) / (last.time - first.time)
            }
        }
        let remaining = rate.flatMap { $0 > 0 ? Double(max(0, expected - done)) / $0 : nil }
        return DownloadProgress(bytesDone: done, bytesExpected: max(expected, done), isExact: exact,
                                resourcesDone: resourcesDone, resourcesTotal: items.count, bytesPerSecond: rate,
                                secondsRemaining: remaining, loadedTimeRanges: ranges.mapValues(Self.merge))
    }

    /// Sorts and merges touching ranges (within a millisecond).
    static func merge(_ ranges: [DownloadProgress.TimeRange]) -> [DownloadProgress.TimeRange] {
        var merged: [DownloadProgress.TimeRange] = []
        for range in ranges.sorted(by: { $0.start < $1.start }) {
            if let last = merged.last, range.start <= last.end + 0.001 {
                merged[merged.count - 1].end = max(last.end, range.end)
            } else {
                merged.append(range)
            }
        }
        return merged
    }
}
