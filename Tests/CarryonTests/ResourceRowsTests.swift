@testable import Carryon
@testable import CarryonIndexTestSupport
import CarryonTestSupport
import Foundation
import Testing

/// Resources read back from the index by every query that reads them, each value as it was
/// written (the SQLite backend reads them column by column, not through `Decodable`), and a row
/// Carryon cannot read named, not read as something else.
@Suite("Resource rows")
struct ResourceRowsTests {
    /// Every value a resource has, as text: two resources are equal when these are.
    static func values(_ resource: ResourceRecord) -> String {
        [resource.assetID, resource.renditionKey, "\(resource.ordinal)", resource.kind.rawValue, resource.uri,
         "\(resource.rangeOffset as Int?)", "\(resource.rangeLength as Int?)", resource.fileName, resource.state.rawValue,
         "\(resource.bytes as Int?)", "\(resource.expectedBytes)", "\(resource.exactSize)", "\(resource.startTime)",
         "\(resource.duration)", "\(resource.etag as String?)", "\(resource.lastModified as String?)", "\(resource.sha256 as String?)"]
            .joined(separator: "|")
    }

    /// Asset `a` with three resources: every optional value set, none set, and a range of a file.
    static func library(in folder: URL) async throws -> (OfflineLibrary, [ResourceRecord]) {
        let library = try OfflineLibrary(testingAt: folder)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try await library.index.insert(AssetRecord(id: "a", name: "a", url: "https://cdn.example/a.m3u8", state: .running, errorMessage: nil,
                                                   options: DownloadOptions(), headers: [], selection: nil, planned: true,
                                                   createdAt: now, updatedAt: now, completedAt: nil, duration: 12))
        let written = [
            ResourceRecord(id: nil, assetID: "a", renditionKey: "video", ordinal: 0, kind: .initSection, uri: "https://cdn.example/init.mp4",
                           rangeOffset: 0, rangeLength: 884, fileName: "video/file.mp4", state: .done, bytes: 884, expectedBytes: 884,
                           exactSize: true, startTime: 0, duration: 0, etag: "\"e1\"", lastModified: "Tue, 01 Dec 2026 10:00:00 GMT",
                           sha256: String(repeating: "ab", count: 32)),
            ResourceRecord(id: nil, assetID: "a", renditionKey: "video", ordinal: 1, kind: .segment, uri: "https://cdn.example/file.mp4",
                           rangeOffset: 884, rangeLength: 120_000, fileName: "video/file.mp4", state: .pending, bytes: nil,
                           expectedBytes: 120_000, exactSize: true, startTime: 0, duration: 6.006, etag: nil, lastModified: nil),
            ResourceRecord(id: nil, assetID: "a", renditionKey: "audio-é", ordinal: 2, kind: .segment, uri: "https://cdn.example/ä.aac?t=1",
                           rangeOffset: nil, rangeLength: nil, fileName: "audio-é/00001.aac", state: .pending, bytes: nil,
                           expectedBytes: 40_000, exactSize: false, startTime: 6.006, duration: 5.994, etag: nil, lastModified: nil),
        ]
        try await library.insertResourceRows(written)
        return (library, written)
    }

    @Test("every query that reads resources gives back each value as written")
    func valuesRoundTrip() async throws {
        try await withTemporaryDirectory { folder in
            let (library, written) = try await Self.library(in: folder)
            let all = try await library.index.resources(of: "a")
            #expect(all.map(Self.values) == written.map(Self.values))
            let ids = all.map { $0.id! }
            #expect(Set(ids).count == 3)
            let pending = try await library.index.pendingResources(of: "a", after: nil, limit: 10)
            #expect(pending.map(Self.values) == written.filter { $0.state == .pending }.map(Self.values))
            #expect(pending.map(\.id) == Array(ids.dropFirst()))
            let chosen = try await library.index.resources([ids[2], ids[0]], of: "a")
            #expect(Set(chosen.map(Self.values)) == Set([written[0], written[2]].map(Self.values)))
            #expect(try await library.index.resources([], of: "a").isEmpty)
            #expect(try await library.index.resources(ids, of: "b").isEmpty)
            let inFile = try await library.index.resources(inFile: "video/file.mp4", of: "a")
            #expect(inFile.map(Self.values) == written.prefix(2).map(Self.values))
            let done = try await library.index.doneResources(of: "a")
            #expect(done.map(Self.values) == [Self.values(written[0])])
        }
    }

    @Test("a resource of a kind or in a state Carryon does not know fails the read, named", arguments: [("kind", "chapter"), ("state", "half-done")])
    func unknownValuesAreNamed(column: String, value: String) async throws {
        try await withTemporaryDirectory { folder in
            let (library, _) = try await Self.library(in: folder)
            let id = try #require(try await library.index.resources(of: "a")[1].id)
            try await library.writeUnreadable(.text(value), into: column, ofResource: id)
            let error = try await #require(throws: CarryonError.self) { try await library.index.resources(of: "a") }
            #expect(error.code == .library)
            #expect(error.message.contains("resource \(id)") && error.message.contains(value), "\(error.message)")
        }
    }
}
