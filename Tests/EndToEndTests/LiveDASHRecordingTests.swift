import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `carryon download` of a dynamic MPD records it (issue 34), against a live DASH stream ffmpeg
/// makes in real time (`-f dash`, `type="dynamic"`, a SegmentTimeline): the bundle's local MPD
/// is static and GStreamer plays it; its HLS playlists play in ffmpeg.
@Suite("Recording a live DASH stream", .heavy)
struct LiveDASHRecordingTests {
    /// Runs `body` with a library path, a live DASH stream (`windowSize` segments in its window,
    /// three written already) and an origin serving it.
    static func withLiveStream(windowSize: Int = 6, timeline: Bool = true,
                               _ body: @Sendable (String, LiveHLSStream, OriginHandle) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            let stream = try LiveHLSStream(dashIn: folder.appendingPathComponent("origin"), windowSize: windowSize, timeline: timeline)
            try await stream.waitForFiles(3, named: "chunk-stream0-")
            try await Origin(root: stream.folder.path).withRunning { origin in
                try await body(folder.appendingPathComponent("library").path, stream, origin)
            }
        }
    }

    static func snapshot(_ id: String, in library: String) async throws -> AssetSnapshot {
        let show = try await runCarryon(["show", id, "--json", "--library", library])
        return try JSONDecoder.iso8601.decode(AssetSnapshot.self, from: Data(show.standardOutput.utf8))
    }

    /// The origin's video segment numbers the bundle holds, in order (`chunk-stream0-00007.m4s` is 7).
    static func videoNumbers(_ asset: AssetSnapshot) throws -> [Int] {
        let manifest = try JSONDecoder.iso8601.decode(BundleManifest.self, from: Data(contentsOf: URL(fileURLWithPath: asset.bundlePath).appendingPathComponent("manifest.json")))
        return manifest.files.compactMap { file -> Int? in
            guard let name = file.uri.split(separator: "/").last, name.hasPrefix("chunk-stream0-"), name.hasSuffix(".m4s") else { return nil }
            return Int(name.dropFirst("chunk-stream0-".count).dropLast(4))
        }
    }

    @Test("20 s from the live edge: ten consecutive segments of each track, byte-identical to ffmpeg's; the local MPD is static and GStreamer plays ≥ 475 of its 500 frames; ffmpeg decodes its HLS playlists; with a SegmentTimeline, and with segments timed by the clock alone ($Number$ from availabilityStartTime)",
          arguments: [true, false])
    func fromLiveEdge(timeline: Bool) async throws {
        try await Self.withLiveStream(timeline: timeline) { library, stream, origin in
            let result = try await runCarryon(["download", origin.baseURL + "/live.mpd", "--library", library, "--duration", "20"])
            #expect(result.status == 0, "\(result.standardError)")
            let id = try #require(result.standardOutput.split(separator: "\n").last.map(String.init))
            let asset = try await Self.snapshot(id, in: library)
            #expect(asset.state == .completed && asset.format == "dash" && asset.live != nil)
            let numbers = try Self.videoNumbers(asset)
            #expect(numbers.count >= 10 && numbers == Array(numbers[0]..<(numbers[0] + numbers.count)), "\(numbers)")
            let bundle = URL(fileURLWithPath: asset.bundlePath)
            let manifest = try JSONDecoder.iso8601.decode(BundleManifest.self, from: Data(contentsOf: bundle.appendingPathComponent("manifest.json")))
            for file in manifest.files {
                let name = try #require(file.uri.split(separator: "/").last.map(String.init))
                #expect(try Data(contentsOf: bundle.appendingPathComponent(file.path)) == Data(contentsOf: stream.folder.appendingPathComponent(name)),
                        "\(file.path) differs from the origin's \(name)")
            }
            let mpd = try String(contentsOf: bundle.appendingPathComponent("main.mpd"), encoding: .utf8)
            #expect(mpd.contains("type=\"static\"") && !mpd.contains("dynamic"))
            let played = try await DASHCommandTests.playedFrames(id, library: library)
            #expect(played.frames >= 475, "GStreamer played \(played.frames) frames of \(played.url)")
            let frames = try await decodedVideoFrames(bundle.appendingPathComponent("main.m3u8").path)
            #expect(frames >= 475, "ffmpeg decodes \(frames) frames of the HLS playlists")
        }
    }

    @Test("Played while it records: the playback server serves the recording as a dynamic MPD that grows, and GStreamer plays on past what was recorded when it began")
    func playWhileRecording() async throws {
        // GStreamer's turn first: waited for with the recording running, the recording ended
        // before GStreamer began (a full suite's run on two cores, 2026-11-28).
        try await withGStreamerTurn {
            try await Self.withLiveStream { library, _, origin in
                let (download, started, id) = try await LiveRecordingCommandTests.startRecording(origin, into: library, ["--duration", "90"], path: "/live.mpd")
                var lines = started
                // Until the recording holds eight seconds.
                var recorded = 0.0
                while recorded < 8, let line = await lines.next() {
                    let event = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                    recorded = ((event?["recording"] as? [String: Any])?["recordedSeconds"] as? Double) ?? recorded
                }
                let source = PlaybackSource(library: try OfflineLibrary(root: URL(fileURLWithPath: library)), pollInterval: .milliseconds(50))
                let frames = try await PlaybackServer(source: source).withRunning { handle in
                    try await gstreamerLiveVideoFrames(handle.mpdURL(for: id), seconds: 20)
                }
                // Started about four seconds behind the end of eight, it has played on into what
                // the recording added since.
                #expect(frames >= 300, "GStreamer played \(frames) frames of the growing MPD in 20 s")
                download.kill(SIGINT)
                #expect(await download.wait() == 0, "\(download.standardError)")
                let asset = try await Self.snapshot(id, in: library)
                #expect(asset.state == .completed)
            }
        }
    }

    /// The number of the oldest segment ffmpeg's dynamic MPD lists now (its video's `startNumber`).
    static func oldestListed(_ stream: LiveHLSStream) throws -> Int {
        let mpd = try String(contentsOf: stream.folder.appendingPathComponent("live.mpd"), encoding: .utf8)
        let attribute = try #require(mpd.range(of: "startNumber=\""))
        return try #require(Int(mpd[attribute.upperBound...].prefix { $0.isNumber }))
    }

    @Test("--from-start begins at the oldest segment the MPD lists (within one segment)")
    func fromStart() async throws {
        try await Self.withLiveStream { library, stream, origin in
            try await stream.waitForFiles(6, named: "chunk-stream0-")
            let oldest = try Self.oldestListed(stream)
            let result = try await runCarryon(["download", origin.baseURL + "/live.mpd", "--library", library, "--from-start", "--duration", "4"])
            #expect(result.status == 0, "\(result.standardError)")
            let id = try #require(result.standardOutput.split(separator: "\n").last.map(String.init))
            let asset = try await Self.snapshot(id, in: library)
            let numbers = try Self.videoNumbers(asset)
            let first = try #require(numbers.first)
            #expect(first == oldest || first == oldest + 1, "the recording starts at \(first); the MPD listed from \(oldest)")
            #expect(numbers.count == 2 && asset.live?.fromStart == true, "\(numbers)")
        }
    }

    @Test("kill -9 six seconds into a 24 s recording, resume two seconds later: one run of consecutive segments, nothing missed, GStreamer plays it")
    func crashResume() async throws {
        try await Self.withLiveStream { library, _, origin in
            let (download, _, id) = try await LiveRecordingCommandTests.startRecording(origin, into: library, ["--duration", "24"], path: "/live.mpd")
            let resumed = try await LiveRecordingCommandTests.killAndResume(download, id, library: library, after: .seconds(6), later: .seconds(2))
            #expect(resumed.status == 0, "\(resumed.standardError)")
            let asset = try await Self.snapshot(id, in: library)
            #expect(asset.state == .completed && asset.live != nil && (asset.live?.missedSegments ?? 0) == 0, "\(String(describing: asset.live))")
            let numbers = try Self.videoNumbers(asset)
            #expect(numbers.count >= 12 && numbers == Array(numbers[0]..<(numbers[0] + numbers.count)), "\(numbers)")
            let played = try await DASHCommandTests.playedFrames(id, library: library)
            #expect(played.frames >= 570, "GStreamer played \(played.frames) frames of \(played.url)")
        }
    }

    @Test("kill -9 mid-recording and resume after the window moved past: the time missed is a gap in the timeline, counted, and EXT-X-GAP segments in its HLS playlists; what was recorded still plays in GStreamer and ffmpeg")
    func gapAfterResume() async throws {
        try await Self.withLiveStream(windowSize: 3) { library, _, origin in
            let (download, _, id) = try await LiveRecordingCommandTests.startRecording(origin, into: library, ["--duration", "20"], path: "/live.mpd")
            // Three segments' window: ten seconds later it holds none of what was recorded.
            let resumed = try await LiveRecordingCommandTests.killAndResume(download, id, library: library, after: .seconds(4), later: .seconds(10))
            #expect(resumed.status == 0, "\(resumed.standardError)")
            let asset = try await Self.snapshot(id, in: library)
            #expect(asset.state == .completed)
            let missed = try #require(asset.live?.missedSegments)
            #expect(missed >= 1)
            let numbers = try Self.videoNumbers(asset)
            #expect(Set(numbers).count == numbers.count && numbers != Array(numbers[0]..<(numbers[0] + numbers.count)), "\(numbers)")
            let played = try await DASHCommandTests.playedFrames(id, library: library)
            #expect(played.frames >= numbers.count * 50 - 50, "GStreamer played \(played.frames) frames of \(numbers.count) segments")
            // The bundle's HLS playlists mark the time missed as a gap, and ffmpeg decodes them.
            let video = try String(contentsOf: URL(fileURLWithPath: asset.bundlePath).appendingPathComponent("video/index.m3u8"), encoding: .utf8)
            #expect(video.components(separatedBy: "#EXT-X-GAP").count - 1 >= 1, "\(video)")
            let frames = try await decodedVideoFrames(URL(fileURLWithPath: asset.bundlePath).appendingPathComponent("main.m3u8").path)
            #expect(frames >= numbers.count * 50 - 50, "ffmpeg decodes \(frames) frames of \(numbers.count) segments")
            // Its MPD and playlists name only its files (the gaps none): intact, manifests and all.
            let verified = try await runCarryon(["verify", id, "--library", library])
            #expect(verified.status == 0 && verified.standardOutput.contains("intact") && verified.standardOutput.contains("its manifests read"),
                    "\(verified.standardOutput)\(verified.standardError)")
        }
    }
}
