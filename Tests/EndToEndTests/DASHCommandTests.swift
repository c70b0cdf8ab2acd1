import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// MPEG-DASH through the `carryon` command as users run it: download an MPD, `show --json`
/// names the format and the MPD, `play --format dash` serves it to a DASH player.
@Suite("carryon with MPEG-DASH", .serialized, .heavy)
struct DASHCommandTests {
    @Test("download an MPD; show --json says dash and where main.mpd is; play --format dash prints the MPD URL GStreamer plays to the last frame")
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

            let (url, frames) = try await Self.playedFrames(id, library: folder.path)
            #expect(url.hasSuffix("/\(id)/main.mpd"), "\(url)")
            #expect(frames == 200, "GStreamer played \(frames) frames")
        }
    }

    /// The MPD URL `carryon play ID --format dash` prints, and the video frames GStreamer plays from it.
    static func playedFrames(_ id: String, library: String) async throws -> (url: String, frames: Int) {
        let player = try RunningProcess(carryon: ["play", id, "--format", "dash", "--library", library])
        defer { player.kill(SIGINT) }
        var lines = player.lines.makeAsyncIterator()
        let url = try #require(await lines.next())
        let frames = try await gstreamerVideoFrames(url)
        player.kill(SIGINT)
        _ = await player.wait()
        return (url, frames)
    }

    @Test("add brings another audio language and subtitles into a DASH bundle: both manifests name them, and it plays")
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

    @Test("a DASH stream's whole life from the command: catalog, download by name, list with its size, logs, policy and purge, delete")
    func libraryLife() async throws {
        try await withTemporaryDirectory { folder in
            let library = folder.appendingPathComponent("library").path
            try await Origin(root: dashSampleMedia.path).withRunning { origin in
                let plist = folder.appendingPathComponent("Streams.plist")
                try """
                    <?xml version="1.0" encoding="UTF-8"?>
                    <plist version="1.0">
                    <array>
                        <dict><key>name</key><string>Sample DASH</string><key>playlist_url</key><string>\(origin.baseURL)/timeline/main.mpd</string></dict>
                    </array>
                    </plist>
                    """.write(to: plist, atomically: true, encoding: .utf8)
                let before = try await runCarryon(["catalog", plist.path, "--library", library, "--json"])
                #expect(before.status == 0, "\(before.standardError)")
                #expect((try JSONSerialization.jsonObject(with: Data(before.standardOutput.utf8)) as? [[String: Any]])?.first?["state"] as? String
                    == "not-downloaded")
                let download = try await runCarryon(["download", "--catalog", plist.path, "Sample DASH", "--library", library])
                #expect(download.status == 0, "\(download.standardError)")
                let id = try #require(download.standardOutput.split(separator: "\n").last.map(String.init))
                let after = try await runCarryon(["catalog", plist.path, "--library", library])
                #expect(after.standardOutput.contains("downloaded") && after.standardOutput.contains("playable"), "\(after.standardOutput)")

                // list gives its size: every file of the bundle's media, to the byte.
                let list = try await runCarryon(["list", "--library", library, "--json"])
                let assets = try JSONDecoder.iso8601.decode([AssetSnapshot].self, from: Data(list.standardOutput.utf8))
                let asset = try #require(assets.first { $0.id == id })
                #expect(asset.format == "dash" && asset.state == .completed)
                let bundle = URL(fileURLWithPath: asset.bundlePath)
                var media = 0
                for folder in ["video", "audio-en", "audio-de", "subtitles-en"] {
                    let path = bundle.appendingPathComponent(folder).path
                    for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] where !name.hasSuffix(".m3u8") {
                        media += try #require(try FileManager.default.attributesOfItem(atPath: path + "/" + name)[.size] as? Int)
                    }
                }
                #expect(media > 100_000 && asset.progress.bytesDone == media && asset.progress.isExact, "\(asset.progress.bytesDone) of \(media)")

                // The access log has a line for every resource fetched, each from the origin.
                let logs = try await runCarryon(["logs", id, "--library", library, "--access"])
                let log = try W3CLog(parsing: logs.standardOutput)
                #expect(log.entries.count == asset.progress.resourcesTotal)
                #expect(log.entries.allSatisfy { $0["sc-status"] == "200" && ($0["cs-uri"] ?? "").hasPrefix(origin.baseURL + "/timeline/") })

                // Expired, it is purged with its logs.
                let policy = try await runCarryon(["policy", id, "--library", library, "--expires", "0s"])
                #expect(policy.status == 0, "\(policy.standardError)")
                let purge = try await runCarryon(["purge", "--library", library])
                #expect(purge.status == 0 && purge.standardOutput.contains("removed  \(id)"), "\(purge.standardOutput)")
                #expect(!FileManager.default.fileExists(atPath: asset.bundlePath))
                #expect(!FileManager.default.fileExists(atPath: URL(fileURLWithPath: library).appendingPathComponent("logs/\(id)").path))

                // Another, deleted by hand.
                let second = try await runCarryon(["download", origin.baseURL + "/list/main.mpd", "--library", library])
                let other = try #require(second.standardOutput.split(separator: "\n").last.map(String.init))
                let delete = try await runCarryon(["delete", other, "--library", library])
                #expect(delete.status == 0, "\(delete.standardError)")
                #expect(!FileManager.default.fileExists(atPath: URL(fileURLWithPath: library).appendingPathComponent("bundles/\(other)").path))
                let empty = try await runCarryon(["list", "--library", library, "--json"])
                #expect(try JSONDecoder.iso8601.decode([AssetSnapshot].self, from: Data(empty.standardOutput.utf8)).isEmpty)
            }
        }
    }
}
