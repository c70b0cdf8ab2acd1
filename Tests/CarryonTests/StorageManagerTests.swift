@testable import Carryon
@testable import CarryonIndexTestSupport
import CarryonTestSupport
import Foundation
import Testing

/// Storage policies, library settings and purges over a real library, with the time and the
/// free disk space injected: nothing sleeps and no disk fills up.
@Suite("Keeping a library's storage in order")
struct StorageManagerTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Adds an asset with a bundle of `bytes` bytes.
    static func addAsset(_ library: OfflineLibrary, _ id: String, bytes: Int, created: TimeInterval = -86_400,
                         expires: TimeInterval? = nil, priority: AssetPriority = .default, played: TimeInterval? = nil) async throws {
        let record = AssetRecord(id: id, name: id, url: "https://cdn.example/\(id).m3u8", state: .completed, errorMessage: nil,
                                 options: DownloadOptions(), headers: [], selection: nil, planned: true,
                                 createdAt: now.addingTimeInterval(created), updatedAt: now, completedAt: now, duration: 60,
                                 expiresAt: expires.map { now.addingTimeInterval($0) }, priority: priority,
                                 lastPlayedAt: played.map { now.addingTimeInterval($0) })
        try await library.index.insert(record)
        let bundle = library.bundleURL(for: id)
        try FileManager.default.createDirectory(at: bundle.appendingPathComponent("video"), withIntermediateDirectories: true)
        try Data(count: bytes).write(to: bundle.appendingPathComponent("video/00001.ts"))
    }

    func manager(_ library: OfflineLibrary, free: Int = 1 << 40) -> StorageManager {
        StorageManager(library: library, now: { Self.now }, freeBytes: { free })
    }

    @Test("an asset's policy is kept and changed; an unknown asset is refused")
    func policies() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder)
            try await Self.addAsset(library, "a", bytes: 10)
            let storage = manager(library)
            #expect(try await storage.policy(for: "a") == StoragePolicy())
            let policy = StoragePolicy(expiresAt: Self.now.addingTimeInterval(3600), priority: .important)
            try await storage.setPolicy(policy, for: "a")
            #expect(try await storage.policy(for: "a") == policy)
            await #expect(throws: CarryonError.self) { try await storage.setPolicy(policy, for: "nope") }
            await #expect(throws: CarryonError.self) { try await storage.policy(for: "nope") }
        }
    }

    @Test("library settings are kept, and a setting set to nil is removed")
    func settings() async throws {
        try await withTemporaryDirectory { folder in
            let storage = manager(try OfflineLibrary(testingAt: folder))
            #expect(try await storage.settings() == LibraryStorageSettings())
            let settings = LibraryStorageSettings(quotaBytes: 1_000, minimumFreeBytes: 500, purgeOnDownload: true)
            try await storage.setSettings(settings)
            #expect(try await storage.settings() == settings)
            try await storage.setSettings(LibraryStorageSettings(quotaBytes: nil, minimumFreeBytes: 500))
            #expect(try await storage.settings() == LibraryStorageSettings(minimumFreeBytes: 500))
        }
    }

    @Test("a purge removes expired assets, then default before important, least recently played first, until the quota holds")
    func purgeOrder() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder)
            try await Self.addAsset(library, "expired", bytes: 100, expires: -1)
            try await Self.addAsset(library, "important-old", bytes: 300, priority: .important, played: -90_000)
            try await Self.addAsset(library, "default-recent", bytes: 300, played: -600)
            try await Self.addAsset(library, "default-old", bytes: 300, played: -7_200)
            try await Self.addAsset(library, "default-new", bytes: 300, created: -60)
            let storage = manager(library)
            try await storage.setSettings(LibraryStorageSettings(quotaBytes: 700))
            let plan = try await storage.plan()
            // 1,300 bytes: the expired asset goes, then two defaults, least recently played first
            // (never played counts from its creation, a minute ago: most recent).
            #expect(plan.removals.map(\.id) == ["expired", "default-old", "default-recent"])
            #expect(plan.removals.map(\.reason) == [.expired, .quota, .quota])
            #expect(plan.satisfied && plan.libraryBytesAfter == 600)
            // Carried out: bundles and rows go; the important asset stays.
            let session = try await DownloadSession(library: library)
            try await storage.purge(with: session)
            let left = try await session.tasks().map(\.id)
            await session.shutdown()
            #expect(left == ["important-old", "default-new"])
            #expect(!FileManager.default.fileExists(atPath: library.bundleURL(for: "default-old").path))
        }
    }

    /// Runs `body` while asset "downloading" is claimed by another process as a download in
    /// progress and asset "playing" is leased by a playback server, with a storage manager
    /// whose quota is 100 bytes.
    func withAssetsInUse(_ library: OfflineLibrary, _ body: (StorageManager, PlaybackLeases) async throws -> Void) async throws {
        _ = try await library.holdAsAnotherProcess("downloading")
        let leases = PlaybackLeases(library: library)
        await leases.hold("playing")
        let storage = manager(library)
        try await storage.setSettings(LibraryStorageSettings(quotaBytes: 100))
        try await body(storage, leases)
    }

    @Test("an asset being played (a playback server's lease held) or downloaded (its lock held) is never removed")
    func busyAssetsStay() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder)
            try await Self.addAsset(library, "playing", bytes: 500, expires: -10, played: -5)
            try await Self.addAsset(library, "downloading", bytes: 500, expires: -10)
            try await Self.addAsset(library, "idle", bytes: 500, played: -3_600)
            try await withAssetsInUse(library) { storage, _ in
                let plan = try await storage.plan()
                #expect(plan.removals.map(\.id) == ["idle"])
                #expect(!plan.satisfied && plan.shortfall == 900)
            }
        }
    }

    @Test("whether an asset is being played is exact: played a moment ago by a server that has stopped, it is purged; held by a running server, it is kept, and the plan names the process")
    func playingIsExact() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder)
            try await Self.addAsset(library, "played", bytes: 300, expires: -10, played: -5)
            try await Self.addAsset(library, "playing", bytes: 400, expires: -10, played: -1)
            try await Self.addAsset(library, "downloading", bytes: 200, played: -7_200)
            try await withAssetsInUse(library) { storage, leases in
                let plan = try await storage.plan()
                #expect(plan.removals.map(\.id) == ["played"])
                #expect(plan.kept == [.init(id: "playing", bytes: 400, reason: .expired, use: .playing, processes: [getpid()]),
                                      .init(id: "downloading", bytes: 200, reason: .quota, use: .downloading)])
                await leases.releaseAll()
                let after = try await storage.plan()
                #expect(after.removals.map(\.id) == ["played", "playing"])
                #expect(after.kept.map(\.id) == ["downloading"])
            }
        }
    }

    @Test("a lease ends when its asset has had no request for the idle limit, and lasts while requests come")
    func leaseIdleLimit() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder)
            try await Self.addAsset(library, "a", bytes: 1)
            try await Self.addAsset(library, "b", bytes: 1)
            let start = ContinuousClock.now
            let elapsed = Locked(Duration.zero)
            let leases = PlaybackLeases(library: library, idleLimit: .seconds(60)) { start + elapsed.withLock { $0 } }
            await leases.hold("a")
            await leases.hold("b")
            #expect(try await PlaybackLeases.holders(of: "a", in: library) == [getpid()])
            elapsed.withLock { $0 = .seconds(50) }
            await leases.hold("a")
            elapsed.withLock { $0 = .seconds(100) }
            await leases.hold("a")
            #expect(leases.assets == ["a"])
            #expect(try await PlaybackLeases.holders(of: "b", in: library).isEmpty)
            #expect(try await PlaybackLeases.holders(of: "a", in: library) == [getpid()])
        }
    }

    @Test("the free-space rule and a download's bytes to come make room too")
    func freeSpaceAndIncoming() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder)
            try await Self.addAsset(library, "a", bytes: 400, played: -100)
            try await Self.addAsset(library, "b", bytes: 400, played: -200)
            let storage = manager(library, free: 1_000)
            try await storage.setSettings(LibraryStorageSettings(minimumFreeBytes: 800))
            #expect(try await storage.plan().removals.isEmpty)
            let plan = try await storage.plan(incomingBytes: 500)
            #expect(plan.removals.map(\.id) == ["b"])
            #expect(plan.removals.map(\.reason) == [.freeSpace] && plan.satisfied)
        }
    }

    @Test("marking an asset played records the injected time")
    func markPlayed() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder)
            try await Self.addAsset(library, "a", bytes: 1)
            try await manager(library).markPlayed("a")
            let played = try await library.index.asset("a")?.lastPlayedAt
            #expect(played == Self.now)
        }
    }

    @Test("deleting an asset another process is downloading is refused; once it stops, the delete goes through")
    func deleteWhileDownloadingElsewhere() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder)
            try await Self.addAsset(library, "busy", bytes: 10)
            let session = try await DownloadSession(library: library)
            // Another process downloads it and does not answer requests.
            let claim = try await library.holdAsAnotherProcess("busy")
            do {
                try await session.delete("busy")
                Issue.record("the delete was accepted")
            } catch let error as CarryonError {
                #expect(error.code == .busy && error.message.contains("another process"))
            }
            #expect(FileManager.default.fileExists(atPath: library.bundleURL(for: "busy").path))
            try await library.release(claim)
            try await session.delete("busy")
            #expect(!FileManager.default.fileExists(atPath: library.bundleURL(for: "busy").path))
            await session.shutdown()
        }
    }
}
