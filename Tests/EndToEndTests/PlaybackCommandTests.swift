import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// `carryon serve` and `carryon play` as users run them.
@Suite("carryon serve and play", .heavy)
struct PlaybackCommandTests {
    /// Downloads the small TS variant into `library` with the CLI and returns the asset id.
    func download(into library: String) async throws -> String {
        try await Origin(root: sampleMedia.path).withRunning { origin in
            let result = try await runCarryon(["download", origin.baseURL + "/ts/main.m3u8", "--library", library,
                                               "--max-bitrate", "200000", "--subtitles", "none"])
            #expect(result.status == 0, "\(result.standardError)")
            return try #require(result.standardOutput.split(separator: "\n").last.map(String.init))
        }
    }

    @Test("serve prints its base URL first, players decode every asset under it, and Ctrl-C stops it")
    func serve() async throws {
        try await withTemporaryDirectory { folder in
            let id = try await download(into: folder.path)
            let server = try RunningProcess(carryon: ["serve", "--library", folder.path])
            var lines = server.lines.makeAsyncIterator()
            let base = try #require(await lines.next())
            #expect(base.hasPrefix("http://127.0.0.1:") && base.split(separator: "/").last?.count == 32, "\(base)")
            let decoded = try await ffmpegDecode("\(base)/\(id)/main.m3u8")
            #expect(decoded.status == 0, "ffmpeg: \(decoded.standardError)")
            server.kill(SIGINT)
            #expect(await server.wait() == 0)
        }
    }

    @Test("purge keeps an expired asset `carryon serve` is playing, naming the process; once serve is killed, purge removes it at once")
    func purgeWhilePlaying() async throws {
        try await withTemporaryDirectory { folder in
            let id = try await download(into: folder.path)
            let policy = try await runCarryon(["policy", id, "--expires", "2020-01-01", "--library", folder.path])
            #expect(policy.status == 0, "\(policy.standardError)")
            let server = try RunningProcess(carryon: ["serve", "--library", folder.path])
            var lines = server.lines.makeAsyncIterator()
            let base = try #require(await lines.next().flatMap(URL.init(string:)))
            let port = try #require(base.port)
            let playlist = try await rawHTTP(port: port, "GET \(base.path)/\(id)/main.m3u8 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
            #expect(playlist.status == 200)
            let kept = try await runCarryon(["purge", "--library", folder.path])
            #expect(kept.status == 0, "\(kept.standardError)")
            #expect(kept.standardOutput.contains("kept  \(id)") && kept.standardOutput.contains("(expired, but being played by process \(server.pid))"),
                    "\(kept.standardOutput)")
            #expect(try await runCarryon(["list", "--library", folder.path]).standardOutput.contains(id))
            server.kill(SIGKILL)
            _ = await server.wait()
            let purged = try await runCarryon(["purge", "--json", "--library", folder.path])
            #expect(purged.status == 0, "\(purged.standardError)")
            let plan = try JSONDecoder().decode(PurgePlan.self, from: Data(purged.standardOutput.utf8))
            #expect(plan.removals.map(\.id) == [id] && plan.kept.isEmpty, "\(purged.standardOutput)")
            let list = try await runCarryon(["list", "--library", folder.path])
            #expect(!list.standardOutput.contains(id), "\(list.standardOutput)")
        }
    }

    @Test("play starts the player named on the asset's URL and stops serving when it exits")
    func playWithPlayer() async throws {
        let ffmpeg = try requireFFmpeg()
        try await withTemporaryDirectory { folder in
            let library = folder.appendingPathComponent("library").path
            let id = try await download(into: library)
            // A stand-in for mpv: decodes what it is given with ffmpeg and notes how that went.
            let bin = folder.appendingPathComponent("bin")
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            let player = bin.appendingPathComponent("mpv")
            let report = folder.appendingPathComponent("player.txt").path
            try """
                #!/bin/sh
                "\(ffmpeg.path)" -nostdin -v error -i "$1" -map 0 -f null - 2>"\(report).err"
                echo "$? $1" > "\(report)"
                """.write(to: player, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: player.path)
            let path = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            let result = try await runCarryon(["play", String(id.prefix(5)), "--player", "mpv", "--library", library],
                                              environment: ["PATH": path])
            #expect(result.status == 0, "\(result.standardError)")
            let url = try #require(result.standardOutput.split(separator: "\n").first.map(String.init))
            #expect(url.hasSuffix("/\(id)/main.m3u8"))
            let played = try String(contentsOfFile: report, encoding: .utf8)
            #expect(played == "0 \(url)\n", "player: \(played) \((try? String(contentsOfFile: report + ".err", encoding: .utf8)) ?? "")")
        }
    }

    @Test("play refuses an unknown id and a player it does not know")
    func playRefusals() async throws {
        try await withTemporaryDirectory { folder in
            let unknown = try await runCarryon(["play", "nosuchid", "--library", folder.path])
            #expect(unknown.status == 1 && unknown.standardError.contains("no asset"))
            let player = try await runCarryon(["play", "x", "--player", "quicktime", "--library", folder.path])
            #expect(player.status == 64 && player.standardError.contains("ffplay, mpv or vlc"))
            let host = try await runCarryon(["serve", "--host", "0.0.0.0", "--library", folder.path])
            #expect(host.status == 64 && host.standardError.contains("loopback"))
        }
    }
}

/// Playing an asset that another process is downloading: the server waits for each file.
@Suite("Playing what another process downloads", .heavy)
struct CrossProcessPlaybackTests {
    @Test("ffmpeg plays through the server while a `carryon download` process fetches the asset over a slow link")
    func playsWhileAnotherProcessDownloads() async throws {
        try await withTemporaryDirectory { folder in
            let library = folder.appendingPathComponent("library")
            var profile = LinkProfile.perfect
            profile.bandwidth = 40_000
            profile.latency = .milliseconds(20)
            try await Origin(root: sampleMedia.path, profile: profile).withRunning { origin in
                let download = try RunningProcess(carryon: ["download", origin.baseURL + "/ts/main.m3u8", "--library", library.path,
                                                            "--json", "--concurrency", "2", "--subtitles", "none"])
                // The id comes with the first event.
                var lines = download.lines.makeAsyncIterator()
                var id: String?
                while id == nil, let line = await lines.next() {
                    if let data = line.data(using: .utf8),
                       let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let value = object["id"] as? String {
                        id = value
                    }
                }
                let assetID = try #require(id)
                let collector = RequestCollector()
                let source = PlaybackSource(library: try OfflineLibrary(root: library), pollInterval: .milliseconds(50))
                try await PlaybackServer(source: source) { await collector.add($0) }.withRunning { handle in
                    let decoded = try await ffmpegDecode(handle.playlistURL(for: assetID))
                    #expect(decoded.status == 0 && decoded.standardError.isEmpty, "ffmpeg: \(decoded.standardError)")
                }
                while await lines.next() != nil {}
                #expect(await download.wait() == 0)
                let served = await collector.requests
                #expect(served.allSatisfy { $0.status == 200 || $0.status == 206 }, "\(served.filter { $0.status >= 300 }.map { "\($0.path) \($0.status)" })")
                #expect(served.filter { $0.path.hasPrefix("video/") && $0.path.hasSuffix(".ts") }.count == 3)
                // Each media file was fetched from the origin once: by the download.
                let media = await origin.requests().filter { $0.path.hasSuffix(".ts") }.map(\.path)
                #expect(Set(media).count == media.count)
            }
        }
    }
}
