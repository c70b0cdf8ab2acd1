@testable import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// Expiring signed URLs from the command line: the manifest's own URL signed too, the download
/// killed with `kill -9` part-way, and `resume` — long after every URL the library holds has
/// expired — finishing it with the URL `--refresh-command` prints.
@Suite("Expiring signed URLs from the command line", .heavy)
struct SignedURLCommandTests {
    @Test("a download killed with kill -9 resumes after its manifest URL expired, through --refresh-command, byte-identical")
    func killedAndResumed() async throws {
        try await withTemporaryDirectory { folder in
            let urlFile = folder.appendingPathComponent("manifest-url")
            // Signed anew every 0.5 s, each signature good for five signings: a fresh location
            // lasts 2 s at least, well past a loaded machine's wait between reading the manifest
            // and asking for a segment.
            let cdn = try SigningCDN(segments: 24, size: 6_000, chunk: 1_000, every: .milliseconds(100), signsManifest: true,
                                     lifetime: 5, manifestURLFile: urlFile)
            defer { cdn.stop() }
            let rotation = cdn.rotating(every: .milliseconds(500))
            defer { rotation.cancel() }
            let library = ["--library", folder.appendingPathComponent("library").path]
            let refresh = ["--refresh-command", "cat '\(urlFile.path)'"]
            let download = try RunningProcess(carryon: ["download", cdn.manifestURL, "--concurrency", "2", "--json"] + library + refresh)
            var id: String?
            for await line in download.lines {
                if let event = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let found = event["id"] as? String {
                    id = found
                    break
                }
            }
            let assetID = try #require(id, "download --json names the asset")
            for _ in 0..<200 where cdn.origin.requests.filter({ $0.hasPrefix("/s") }).count < 3 {
                try await Task.sleep(for: .milliseconds(20))
            }
            download.kill(SIGKILL)
            _ = await download.wait()
            let fetchedBeforeKill = Set(cdn.origin.requests.filter { $0.hasPrefix("/s") }.map { $0.split(separator: "?")[0] }).count
            #expect(fetchedBeforeKill < 20, "killed part-way: \(fetchedBeforeKill) of 24 segments asked for")
            // Every URL the library holds, the manifest's included, expires before resume.
            try await Task.sleep(for: .milliseconds(3_500))

            let resumed = try await runCarryon(["resume", assetID] + library + refresh)
            #expect(resumed.status == 0, "\(resumed.standardError)")
            let opened = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            let bundle = opened.bundleURL(for: assetID)
            let files = try FileManager.default.subpathsOfDirectory(atPath: bundle.path).filter { $0.hasSuffix(".ts") }.sorted()
            #expect(files.count == 24)
            for (index, file) in files.enumerated() {
                #expect(Array(try Data(contentsOf: bundle.appendingPathComponent(file))) == cdn.segments[index], "\(file)")
            }
            let refreshes = try AssetLogs(library: opened).entries(of: assetID)["error", default: []].filter { $0["x-error-code"] == "expired" }
            #expect(refreshes.contains { ($0["x-comment"] ?? "").contains("read the manifest again from \(cdn.origin.baseURL)/media.m3u8?sig=") },
                    "a refresh through the command's URL: \(refreshes.map { $0["x-comment"] ?? "" })")
        }
    }
}
