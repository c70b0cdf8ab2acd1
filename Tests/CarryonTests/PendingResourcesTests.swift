@testable import Carryon
@testable import CarryonIndexTestSupport
import CarryonTestSupport
import Foundation
import Testing

/// The transfer reads its queue from the index a page at a time: every pending resource once,
/// in playback order, none that is done, whatever the page size.
@Suite("Pending resources, a page at a time")
struct PendingResourcesTests {
    /// A library with asset `a` of `count` segments (ordinals 0..<count, and a second resource
    /// at ordinal 5, as a later plan may add) and a few of them done.
    static func library(in folder: URL, count: Int, done: Set<Int>) async throws -> OfflineLibrary {
        let library = try OfflineLibrary(testingAt: folder)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let asset = AssetRecord(id: "a", name: "a", url: "https://cdn.example/a.m3u8", state: .running, errorMessage: nil,
                                options: DownloadOptions(), headers: [], selection: nil, planned: true,
                                createdAt: now, updatedAt: now, completedAt: nil, duration: Double(count) * 6)
        let ordinals = Array(0..<count) + [5]
        try await library.index.insert(asset)
        // Two resources at one ordinal: no plan saved through the index lays them out so.
        try await library.insertResourceRows(ordinals.enumerated().map { row, ordinal in
            ResourceRecord(id: nil, assetID: "a", renditionKey: "video", ordinal: ordinal, kind: .segment,
                           uri: "https://cdn.example/\(row).ts", rangeOffset: nil, rangeLength: nil,
                           fileName: "video/\(row).ts", state: done.contains(row) ? .done : .pending,
                           bytes: nil, expectedBytes: 1000, exactSize: false, startTime: Double(ordinal) * 6,
                           duration: 6, etag: nil, lastModified: nil)
        })
        return library
    }

    @Test("pages of any size give every pending resource once, in ordinal then row order", arguments: [1, 3, 7, 256])
    func pagesCoverThePending(limit: Int) async throws {
        try await withTemporaryDirectory { folder in
            let library = try await Self.library(in: folder, count: 20, done: [0, 4, 11])
            var seen: [String] = []
            var after: ResourcePlace?
            while true {
                let page = try await library.index.pendingResources(of: "a", after: after, limit: limit)
                #expect(page.count <= limit)
                guard let last = page.last else { break }
                after = ResourcePlace(last)
                seen += page.map(\.fileName)
            }
            // Row 20 is the second resource at ordinal 5: after row 5, before row 6.
            let expected = [1, 2, 3, 5, 20, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16, 17, 18, 19].map { "video/\($0).ts" }
            #expect(seen == expected)
        }
    }

    @Test("another asset's resources and an unknown asset give nothing")
    func otherAssets() async throws {
        try await withTemporaryDirectory { folder in
            let library = try await Self.library(in: folder, count: 4, done: [])
            #expect(try await library.index.pendingResources(of: "b", after: nil, limit: 10).isEmpty)
            #expect(try await library.index.pendingResources(of: "a", after: nil, limit: 10).count == 5)
        }
    }
}
