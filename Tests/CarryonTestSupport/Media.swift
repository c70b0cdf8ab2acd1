import Foundation

/// The package's root folder (where Package.swift is), found from this file's place in it.
public let packageRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The sample asset made by Scripts/make-sample-media.sh: `ts/`, `fmp4/` and `byterange/`
/// flavours of one stream, each with `main.m3u8`.
public var sampleMedia: URL { packageRoot.appendingPathComponent("Samples/media") }

/// Finds a program on the PATH.
public func findExecutable(_ name: String) -> URL? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for folder in path.split(separator: ":") {
        let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
}

/// ffmpeg, the independent player the tests decode with. Throws a message saying how to
/// install it when it is missing: a test that needs it fails rather than passing silently.
public func requireFFmpeg() throws -> URL {
    guard let ffmpeg = findExecutable("ffmpeg") else {
        throw TestSupportError("ffmpeg is not installed, and this test decodes media with it: apt-get install -y ffmpeg")
    }
    return ffmpeg
}

/// Decodes every stream of `input` (a path or URL) to nothing with ffmpeg, and returns ffmpeg's
/// exit status and error output. Status 0 with no error output means it played end to end.
public func ffmpegDecode(_ input: String, extraArguments: [String] = []) async throws -> ProcessResult {
    let ffmpeg = try requireFFmpeg()
    return try await run(ffmpeg, ["-nostdin", "-v", "error"] + extraArguments + ["-i", input, "-map", "0", "-f", "null", "-"])
}

/// The video frames ffprobe decodes from `input` (a path or URL): the count, not an exit status,
/// proves a stream plays to its end.
public func decodedVideoFrames(_ input: String, extraArguments: [String] = []) async throws -> Int {
    _ = try requireFFmpeg()
    guard let ffprobe = findExecutable("ffprobe") else {
        throw TestSupportError("ffprobe is not installed (it comes with ffmpeg): apt-get install -y ffmpeg")
    }
    let result = try await run(ffprobe, ["-v", "error"] + extraArguments + [
        "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", input,
    ])
    // An HLS input lists its streams under each program too: the first count is the stream's.
    let counts = result.standardOutput.split(whereSeparator: \.isNewline).compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    guard result.status == 0, let frames = counts.first else {
        throw TestSupportError("ffprobe could not count the frames of \(input): \(result.standardError)")
    }
    return frames
}

/// The DASH sample made by Scripts/make-dash-media.sh: one folder per addressing mode
/// (`timeline/`, `number/`, `list/`, `single/`, `base/`) and `periods/`, each with `main.mpd`.
public var dashSampleMedia: URL { packageRoot.appendingPathComponent("Samples/dash") }

/// The video frames GStreamer's `playbin` decodes from `uri` (dashdemux for an MPD, hlsdemux
/// for HLS), played in real time: the judge of DASH playback, as ffmpeg's DASH demuxer plays one
/// Period only. Throws a message saying how to install GStreamer when it is missing.
///
/// `periodFrames`, for an MPD of several Periods, gives each Period's frames: a play that ends
/// cleanly exactly at a Period boundary short of the last is played once more, and the second
/// count returned. GStreamer 1.22's dashdemux has ended there, exit status 0, now and then when
/// the whole suite ran beside it (a 200-frame MPD played 100 frames; seen in one of seven full
/// runs on 2026-11-26, never alone); a play that stops anywhere else, or at a boundary twice, is
/// what it is.
public func gstreamerVideoFrames(_ uri: String, periodFrames: [Int]) async throws -> Int {
    let frames = try await gstreamerVideoFrames(uri)
    let boundaries = periodFrames.indices.dropLast().map { periodFrames[...$0].reduce(0, +) }
    guard boundaries.contains(frames) else { return frames }
    print("GStreamer ended \(uri) at a Period boundary after \(frames) of \(periodFrames.reduce(0, +)) frames; playing it again")
    return try await gstreamerVideoFrames(uri)
}

/// The video frames GStreamer's `playbin` decodes from `uri`, played once (see
/// ``gstreamerVideoFrames(_:periodFrames:)``).
public func gstreamerVideoFrames(_ uri: String) async throws -> Int {
    guard let gst = findExecutable("gst-launch-1.0") else {
        throw TestSupportError("GStreamer is not installed, and this test plays DASH with it: apt-get install -y gstreamer1.0-tools gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav")
    }
    // In real time (`sync=true`): with unsynchronised sinks GStreamer 1.22's dashdemux
    // sometimes stops for ever at a Period boundary when a fast server has already answered
    // every request (seen 1 to 2 runs in 16 against the playback server, never in real time).
    // Bounded, and killed: a GStreamer that hangs ignores SIGTERM.
    let timeout = findExecutable("timeout") ?? URL(fileURLWithPath: "/usr/bin/timeout")
    // One at a time: a run of the whole suite once played only a bundle's first Period with
    // several GStreamers playing in real time beside every other suite on two cores.
    await GStreamerTurn.shared.take()
    let result: ProcessResult
    do {
        result = try await run(timeout, ["-s", "KILL", "90", gst.path, "-v", "playbin", "uri=\(uri)",
                                         "video-sink=fakesink sync=true silent=false", "audio-sink=fakesink sync=true"])
    } catch {
        await GStreamerTurn.shared.give()
        throw error
    }
    await GStreamerTurn.shared.give()
    // A non-silent fakesink prints a `chain ***` line per buffer, a decoded frame each.
    let frames = result.standardOutput.split(whereSeparator: \.isNewline).filter { $0.contains("chain   ***") }.count
    guard result.status == 0 else {
        throw TestSupportError("GStreamer could not play \(uri) (status \(result.status), \(frames) frames): \(result.standardError.suffix(2000))")
    }
    return frames
}

/// Whose turn it is to play with GStreamer: one process at a time, the rest wait in order.
private actor GStreamerTurn {
    static let shared = GStreamerTurn()
    private var playing = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func take() async {
        if !playing {
            playing = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func give() {
        if waiting.isEmpty {
            playing = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
