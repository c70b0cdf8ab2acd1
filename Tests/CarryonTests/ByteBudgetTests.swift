@testable import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// The storage rules held against bytes as they arrive: the quota and the free space to keep
/// stop the chunk that would break them, with the sizes named; a resource that grows far past
/// what its stream allows is refused; and the progress never claims a share of a size the
/// bytes have left behind.
@Suite("Counting bytes against the storage rules as they arrive")
struct ByteBudgetTests {
    /// A disk of `total` bytes with `free` free, whose free space the test changes.
    final class FakeDisk: @unchecked Sendable {
        let lock = NSLock()
        var freeBytes: Int
        let total: Int
        private(set) var reads = 0
        init(free: Int, total: Int) { freeBytes = free; self.total = total }
        var space: DiskSpace {
            DiskSpace(free: { self.lock.withLock { self.reads += 1; return self.freeBytes } }, total: { self.total })
        }
    }

    @Test("the chunk that would pass the quota is refused with the sizes, and nothing is charged for it")
    func quota() throws {
        let budget = ByteBudget(disk: FakeDisk(free: 1 << 40, total: 1 << 41).space)
        budget.measure(.init(quotaBytes: 10_000, reserveBytes: 0, reserveIsDefault: false), libraryBytes: 6_000)
        try budget.take(3_000, for: "http://o/a.ts")
        let error = #expect(throws: CarryonError.self) { try budget.take(1_001, for: "http://o/b.ts") }
        #expect(error?.code == .storage)
        #expect(error?.message == "http://o/b.ts: 1001 more bytes would pass the library's quota: it holds 9000 bytes of its 10000; what arrived is kept")
        try budget.take(1_000, for: "http://o/b.ts")
        #expect(budget.libraryBytes == 10_000)
        budget.giveBack(4_000)
        try budget.take(4_000, for: "http://o/c.ts")
    }

    @Test("the free space to keep holds against bytes written since it was read, and is read again every few megabytes")
    func reserve() throws {
        let disk = FakeDisk(free: 100 << 20, total: 1 << 40)
        let budget = ByteBudget(disk: disk.space)
        budget.measure(.init(quotaBytes: nil, reserveBytes: 90 << 20, reserveIsDefault: true), libraryBytes: 0)
        let readsAfterMeasure = disk.reads
        try budget.take(4 << 20, for: "s1")
        #expect(disk.reads == readsAfterMeasure, "not read again within \(ByteBudget.remeasureEvery) bytes")
        // Another writer fills the disk meanwhile; the next take reads the disk again.
        disk.lock.withLock { disk.freeBytes = 91 << 20 }
        let error = #expect(throws: CarryonError.self) { try budget.take(2 << 20, for: "http://o/s2.ts") }
        #expect(disk.reads == readsAfterMeasure + 1)
        #expect(error?.code == .storage)
        #expect(error?.message.contains("would leave less than \(90 << 20) bytes free") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("(\(91 << 20) are free; the default reserve of 1 GiB, or 5 % of a smaller disk") == true,
                "\(error?.message ?? "")")
        try budget.take(1 << 20, for: "s2")
    }

    @Test("the default reserve is 1 GiB, or 5 % of a disk smaller than 20 GiB")
    func defaultReserve() {
        #expect(FakeDisk(free: 0, total: 500 << 30).space.defaultReserve == 1 << 30)
        #expect(FakeDisk(free: 0, total: 4 << 30).space.defaultReserve == (4 << 30) / 20)
    }

    @Test("a segment may grow to 16 times its bandwidth estimate (32 MiB at least); 2 GiB when nothing bounds it")
    func growthLimit() {
        let segment = ProgressTrackerTests.resource(1, expected: 4_000_000)
        #expect(segment.growthLimit(bandwidthKnown: true) == 64_000_000)
        #expect(ProgressTrackerTests.resource(2, expected: 50_000).growthLimit(bandwidthKnown: true) == 32 << 20)
        #expect(segment.growthLimit(bandwidthKnown: false) == 2 << 30, "a media playlist alone declares no bandwidth")
        #expect(ProgressTrackerTests.resource(3, kind: .initSection, duration: 0, expected: 2_000).growthLimit(bandwidthKnown: true) == 2 << 30)
        #expect(ProgressTrackerTests.resource(4, expected: Int.max / 8).growthLimit(bandwidthKnown: true) == 2 << 30)
    }

    @Test("bytes past a resource's estimate are reported apart, and the fraction does not claim them")
    func pastEstimate() {
        var tracker = ProgressTracker(resources: [ProgressTrackerTests.resource(1, expected: 1_000),
                                                  ProgressTrackerTests.resource(2, start: 4, expected: 1_000)])
        tracker.add(500, to: 1, at: 0)
        var progress = tracker.snapshot(at: 0)
        #expect(progress.bytesPastEstimate == nil && progress.fraction == 0.25)
        tracker.add(50_000, to: 2, at: 1)
        progress = tracker.snapshot(at: 1)
        #expect(progress.bytesPastEstimate == 50_000)
        #expect(progress.bytesDone == 50_500 && progress.bytesExpected == 51_000)
        #expect(progress.fraction == 0.5, "the other segment's half, not 99 % of a size the bytes left behind")
    }
}
