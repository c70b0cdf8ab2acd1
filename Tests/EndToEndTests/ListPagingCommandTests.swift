@testable import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// `carryon list` in pages (issue 39), as a person runs it: the next page's command on stderr,
/// and a cursor no listing gave refused as a mistake in the command line.
@Suite("carryon list in pages", .heavy)
struct ListPagingCommandTests {
    @Test("list --limit 2 shows two rows and prints the next page's command, which shows the third; a made-up cursor exits 64 naming the cursor, without another option's hint")
    func pagesOnTheCommandLine() async throws {
        try await withTemporaryDirectory { folder in
            let root = folder.appendingPathComponent("library")
            let library = try OfflineLibrary(root: root)
            let start = Date(timeIntervalSince1970: 2_000_000_000)
            for number in 0..<3 {
                let made = start.addingTimeInterval(Double(number))
                try await library.index.insert(AssetRecord(id: "page\(number)", name: "Show \(number)", url: "https://cdn.example/\(number).m3u8",
                                                           state: .completed, errorMessage: nil, options: DownloadOptions(), headers: [],
                                                           selection: nil, planned: false, createdAt: made, updatedAt: made, completedAt: nil,
                                                           duration: nil))
            }
            let first = try await runCarryon(["list", "--limit", "2", "--library", root.path])
            #expect(first.status == 0, "\(first.standardError)")
            #expect(first.standardOutput.contains("page0") && first.standardOutput.contains("page1") && !first.standardOutput.contains("page2"))
            let line = try #require(first.standardError.split(separator: "\n").first { $0.contains("the next page: ") })
            let command = line.components(separatedBy: "the next page: ")[1].split(separator: " ").map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: "'")) }
            #expect(Array(command.prefix(2)) == ["carryon", "list"] && command.contains("--cursor"), "\(command)")
            let second = try await runCarryon(Array(command.dropFirst()))
            #expect(second.status == 0, "\(second.standardError)")
            #expect(second.standardOutput.contains("page2") && !second.standardOutput.contains("page0"), "\(second.standardOutput)")
            #expect(!second.standardError.contains("the next page"))

            let madeUp = try await runCarryon(["list", "--cursor", "../../etc/passwd", "--library", root.path])
            #expect(madeUp.status == 64, "\(madeUp.standardError)")
            #expect(madeUp.standardError.contains("cursor") && !madeUp.standardError.contains("Dates are"), "\(madeUp.standardError)")
            // Said as every error is, not with the usage of `carryon` itself.
            #expect(madeUp.standardError.hasPrefix("carryon: ") && madeUp.standardError.contains("hint: Leave out --cursor")
                    && !madeUp.standardError.contains("Usage:"), "\(madeUp.standardError)")
        }
    }
}
