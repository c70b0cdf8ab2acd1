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
/// Writes a three-segment stream of local files into `folder` (made if need be): `s0.ts` to
/// `s2.ts`, 4,000 bytes each (12,000 in all), and `main.m3u8` naming them; returns the
/// playlist. Not media a player decodes: for tests of the library's bookkeeping.
public func writeThreeSegmentStream(in folder: URL) throws -> URL {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for index in 0..<3 { try Data(repeating: UInt8(index), count: 4_000).write(to: folder.appendingPathComponent("s\(index).ts")) }
    let playlist = folder.appendingPathComponent("main.m3u8")
    try "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns0.ts\n#EXTINF:4,\ns1.ts\n#EXTINF:4,\ns2.ts\n#EXT-X-ENDLIST\n"
        .write(to: playlist, atomically: true, encoding: .utf8)
    return playlist
}

public var dashSampleMedia: URL { packageRoot.appendingPathComponent("Samples/dash") }

/// The common-encryption streams Shaka Packager made (`Scripts/make-cenc-media.sh`), and their
/// test keys in `keys.txt`.
public var cencSampleMedia: URL { packageRoot.appendingPathComponent("Samples/cenc") }

/// The video frames GStreamer decodes from `uri`, played in real time: the judge of DASH
/// playback, as ffmpeg's DASH demuxer plays one Period only. An MPD served over HTTP plays in
/// `playbin3` (dashdemux2; it hangs on a `file:` MPD, which plays in `playbin`), HLS in
/// `playbin` (hlsdemux). Throws a message saying how to install GStreamer when it is missing.
///
/// `playbin3` for DASH: GStreamer 1.22's `playbin` downloads every audio language, and the
/// unselected one is answered `not-linked`; when that stream is the last of a Period to finish,
/// the old dashdemux never starts the next Period (only a stream reaching its end does, and
/// `not-linked` stops a stream without one), so a two-Period MPD ended cleanly after its first
/// Period (100 of 200 frames) about one full-suite run in seven, and every play when the
/// unselected language's last segment of a Period came late. dashdemux2 downloads only the
/// selected streams. (Found on 2026-11-27 with a server delaying that segment; it failed alike
/// against Carryon's server, a static server, and the origin's own MPD.)
///
/// An MPD's frames are counted by their timestamps, each once within a Period (a backward jump
/// begins the next): a player that plays a segment twice — as GStreamer does a SegmentList
/// whose timeline repeats an `S` — does not make up for one it skipped. (HLS's are counted as
/// buffers: GStreamer's hlsdemux stamps every frame after a discontinuity with one timestamp.)
public func gstreamerVideoFrames(_ uri: String) async throws -> Int {
    let isMPD = (URL(string: uri)?.path ?? uri).hasSuffix(".mpd")
    return try await gstreamerFrames(uri, player: isMPD && uri.hasPrefix("http") ? "playbin3" : "playbin", for: nil)
}

/// The distinct video frames GStreamer's `playbin` (dashdemux) plays of a live MPD at `uri` in
/// `seconds` of real time, after which it is interrupted: how a player watches a recording
/// in progress. (`playbin3`'s dashdemux2 buffers 30 s of a live stream before it plays.)
public func gstreamerLiveVideoFrames(_ uri: String, seconds: Int) async throws -> Int {
    try await gstreamerFrames(uri, player: "playbin", for: seconds)
}

/// The frames `player` plays of `uri`: to its end (killed after 90 s), or interrupted
/// (SIGINT) after `seconds`.
private func gstreamerFrames(_ uri: String, player: String, for seconds: Int?) async throws -> Int {
    guard let gst = findExecutable("gst-launch-1.0") else {
        throw TestSupportError("GStreamer is not installed, and this test plays DASH with it: apt-get install -y gstreamer1.0-tools gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav")
    }
    // In real time (`sync=true`): with unsynchronised sinks GStreamer 1.22's dashdemux
    // sometimes stops for ever at a Period boundary when a fast server has already answered
    // every request (seen 1 to 2 runs in 16 against the playback server, never in real time).
    // Bounded, and killed: a GStreamer that hangs ignores SIGTERM.
    let timeout = findExecutable("timeout") ?? URL(fileURLWithPath: "/usr/bin/timeout")
    let isMPD = (URL(string: uri)?.path ?? uri).hasSuffix(".mpd")
    let limit = seconds.map { ["-s", "INT", "-k", "20", String($0)] } ?? ["-s", "KILL", "90"]
    // One at a time: a run of the whole suite once played only a bundle's first Period with
    // several GStreamers playing in real time beside every other suite on two cores.
    let result = try await withGStreamerTurn {
        try await run(timeout, limit + [gst.path, "-v", player, "uri=\(uri)",
                                        "video-sink=fakesink sync=true silent=false", "audio-sink=fakesink sync=true"])
    }
    // A non-silent fakesink prints a `chain ***` line per buffer, a decoded frame each.
    let chains = result.standardOutput.split(whereSeparator: \.isNewline).filter { $0.contains("chain   ***") }
    let frames = isMPD ? distinctFrames(chains.map { line in line.range(of: "pts: ").map { String(line[$0.upperBound...].prefix { $0 != "," }) } ?? "" })
                       : chains.count
    // Interrupted on time, `timeout` says 124.
    guard result.status == 0 || (seconds != nil && result.status == 124) else {
        throw TestSupportError("GStreamer could not play \(uri) (status \(result.status), \(frames) frames): \(result.standardError.suffix(2000))")
    }
    return frames
}

/// The frames among buffers of timestamps `stamps` (`0:00:02.040000000`, or `none`): each
/// timestamp once within a Period — a new one begins where the timestamps go back more than a
/// second to within a second of 0 (a Period's first frame); a replayed segment, going back to
/// where it began, counts once — unless it is a Period's first segment, which reads as a new
/// Period. A buffer without a timestamp counts.
public func distinctFrames(_ stamps: [String]) -> Int {
    func seconds(_ stamp: String) -> Double? {
        let parts = stamp.split(separator: ":")
        guard parts.count == 3, let hours = Double(parts[0]), let minutes = Double(parts[1]), let seconds = Double(parts[2]) else { return nil }
        return hours * 3600 + minutes * 60 + seconds
    }
    var total = 0
    var seen: Set<Double> = []
    var last = -Double.infinity
    for stamp in stamps {
        guard let time = seconds(stamp) else { total += 1; continue }
        if time < last - 1, time < 1 { total += seen.count; seen = [] }
        seen.insert(time)
        last = time
    }
    return total + seen.count
}

/// Runs `body` in GStreamer's turn (one GStreamer at a time, the rest wait in order): the
/// GStreamer it runs plays at once. For a test whose live stream or recording must not run on
/// while it waits its turn; within it, the turn is not taken again.
public func withGStreamerTurn<T: Sendable>(_ body: () async throws -> T) async throws -> T {
    if GStreamerTurn.held { return try await body() }
    await GStreamerTurn.shared.take()
    do {
        let result = try await GStreamerTurn.$held.withValue(true) { try await body() }
        await GStreamerTurn.shared.give()
        return result
    } catch {
        await GStreamerTurn.shared.give()
        throw error
    }
}

/// Whose turn it is to play with GStreamer: one process at a time, the rest wait in order.
private actor GStreamerTurn {
    static let shared = GStreamerTurn()
    /// Whether the task holds the turn.
    @TaskLocal static var held = false
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
