@testable import Carryon
@testable import CarryonIndexTestSupport
import CarryonTestSupport
import Foundation
import Testing

/// One stored value the index cannot read (a date past year 9999 an earlier release accepted,
/// text where a state belongs, JSON cut short) never takes the library down: the asset is still
/// listed with the value named as a problem, every other asset reads as before, and setting
/// the value again repairs it.
@Suite("Values the index holds but cannot read")
struct UnreadableValuesTests {
    static let now = StorageManagerTests.now

    /// A library with two good assets and `bad`, whose row then gets `column = value` written
    /// straight into the index, as an earlier release or a careless hand would.
    func library(in folder: URL, _ changes: [(column: String, value: StoredValue)]) async throws -> OfflineLibrary {
        let library = try OfflineLibrary(testingAt: folder)
        for id in ["good1", "bad", "good2"] { try await StorageManagerTests.addAsset(library, id, bytes: 100, expires: 86_400) }
        try await library.writeUnreadable(changes, intoAsset: "bad")
        return library
    }

    @Test("a far-future expiry written by an earlier release: every asset lists, the bad one says why, policy repairs it")
    func farFutureExpiry() async throws {
        try await withTemporaryDirectory { folder in
            let library = try await library(in: folder, [("expiresAt", "10240-08-16 04:00:00.000")])
            let assets = try await library.assets()
            #expect(assets.map(\.id) == ["good1", "bad", "good2"])
            let bad = try #require(assets.first { $0.id == "bad" })
            #expect(bad.policy.expiresAt == nil)
            let problems = try #require(bad.problems)
            #expect(problems.count == 1)
            #expect(problems[0].contains("expiry") && problems[0].contains("10240-08-16") && problems[0].contains("never"))
            #expect(!problems[0].contains("cdn.example"), "a problem names the value, never the whole row")
            #expect(assets.filter { $0.id != "bad" }.allSatisfy { $0.problems == nil && $0.policy.expiresAt != nil })
            #expect(try await library.asset("bad").problems == problems)

            // A purge plan reads every asset; the unreadable expiry counts as never, so nothing expires.
            let storage = StorageManager(library: library, now: { Self.now.addingTimeInterval(2 * 86_400) }, freeBytes: { 1 << 40 })
            let plan = try await storage.plan()
            #expect(Set(plan.removals.map(\.id)) == ["good1", "good2"])

            // Setting the policy again writes a value the index reads.
            try await storage.setPolicy(StoragePolicy(expiresAt: Self.now), for: "bad")
            let repaired = try await library.asset("bad")
            #expect(repaired.problems == nil && repaired.policy.expiresAt == Self.now)
        }
    }

    @Test("a far-future expiry is refused where it enters, and the stored policy stays as it was")
    func farFutureRefused() async throws {
        try await withTemporaryDirectory { folder in
            let library = try await library(in: folder, [])
            let storage = StorageManager(library: library)
            let before = try await storage.policy(for: "bad")
            let year10240 = Date(timeIntervalSince1970: 261_000_000_000)
            await #expect {
                try await storage.setPolicy(StoragePolicy(expiresAt: year10240), for: "bad")
            } throws: { error in
                (error as? CarryonError)?.code == .invalidValue && "\(error)".contains("9999-12-31")
            }
            #expect(try await storage.policy(for: "bad") == before)
            #expect(try await library.assets().allSatisfy { $0.problems == nil })
        }
    }

    @Test("text where a date, a state, a priority or JSON belongs: the asset lists with each value named")
    func garbledRow() async throws {
        try await withTemporaryDirectory { folder in
            let library = try await library(in: folder, [
                ("createdAt", "yesterday"), ("updatedAt", 42), ("state", "exploded"),
                ("priority", "urgent"), ("options", "{\"minBitrate\": "), ("headers", "[{]"),
                ("lastPlayedAt", "last tuesday"),
            ])
            let assets = try await library.assets()
            #expect(Set(assets.map(\.id)) == ["good1", "bad", "good2"])
            let bad = try #require(assets.first { $0.id == "bad" })
            let problems = try #require(bad.problems).joined(separator: "\n")
            for column in ["createdAt", "state", "priority", "options", "headers", "lastPlayedAt"] {
                #expect(problems.contains(column), "\(column) is named: \(problems)")
            }
            #expect(bad.state == .suspended && bad.policy.priority == .default && bad.lastPlayedAt == nil)
            #expect(assets.filter { $0.id != "bad" }.allSatisfy { $0.problems == nil && $0.state == .completed })
            // A session opens over the library and lists every task.
            let session = try await DownloadSession(library: library)
            let ids = try await session.tasks().map(\.id)
            await session.shutdown()
            #expect(Set(ids) == ["good1", "bad", "good2"])
        }
    }
}
