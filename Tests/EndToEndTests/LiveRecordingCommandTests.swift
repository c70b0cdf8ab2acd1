import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `carryon download` of a live HLS stream records it (issue 34): against real live streams
/// ffmpeg encodes in real time (`-re`, a sliding window of 2 s segments, 25 frames a second)
/// served over loopback, the recordings are checked segment by segment against the files
/// ffmpeg wrote, and played by ffmpeg — offline, and through the playback server while they
/// are still recording.
@Suite("Recording a live HLS stream", .heavy)
struct LiveRecordingCommandTests {
    /// What a recording's bundle holds: the origin's segment numbers in order (`live7.ts` is
    /// 7), the local playlist, and the snapshot `show --json` gives.
    struct Recording {
        var numbers: [Int]
        var playlist: String
        var asset: AssetSnapshot
        var bundle: URL

        /// Whether the numbers run on without a gap or a repeat.
        var isOneRun: Bool { numbers.count > 0 && numbers == Array(numbers[0]..<(numbers[0] + numbers.count)) }
    }

    static func recording(_ id: String, in library: String) async throws -> Recording {
        let show = try await runCarryon(["show", id, "--json", "--library", library])
        let asset = try JSONDecoder.iso8601.decode(AssetSnapshot.self, from: Data(show.standardOutput.utf8))
        let bundle = URL(fileURLWithPath: asset.bundlePath)
        let manifest = try JSONDecoder.iso8601.decode(BundleManifest.self, from: Data(contentsOf: bundle.appendingPathComponent("manifest.json")))
        let numbers = manifest.files.compactMap { file -> Int? in
            guard let name = file.uri.split(separator: "/").last, name.hasPrefix("live"), name.hasSuffix(".ts") else { return nil }
            return Int(name.dropFirst(4).dropLast(3))
        }
        // A media playlist alone is the bundle's `media`; a multivariant one's video is `video`.
        let folder = FileManager.default.fileExists(atPath: bundle.appendingPathComponent("media").path) ? "media" : "video"
        let playlist = try String(contentsOf: bundle.appendingPathComponent("\(folder)/index.m3u8"), encoding: .utf8)
        return Recording(numbers: numbers, playlist: playlist, asset: asset, bundle: bundle)
    }

    /// Every segment file of the bundle is byte for byte the file ffmpeg wrote.
    static func expectSameFiles(_ recording: Recording, as stream: LiveHLSStream) throws {
        let manifest = try JSONDecoder.iso8601.decode(BundleManifest.self, from: Data(contentsOf: recording.bundle.appendingPathComponent("manifest.json")))
        for file in manifest.files {
            let name = try #require(file.uri.split(separator: "/").last.map(String.init))
            let ours = try Data(contentsOf: recording.bundle.appendingPathComponent(file.path))
            let origin = try Data(contentsOf: stream.folder.appendingPathComponent(name))
            #expect(ours == origin, "\(file.path) differs from the origin's \(name)")
        }
    }

    /// Runs `body` with a library path, a live stream ffmpeg makes in real time (its window
    /// holding `segments` segments already) and an origin serving it.
    static func withLiveStream(listSize: Int = 6, segments: Int = 4, separateAudio: Bool = false,
                               _ body: @Sendable (String, LiveHLSStream, OriginHandle) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            let stream = try LiveHLSStream(in: folder.appendingPathComponent("origin"), listSize: listSize, separateAudio: separateAudio)
            try await stream.waitForSegments(segments)
            try await Origin(root: stream.folder.path).withRunning { origin in
                try await body(folder.appendingPathComponent("library").path, stream, origin)
            }
        }
    }

    /// Starts `carryon download --json` of the stream `origin` serves into `library`, with
    /// `arguments`: the process, its output's lines after the first event, the asset's id.
    static func startRecording(_ origin: OriginHandle, into library: String, _ arguments: [String] = [],
                               path: String = LiveHLSStream.path) async throws -> (RunningProcess, AsyncStream<String>.Iterator, String) {
        let download = try RunningProcess(carryon: ["download", origin.baseURL + path, "--library", library, "--json"] + arguments)
        var lines = download.lines.makeAsyncIterator()
        let id = try #require(await Self.id(from: &lines))
        return (download, lines, id)
    }

    /// Kills recording `download` of `id` (SIGKILL) `after` from now, and resumes it in the
    /// foreground `later` still: the resume's result.
    static func killAndResume(_ download: RunningProcess, _ id: String, library: String, after: Duration,
                              later: Duration) async throws -> ProcessResult {
        try await Task.sleep(for: after)
        download.kill(SIGKILL)
        _ = await download.wait()
        try await Task.sleep(for: later)
        return try await runCarryon(["resume", id, "--library", library])
    }

    /// The asset id a `--json` download's first events name.
    static func id(from lines: inout AsyncStream<String>.Iterator) async -> String? {
        while let line = await lines.next() {
            if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let id = object["id"] as? String {
                return id
            }
        }
        return nil
    }

    @Test("20 s from the live edge: ten consecutive 2 s segments, byte-identical to ffmpeg's, no gap; progress says recording; ffmpeg decodes the 500 frames offline, and through the playback server while it records")
    func fromLiveEdge() async throws {
        try await Self.withLiveStream { library, stream, origin in
            let (download, started, id) = try await Self.startRecording(origin, into: library, ["--duration", "20"])
            var lines = started
            // Played while it records: the growing EVENT playlist, through the server.
            let source = PlaybackSource(library: try OfflineLibrary(root: URL(fileURLWithPath: library)), pollInterval: .milliseconds(50))
            let whilePlaying = try await PlaybackServer(source: source).withRunning { handle in
                try await decodedVideoFrames(handle.playlistURL(for: id), extraArguments: ["-live_start_index", "0"])
            }
            var events: [String] = []
            while let line = await lines.next() { events.append(line) }
            #expect(await download.wait() == 0, "\(download.standardError)")
            #expect(events.contains { $0.contains("\"recording\"") }, "no progress event says recording: \(events.suffix(3))")

            let recording = try await Self.recording(id, in: library)
            #expect(recording.asset.state == .completed)
            #expect(recording.numbers.count >= 10 && recording.isOneRun, "\(recording.numbers)")
            #expect(!recording.playlist.contains("EXT-X-GAP") && recording.playlist.contains("#EXT-X-ENDLIST"))
            #expect(recording.playlist.contains("#EXT-X-PLAYLIST-TYPE:VOD"))
            #expect(recording.asset.live?.missedSegments == nil)
            try Self.expectSameFiles(recording, as: stream)
            let frames = try await decodedVideoFrames(recording.bundle.appendingPathComponent("main.m3u8").path)
            #expect(frames >= 475, "the bundle decodes \(frames) frames")
            #expect(whilePlaying >= 475, "ffmpeg decoded \(whilePlaying) frames of the recording while it went on")
            let show = try await runCarryon(["show", id, "--library", library])
            #expect(show.standardOutput.contains("Recorded    a live stream, from the live edge, for 0:20.0; nothing missed"), "\(show.standardOutput)")
        }
    }

    @Test("--from-start begins at the oldest segment of the window, within one segment")
    func fromStart() async throws {
        try await Self.withLiveStream(segments: 6) { library, stream, origin in
            let oldest = stream.window().mediaSequence
            let result = try await runCarryon(["download", origin.baseURL + LiveHLSStream.path, "--library", library,
                                               "--from-start", "--duration", "4"])
            #expect(result.status == 0, "\(result.standardError)")
            let id = try #require(result.standardOutput.split(separator: "\n").last.map(String.init))
            let recording = try await Self.recording(id, in: library)
            let first = try #require(recording.numbers.first)
            #expect(first == oldest || first == oldest + 1, "the recording starts at \(first); the window began at \(oldest)")
            #expect(recording.numbers.count == 2 && recording.isOneRun, "\(recording.numbers)")
            #expect(recording.asset.live?.fromStart == true)
        }
    }

    @Test("--start 4 --duration 4 begins at the segment that holds 4 s from the window's start (within one segment), for two segments; show says so")
    func dvrStart() async throws {
        try await Self.withLiveStream(segments: 6) { library, stream, origin in
            let oldest = stream.window().mediaSequence
            let result = try await runCarryon(["download", origin.baseURL + LiveHLSStream.path, "--library", library,
                                               "--start", "4", "--duration", "4"])
            #expect(result.status == 0, "\(result.standardError)")
            let id = try #require(result.standardOutput.split(separator: "\n").last.map(String.init))
            let recording = try await Self.recording(id, in: library)
            let first = try #require(recording.numbers.first)
            #expect(first == oldest + 2 || first == oldest + 3, "the recording starts at \(first); the window began at \(oldest)")
            #expect(recording.numbers.count == 2 && recording.isOneRun && recording.asset.state == .completed, "\(recording.numbers)")
            let show = try await runCarryon(["show", id, "--library", library])
            #expect(show.standardOutput.contains("Recorded    a live stream, from 0:04.0 into its window, for 0:04.0; nothing missed"), "\(show.standardOutput)")
        }
    }

    @Test("kill -9 six seconds into a 24 s recording, resume two seconds later: one run of consecutive segments, nothing missed, every frame plays")
    func crashResume() async throws {
        try await Self.withLiveStream { library, stream, origin in
            let (download, _, id) = try await Self.startRecording(origin, into: library, ["--duration", "24"])
            let resumed = try await Self.killAndResume(download, id, library: library, after: .seconds(6), later: .seconds(2))
            #expect(resumed.status == 0, "\(resumed.standardError)")
            let recording = try await Self.recording(id, in: library)
            #expect(recording.asset.state == .completed)
            #expect(recording.numbers.count >= 12 && recording.isOneRun, "\(recording.numbers)")
            #expect(!recording.playlist.contains("EXT-X-GAP"))
            try Self.expectSameFiles(recording, as: stream)
            let frames = try await decodedVideoFrames(recording.bundle.appendingPathComponent("main.m3u8").path)
            #expect(frames >= 570, "the bundle decodes \(frames) frames")
        }
    }

    @Test("resumed after the window moved past it: the segments missed are EXT-X-GAP in the bundle, counted in show and the error log, and the rest plays; its playlists damaged are written again as they were from the recording the bundle keeps")
    func gapAfterResume() async throws {
        // A window of three segments: six seconds away is enough to miss some.
        try await Self.withLiveStream(listSize: 3, segments: 3) { library, stream, origin in
            let (download, _, id) = try await Self.startRecording(origin, into: library, ["--duration", "20"])
            try await Task.sleep(for: .seconds(4))
            download.kill(SIGKILL)
            _ = await download.wait()
            let before = try await Self.recording(id, in: library)
            // The window moves on past everything the recording had, and two more.
            let last = stream.window().mediaSequence + stream.window().segments.count - 1
            try await stream.waitForSequence(last + 3)
            let resumed = try await runCarryon(["resume", id, "--library", library])
            #expect(resumed.status == 0, "\(resumed.standardError)")
            let recording = try await Self.recording(id, in: library)
            #expect(recording.asset.state == .completed)
            let missed = try #require(recording.asset.live?.missedSegments)
            #expect(missed >= 1, "\(recording.numbers)")
            #expect(recording.playlist.components(separatedBy: "#EXT-X-GAP").count - 1 == missed, "\(recording.playlist)")
            #expect(!recording.isOneRun && Set(recording.numbers).count == recording.numbers.count, "\(recording.numbers)")
            #expect(Array(recording.numbers.prefix(before.numbers.count)) == before.numbers || before.numbers.isEmpty)
            let show = try await runCarryon(["show", id, "--library", library])
            #expect(show.standardOutput.contains("\(missed) segment\(missed == 1 ? "" : "s") missed"), "\(show.standardOutput)")
            let log = try await runCarryon(["logs", id, "--error", "--library", library])
            #expect(log.standardOutput.contains("gap"), "\(log.standardOutput)")
            // Its playlists name gaps, which have no file: the bundle is intact, manifests and all.
            let verified = try await runCarryon(["verify", id, "--library", library])
            #expect(verified.status == 0 && verified.standardOutput.contains("intact"), "\(verified.standardOutput)\(verified.standardError)")
            // Both playlists damaged (the stream has moved on since): written again from the
            // recording the bundle keeps, byte for byte as they were, gaps and all.
            let playlists = ["main.m3u8", "media/index.m3u8"].map { recording.bundle.appendingPathComponent($0) }
            let intact = try playlists.map { try Data(contentsOf: $0) }
            try Data("#EXTM3U\n".utf8).write(to: playlists[0])
            try Data(intact[1].prefix(intact[1].count / 2)).write(to: playlists[1])
            let damaged = try await runCarryon(["verify", id, "--library", library])
            #expect(damaged.status == 1 && damaged.standardOutput.contains("manifest: main.m3u8")
                    && damaged.standardOutput.contains("manifest: media/index.m3u8"), "\(damaged.standardOutput)")
            let repaired = try await runCarryon(["verify", id, "--repair", "--library", library])
            #expect(repaired.status == 0 && repaired.standardOutput.contains("wrote again main.m3u8, media/index.m3u8"),
                    "\(repaired.standardOutput)\(repaired.standardError)")
            #expect(try playlists.map { try Data(contentsOf: $0) } == intact, "the playlists as the recording wrote them")
            #expect(try await runCarryon(["verify", id, "--library", library]).status == 0)
            try Self.expectSameFiles(recording, as: stream)
            let frames = try await decodedVideoFrames(recording.bundle.appendingPathComponent("main.m3u8").path)
            #expect(frames >= recording.numbers.count * 50 - 25, "the bundle decodes \(frames) frames of \(recording.numbers.count) segments")
        }
    }

    @Test("Ctrl-C ends a recording complete (exit 0) and `carryon suspend ID` from another process does too: a VOD playlist with EXT-X-ENDLIST that plays")
    func stop() async throws {
        try await Self.withLiveStream { library, stream, origin in
            var ids: [String] = []
            for stopper in ["SIGINT", "suspend"] {
                let (download, started, id) = try await Self.startRecording(origin, into: library)
                var lines = started
                try await Task.sleep(for: .seconds(5))
                if stopper == "SIGINT" {
                    download.kill(SIGINT)
                } else {
                    let suspended = try await runCarryon(["suspend", id, "--library", library])
                    #expect(suspended.status == 0, "\(suspended.standardError)")
                }
                while await lines.next() != nil {}
                #expect(await download.wait() == 0, "\(stopper): \(download.standardError)")
                ids.append(id)
            }
            for id in ids {
                let recording = try await Self.recording(id, in: library)
                #expect(recording.asset.state == .completed)
                #expect(recording.playlist.hasSuffix("#EXT-X-ENDLIST\n") && recording.isOneRun, "\(recording.playlist)")
                let frames = try await decodedVideoFrames(recording.bundle.appendingPathComponent("main.m3u8").path)
                #expect(frames == recording.numbers.count * 50, "the bundle decodes \(frames) frames of \(recording.numbers.count) segments")
            }
        }
    }

    @Test("An AES-128 live stream whose key rotates mid-recording: both keys obtained as they appear, and ffmpeg decodes the recording offline through the playback server")
    func rotatingKey() async throws {
        try await withTemporaryDirectory { folder in
            let library = folder.appendingPathComponent("library").path
            let origin = folder.appendingPathComponent("origin")
            try FileManager.default.createDirectory(at: origin, withIntermediateDirectories: true)
            let keyInfo = folder.appendingPathComponent("key.info")
            @Sendable func useKey(_ number: Int) throws {
                let key = origin.appendingPathComponent("key\(number).bin")
                try Data((0..<16).map { _ in UInt8.random(in: 0...255) }).write(to: key)
                // ffmpeg reads the key info again before each segment (periodic_rekey).
                try "key\(number).bin\n\(key.path)\n".write(to: keyInfo, atomically: true, encoding: .utf8)
            }
            try useKey(1)
            let stream = try LiveHLSStream(in: origin, extraArguments: ["-hls_key_info_file", keyInfo.path,
                                                                        "-hls_flags", "temp_file+program_date_time+periodic_rekey"])
            try await stream.waitForSegments(4)
            try await Origin(root: origin.path).withRunning { server in
                let (download, started, id) = try await Self.startRecording(server, into: library, ["--duration", "16"])
                var lines = started
                try await Task.sleep(for: .seconds(5))
                try useKey(2)
                while await lines.next() != nil {}
                #expect(await download.wait() == 0, "\(download.standardError)")
                let recording = try await Self.recording(id, in: library)
                #expect(recording.asset.state == .completed && recording.isOneRun, "\(recording.numbers)")
                #expect(recording.playlist.contains("URI=\"../keys/k1\"") && recording.playlist.contains("URI=\"../keys/k2\""), "\(recording.playlist)")
                let keys = try await runCarryon(["keys", "list", id, "--library", library])
                #expect(keys.standardOutput.contains("key1.bin") && keys.standardOutput.contains("key2.bin"), "\(keys.standardOutput)")
                let source = PlaybackSource(library: try OfflineLibrary(root: URL(fileURLWithPath: library)))
                let frames = try await PlaybackServer(source: source).withRunning { handle in
                    try await decodedVideoFrames(handle.playlistURL(for: id))
                }
                #expect(frames >= recording.numbers.count * 50 - 25, "ffmpeg decodes \(frames) frames of \(recording.numbers.count) segments")
            }
        }
    }

    @Test("A multivariant live stream with the audio apart: both renditions recorded from the same instant (the same media sequence number), ffmpeg decodes the video's 250 frames and the audio's")
    func separateAudio() async throws {
        try await Self.withLiveStream(separateAudio: true) { library, _, origin in
            let result = try await runCarryon(["download", origin.baseURL + "/main.m3u8", "--library", library, "--duration", "10", "--audio", "en"])
            #expect(result.status == 0, "\(result.standardError)")
            let id = try #require(result.standardOutput.split(separator: "\n").last.map(String.init))
            let bundle = try await Self.recording(id, in: library).bundle
            func sequence(_ rendition: String) throws -> String? {
                try String(contentsOf: bundle.appendingPathComponent("\(rendition)/index.m3u8"), encoding: .utf8)
                    .split(separator: "\n").first { $0.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") }.map(String.init)
            }
            #expect(try sequence("video") != nil && sequence("video") == sequence("audio-en"))
            let frames = try await decodedVideoFrames(bundle.appendingPathComponent("main.m3u8").path)
            #expect(frames == 250, "the bundle decodes \(frames) video frames")
            let audio = try await run(try requireFFmpeg().deletingLastPathComponent().appendingPathComponent("ffprobe"), [
                "-v", "error", "-count_frames", "-select_streams", "a:0", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0",
                bundle.appendingPathComponent("audio-en/index.m3u8").path])
            let audioFrames = Int(audio.standardOutput.split(whereSeparator: \.isNewline).first ?? "") ?? 0
            // AAC at 48 kHz: 46.9 frames a second.
            #expect(audioFrames >= 460, "the audio decodes \(audioFrames) frames: \(audio.standardError)")
        }
    }
}
