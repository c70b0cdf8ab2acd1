import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// The embedding example Documentation/API.md shows is `Examples/Embedding/main.swift` word for word,
/// the package builds it (target `CarryonExample`), and it does what the page says: downloads, picks
/// the task up again in a second run, and hands a player the offline URL.
@Suite("embedding example", .heavy)
struct EmbeddingExampleTests {
    @Test("Documentation/API.md shows the example's files word for word", arguments: ["main.swift", "Managing.swift"])
    func documentationShowsTheExample(file: String) throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("Documentation/API.md"), encoding: .utf8)
        let marker = "<!-- Examples/Embedding/\(file) -->\n```swift\n"
        let start = try #require(readme.range(of: marker), "Documentation/API.md lacks the marker \(marker)")
        let end = try #require(readme.range(of: "\n```\n", range: start.upperBound..<readme.endIndex))
        let shown = String(readme[start.upperBound..<end.lowerBound])
        let source = try String(contentsOf: packageRoot.appendingPathComponent("Examples/Embedding/\(file)"), encoding: .utf8)
        #expect(shown + "\n" == source, "Documentation/API.md's copy of Examples/Embedding/\(file) differs: copy the file into Documentation/API.md")
    }

    @Test("the example downloads, restores its task in a second run, and a player plays the URL it serves")
    func exampleRuns() async throws {
        _ = try requireFFmpeg()
        let example = productsDirectory.appendingPathComponent("CarryonExample")
        try await withTemporaryDirectory { folder in
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let url = origin.baseURL + "/fmp4/main.m3u8"
                let library = folder.appendingPathComponent("library").path
                let first = try await run(example, [url, library])
                #expect(first.status == 0, "\(first.standardOutput)\(first.standardError)")
                #expect(first.standardOutput.contains("selected 640x360 with 2 renditions"), "\(first.standardOutput)")
                #expect(first.standardOutput.contains("state completed"))
                let completions = first.standardOutput.split(separator: "\n").filter { $0.hasPrefix("completed ") }.sorted()
                #expect(completions == ["completed audio-en", "completed subtitles-en", "completed video"], "\(completions)")
                #expect(first.standardOutput.contains("adding [\"audio-de\"]"), "\(first.standardOutput)")
                #expect(first.standardOutput.contains("plays offline: true, audio: [\"English\", \"Deutsch\"]"), "\(first.standardOutput)")
                #expect(first.standardOutput.contains("purged 0 assets, 0 bytes"))
                #expect(first.standardOutput.contains("play http://127.0.0.1:"))
                let media = { await origin.requests().filter { !$0.path.hasSuffix(".m3u8") }.count }
                let fetched = await media()

                let second = try await run(example, [url, library, "ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0"])
                #expect(second.status == 0, "\(second.standardOutput)\(second.standardError)")
                #expect(second.standardOutput.contains("restored "), "\(second.standardOutput)")
                #expect(second.standardOutput.contains("completed, 100%"))
                #expect(second.standardOutput.contains("already has every rendition asked for (") && second.standardOutput.contains("audio Deutsch"),
                        "\(second.standardOutput)")
                #expect(second.standardOutput.contains("plays offline: true, audio: [\"English\", \"Deutsch\"]"))
                let lines = second.standardOutput.split(separator: "\n")
                #expect(lines.contains { $0.hasPrefix("12.0") && Double($0) != nil }, "ffprobe printed the offline stream's duration: \(second.standardOutput)")
                #expect(await media() == fetched, "the second run fetched no media (only playlists, to see what it could add)")
                #expect(fetched > 0)
            }
        }
    }
}
