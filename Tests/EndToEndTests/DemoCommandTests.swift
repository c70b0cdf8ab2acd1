import CarryonTestSupport
import Foundation
import Testing

/// `carryon demo`, the README's first command, as a new user runs it.
@Suite("carryon demo")
struct DemoCommandTests {
    @Test("the demo downloads the sample over loopback, proves it plays with ffmpeg, prints where it is, and exits 0",
          .timeLimit(.minutes(2)))
    func demo() async throws {
        _ = try requireFFmpeg()
        try await withTemporaryDirectory { folder in
            let result = try await runCarryon(["demo", "--library", folder.path])
            #expect(result.status == 0, "\(result.standardError)")
            let lines = result.standardOutput.split(separator: "\n").map(String.init)
            #expect(lines.contains { $0.hasPrefix("check") && $0.contains("ffmpeg decoded every stream") }, "\(result.standardOutput)")
            let url = try #require(lines.first { $0.hasPrefix("playback") }?.split(separator: " ").last.map(String.init))
            #expect(url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/main.m3u8"))
            let bundle = try #require(lines.first { $0.hasPrefix("bundle") }?.split(separator: " ").last.map(String.init))
            #expect(FileManager.default.fileExists(atPath: bundle + "/manifest.json"))
            #expect(result.standardError.contains("origin http://127.0.0.1:"))
            // A second run replaces the first run's asset.
            let again = try await runCarryon(["demo", "--library", folder.path, "--json"])
            #expect(again.status == 0, "\(again.standardError)")
            let bundles = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("bundles").path)
            #expect(bundles.count == 1, "\(bundles)")
        }
    }

    @Test("with --keep-serving the printed URL plays until the demo is interrupted; --profile lossy still completes",
          .timeLimit(.minutes(2)))
    func keepServingLossy() async throws {
        try await withTemporaryDirectory { folder in
            let demo = try RunningProcess(carryon: ["demo", "--library", folder.path, "--keep-serving", "--profile", "lossy"])
            var url: String?
            for await line in demo.lines {
                if line.hasPrefix("playback") { url = line.split(separator: " ").last.map(String.init) }
                if line.hasPrefix("serving until Ctrl-C") { break }
            }
            let playback = try #require(url)
            let decoded = try await ffmpegDecode(playback)
            #expect(decoded.status == 0, "ffmpeg: \(decoded.standardError)")
            demo.kill(SIGINT)
            #expect(await demo.wait() == 0)
        }
    }
}
