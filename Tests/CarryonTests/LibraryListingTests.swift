@testable import Carryon
@testable import CarryonIndexTestSupport
import CarryonTestSupport
import Foundation
import Testing

/// Listing a library without reading it once per asset (issue 39): the states `serve` reads at
/// start, the API's asset list.
@Suite("Listing the library")
struct LibraryListingTests {
    /// A library with assets recorded in every state (oldest first, a second apart), one of them
    /// held by another live process, one with a state no release writes.
    static func withAssets(_ body: (OfflineLibrary, [(String, DownloadState)]) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder)
            let start = Date(timeIntervalSince1970: 2_000_000_000)
            let recorded: [(String, DownloadState)] = [("done", .completed), ("paused", .suspended), ("broken", .failed),
                                                       ("held", .suspended), ("orphan", .running), ("garbled", .completed),
                                                       ("gone", .cancelled)]
            for (offset, (id, state)) in recorded.enumerated() {
                let made = start.addingTimeInterval(Double(offset))
                try await library.index.insert(AssetRecord(id: id, name: id, url: "https://cdn.example/\(id).m3u8", state: state, errorMessage: nil,
                                                           options: DownloadOptions(), headers: [], selection: nil, planned: false,
                                                           createdAt: made, updatedAt: made, completedAt: nil, duration: nil))
            }
            _ = try await library.holdAsAnotherProcess("held")
            try await library.writeUnreadable([(column: "state", value: "paused?")], intoAsset: "garbled")
            try await body(library, recorded)
        }
    }

    @Test("assetIDs(in:) gives, oldest first, the assets that assets() shows in those states: another live process's download running, a download no process holds suspended, a state no release writes suspended")
    func asListed() async throws {
        try await Self.withAssets { library, recorded in
            let shown = try await library.assets()
            #expect(shown.map(\.id) == recorded.map(\.0))
            for states: Set<DownloadState> in [[.suspended], [.running, .waiting], [.completed, .failed], [.cancelled], []] {
                let expected = shown.filter { states.contains($0.state) }.map(\.id)
                #expect(try await library.assetIDs(in: states) == expected, "\(states)")
            }
            #expect(try await library.assetIDs(in: [.suspended]) == ["paused", "orphan", "garbled"])
            #expect(try await library.assetIDs(in: [.running]) == ["held"])
        }
    }

    @Test("a session's snapshots() are each task's snapshot(), oldest first, the ownerships read once; a deleted asset is gone from the next")
    func sessionSnapshots() async throws {
        try await Self.withAssets { library, recorded in
            let session = try await DownloadSession(library: library)
            var one: [AssetSnapshot] = []
            for task in try await session.tasks() { one.append(try await task.snapshot()) }
            let all = try await session.snapshots()
            #expect(all == one)
            #expect(all.map(\.id) == recorded.map(\.0))
            #expect(all.first { $0.id == "held" }?.state == .running)
            try await session.delete("broken")
            #expect(try await session.snapshots().map(\.id) == recorded.map(\.0).filter { $0 != "broken" })
            await session.shutdown()
        }
    }
}
