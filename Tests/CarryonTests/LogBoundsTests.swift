@testable import Carryon
import CarryonIndexTestSupport
import CarryonTestSupport
import Foundation
import Testing

/// An asset's logs stay bounded whatever is asked of the server: a line keeps at most 2,048
/// characters of a URI and 1,024 of a comment, a log is rotated at 1 MiB, and a reader takes a
/// page of the newest entries. Before, 200 requests for 60 KB paths added 24 MB (the path
/// written twice), and the API answered all of it at once.
@Suite("Bounded logs")
struct LogBoundsTests {
    @Test("2,000 requests for 60 KB paths leave at most 2 MiB and a line per request; the newest come back a page at a time")
    func bounded() async throws {
        try await withTemporaryDirectory { folder in
            let logs = AssetLogs(library: try OfflineLibrary(testingAt: folder))
            let long = String(repeating: "a", count: 60_000)
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            for index in 0..<2_000 {
                logs.error(.init(date: start.addingTimeInterval(Double(index)), event: "playback", uri: "/\(index)/\(long)", status: 404,
                                 errorDomain: "carryon", errorCode: "not-found", comment: "/\(index)/\(long) is not a file of x"), for: "x")
            }
            let folderBytes = try FileManager.default.contentsOfDirectory(at: logs.folder(for: "x"), includingPropertiesForKeys: [.fileSizeKey])
                .reduce(0) { $0 + ((try $1.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0) }
            #expect(folderBytes <= 2 * AssetLogs.maximumLogBytes + 4_096, "\(folderBytes) bytes")
            let page = try logs.page(of: "x", access: false, limit: 10)
            let newest = try #require(page.entries["error"])
            #expect(newest.count == 10)
            #expect(newest.last?["cs-uri"]?.hasPrefix("/1999/") == true && newest.first?["cs-uri"]?.hasPrefix("/1990/") == true)
            #expect(newest.allSatisfy { ($0["cs-uri"]?.count ?? 0) <= AssetLogs.maximumURICharacters + 1 && ($0["x-comment"]?.count ?? 0) <= 1_025 })
            // The rotated log is read too: more lines than the current file holds alone, fewer than were written.
            let total = try #require(page.totals["error"])
            #expect(total > 300 && total < 2_000, "\(total)")
            let before = try logs.entries(of: "x", access: false, limit: 5, skipping: 10)["error"] ?? []
            let firstParts: [Substring?] = before.map { $0["cs-uri"]?.split(separator: "/").first }
            let expected: [Substring?] = (1985...1989).map { Substring(String($0)) }
            #expect(firstParts == expected)
        }
    }
}
