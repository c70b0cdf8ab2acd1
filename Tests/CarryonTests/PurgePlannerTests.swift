import Foundation
import Testing
@testable import Carryon

/// A fixed "now" for every test: 2024-06-01 00:00:00 UTC.
private let now = Date(timeIntervalSince1970: 1_717_200_000)

/// `now` shifted by a number of days.
private func day(_ offset: Double) -> Date {
    now.addingTimeInterval(offset * 86_400)
}

/// A candidate with test-friendly defaults: created 30 days ago, never played.
private func asset(
    _ id: String,
    _ bytes: Int,
    expires: Date? = nil,
    priority: AssetPriority = .default,
    played: Date? = nil,
    created: Date = day(-30),
    busy: Bool = false
) -> PurgeCandidate {
    PurgeCandidate(
        id: id, bytes: bytes, expiresAt: expires, priority: priority,
        lastPlayedAt: played, createdAt: created, use: busy ? .downloading : nil)
}

/// The removed ids, in order.
private func ids(_ plan: PurgePlan) -> [String] {
    plan.removals.map(\.id)
}

@Suite("PurgePlanner")
struct PurgePlannerTests {
    @Test("empty library: nothing removed; satisfied unless the incoming download cannot fit")
    func emptyLibrary() {
        let plan = PurgePlanner.plan(
            candidates: [], rules: StorageRules(quotaBytes: 100, minimumFreeBytes: 10),
            freeBytes: 50, now: now)
        #expect(plan == PurgePlan(
            removals: [], bytesFreed: 0, libraryBytesAfter: 0, freeBytesAfter: 50,
            satisfied: true, shortfall: 0))

        let tooBig = PurgePlanner.plan(
            candidates: [], rules: StorageRules(quotaBytes: 100, minimumFreeBytes: 10),
            freeBytes: 50, now: now, incomingBytes: 120)
        #expect(tooBig.removals.isEmpty)
        #expect(!tooBig.satisfied)
        #expect(tooBig.shortfall == 80) // free: 10 - (50 - 120) = 80 > quota: 20
    }

    @Test("no rules: only expired assets go")
    func noRules() {
        let plan = PurgePlanner.plan(
            candidates: [asset("old", 10, expires: day(-1)), asset("live", 1_000_000)],
            rules: StorageRules(), freeBytes: 0, now: now, incomingBytes: 1_000_000_000)
        #expect(plan.removals == [.init(id: "old", bytes: 10, reason: .expired)])
        #expect(plan.satisfied)
        #expect(plan.shortfall == 0)
        #expect(plan.libraryBytesAfter == 1_000_000)
        #expect(plan.freeBytesAfter == 10)
    }

    @Test("expired assets are removed even when the rules hold; expiry at exactly now counts")
    func expiredFirst() {
        let plan = PurgePlanner.plan(
            candidates: [
                asset("future", 10, expires: day(1)),
                asset("now", 20, expires: now),
                asset("past", 30, expires: day(-5)),
                asset("never", 40),
            ],
            rules: StorageRules(quotaBytes: 1_000, minimumFreeBytes: 0),
            freeBytes: 500, now: now)
        #expect(plan.removals == [
            .init(id: "past", bytes: 30, reason: .expired),
            .init(id: "now", bytes: 20, reason: .expired),
        ])
        #expect(plan.bytesFreed == 50)
        #expect(plan.libraryBytesAfter == 50)
        #expect(plan.freeBytesAfter == 550)
        #expect(plan.satisfied)
    }

    @Test("expired removals come before rule removals and count towards the rules")
    func expiredCountTowardsRules() {
        let plan = PurgePlanner.plan(
            candidates: [
                asset("lru", 100, played: day(-20)),
                asset("expired", 60, expires: day(-1), priority: .important, played: day(-1)),
                asset("recent", 100, played: day(-1)),
            ],
            rules: StorageRules(quotaBytes: 200), freeBytes: 1_000, now: now)
        // 260 > 200: the expired 60 alone brings it to 200, which is within quota.
        #expect(plan.removals == [.init(id: "expired", bytes: 60, reason: .expired)])
        #expect(plan.satisfied)

        let tighter = PurgePlanner.plan(
            candidates: [
                asset("lru", 100, played: day(-20)),
                asset("expired", 60, expires: day(-1)),
                asset("recent", 100, played: day(-1)),
            ],
            rules: StorageRules(quotaBytes: 150), freeBytes: 1_000, now: now)
        #expect(tighter.removals == [
            .init(id: "expired", bytes: 60, reason: .expired),
            .init(id: "lru", bytes: 100, reason: .quota),
        ])
        #expect(tighter.libraryBytesAfter == 100)
    }

    @Test("busy assets are never removed, even when expired or when the rules stay broken")
    func busyNeverRemoved() {
        let plan = PurgePlanner.plan(
            candidates: [
                asset("busy-expired", 500, expires: day(-3), busy: true),
                asset("busy-old", 500, played: day(-100), busy: true),
                asset("idle", 100, priority: .important),
            ],
            rules: StorageRules(quotaBytes: 100), freeBytes: 10_000, now: now)
        #expect(ids(plan) == ["idle"])
        #expect(plan.libraryBytesAfter == 1_000)
        #expect(!plan.satisfied)
        #expect(plan.shortfall == 900)
    }

    @Test("every default asset goes before any important one")
    func defaultBeforeImportant() {
        let plan = PurgePlanner.plan(
            candidates: [
                asset("important-ancient", 100, priority: .important, played: day(-365)),
                asset("default-recent", 100, played: day(-1)),
                asset("default-older", 100, played: day(-2)),
            ],
            rules: StorageRules(quotaBytes: 50), freeBytes: 10_000, now: now)
        #expect(ids(plan) == ["default-older", "default-recent", "important-ancient"])
        #expect(plan.satisfied)
        #expect(plan.libraryBytesAfter == 0)
    }

    @Test("least recently played first, and it stops as soon as the rules hold")
    func leastRecentlyPlayed() {
        let plan = PurgePlanner.plan(
            candidates: [
                asset("b", 100, played: day(-5)),
                asset("a", 100, played: day(-1)),
                asset("c", 100, played: day(-10)),
                asset("d", 100, played: day(-7)),
            ],
            rules: StorageRules(quotaBytes: 250), freeBytes: 10_000, now: now)
        #expect(ids(plan) == ["c", "d"])
        #expect(plan.removals.allSatisfy { $0.reason == .quota })
        #expect(plan.libraryBytesAfter == 200)
        #expect(plan.bytesFreed == 200)
        #expect(plan.freeBytesAfter == 10_200)
        #expect(plan.satisfied && plan.shortfall == 0)
    }

    @Test("a never-played asset counts as played when it was created")
    func neverPlayedUsesCreatedAt() {
        let plan = PurgePlanner.plan(
            candidates: [
                asset("played-8-days-ago", 100, played: day(-8), created: day(-40)),
                asset("new-unplayed", 100, created: day(-2)),
                asset("old-unplayed", 100, created: day(-9)),
                asset("played-3-days-ago", 100, played: day(-3), created: day(-50)),
            ],
            rules: StorageRules(quotaBytes: 0), freeBytes: 10_000, now: now)
        #expect(ids(plan) == ["old-unplayed", "played-8-days-ago", "played-3-days-ago", "new-unplayed"])
    }

    @Test("ties: larger first, then id; independent of input order")
    func deterministicTies() {
        let candidates = [
            asset("m", 50, played: day(-4)),
            asset("z", 200, played: day(-4)),
            asset("b", 50, played: day(-4)),
            asset("a", 200, played: day(-4)),
            asset("q", 50, created: day(-4)),
        ]
        let expected = ["a", "z", "b", "m", "q"]
        for order in [candidates, candidates.reversed(), candidates.shuffled(), candidates.shuffled()] {
            let plan = PurgePlanner.plan(
                candidates: order, rules: StorageRules(quotaBytes: 0), freeBytes: 0, now: now)
            #expect(ids(plan) == expected)
        }
    }

    @Test("expired assets are listed oldest expiry first, then by id")
    func expiredOrder() {
        let plan = PurgePlanner.plan(
            candidates: [
                asset("y", 1, expires: day(-1)),
                asset("x", 1, expires: day(-1)),
                asset("w", 1, expires: day(-2)),
            ],
            rules: StorageRules(), freeBytes: 0, now: now)
        #expect(ids(plan) == ["w", "x", "y"])
    }

    @Test("quota only")
    func quotaOnly() {
        let plan = PurgePlanner.plan(
            candidates: [asset("a", 300, played: day(-3)), asset("b", 300, played: day(-2)),
                         asset("c", 300, played: day(-1))],
            rules: StorageRules(quotaBytes: 500), freeBytes: 0, now: now)
        #expect(plan.removals == [
            .init(id: "a", bytes: 300, reason: .quota),
            .init(id: "b", bytes: 300, reason: .quota),
        ])
        #expect(plan.libraryBytesAfter == 300)
        #expect(plan.freeBytesAfter == 600)
        #expect(plan.satisfied)
    }

    @Test("quota exactly met needs no removal")
    func quotaBoundary() {
        let plan = PurgePlanner.plan(
            candidates: [asset("a", 300), asset("b", 200)],
            rules: StorageRules(quotaBytes: 500, minimumFreeBytes: 100), freeBytes: 100, now: now)
        #expect(plan.removals.isEmpty)
        #expect(plan.satisfied)
    }

    @Test("free space only")
    func freeSpaceOnly() {
        let plan = PurgePlanner.plan(
            candidates: [asset("a", 300, played: day(-3)), asset("b", 300, played: day(-2)),
                         asset("c", 300, played: day(-1))],
            rules: StorageRules(minimumFreeBytes: 1_000), freeBytes: 500, now: now)
        #expect(plan.removals == [
            .init(id: "a", bytes: 300, reason: .freeSpace),
            .init(id: "b", bytes: 300, reason: .freeSpace),
        ])
        #expect(plan.freeBytesAfter == 1_100)
        #expect(plan.libraryBytesAfter == 300)
        #expect(plan.satisfied)
    }

    @Test("both rules: reason is quota while the quota is broken, then free space")
    func bothRules() {
        let plan = PurgePlanner.plan(
            candidates: [
                asset("a", 100, played: day(-4)),
                asset("b", 100, played: day(-3)),
                asset("c", 100, played: day(-2)),
                asset("d", 100, played: day(-1)),
            ],
            rules: StorageRules(quotaBytes: 350, minimumFreeBytes: 400), freeBytes: 150, now: now)
        // Start: library 400 > 350, free 150 < 400.
        // After a: library 300 ok, free 250 < 400. After b: 350. After c: 450 ok.
        #expect(plan.removals == [
            .init(id: "a", bytes: 100, reason: .quota),
            .init(id: "b", bytes: 100, reason: .freeSpace),
            .init(id: "c", bytes: 100, reason: .freeSpace),
        ])
        #expect(plan.libraryBytesAfter == 100)
        #expect(plan.freeBytesAfter == 450)
        #expect(plan.satisfied)
    }

    @Test("quota reason wins while both rules are broken")
    func quotaWinsWhenBothBroken() {
        let plan = PurgePlanner.plan(
            candidates: [asset("a", 100, played: day(-3)), asset("b", 100, played: day(-2)),
                         asset("c", 100, played: day(-1))],
            rules: StorageRules(quotaBytes: 150, minimumFreeBytes: 100), freeBytes: 0, now: now)
        #expect(plan.removals.map(\.reason) == [.quota, .quota])
        #expect(plan.satisfied)
    }

    @Test("incomingBytes must fit under the quota and above the free-space floor")
    func incomingMakesRoom() {
        let candidates = [
            asset("a", 100, played: day(-3)),
            asset("b", 100, played: day(-2)),
            asset("c", 100, played: day(-1)),
        ]
        let rules = StorageRules(quotaBytes: 300, minimumFreeBytes: 50)
        let without = PurgePlanner.plan(candidates: candidates, rules: rules, freeBytes: 200, now: now)
        #expect(without.removals.isEmpty)

        // Quota: 300 + 150 > 300 (needs 150); free: 200 - 150 = 50 ok.
        let quotaBound = PurgePlanner.plan(
            candidates: candidates, rules: rules, freeBytes: 200, now: now, incomingBytes: 150)
        #expect(quotaBound.removals == [
            .init(id: "a", bytes: 100, reason: .quota),
            .init(id: "b", bytes: 100, reason: .quota),
        ])
        #expect(quotaBound.libraryBytesAfter == 100)
        #expect(quotaBound.freeBytesAfter == 400)
        #expect(quotaBound.satisfied)

        // Free: 200 - 250 = -50, needs 100 more; quota: 300 + 250 > 300 needs 250.
        let both = PurgePlanner.plan(
            candidates: candidates, rules: StorageRules(quotaBytes: 400, minimumFreeBytes: 50),
            freeBytes: 200, now: now, incomingBytes: 250)
        // After a: library 200 + 250 = 450 > 400 still; after b: 350 ok, free 400 - 250 = 150 ok.
        #expect(both.removals.map(\.reason) == [.quota, .quota])
        #expect(both.satisfied)

        // Free space alone limits the incoming download.
        let freeBound = PurgePlanner.plan(
            candidates: candidates, rules: StorageRules(minimumFreeBytes: 50),
            freeBytes: 200, now: now, incomingBytes: 200)
        #expect(freeBound.removals == [.init(id: "a", bytes: 100, reason: .freeSpace)])
        #expect(freeBound.freeBytesAfter == 300)
    }

    @Test("negative incomingBytes count as zero")
    func negativeIncoming() {
        let plan = PurgePlanner.plan(
            candidates: [asset("a", 100)], rules: StorageRules(quotaBytes: 100),
            freeBytes: 0, now: now, incomingBytes: -500)
        #expect(plan.removals.isEmpty)
        #expect(plan.satisfied)
    }

    @Test("impossible: everything allowed is removed, shortfall is the larger deficit")
    func impossible() {
        let candidates = [
            asset("busy", 400, busy: true),
            asset("a", 100, played: day(-2)),
            asset("b", 100, priority: .important),
        ]
        // After removing a and b: library 400 (+100 incoming = 500 > 300: short 200);
        // free 50 + 200 - 100 = 150 < 500: short 350.
        let plan = PurgePlanner.plan(
            candidates: candidates, rules: StorageRules(quotaBytes: 300, minimumFreeBytes: 500),
            freeBytes: 50, now: now, incomingBytes: 100)
        #expect(ids(plan) == ["a", "b"])
        #expect(plan.removals.map(\.reason) == [.quota, .quota])
        #expect(plan.bytesFreed == 200)
        #expect(plan.libraryBytesAfter == 400)
        #expect(plan.freeBytesAfter == 250)
        #expect(!plan.satisfied)
        #expect(plan.shortfall == 350)

        // Quota deficit larger than free-space deficit.
        let quotaShort = PurgePlanner.plan(
            candidates: candidates, rules: StorageRules(quotaBytes: 100, minimumFreeBytes: 300),
            freeBytes: 200, now: now)
        #expect(!quotaShort.satisfied)
        #expect(quotaShort.shortfall == 300)
    }

    @Test("reasons when rules break partway: freeSpace after quota is met, quota when only quota")
    func reasonsMixed() {
        let plan = PurgePlanner.plan(
            candidates: [
                asset("gone", 10, expires: day(-1)),
                asset("a", 100, played: day(-3)),
                asset("b", 100, played: day(-2)),
                asset("c", 100, priority: .important, played: day(-9)),
            ],
            rules: StorageRules(quotaBytes: 210, minimumFreeBytes: 300), freeBytes: 10, now: now)
        // After gone: library 300 > 210, free 20. a: quota -> library 200, free 120.
        // b: freeSpace -> free 220. c: freeSpace -> free 320 ok.
        #expect(plan.removals == [
            .init(id: "gone", bytes: 10, reason: .expired),
            .init(id: "a", bytes: 100, reason: .quota),
            .init(id: "b", bytes: 100, reason: .freeSpace),
            .init(id: "c", bytes: 100, reason: .freeSpace),
        ])
        #expect(plan.satisfied)
        #expect(plan.libraryBytesAfter == 0)
        #expect(plan.freeBytesAfter == 320)
    }

    @Test("zero-byte assets are not removed to make room; negative sizes count as 0")
    func zeroAndNegativeSizes() {
        let plan = PurgePlanner.plan(
            candidates: [
                asset("empty", 0, played: day(-100)),
                asset("weird", -50, played: day(-90)),
                asset("real", 100, played: day(-1)),
                asset("empty-expired", 0, expires: day(-1)),
            ],
            rules: StorageRules(quotaBytes: 50), freeBytes: 0, now: now)
        #expect(plan.removals == [
            .init(id: "empty-expired", bytes: 0, reason: .expired),
            .init(id: "real", bytes: 100, reason: .quota),
        ])
        #expect(plan.libraryBytesAfter == 0)
        #expect(plan.satisfied)
    }

    @Test("huge sizes saturate instead of overflowing")
    func saturation() {
        let plan = PurgePlanner.plan(
            candidates: [asset("a", Int.max), asset("b", Int.max), asset("c", Int.max)],
            rules: StorageRules(quotaBytes: 0, minimumFreeBytes: Int.max), freeBytes: Int.max,
            now: now, incomingBytes: Int.max)
        #expect(ids(plan) == ["a", "b", "c"])
        #expect(plan.freeBytesAfter == Int.max)
        #expect(plan.bytesFreed == Int.max)
        #expect(plan.libraryBytesAfter == 0)
        #expect(!plan.satisfied)
    }

    @Test("value types are Codable/CaseIterable where declared")
    func enums() throws {
        #expect(AssetPriority.allCases == [.important, .default])
        #expect(AssetPriority.default.rawValue == "default")
        #expect(PurgePlan.Removal.Reason.freeSpace.rawValue == "freeSpace")
        let data = try JSONEncoder().encode([AssetPriority.important])
        #expect(try JSONDecoder().decode([AssetPriority].self, from: data) == [.important])
    }
}
