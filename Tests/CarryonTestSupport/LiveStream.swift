import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A live stream as real pipelines make one: ffmpeg encoding a test pattern and a tone in real
/// time (`-re`, 25 frames a second, a keyframe at each 2 s segment's start) into a folder any
/// static server then serves — an HLS sliding-window media playlist of MPEG-TS segments, or a
/// dynamic MPD with a SegmentTimeline (``init(dashIn:windowSize:seconds:)``). ffmpeg writes each
/// file under a temporary name and renames it into place.
///
/// Segments are kept on disk after they leave the window, so that a test can compare what a
/// recording holds with what the origin made. Stopped (SIGKILL) when the test ends, if the test
/// did not stop it.
public final class LiveHLSStream: Sendable {
    /// The folder ffmpeg writes into: `live.m3u8` and `live<N>.ts`.
    public let folder: URL
    private let process: RunningProcess

    /// Starts ffmpeg writing a stream of `seconds` seconds with `listSize` segments in its
    /// window. `extraArguments` go before the output (`-hls_key_info_file` for an encrypted one).
    /// With `separateAudio`, the audio is a rendition of its own: a multivariant playlist
    /// `main.m3u8` names the video's `p0.m3u8` (segments `s0_N.ts`) and the audio's `p1.m3u8`
    /// (`s1_N.ts`, language `en`).
    public convenience init(in folder: URL, listSize: Int = 6, seconds: Int = 120, extraArguments: [String] = [],
                            separateAudio: Bool = false) throws {
        try self.init(folder: folder, seconds: seconds, output: [
            "-f", "hls", "-hls_time", "2", "-hls_list_size", String(listSize),
            "-hls_flags", "temp_file+program_date_time",
        ] + extraArguments + (separateAudio ? [
            "-map", "0:v", "-map", "1:a", "-master_pl_name", "main.m3u8",
            "-var_stream_map", "v:0,agroup:aud a:0,agroup:aud,language:en",
            "-hls_segment_filename", folder.appendingPathComponent("s%v_%d.ts").path, folder.appendingPathComponent("p%v.m3u8").path,
        ] : [folder.appendingPathComponent("live.m3u8").path]))
    }

    /// Starts ffmpeg writing a live DASH stream: `live.mpd`, `type="dynamic"`, video and audio
    /// in AdaptationSets of their own, `$Number$` templates with a SegmentTimeline of
    /// `windowSize` segments (`chunk-stream0-00001.m4s`, the audio's `chunk-stream1-…`).
    /// Without `timeline`, the templates name no segment: each is timed by the clock, from
    /// `availabilityStartTime`, its window `timeShiftBufferDepth`.
    public convenience init(dashIn folder: URL, windowSize: Int = 6, seconds: Int = 120, timeline: Bool = true) throws {
        try self.init(folder: folder, seconds: seconds, output: [
            "-map", "0:v", "-map", "1:a",
            "-f", "dash", "-seg_duration", "2", "-window_size", String(windowSize), "-extra_window_size", "1000",
            "-use_template", "1", "-use_timeline", timeline ? "1" : "0", "-adaptation_sets", "id=0,streams=v id=1,streams=a",
            folder.appendingPathComponent("live.mpd").path,
        ])
    }

    private init(folder: URL, seconds: Int, output: [String]) throws {
        self.folder = folder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let ffmpeg = try requireFFmpeg()
        process = try RunningProcess(ffmpeg, [
            "-hide_banner", "-loglevel", "error", "-re",
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-t", String(seconds),
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-keyint_min", "50", "-sc_threshold", "0",
            "-c:a", "aac", "-b:a", "64k",
        ] + output)
    }

    /// The playlist's path on the origin.
    public static let path = "/live.m3u8"
    /// The (video) playlist as ffmpeg last wrote it: its media sequence number and segment names.
    public func window() -> (mediaSequence: Int, segments: [String]) {
        let text = (try? String(contentsOf: folder.appendingPathComponent("live.m3u8"), encoding: .utf8))
            ?? (try? String(contentsOf: folder.appendingPathComponent("p0.m3u8"), encoding: .utf8)) ?? ""
        var sequence = 0
        var segments: [String] = []
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") { sequence = Int(line.dropFirst("#EXT-X-MEDIA-SEQUENCE:".count)) ?? 0 }
            if !line.hasPrefix("#"), !line.isEmpty { segments.append(String(line)) }
        }
        return (sequence, segments)
    }

    /// Waits until the window holds `count` segments (ffmpeg started late on a busy machine
    /// takes longer than `count` segments' time).
    public func waitForSegments(_ count: Int, timeout: Duration = .seconds(60)) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while window().segments.count < count {
            guard clock.now < deadline else {
                throw TestSupportError("ffmpeg wrote \(window().segments.count) of \(count) live segments in \(timeout): \(process.standardError)")
            }
            guard !process.hasEnded else { throw TestSupportError("ffmpeg stopped: \(process.standardError)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Waits until ffmpeg has written `count` video segments (any stream, HLS or DASH).
    public func waitForFiles(_ count: Int, named prefix: String, timeout: Duration = .seconds(60)) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).count(where: { $0.hasPrefix(prefix) && !$0.hasSuffix(".tmp") }) < count {
            guard clock.now < deadline else { throw TestSupportError("ffmpeg wrote fewer than \(count) \(prefix) files in \(timeout): \(process.standardError)") }
            guard !process.hasEnded else { throw TestSupportError("ffmpeg stopped: \(process.standardError)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Waits until the window has moved on to media sequence number `sequence` or later.
    public func waitForSequence(_ sequence: Int, timeout: Duration = .seconds(60)) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while window().mediaSequence < sequence {
            guard clock.now < deadline else {
                throw TestSupportError("the live window did not reach media sequence \(sequence) in \(timeout) (it is at \(window().mediaSequence))")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Stops ffmpeg.
    public func stop() {
        process.kill(SIGKILL)
    }

    deinit {
        process.kill(SIGKILL)
    }
}
