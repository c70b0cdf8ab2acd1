import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// MPEG-DASH through the `carryon` command as users run it: download an MPD, `show --json`
/// names the format and the MPD, `play --format dash` serves it to a DASH player.
@Suite("carryon with MPEG-DASH", .serialized)
struct DASHCommandTests {
    @Test("download an MPD; show --json says dash and where main.mpd is; play --format dash prints the MPD URL GStreamer plays to the last frame",
          .timeLimit(.minutes(2)))
    func downloadShowPlay() async throws {
        try await withTemporaryDirectory { folder in
            let id = try await Origin(root: dashSampleMedia.path).withRunning { origin in
                let result = try await runCarryon(["download", origin.baseURL + "/number/main.mpd", "--library", folder.path,
                                                   "--audio", "de"])
                #expect(result.status == 0, "\(result.standardError)")
                return try #require(result.standardOutput.split(separator: "\n").last.map(String.init))
            }
            let show = try await runCarryon(["show", id, "--json", "--library", folder.path])
            #expect(show.status == 0, "\(show.standardError)")
            let asset = try JSONDecoder.iso8601.decode(AssetSnapshot.self, from: Data(show.standardOutput.utf8))
            #expect(asset.format == "dash" && asset.state == .completed)
            #expect(asset.mpd == URL(fileURLWithPath: asset.bundlePath).appendingPathComponent("main.mpd").path)
            #expect(asset.selection?.renditions.map(\.language) == ["de"])

            let player = try RunningProcess(carryon: ["play", id, "--format", "dash", "--library", folder.path])
            var lines = player.lines.makeAsyncIterator()
            let url = try #require(await lines.next())
            #expect(url.hasSuffix("/\(id)/main.mpd"), "\(url)")
            let frames = try await gstreamerVideoFrames(url)
            #expect(frames == 200, "GStreamer played \(frames) frames")
            player.kill(SIGINT)
            _ = await player.wait()
        }
    }

    @Test("add brings another audio language and subtitles into a DASH bundle: both manifests name them, and it plays",
          .timeLimit(.minutes(2)))
    func addSelections() async throws {
        try await withTemporaryDirectory { folder in
            try await Origin(root: dashSampleMedia.path).withRunning { origin in
                let download = try await runCarryon(["download", origin.baseURL + "/timeline/main.mpd", "--library", folder.path,
                                                     "--audio", "en", "--subtitles", "none"])
                #expect(download.status == 0, "\(download.standardError)")
                let id = try #require(download.standardOutput.split(separator: "\n").last.map(String.init))
                let added = try await runCarryon(["add", id, "--audio", "de", "--subtitles", "en", "--library", folder.path])
                #expect(added.status == 0, "\(added.standardError)")
                let show = try await runCarryon(["show", id, "--json", "--library", folder.path])
                let asset = try JSONDecoder.iso8601.decode(AssetSnapshot.self, from: Data(show.standardOutput.utf8))
                #expect(asset.state == .completed)
                #expect(Set(asset.selection?.renditions.map { "\($0.type) \($0.language ?? "")" } ?? []) == ["AUDIO en", "AUDIO de", "SUBTITLES en"])
                let bundle = URL(fileURLWithPath: asset.bundlePath)
                let hls = try String(contentsOf: bundle.appendingPathComponent("main.m3u8"), encoding: .utf8)
                #expect(hls.contains("LANGUAGE=\"de\"") && hls.contains("TYPE=SUBTITLES"))
                let mpd = try String(contentsOf: bundle.appendingPathComponent("main.mpd"), encoding: .utf8)
                #expect(mpd.components(separatedBy: "<AdaptationSet").count == 5, "video, two audio sets and the subtitles")
                #expect(try await gstreamerVideoFrames("file://" + bundle.appendingPathComponent("main.mpd").path) == 200)
            }
        }
    }

    @Test("play --format dash on an HLS asset is refused, naming the format")
    func dashOfHLS() async throws {
        try await withTemporaryDirectory { folder in
            let id = try await Origin(root: sampleMedia.path).withRunning { origin in
                let result = try await runCarryon(["download", origin.baseURL + "/ts/main.m3u8", "--library", folder.path,
                                                   "--max-bitrate", "200000", "--subtitles", "none"])
                #expect(result.status == 0, "\(result.standardError)")
                return try #require(result.standardOutput.split(separator: "\n").last.map(String.init))
            }
            let refused = try await runCarryon(["play", id, "--format", "dash", "--library", folder.path])
            #expect(refused.status == 1)
            #expect(refused.standardError.contains("is HLS, not MPEG-DASH"), "\(refused.standardError)")
        }
    }
}
