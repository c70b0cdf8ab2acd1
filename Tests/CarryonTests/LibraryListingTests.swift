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
            let library = try OfflineLibrary(testingAt: folder)
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

    @Test("latestSnapshots(of:) gives the latest asset of each URL that has one (the last made; of two made in the same millisecond, the last recorded), oldest first, through the index asset_by_url")
    func latestByURL() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder)
            let start = Date(timeIntervalSince1970: 2_000_000_000)
            for (id, url, offset) in [("a1", "https://cdn.example/a.m3u8", 0.0), ("b1", "https://cdn.example/b.m3u8", 1), ("a2", "https://cdn.example/a.m3u8", 2),
                                      ("b2", "https://cdn.example/b.m3u8", 1), ("c1", "https://cdn.example/c.m3u8", 3), ("a0", "https://cdn.example/a.m3u8", -5)] {
                try await library.index.insert(AssetRecord(id: id, name: id, url: url, state: .completed, errorMessage: nil, options: DownloadOptions(),
                                                           headers: [], selection: nil, planned: false, createdAt: start.addingTimeInterval(offset),
                                                           updatedAt: start, completedAt: nil, duration: nil))
            }
            let session = try await DownloadSession(library: library)
            let latest = try await session.latestSnapshots(of: ["https://cdn.example/a.m3u8", "https://cdn.example/b.m3u8", "https://cdn.example/none.m3u8",
                                                                "https://cdn.example/a.m3u8"])
            #expect(latest.map(\.id) == ["b2", "a2"])
            #expect(latest == [try await session.task(id: "b2").snapshot(), try await session.task(id: "a2").snapshot()])
            await session.shutdown()
            let plan = try await library.queryPlan(ofLatestByURL: "https://cdn.example/a.m3u8")
            // No sort: SQLite's words for one, and PostgreSQL's.
            #expect(plan.contains("asset_by_url") && !plan.contains("TEMP B-TREE") && !plan.contains("Sort Key"), "\(plan)")
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

/// Pages and filters of a listing (issue 39): a cursor that neither repeats nor skips, the
/// index's indexes used for every order.
@Suite("Pages of the library")
struct LibraryPagingTests {
    static func insert(_ id: String, name: String? = nil, state: DownloadState = .completed, at made: Date, into library: OfflineLibrary) async throws {
        try await library.index.insert(AssetRecord(id: id, name: name ?? id, url: "https://cdn.example/\(id).m3u8", state: state, errorMessage: nil,
                                                   options: DownloadOptions(), headers: [], selection: nil, planned: false,
                                                   createdAt: made, updatedAt: made, completedAt: nil, duration: nil))
    }

    @Test("pages of 3 give every asset that stays once, in order, while assets are added and deleted between pages; one added is on a later page")
    func pagesWhileChanging() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder)
            let start = Date(timeIntervalSince1970: 2_000_000_000)
            // Ten made within one millisecond: the row breaks the tie.
            for number in 0..<20 {
                try await Self.insert(String(format: "a%02d", number), at: start.addingTimeInterval(number < 10 ? 0 : Double(number)), into: library)
            }
            var query = AssetQuery(limit: 3)
            var seen: [String] = []
            var deleted: Set<String> = []
            var added: [String] = []
            var pages = 0
            repeat {
                let page = try await library.assets(query)
                #expect(page.assets.count <= 3)
                seen += page.assets.map(\.id)
                pages += 1
                // Between pages: one not yet seen and one seen deleted, one added.
                if pages == 2 {
                    for id in ["a15", "a01"] {
                        try await library.index.deleteAsset(id)
                        deleted.insert(id)
                    }
                    try await Self.insert("late", at: start.addingTimeInterval(100), into: library)
                    added.append("late")
                }
                query.cursor = page.next
            } while query.cursor != nil && pages < 50
            let kept = (0..<20).map { String(format: "a%02d", $0) }.filter { !deleted.contains($0) || seen.contains($0) }
            #expect(seen == kept + added, "\(seen)")
            #expect(Set(seen).count == seen.count, "an asset was given twice")
            #expect(try await library.assets().map(\.id) == (0..<20).map { String(format: "a%02d", $0) }.filter { !deleted.contains($0) } + added)
        }
    }

    @Test("filters: by state as shown (another process's dead download is suspended), by text in the name or at the start of the id ignoring case; orders newest, name and size; a last page has no cursor")
    func filtersAndOrders() async throws {
        try await LibraryListingTests.withAssets { library, recorded in
            let shown = try await library.assets()
            let suspended = try await library.assets(AssetQuery(states: [.suspended]))
            #expect(suspended.assets.map(\.id) == shown.filter { $0.state == .suspended }.map(\.id))
            #expect(suspended.next == nil)
            let running = try await library.assets(AssetQuery(states: [.running], limit: 1))
            #expect(running.assets.map(\.id) == ["held"] && running.next == nil)
            #expect(try await library.assets(AssetQuery(text: "OR")).assets.map(\.id) == ["orphan"])
            #expect(try await library.assets(AssetQuery(text: "g")).assets.map(\.id) == ["garbled", "gone"])
            #expect(try await library.assets(AssetQuery(text: "%")).assets.isEmpty)
            #expect(try await library.assets(AssetQuery(order: .newest)).assets.map(\.id) == recorded.map(\.0).reversed())
            #expect(try await library.assets(AssetQuery(order: .name)).assets.map(\.id) == recorded.map(\.0).sorted())
            var byName: [String] = []
            var query = AssetQuery(order: .name, limit: 2)
            repeat {
                let page = try await library.assets(query)
                byName += page.assets.map(\.id)
                query.cursor = page.next
            } while query.cursor != nil
            #expect(byName == recorded.map(\.0).sorted())
            let bySize = try await library.assets(AssetQuery(order: .size)).assets
            #expect(bySize.count == recorded.count)
            #expect(zip(bySize, bySize.dropFirst()).allSatisfy { $0.bytesOnDisk >= $1.bytesOnDisk })
        }
    }

    @Test("a limit out of range, a cursor no listing gave, and a cursor of another order are errors naming them")
    func hostileQueries() async throws {
        try await LibraryListingTests.withAssets { library, _ in
            for limit in [0, -1, AssetQuery.maximumLimit + 1, Int.max] {
                await #expect(throws: CarryonError.self) { _ = try await library.assets(AssetQuery(limit: limit)) }
            }
            for cursor in ["garbage", "c1.!!!", "c1." + String(repeating: "A", count: 5000), "c1.e30"] {
                do {
                    _ = try await library.assets(AssetQuery(cursor: cursor))
                    Issue.record("the cursor \(cursor.prefix(20)) was taken")
                } catch let error as CarryonError {
                    #expect(error.code == .invalidValue && error.message.contains("cursor"), "\(error.message)")
                }
            }
            let page = try await library.assets(AssetQuery(limit: 2))
            let cursor = try #require(page.next)
            do {
                _ = try await library.assets(AssetQuery(order: .name, cursor: cursor))
                Issue.record("a cursor of another order was taken")
            } catch let error as CarryonError {
                #expect(error.code == .invalidValue && error.message.contains("order created"), "\(error.message)")
            }
        }
    }

    @Test("every order and filter of a page reads through an index (EXPLAIN QUERY PLAN), and the plain orders need no sort")
    func queryPlans() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder)
            let after = AssetCursor(order: .created, key: "2033-05-18 03:33:20.000", row: 3)
            let cases: [(AssetQuery.Order, AssetCursor?, Set<DownloadState>, String)] = [
                (.created, nil, [], "asset_by_created"),
                (.created, after, [], "asset_by_created"),
                (.newest, nil, [], "asset_by_created"),
                (.name, AssetCursor(order: .name, key: "m", row: 3), [], "asset_by_name"),
                (.size, AssetCursor(order: .size, key: "1000", row: 3), [], "asset_by_size"),
                (.created, nil, [.failed], "asset_by_state"),
            ]
            for (order, cursor, states, expected) in cases {
                let plan = try await library.queryPlan(ofListing: order, after: cursor, recordedStates: states)
                #expect(plan.contains(expected), "\(order) \(states): \(plan)")
                // No sort: SQLite's words for one, and PostgreSQL's.
                #expect(!plan.contains("TEMP B-TREE") && !plan.contains("Sort Key"), "\(order) \(states): \(plan)")
            }
        }
    }
}
