import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// `carryon demo`, the README's first command, as a new user runs it.
@Suite("carryon demo", .heavy)
struct DemoCommandTests {
    @Test("the demo downloads the sample over loopback, proves it plays with ffmpeg, prints where it is, and exits 0")
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

    @Test("demo --format dash downloads the DASH sample, ffmpeg decodes its HLS playlists and GStreamer plays its MPD to the last frame")
    func dash() async throws {
        _ = try requireFFmpeg()
        _ = try await gstreamerVideoFrames("file://" + dashSampleMedia.appendingPathComponent("base/main.mpd").path)
        try await withTemporaryDirectory { folder in
            let result = try await runCarryon(["demo", "--format", "dash", "--library", folder.path])
            #expect(result.status == 0, "\(result.standardError)")
            let lines = result.standardOutput.split(separator: "\n").map(String.init)
            #expect(lines.contains { $0.hasPrefix("check") && $0.contains("ffmpeg decoded every stream")
                && $0.contains("GStreamer played 200 video frames of main.mpd") }, "\(result.standardOutput)")
            #expect(lines.contains { $0.hasPrefix("mpd") && $0.hasSuffix("/main.mpd") }, "\(result.standardOutput)")
        }
    }

    @Test("with --keep-serving the printed URL plays until the demo is interrupted; --profile lossy still completes")
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

/// `carryon catalog` and `download --catalog`, with a Streams.plist naming the sample origin.
@Suite("carryon catalog", .heavy)
struct CatalogCommandTests {
    @Test("a Streams.plist lists each stream's offline state; download --catalog takes one by name, with its headers")
    func catalog() async throws {
        try await withTemporaryDirectory { folder in
            let library = folder.appendingPathComponent("library").path
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let plist = folder.appendingPathComponent("Streams.plist")
                try """
                    <?xml version="1.0" encoding="UTF-8"?>
                    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                    <plist version="1.0">
                    <array>
                        <dict>
                            <key>name</key><string>Sample fMP4</string>
                            <key>playlist_url</key><string>\(origin.baseURL)/fmp4/main.m3u8</string>
                            <key>headers</key><dict><key>X-Client</key><string>carryon-test</string></dict>
                        </dict>
                        <dict>
                            <key>name</key><string>Sample TS</string>
                            <key>playlist_url</key><string>\(origin.baseURL)/ts/main.m3u8</string>
                        </dict>
                    </array>
                    </plist>
                    """.write(to: plist, atomically: true, encoding: .utf8)
                let before = try await runCarryon(["catalog", plist.path, "--library", library, "--json"])
                #expect(before.status == 0, "\(before.standardError)")
                let rows = try JSONSerialization.jsonObject(with: Data(before.standardOutput.utf8)) as? [[String: Any]]
                #expect(rows?.compactMap { $0["state"] as? String } == ["not-downloaded", "not-downloaded"])

                let download = try await runCarryon(["download", "--catalog", plist.path, "sample fmp4", "--library", library,
                                                     "--max-bitrate", "200000"])
                #expect(download.status == 0, "\(download.standardError)")
                let requests = await origin.requests()
                #expect(!requests.isEmpty && requests.allSatisfy { $0.headers["x-client"] == "carryon-test" })

                let after = try await runCarryon(["catalog", plist.path, "--library", library])
                let fmp4 = try #require(after.standardOutput.split(separator: "\n").first { $0.hasPrefix("Sample fMP4") })
                #expect(fmp4.contains("downloaded") && fmp4.contains("playable"), "\(after.standardOutput)")
                #expect(after.standardOutput.split(separator: "\n").contains { $0.hasPrefix("Sample TS") && $0.contains("not downloaded") })

                let unknown = try await runCarryon(["download", "--catalog", plist.path, "Nope", "--library", library])
                #expect(unknown.status == 1 && unknown.standardError.contains("Sample fMP4, Sample TS"), "\(unknown.standardError)")
                #expect(unknown.standardError.contains("hint: Names are matched exactly; `carryon catalog \(plist.path)` lists them."))
            }
        }
    }
}
