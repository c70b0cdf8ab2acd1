import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// The download commands as a user runs them: the real binary, a library in a temporary folder,
/// the sample stream from the origin on loopback.
@Suite("carryon download, list, show, cancel, delete", .heavy)
struct DownloadCommandTests {
    struct Line: Decodable {
        var event: String
        var id: String
        var state: String?
        var location: String?
        var fraction: Double?
    }

    /// Reads `process`'s JSON events until one satisfies `stop`; the task id of the last event
    /// read (nil when the output ended before any).
    func taskID(of process: RunningProcess, until stop: (Line) -> Bool) async -> String? {
        var id: String?
        for await line in process.lines {
            guard let event = try? JSONDecoder().decode(Line.self, from: Data(line.utf8)) else { continue }
            id = event.id
            if stop(event) { break }
        }
        return id
    }

    @Test("download --json ends with a done event carrying the id; list and show describe the asset")
    func downloadListShow() async throws {
        try await withTemporaryDirectory { folder in
            let library = folder.path
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let result = try await runCarryon(["download", origin.baseURL + "/fmp4/main.m3u8", "--library", library, "--json",
                                                   "--name", "Sample", "--max-resolution", "480x270", "--audio", "de"])
                #expect(result.status == 0, "\(result.standardError)")
                let lines = result.standardOutput.split(separator: "\n").compactMap {
                    try? JSONDecoder().decode(Line.self, from: Data($0.utf8))
                }
                let last = try #require(lines.last)
                #expect(last.event == "done")
                #expect(last.state == "completed")
                #expect(lines.contains { $0.event == "selection" })
                #expect(lines.contains { $0.event == "progress" })

                let list = try await runCarryon(["list", "--library", library, "--json"])
                let assets = try JSONDecoder.iso8601.decode([AssetSnapshot].self, from: Data(list.standardOutput.utf8))
                #expect(assets.map(\.id) == [last.id])
                #expect(assets.first?.name == "Sample")
                #expect((assets.first?.bytesOnDisk ?? 0) > 100_000)

                let show = try await runCarryon(["show", String(last.id.prefix(4)), "--library", library, "--json"])
                let asset = try JSONDecoder.iso8601.decode(AssetSnapshot.self, from: Data(show.standardOutput.utf8))
                #expect(asset.selection?.variant.resolution == "480x270")
                #expect(asset.selection?.renditions.map(\.language) == ["de"])
                let playlist = try #require(asset.playlist)
                #expect(FileManager.default.fileExists(atPath: playlist))

                let text = try await runCarryon(["show", last.id, "--library", library])
                #expect(text.standardOutput.contains("Playlist    \(playlist)"))
                #expect(text.standardOutput.contains("480x270"))
            }
        }
    }

    @Test("without --json the last line of stdout is the id")
    func idLine() async throws {
        try await withTemporaryDirectory { folder in
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let result = try await runCarryon(["download", origin.baseURL + "/ts/270p/index.m3u8", "--library", folder.path])
                #expect(result.status == 0)
                let id = try #require(result.standardOutput.split(separator: "\n").last.map(String.init))
                let show = try await runCarryon(["show", id, "--library", folder.path, "--json"])
                #expect(show.status == 0)
            }
        }
    }

    @Test("cancel removes the data and delete removes the asset")
    func cancelAndDelete() async throws {
        try await withTemporaryDirectory { folder in
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let download = try await runCarryon(["download", origin.baseURL + "/ts/main.m3u8", "--library", folder.path])
                let id = try #require(download.standardOutput.split(separator: "\n").last.map(String.init))
                let bundle = folder.appendingPathComponent("bundles").appendingPathComponent(id)
                #expect(FileManager.default.fileExists(atPath: bundle.path))
                // A completed download cannot be cancelled; it can be deleted.
                let cancel = try await runCarryon(["cancel", id, "--library", folder.path])
                #expect(cancel.status == 1)
                #expect(cancel.standardError.contains("completed"))
                let delete = try await runCarryon(["delete", id, "--library", folder.path, "--json"])
                #expect(delete.status == 0)
                #expect(delete.standardOutput.contains("\"deleted\" : true"))
                #expect(!FileManager.default.fileExists(atPath: bundle.path))
                let list = try await runCarryon(["list", "--library", folder.path, "--json"])
                #expect(list.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "[\n\n]" || list.standardOutput.contains("[]") || list.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "[\n]")
            }
        }
    }

    @Test("unknown ids exit 1 naming the id", arguments: [["show"], ["resume"], ["cancel"], ["delete"]])
    func unknownID(command: [String]) async throws {
        try await withTemporaryDirectory { folder in
            let result = try await runCarryon(command + ["nosuchid", "--library", folder.path])
            #expect(result.status == 1)
            #expect(result.standardError.contains("nosuchid"))
        }
    }

    @Test("Ctrl-C (exit 130) and SIGTERM (exit 143) suspend the download cleanly: the task suspended, resume completes it", arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func interrupt(signal: Int32, status: Int32) async throws {
        try await withTemporaryDirectory { folder in
            try await Origin(root: sampleMedia.path, profile: LinkProfile(bandwidth: 60_000)).withRunning { origin in
                let process = try RunningProcess(carryon: ["download", origin.baseURL + "/ts/main.m3u8", "--library", folder.path,
                                                           "--json", "--audio", "all"])
                let id = await taskID(of: process) { $0.event == "progress" && ($0.fraction ?? 0) > 0.2 }
                process.kill(signal)
                for await _ in process.lines {}
                #expect(await process.wait() == status)
                let taskID = try #require(id)
                let show = try await runCarryon(["show", taskID, "--library", folder.path, "--json"])
                let asset = try JSONDecoder.iso8601.decode(AssetSnapshot.self, from: Data(show.standardOutput.utf8))
                #expect(asset.state == .suspended)
                let resume = try await runCarryon(["resume", "--library", folder.path])
                #expect(resume.status == 0, "\(resume.standardError)")
                let done = try await runCarryon(["show", taskID, "--library", folder.path, "--json"])
                #expect(try JSONDecoder.iso8601.decode(AssetSnapshot.self, from: Data(done.standardOutput.utf8)).state == .completed)
            }
        }
    }

    @Test("Ctrl-C suspends only the tasks its process runs: another process's download in the same library goes on and completes")
    func interruptLeavesOtherProcesses() async throws {
        try await withTemporaryDirectory { folder in
            try await Origin(root: sampleMedia.path, profile: LinkProfile(bandwidth: 15_000)).withRunning { slow in
                try await Origin(root: sampleMedia.path, profile: LinkProfile(bandwidth: 60_000)).withRunning { origin in
                    let other = try RunningProcess(carryon: ["download", slow.baseURL + "/fmp4/main.m3u8", "--library", folder.path,
                                                             "--json", "--max-resolution", "480x270", "--concurrency", "2"])
                    let otherID = await taskID(of: other) { $0.event == "progress" }
                    let process = try RunningProcess(carryon: ["download", origin.baseURL + "/ts/main.m3u8", "--library", folder.path,
                                                               "--json", "--audio", "all"])
                    let id = await taskID(of: process) { $0.event == "progress" && ($0.fraction ?? 0) > 0.1 }
                    process.kill(SIGINT)
                    for await _ in process.lines {}
                    #expect(await process.wait() == 130)
                    let interrupted = try #require(id)
                    let otherTask = try #require(otherID)
                    func state(_ id: String) async throws -> DownloadState {
                        let show = try await runCarryon(["show", id, "--library", folder.path, "--json"])
                        return try JSONDecoder.iso8601.decode(AssetSnapshot.self, from: Data(show.standardOutput.utf8)).state
                    }
                    #expect(try await state(interrupted) == .suspended)
                    // Still the other process's, and still running there.
                    #expect(try await state(otherTask) == .running)
                    for await _ in other.lines {}
                    #expect(await other.wait() == 0)
                    #expect(try await state(otherTask) == .completed)
                }
            }
        }
    }

    @Test("--start past the window of a live playlist is refused before any media is fetched, naming the window and what to do instead")
    func live() async throws {
        try await withTemporaryDirectory { folder in
            try folder.write("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nseg0.ts\n#EXTINF:4,\nseg1.ts\n", to: "media/live.m3u8")
            try folder.write(bytes: [0x47], to: "media/seg0.ts")
            try await Origin(root: folder.appendingPathComponent("media").path).withRunning { origin in
                let result = try await runCarryon(["download", origin.baseURL + "/live.m3u8", "--start", "1:00",
                                                   "--library", folder.appendingPathComponent("lib").path])
                #expect(result.status == 1)
                #expect(result.standardError.contains("--start 0:01:00.0 is past the live edge: the window holds 0:00:08.0") && result.standardError.contains("--from-start"),
                        "\(result.standardError)")
                #expect(!(await origin.requests()).contains { $0.path.hasSuffix(".ts") })
            }
        }
    }

    @Test("an encrypted stream whose key cannot be fetched fails before any media is fetched, naming the key and why")
    func encryptedKeyMissing() async throws {
        try await withTemporaryDirectory { folder in
            try folder.write("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-KEY:METHOD=AES-128,URI=\"k.bin\"\n#EXTINF:4,\nseg0.ts\n#EXT-X-ENDLIST\n", to: "media/enc.m3u8")
            try await Origin(root: folder.appendingPathComponent("media").path).withRunning { origin in
                let result = try await runCarryon(["download", origin.baseURL + "/enc.m3u8", "--library", folder.appendingPathComponent("lib").path])
                #expect(result.status == 1)
                #expect(result.standardError.contains("METHOD=AES-128") && result.standardError.contains("k.bin")
                        && result.standardError.contains("404"), "\(result.standardError)")
                #expect(!(await origin.requests()).contains { $0.path.hasSuffix(".ts") })
            }
        }
    }
}

@Suite("Request headers", .heavy)
struct RequestHeaderTests {
    @Test("--header goes with every request of the task: playlists and media, and again on resume")
    func headers() async throws {
        try await withTemporaryDirectory { folder in
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let result = try await runCarryon(["download", origin.baseURL + "/fmp4/main.m3u8", "--library", folder.path,
                                                   "--header", "Authorization: Bearer s3cret", "--header", "Cookie: session=abc"])
                #expect(result.status == 0, "\(result.standardError)")
                let requests = await origin.requests()
                #expect(requests.count > 5)
                for request in requests {
                    #expect(request.headers["authorization"] == "Bearer s3cret", "\(request.path)")
                    #expect(request.headers["cookie"] == "session=abc", "\(request.path)")
                }
            }
        }
    }

    @Test("--concurrency N puts N requests in flight on N connections to the host; without it the link decides, from 8 up to 32")
    func concurrency() async throws {
        let segment = (0..<3_000).map { UInt8(truncatingIfNeeded: $0) }
        for (arguments, expected) in [([String](), 8...32), (["--concurrency", "16"], 16...16)] {
            try await withTemporaryDirectory { folder in
                try await HostileOrigin.withRunning { origin in
                    var playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n"
                    for index in 0..<32 {
                        playlist += "#EXTINF:4,\ns\(index).ts\n"
                        // Slow enough that every allowed request is in flight at once.
                        origin.answer("/s\(index).ts", with: .paced(segment, chunk: 1_000, every: .milliseconds(150)))
                    }
                    origin.answer("/media.m3u8", with: .body([UInt8]((playlist + "#EXT-X-ENDLIST\n").utf8)))
                    let result = try await runCarryon(["download", origin.baseURL + "/media.m3u8", "--library", folder.path] + arguments)
                    #expect(result.status == 0, "\(result.standardError)")
                    #expect(expected.contains(origin.mostAtOnce), "\(arguments): \(origin.mostAtOnce) at once")
                }
            }
        }
    }

    @Test("--limit-rate holds the download to the rate (curl's units); a rate that is none is a usage error")
    func limitRate() async throws {
        try await withTemporaryDirectory { folder in
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let start = ContinuousClock().now
                let result = try await runCarryon(["download", origin.baseURL + "/fmp4/main.m3u8", "--library", folder.path, "--json",
                                                   "--max-resolution", "640x360", "--audio", "en", "--subtitles", "none", "--limit-rate", "200K"])
                let elapsed = ContinuousClock().now - start
                #expect(result.status == 0, "\(result.standardError)")
                let done = try #require(result.standardOutput.split(separator: "\n").last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
                let bytes = try #require(done["bytesDone"] as? Int)
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                #expect(bytes > 500_000 && seconds >= Double(bytes) / 204_800 * 0.95, "\(bytes) bytes in \(seconds) s at 200K")
            }
            for rate in ["fast", "0", "-2M", "1.5X"] {
                let refused = try await runCarryon(["download", "http://127.0.0.1:1/x.m3u8", "--library", folder.path, "--limit-rate", rate])
                #expect(refused.status == 64 && refused.standardError.contains("--limit-rate"), "\(rate): \(refused.standardError)")
            }
        }
    }
}
