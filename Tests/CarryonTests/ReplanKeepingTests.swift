@testable import Carryon
@testable import CarryonIndexTestSupport
import CarryonTestSupport
import Foundation
import Testing

/// A plan written again with `keeping` (a live recording's round, `add`): each resource the old
/// plan had keeps what was fetched of it, matched by URI, byte range and file; the others start
/// pending; another asset's rows are untouched.
@Suite("A plan written again keeps what was fetched")
struct ReplanKeepingTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func asset(_ id: String) -> AssetRecord {
        AssetRecord(id: id, name: id, url: "https://cdn.example/\(id).m3u8", state: .running, errorMessage: nil,
                    options: DownloadOptions(), headers: [], selection: nil, planned: false,
                    createdAt: now, updatedAt: now, completedAt: nil, duration: nil)
    }

    /// A plan of asset `id` of a media playlist whose segments are `lines` (URI lines, each
    /// after its `#EXTINF`, with `#EXT-X-BYTERANGE` where given).
    static func plan(_ id: String, _ lines: [String]) throws -> PlannedStream {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-VERSION:4\n"
            + lines.map { "#EXTINF:6,\n\($0)\n" }.joined() + "#EXT-X-ENDLIST\n"
        let input = try PlanFixture.input("\(id).m3u8", text, type: "MEDIA", name: "media")
        return PlannedStream(plan: try DownloadPlan.make(assetID: id, inputs: [input], main: nil, selection: nil),
                             selection: nil, format: "hls")
    }

    /// The rows of `id` by "URI@offset": state, bytes and validators.
    static func rows(_ library: OfflineLibrary, _ id: String) async throws -> [String: ResourceRecord] {
        Dictionary(uniqueKeysWithValues: try await library.index.resources(of: id).map { ("\($0.uri)@\($0.rangeOffset ?? -1)", $0) })
    }

    @Test("kept: fetched state, size, validators and digest, by URI, byte range and file; new and changed rows pending")
    func keeps() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder)
            try await library.index.insert(Self.asset("a"))
            try await library.index.insert(Self.asset("b"))
            let first = try Self.plan("a", ["one.ts", "two.ts", "#EXT-X-BYTERANGE:100@0\nall.ts", "#EXT-X-BYTERANGE:100@100\nall.ts"])
            try await library.index.savePlan(first, of: "a", keeping: false, at: Self.now, fence: nil)
            var rows = try await Self.rows(library, "a")
            let one = try #require(rows["https://cdn.example/one.ts@-1"]?.id)
            let secondPart = try #require(rows["https://cdn.example/all.ts@100"]?.id)
            try await library.index.markDone(one, bytes: 1234, etag: "\"e1\"", lastModified: "Sat, 28 Nov 2026 06:00:00 GMT",
                                             sha256: String(repeating: "ab", count: 32), fence: nil)
            try await library.index.markDone(secondPart, bytes: 100, etag: nil, lastModified: nil, sha256: nil, fence: nil)
            // Asset b names the same URIs: its rows keep nothing of a's.
            try await library.index.savePlan(try Self.plan("b", ["one.ts"]), of: "b", keeping: true, at: Self.now, fence: nil)

            let second = try Self.plan("a", ["one.ts", "#EXT-X-BYTERANGE:100@0\nall.ts", "#EXT-X-BYTERANGE:100@100\nall.ts", "three.ts"])
            try await library.index.savePlan(second, of: "a", keeping: true, at: Self.now, fence: nil)
            rows = try await Self.rows(library, "a")
            #expect(rows.count == 4)
            #expect(rows["https://cdn.example/two.ts@-1"] == nil)
            let kept = try #require(rows["https://cdn.example/one.ts@-1"])
            #expect(kept.state == .done && kept.bytes == 1234 && kept.etag == "\"e1\"" && kept.lastModified == "Sat, 28 Nov 2026 06:00:00 GMT")
            #expect(kept.sha256 == String(repeating: "ab", count: 32))
            #expect(rows["https://cdn.example/all.ts@100"]?.state == .done)
            #expect(rows["https://cdn.example/all.ts@100"]?.bytes == 100)
            #expect(rows["https://cdn.example/all.ts@0"]?.state == .pending)
            #expect(rows["https://cdn.example/three.ts@-1"]?.state == .pending)
            #expect(try await library.index.resources(of: "b").map(\.state) == [.pending])

            // Written again without keeping: every row starts over.
            try await library.index.savePlan(second, of: "a", keeping: false, at: Self.now, fence: nil)
            #expect(try await library.index.resources(of: "a").allSatisfy { $0.state == .pending && $0.bytes == nil })
        }
    }

    @Test("a repair's rows: marked pending they forget size, validators and digest; marked done again they have them back")
    func repairRows() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder)
            try await library.index.insert(Self.asset("a"))
            try await library.index.savePlan(try Self.plan("a", ["one.ts", "two.ts"]), of: "a", keeping: false, at: Self.now, fence: nil)
            var rows = try await Self.rows(library, "a")
            let one = try #require(rows["https://cdn.example/one.ts@-1"]?.id)
            let two = try #require(rows["https://cdn.example/two.ts@-1"]?.id)
            let digest = String(repeating: "0f", count: 32)
            try await library.index.markDone(one, bytes: 10, etag: "\"e\"", lastModified: nil, sha256: digest, fence: nil)
            try await library.index.markDone(two, bytes: 20, etag: nil, lastModified: nil, sha256: digest, fence: nil)
            let changes = try await library.index.asset("a")?.changes ?? 0

            try await library.index.markPending([one], of: "a")
            rows = try await Self.rows(library, "a")
            let pending = try #require(rows["https://cdn.example/one.ts@-1"])
            #expect(pending.state == .pending && pending.bytes == nil && pending.etag == nil && pending.sha256 == nil)
            #expect(rows["https://cdn.example/two.ts@-1"]?.sha256 == digest, "the other row is untouched")
            #expect(try await library.index.pendingCount(of: "a", rendition: nil) == 1)
            #expect((try await library.index.asset("a")?.changes ?? 0) > changes, "a change to the bundle's figures")
            // Not a row of asset b's, even by its id.
            try await library.index.insert(Self.asset("b"))
            try await library.index.markPending([two], of: "b")
            #expect(try await Self.rows(library, "a")["https://cdn.example/two.ts@-1"]?.state == .done)

            try await library.index.markDone(one, bytes: 10, etag: "\"e\"", lastModified: nil, sha256: digest, fence: nil)
            let restored = try #require(try await Self.rows(library, "a")["https://cdn.example/one.ts@-1"])
            #expect(restored.state == .done && restored.bytes == 10 && restored.etag == "\"e\"" && restored.sha256 == digest)
        }
    }
}
