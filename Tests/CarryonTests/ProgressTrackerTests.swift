@testable import Carryon
import CarryonTestSupport
import Testing

/// A task's progress from its resources: bytes done and expected (exact where known, estimated
/// and refined where not), loaded time ranges, and the rate and time left from samples taken
/// at times the test gives.
@Suite("Keeping a download's progress")
struct ProgressTrackerTests {
    /// A resource of rendition `key`: a segment of `duration` seconds from `start` unless told.
    static func resource(_ id: Int64, key: String = "video", kind: ResourceKind = .segment, start: Double = 0,
                         duration: Double = 4, expected: Int, exact: Bool = false, doneBytes: Int? = nil) -> ResourceRecord {
        ResourceRecord(id: id, assetID: "asset", renditionKey: key, ordinal: Int(id), kind: kind, uri: "https://cdn.example/\(id)",
                       rangeOffset: nil, rangeLength: nil, fileName: "\(key)/\(id)", state: doneBytes == nil ? .pending : .done,
                       bytes: doneBytes, expectedBytes: expected, exactSize: exact, startTime: start, duration: duration,
                       etag: nil, lastModified: nil)
    }

    // MARK: Bytes

    @Test("with exact sizes, bytes expected is their sum and exact")
    func exactSizes() {
        let tracker = ProgressTracker(resources: [Self.resource(1, expected: 1_000, exact: true),
                                                  Self.resource(2, start: 4, expected: 2_000, exact: true)])
        let progress = tracker.snapshot(at: 0)
        #expect(progress.bytesDone == 0)
        #expect(progress.bytesExpected == 3_000)
        #expect(progress.isExact)
        #expect(progress.resourcesDone == 0 && progress.resourcesTotal == 2)
        #expect(progress.fraction == 0)
    }

    @Test("bytes written by a request in flight count as done before the resource is")
    func bytesInFlight() {
        var tracker = ProgressTracker(resources: [Self.resource(1, expected: 1_000, exact: true),
                                                  Self.resource(2, start: 4, expected: 2_000, exact: true)])
        tracker.add(400, to: 1, at: 0)
        tracker.add(100, to: 2, at: 0)
        let progress = tracker.snapshot(at: 0)
        #expect(progress.bytesDone == 500)
        #expect(progress.resourcesDone == 0)
        #expect(progress.fraction == 500.0 / 3_000)
    }

    @Test("a finished resource counts its real size, done and expected")
    func finishedResource() {
        var tracker = ProgressTracker(resources: [Self.resource(1, expected: 1_000), Self.resource(2, key: "audio-en", expected: 50)])
        tracker.add(900, to: 1, at: 0)
        tracker.finish(1, bytes: 1_200)
        let progress = tracker.snapshot(at: 0)
        #expect(progress.bytesDone == 1_200)
        #expect(progress.bytesExpected == 1_250)
        #expect(progress.resourcesDone == 1)
        #expect(!progress.isExact)
    }

    @Test("resources the library already has done count from the start (a resumed task)")
    func resumedTask() {
        let tracker = ProgressTracker(resources: [Self.resource(1, expected: 1_000, doneBytes: 1_100),
                                                  Self.resource(2, start: 4, expected: 1_000, exact: true)])
        let progress = tracker.snapshot(at: 0)
        #expect(progress.bytesDone == 1_100)
        #expect(progress.bytesExpected == 2_100)
        #expect(progress.isExact)
        #expect(progress.resourcesDone == 1)
    }

    @Test("once every resource is done, bytes expected is exact and the fraction 1")
    func allDone() {
        var tracker = ProgressTracker(resources: [Self.resource(1, expected: 1_000), Self.resource(2, start: 4, expected: 1_000)])
        tracker.finish(1, bytes: 700)
        tracker.finish(2, bytes: 800)
        let progress = tracker.snapshot(at: 0)
        #expect(progress.bytesDone == 1_500 && progress.bytesExpected == 1_500)
        #expect(progress.isExact)
        #expect(progress.fraction == 1)
    }

    // MARK: Estimates

    @Test("a rendition's finished segments refine the estimates of its others by bytes per second of media")
    func estimatesRefined() {
        var tracker = ProgressTracker(resources: [
            Self.resource(1, start: 0, duration: 4, expected: 100_000),
            Self.resource(2, start: 4, duration: 4, expected: 100_000),
            Self.resource(3, start: 8, duration: 2, expected: 50_000),
        ])
        tracker.finish(1, bytes: 200_000)   // 50 000 bytes per second of media
        let progress = tracker.snapshot(at: 0)
        #expect(progress.bytesExpected == 200_000 + 200_000 + 100_000)
        #expect(!progress.isExact)
    }

    @Test("one rendition's rate does not change another's estimates")
    func estimatesPerRendition() {
        var tracker = ProgressTracker(resources: [
            Self.resource(1, key: "video", expected: 100_000),
            Self.resource(2, key: "audio-en", expected: 32_000),
            Self.resource(3, key: "audio-en", start: 4, expected: 32_000),
        ])
        tracker.finish(2, bytes: 40_000)
        #expect(tracker.snapshot(at: 0).bytesExpected == 100_000 + 40_000 + 40_000)
    }

    @Test("init sections and exact sizes are not re-estimated")
    func exactNotReestimated() {
        var tracker = ProgressTracker(resources: [
            Self.resource(1, kind: .initSection, duration: 0, expected: 2_000),
            Self.resource(2, expected: 100_000),
            Self.resource(3, start: 4, expected: 80_000, exact: true),
        ])
        tracker.finish(2, bytes: 400_000)
        #expect(tracker.snapshot(at: 0).bytesExpected == 2_000 + 400_000 + 80_000)
    }

    @Test("an estimate is never below what a request has already written")
    func estimateAtLeastWritten() {
        var tracker = ProgressTracker(resources: [Self.resource(1, expected: 1_000)])
        tracker.add(5_000, to: 1, at: 0)
        let progress = tracker.snapshot(at: 0)
        #expect(progress.bytesExpected == 5_000)
        // Issue 18 changed this: a resource past its estimate has no known size, and the
        // fraction claims no share of it (it said 1 before).
        #expect(progress.bytesPastEstimate == 5_000)
        #expect(progress.fraction == 0)
    }

    // MARK: Restarts

    @Test("bytes discarded when a partial resource restarts are taken off again")
    func negativeDelta() {
        var tracker = ProgressTracker(resources: [Self.resource(1, expected: 1_000, exact: true)])
        tracker.add(600, to: 1, at: 0)
        tracker.add(-600, to: 1, at: 1)
        #expect(tracker.snapshot(at: 1).bytesDone == 0)
        tracker.add(1_000, to: 1, at: 2)
        #expect(tracker.snapshot(at: 2).bytesDone == 1_000)
    }

    @Test("discarding a partial file an earlier process wrote never makes bytes done negative")
    func negativeDeltaBeyondCounted() {
        // The new process did not count the 500 bytes on disk; the server will not resume them.
        var tracker = ProgressTracker(resources: [Self.resource(1, expected: 1_000, exact: true),
                                                  Self.resource(2, start: 4, expected: 1_000, exact: true, doneBytes: 1_000)])
        tracker.add(-500, to: 1, at: 0)
        let progress = tracker.snapshot(at: 0)
        #expect(progress.bytesDone == 1_000)
        #expect(progress.fraction == 0.5)
        tracker.add(300, to: 1, at: 1)
        #expect(tracker.snapshot(at: 1).bytesDone == 1_300)
    }

    @Test("discarded bytes do not count against the transfer rate")
    func negativeDeltaAndRate() {
        var tracker = ProgressTracker(resources: [Self.resource(1, expected: 10_000, exact: true)])
        tracker.add(1_000, to: 1, at: 0)
        tracker.add(-1_000, to: 1, at: 0.5)
        tracker.add(1_000, to: 1, at: 1)
        #expect(tracker.snapshot(at: 1).bytesPerSecond == 1_000)
    }

    @Test("a suspended request's unconfirmed bytes are dropped; finished resources keep theirs")
    func resetInFlight() {
        var tracker = ProgressTracker(resources: [Self.resource(1, expected: 1_000, exact: true),
                                                  Self.resource(2, start: 4, expected: 1_000, exact: true)])
        tracker.finish(1, bytes: 1_000)
        tracker.add(700, to: 2, at: 0)
        tracker.resetInFlight()
        #expect(tracker.snapshot(at: 0).bytesDone == 1_000)
    }

    @Test("bytes for a resource the tracker does not know are ignored")
    func unknownResource() {
        var tracker = ProgressTracker(resources: [Self.resource(1, expected: 1_000, exact: true)])
        tracker.add(500, to: 99, at: 0)
        tracker.finish(99, bytes: 500)
        let progress = tracker.snapshot(at: 0)
        #expect(progress.bytesDone == 0 && progress.resourcesTotal == 1 && progress.resourcesDone == 0)
    }

    // MARK: Time ranges

    @Test("loaded time ranges are each rendition's finished segments, touching ones merged")
    func loadedTimeRanges() {
        var tracker = ProgressTracker(resources: [
            Self.resource(1, kind: .initSection, duration: 0, expected: 2_000),
            Self.resource(2, start: 0, expected: 1_000),
            Self.resource(3, start: 4, expected: 1_000),
            Self.resource(4, start: 8, expected: 1_000),
            Self.resource(5, start: 12, expected: 1_000),
            Self.resource(6, key: "audio-en", start: 4, expected: 100),
        ])
        for id: Int64 in [1, 5, 3, 2, 6] { tracker.finish(id, bytes: 1_000) }
        let ranges = tracker.snapshot(at: 0).loadedTimeRanges
        #expect(ranges["video"] == [.init(start: 0, end: 8), .init(start: 12, end: 16)])
        #expect(ranges["audio-en"] == [.init(start: 4, end: 8)])
        #expect(ranges.count == 2)
    }

    @Test("ranges are merged when they touch within a millisecond or overlap, in any order")
    func mergeRanges() {
        typealias Range = DownloadProgress.TimeRange
        let merged = ProgressTracker.merge([Range(start: 10, end: 12), Range(start: 0, end: 4.0), Range(start: 4.0005, end: 6),
                                            Range(start: 5, end: 5.5), Range(start: 6.01, end: 8)])
        #expect(merged == [Range(start: 0, end: 6), Range(start: 6.01, end: 8), Range(start: 10, end: 12)])
        #expect(ProgressTracker.merge([]) == [])
    }

    // MARK: Rate and time left

    @Test("the rate is the bytes of the samples over their time, and the time left follows from it")
    func rateAndTimeLeft() {
        var tracker = ProgressTracker(resources: [Self.resource(1, expected: 10_000, exact: true)])
        tracker.add(1_000, to: 1, at: 10)
        tracker.add(1_000, to: 1, at: 11)
        tracker.add(1_000, to: 1, at: 12)
        let progress = tracker.snapshot(at: 12)
        #expect(progress.bytesPerSecond == 1_000)
        #expect(progress.secondsRemaining == 7)
    }

    @Test("the rate is unknown until samples span half a second")
    func rateNeedsHalfASecond() {
        var tracker = ProgressTracker(resources: [Self.resource(1, expected: 10_000, exact: true)])
        #expect(tracker.snapshot(at: 0).bytesPerSecond == nil)
        tracker.add(1_000, to: 1, at: 0)
        tracker.add(1_000, to: 1, at: 0.4)
        let progress = tracker.snapshot(at: 0.4)
        #expect(progress.bytesPerSecond == nil)
        #expect(progress.secondsRemaining == nil)
    }

    @Test("the rate looks back over the window only")
    func rateWindow() {
        var tracker = ProgressTracker(resources: [Self.resource(1, expected: 100_000, exact: true)], window: 5)
        tracker.add(50_000, to: 1, at: 0)
        tracker.add(100, to: 1, at: 10)
        tracker.add(100, to: 1, at: 11)
        tracker.add(100, to: 1, at: 12)
        #expect(tracker.snapshot(at: 12).bytesPerSecond == 100)
    }

    @Test("after no bytes for longer than the window the rate is zero and the time left unknown")
    func stalledTransfer() {
        var tracker = ProgressTracker(resources: [Self.resource(1, expected: 10_000, exact: true)], window: 5)
        tracker.add(1_000, to: 1, at: 10)
        tracker.add(1_000, to: 1, at: 11)
        tracker.add(1_000, to: 1, at: 12)
        let progress = tracker.snapshot(at: 60)
        #expect(progress.bytesPerSecond == 0)
        #expect(progress.secondsRemaining == nil)
    }

    // MARK: Fraction

    @Test("the fraction is clamped to 0…1 and is 0 when nothing is expected",
          arguments: [(0, 0, 0.0), (50, 100, 0.5), (150, 100, 1.0), (-10, 100, 0.0), (10, 0, 0.0)])
    func fractionClamped(done: Int, expected: Int, fraction: Double) {
        let progress = DownloadProgress(bytesDone: done, bytesExpected: expected, isExact: true, resourcesDone: 0, resourcesTotal: 0,
                                        bytesPerSecond: nil, secondsRemaining: nil, loadedTimeRanges: [:])
        #expect(progress.fraction == fraction)
    }

    // MARK: Running totals

    /// What a snapshot must say, computed the slow, obvious way: from every resource's state.
    struct Reference {
        var items: [Int64: ProgressTracker.Item]

        func snapshot() -> (done: Int, expected: Int, exact: Bool, resourcesDone: Int, ranges: [String: [DownloadProgress.TimeRange]]) {
            var rates: [String: (bytes: Int, seconds: Double)] = [:]
            for item in items.values where item.done && item.kind == .segment && item.duration > 0 {
                rates[item.renditionKey, default: (0, 0)].bytes += item.bytes
                rates[item.renditionKey, default: (0, 0)].seconds += item.duration
            }
            var done = 0, expected = 0, exact = true, resourcesDone = 0
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
                    var estimate = Double(item.expected)
                    if item.kind == .segment, let rate = rates[item.renditionKey], rate.seconds > 0 {
                        estimate = Double(rate.bytes) / rate.seconds * item.duration
                    }
                    expected += max(Int(estimate), item.bytes)
                }
            }
            return (done, max(expected, done), exact, resourcesDone, ranges.mapValues(ProgressTracker.merge))
        }
    }

    @Test("running totals agree with a count over every resource, through thousands of random steps",
          arguments: [1, 2, 3, 4, 5])
    func runningTotalsAgree(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let keys = ["video", "audio-en", "subtitles-de"]
        var resources: [ResourceRecord] = []
        for id in Int64(1)...300 {
            let key = keys[Int(random.next() % 3)]
            let kind: ResourceKind = random.next() % 10 == 0 ? .initSection : .segment
            let done = random.next() % 5 == 0
            resources.append(Self.resource(id, key: key, kind: kind, start: Double(random.next() % 100) * 2,
                                           duration: kind == .segment ? Double(1 + random.next() % 4) : 0,
                                           expected: Int(random.next() % 10_000), exact: random.next() % 3 == 0,
                                           doneBytes: done ? Int(random.next() % 10_000) : nil))
        }
        var tracker = ProgressTracker(resources: resources)
        var reference = Reference(items: [:])
        for resource in resources {
            let isDone = resource.state == .done
            reference.items[resource.id!] = .init(renditionKey: resource.renditionKey, kind: resource.kind, startTime: resource.startTime,
                                                  duration: resource.duration, expected: resource.bytes ?? resource.expectedBytes,
                                                  exact: resource.exactSize || isDone, done: isDone, bytes: isDone ? resource.bytes ?? 0 : 0)
        }
        for step in 0..<3_000 {
            let id = Int64(1 + random.next() % 300)
            switch random.next() % 10 {
            case 0..<6:
                let delta = Int(random.next() % 3_000) - (random.next() % 8 == 0 ? 4_000 : 0)
                tracker.add(delta, to: id, at: Double(step))
                // A resource done is done: bytes said of it later are not counted.
                if let item = reference.items[id], !item.done { reference.items[id]?.bytes = max(0, item.bytes + delta) }
            case 6..<9:
                let bytes = Int(random.next() % 10_000)
                tracker.finish(id, bytes: bytes)
                guard reference.items[id]?.done == false else { break }
                reference.items[id]?.done = true
                reference.items[id]?.bytes = bytes
                reference.items[id]?.expected = bytes
                reference.items[id]?.exact = true
            default:
                if random.next() % 20 == 0 {
                    tracker.resetInFlight()
                    for (key, item) in reference.items where !item.done { reference.items[key]?.bytes = 0 }
                }
            }
            let progress = tracker.snapshot(at: Double(step))
            let expected = reference.snapshot()
            #expect(progress.bytesDone == expected.done)
            #expect(progress.resourcesDone == expected.resourcesDone)
            #expect(progress.isExact == expected.exact)
            // A rendition's estimate is rounded once over its segments, not once a segment.
            #expect(abs(progress.bytesExpected - expected.expected) <= 300, "step \(step)")
            #expect(progress.loadedTimeRanges == expected.ranges, "step \(step)")
            if progress.bytesDone != expected.done || progress.loadedTimeRanges != expected.ranges { return }
        }
    }

    @Test("a resource done is known done however its id was finished (in order, backwards, at random, twice), and counted once",
          arguments: [1, 2, 3])
    func doneIDs(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let resources = (Int64(1)...400).map { Self.resource($0, expected: 100, doneBytes: $0 % 7 == 0 ? 100 : nil) }
        var tracker = ProgressTracker(resources: resources)
        var done = Set(resources.filter { $0.state == .done }.map { $0.id! })
        let order: [Int64] = switch seed {
        case 1: Array(1...400)
        case 2: Array((1...400).reversed())
        default: (0..<600).map { _ in Int64(1 + random.next() % 400) }
        }
        for id in order where random.next() % 3 != 0 {
            tracker.finish(id, bytes: 100)
            done.insert(id)
            #expect(tracker.isDone(id))
        }
        #expect((Int64(0)...401).filter { tracker.isDone($0) } == done.sorted())
        let progress = tracker.snapshot(at: 0)
        #expect(progress.resourcesDone == done.count && progress.resourcesTotal == 400 && progress.bytesDone == 100 * done.count)
    }

    @Test("a range inserted anywhere merges with every range it touches or overlaps")
    func insertRanges() {
        typealias Range = DownloadProgress.TimeRange
        var ranges: [Range] = [Range(start: 0, end: 2), Range(start: 4, end: 6), Range(start: 8, end: 10)]
        ProgressTracker.insert(Range(start: 12, end: 14), into: &ranges)
        #expect(ranges.count == 4)
        ProgressTracker.insert(Range(start: 1, end: 9), into: &ranges)
        #expect(ranges == [Range(start: 0, end: 10), Range(start: 12, end: 14)])
        ProgressTracker.insert(Range(start: 10.0005, end: 11), into: &ranges)
        #expect(ranges == [Range(start: 0, end: 11), Range(start: 12, end: 14)])
        ProgressTracker.insert(Range(start: -3, end: -1), into: &ranges)
        #expect(ranges.first == Range(start: -3, end: -1))
    }
}
