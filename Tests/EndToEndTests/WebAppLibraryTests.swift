@testable import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// The web app's library at more than a page (issue 39): `carryon serve` over a library of 250
/// assets, Debian's Chromium driven by Playwright (`Tests/Browser/library.py`) reading its first
/// page, the next, a search and a state filter.
@Suite("The web app's library in Chromium", .heavy)
struct WebAppLibraryTests {
    /// What `library.py` saw.
    struct Visit: Decodable {
        var errors: [String]
        var firstPaintMs: Double
        var caption: String
        var firstRows: Int
        var parts: [String]
        var moreRows: Int
        var searchRows: Int
        var searchNames: [String]
        var failedRows: Int
        var failedStates: [String]
    }

    @Test("250 assets: the first page shows 100 (a download of part of a stream saying which part), Show more 200, a search only the 25 whose names match, the Failed filter only the failed")
    func pagesSearchAndFilter() async throws {
        let python = try requireBrowserPython()
        try await withTemporaryDirectory { folder in
            let root = folder.appendingPathComponent("library")
            let library = try OfflineLibrary(root: root)
            let start = Date(timeIntervalSince1970: 2_000_000_000)
            for number in 0..<250 {
                let made = start.addingTimeInterval(Double(number))
                let name = number % 10 == 0 ? String(format: "Jazz night %03d", number) : String(format: "Concert %03d", number)
                try await library.index.insert(AssetRecord(id: String(format: "web%07d", number), name: name, url: "https://cdn.example/\(number).m3u8",
                                                           state: number % 7 == 0 ? .failed : .completed, errorMessage: nil,
                                                           options: DownloadOptions(timeRange: number % 50 == 0 ? TimeRange(start: 600, end: 720) : nil),
                                                           headers: [], selection: nil, planned: false,
                                                           createdAt: made, updatedAt: made, completedAt: nil, duration: nil))
            }
            let server = try RunningProcess(carryon: ["serve", "--library", root.path])
            defer { server.kill(SIGTERM) }
            var lines = server.lines.makeAsyncIterator()
            let base = try #require(await lines.next(), "serve prints its base URL first")
            let result = try await run(python, [packageRoot.appendingPathComponent("Tests/Browser/library.py").path, base, "jazz"])
            guard result.status == 0 else {
                throw TestSupportError("the library visit failed (library.py status \(result.status)): \(result.standardError.suffix(4000))")
            }
            let visit = try JSONDecoder().decode(Visit.self, from: Data(result.standardOutput.utf8))
            #expect(visit.errors.isEmpty, "\(visit.errors)")
            #expect(visit.firstRows == 100 && visit.caption == "100+ assets", "\(visit.firstRows) rows, \(visit.caption)")
            // Of the newest 100, numbers 200 and 150 are downloads of 10:00 to 12:00.
            #expect(visit.parts == ["part 10:00–12:00", "part 10:00–12:00"], "\(visit.parts)")
            #expect(visit.moreRows == 200)
            #expect(visit.searchRows == 25 && visit.searchNames.allSatisfy { $0.hasPrefix("Jazz night") }, "\(visit.searchNames)")
            // Newest first: the search's first row is the newest jazz night.
            #expect(visit.searchNames.first == "Jazz night 240")
            #expect(visit.failedRows == (0..<250).filter { $0 % 7 == 0 }.count && visit.failedStates == ["Failed"], "\(visit.failedRows) \(visit.failedStates)")
        }
    }
}
