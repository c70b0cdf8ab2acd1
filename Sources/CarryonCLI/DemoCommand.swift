import ArgumentParser
import Carryon
import CarryonServer
import Foundation

/// `carryon demo`: the whole job on the sample shipped in the repository, over loopback only.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Download the built-in sample from a local origin, play it back, and show what happened.",
        discussion: """
            Starts the conditioned origin on a free loopback port serving Samples/media (a real \
            12-second stream: three variants, English and German audio, subtitles), downloads \
            its fMP4 flavour with every rendition into a demo library with the usual progress \
            display, serves the bundle with the playback server, and proves it plays: ffmpeg \
            decodes it end to end when ffmpeg is installed, else every file is checked against \
            the bundle's manifest. Nothing leaves the machine.

            With --format dash it does the same with the MPEG-DASH sample (Samples/dash: a \
            SegmentTimeline MPD with two video Representations, English and German audio and \
            WebVTT subtitles): the bundle's HLS playlists are decoded by ffmpeg, and its local \
            MPD played in real time by GStreamer when gst-launch-1.0 is installed.

            Examples:
              swift run carryon demo
              carryon demo --format dash
              carryon demo --profile lossy        # 5 % 503s, resets and truncations: retries at work
              carryon demo --keep-serving         # then play the printed URL with ffplay, mpv or VLC
            """
    )

    @Option(help: ArgumentHelp("The origin's link: 3g, lte, wifi or lossy (default lte).", valueName: "name"))
    var profile = "lte"

    @Flag(name: .customLong("keep-serving"), help: "Keep the playback server up after the check, until Ctrl-C.")
    var keepServing = false

    @Option(help: ArgumentHelp("The sample to download: hls (Samples/media) or dash (Samples/dash).", valueName: "format"))
    var format = "hls"

    @Option(help: ArgumentHelp("The sample media folder (default: Samples/media, or Samples/dash with --format dash, of this checkout).", valueName: "dir"))
    var media: String?

    @Option(name: .customLong("library"), help: ArgumentHelp(
        "The demo library (default: carryon-demo in the temporary folder; the demo's asset replaces the last one's).", valueName: "dir"))
    var libraryPath: String?

    @Flag(help: "Print one JSON event per line instead of a progress bar.")
    var json = false

    func validate() throws {
        guard LinkProfile.preset(named: profile) != nil else {
            throw ValidationError("--profile must be one of \(LinkProfile.presets.map(\.name).joined(separator: ", ")) (got \(profile))")
        }
        guard Sample.all[format] != nil else {
            throw ValidationError("--format must be \(Sample.all.keys.sorted().joined(separator: " or ")) (got \(format))")
        }
    }

    /// A sample the demo downloads: its folder in Samples/ and the manifest in it.
    struct Sample {
        var folder: String
        var manifest: String
        var script: String

        /// The samples by the format of their manifests (`--format`).
        static let all = [
            "hls": Sample(folder: "media", manifest: "fmp4/main.m3u8", script: "make-sample-media.sh"),
            "dash": Sample(folder: "dash", manifest: "timeline/main.mpd", script: "make-dash-media.sh"),
        ]
    }

    func run() async throws {
        let format = self.format
        let sample = Sample.all[format] ?? Sample.all[LocalManifest.main.format]!
        guard let media = media.map({ URL(fileURLWithPath: $0) }) ?? Self.findSamples(sample),
              FileManager.default.fileExists(atPath: media.appendingPathComponent(sample.manifest).path) else {
            throw fail("the sample media (Samples/\(sample.folder)) is not in this folder or above it",
                       hint: "Run the demo from the Carryon checkout, or give --media DIR (Scripts/\(sample.script) makes it).")
        }
        let root = libraryPath.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("carryon-demo")
        let library: OfflineLibrary
        do { library = try OfflineLibrary(root: root) } catch { throw fail(error) }
        let linkProfile = LinkProfile.preset(named: profile) ?? .lte
        let json = self.json
        let keepServing = self.keepServing
        // The origin runs for the download only: what plays after is offline.
        let id: String = try await Origin(root: media.path, profile: linkProfile).withRunning { origin in
            let note = "origin \(origin.baseURL) serving \(media.path) (link: \(origin.profile))"
            if !json { printNote(note) }
            let session = try await openSession(library)
            // A demo library keeps one demo asset: the last run's goes.
            for task in (try? await session.tasks()) ?? [] where (try? await task.snapshot().url.hasSuffix("/\(sample.manifest)")) == true {
                try? await session.delete(task.id)
            }
            let task: DownloadTask
            do {
                task = try await session.makeTask(url: origin.baseURL + "/\(sample.manifest)",
                                                  name: format == LocalManifest.main.format ? "Carryon sample" : "Carryon sample (\(LocalManifest.displayName(ofFormat: format)))",
                                                  options: DownloadOptions(prefersHDR: false, audio: .all, subtitles: .all))
            } catch {
                await session.shutdown()
                throw fail(error)
            }
            try await TaskRunner(session: session, json: json, printID: false).run([task])
            let requests = await origin.requests()
            let faults = requests.filter { $0.fault != nil }.count
            if !json {
                printNote("downloaded with \(requests.count) requests\(faults > 0 ? ", \(faults) of them failed on purpose by the link and retried" : "")")
            }
            return task.id
        }
        let source = PlaybackSource(library: library)
        let server: PlaybackServer
        do { server = try PlaybackServer(source: source) } catch { throw fail(error, id: id) }
        let bundle = library.bundleURL(for: id)
        let assetFormat = (try? await library.asset(id))?.format ?? format
        let check: @Sendable (PlaybackServerHandle) async throws -> Void = { handle in
            let url = handle.playlistURL(for: id)
            let mpd = LocalManifest.manifests(ofFormat: assetFormat).contains(.mpd) ? handle.mpdURL(for: id) : nil
            var verdict = try await Self.prove(url: url, bundle: bundle)
            if let mpd, verdict.passed, let dash = await Self.proveDASH(url: mpd) {
                verdict = (dash.passed, verdict.check + "; " + dash.check)
            }
            if json {
                try? printJSONLine(DemoLine(id: id, bundle: bundle.path, playbackURL: url, mpdURL: mpd, check: verdict.check, plays: verdict.passed))
            } else {
                print("asset     \(id)")
                print("bundle    \(bundle.path)")
                print("playback  \(url)")
                if let mpd { print("mpd       \(mpd)") }
                print("check     \(Terminal.paint(verdict.check, verdict.passed ? .green : .red))")
            }
            guard verdict.passed else { throw ExitCodeError.failure }
            if keepServing {
                if !json { print("serving until Ctrl-C: ffplay \"\(url)\"") }
                fflush(nil)
            }
        }
        do {
            if keepServing {
                let failed = CheckFailed()
                try await server.run { handle in
                    // Not awaited here: the server answers requests only once this returns.
                    Task {
                        do { try await check(handle) } catch {
                            failed.value.withLock { $0 = true }
                            kill(getpid(), SIGTERM)
                        }
                    }
                }
                if failed.value.withLock({ $0 }) { throw ExitCodeError.failure }
            } else {
                try await server.withRunning(check)
            }
        } catch let error as ExitCodeError {
            throw error
        } catch {
            throw fail("the playback server stopped: \(oneLine(String(describing: error)))", hint: "Run the demo again; `--keep-serving` keeps the server up until Ctrl-C.")
        }
    }

    struct DemoLine: Encodable {
        var event = "demo"
        var id: String
        var bundle: String
        var playbackURL: String
        /// The local MPD's URL, for the DASH sample.
        var mpdURL: String?
        var check: String
        var plays: Bool
    }

    /// Decodes `url` with ffmpeg when it is installed; else checks every file of the bundle
    /// against its manifest.
    static func prove(url: String, bundle: URL) async throws -> (passed: Bool, check: String) {
        if let ffmpeg = Play.findProgram("ffmpeg") {
            let process = Process()
            process.executableURL = ffmpeg
            process.arguments = ["-nostdin", "-v", "error", "-i", url, "-map", "0", "-f", "null", "-"]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            // Read and wait on a thread of its own: the server answering ffmpeg runs in this process.
            let (status, output) = await withCheckedContinuation { (continuation: CheckedContinuation<(Int32, String), Never>) in
                Thread.detachNewThread {
                    let data = (try? errors.fileHandleForReading.readToEnd()) ?? Data()
                    process.waitUntilExit()
                    continuation.resume(returning: (process.terminationStatus, String(decoding: data, as: UTF8.self)))
                }
            }
            if status == 0 && output.isEmpty { return (true, "ffmpeg decoded every stream end to end through the playback server") }
            return (false, "ffmpeg could not decode it (status \(status)): \(output.split(separator: "\n").first ?? "")")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let data = FileManager.default.contents(atPath: bundle.appendingPathComponent("manifest.json").path),
              let manifest = try? decoder.decode(BundleManifest.self, from: data) else {
            return (false, "the bundle has no readable manifest")
        }
        let bad = manifest.files.filter { file in
            let size = (try? FileManager.default.attributesOfItem(atPath: bundle.appendingPathComponent(file.path).path)[.size] as? Int) ?? -1
            return size != file.bytes
        }
        guard bad.isEmpty else { return (false, "\(bad.count) files differ from the manifest: \(bad.map(\.path).joined(separator: ", "))") }
        return (true, "all \(manifest.files.count) files match the manifest; install ffmpeg (apt-get install -y ffmpeg) to have them decoded too")
    }

    /// Plays the local MPD at `url` in real time with GStreamer, counting the decoded video
    /// frames; nil when GStreamer is not installed. Over HTTP in `playbin3` (dashdemux2):
    /// GStreamer 1.22's `playbin` can end a multi-Period MPD after its first Period when an audio
    /// language it does not play finishes the Period last.
    static func proveDASH(url: String) async -> (passed: Bool, check: String)? {
        guard let gst = Play.findProgram("gst-launch-1.0") else { return nil }
        let process = Process()
        process.executableURL = gst
        process.arguments = ["-v", url.hasPrefix("http") ? "playbin3" : "playbin", "uri=\(url)", "video-sink=fakesink sync=true silent=false", "audio-sink=fakesink sync=true"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return (false, "GStreamer could not start: \(error)") }
        let (status, frames) = await withCheckedContinuation { (continuation: CheckedContinuation<(Int32, Int), Never>) in
            Thread.detachNewThread {
                let data = (try? output.fileHandleForReading.readToEnd()) ?? Data()
                process.waitUntilExit()
                let frames = String(decoding: data, as: UTF8.self).split(separator: "\n").filter { $0.contains("chain   ***") }.count
                continuation.resume(returning: (process.terminationStatus, frames))
            }
        }
        guard status == 0, frames > 0 else { return (false, "GStreamer could not play main.mpd (status \(status), \(frames) frames)") }
        return (true, "GStreamer played \(frames) video frames of main.mpd")
    }

    /// `Samples/media` (or `Samples/dash`) of the checkout: from the current folder, else above
    /// the executable (`.build/<triple>/debug/carryon` when run with `swift run`).
    static func findSamples(_ sample: Sample) -> URL? {
        var candidates = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            candidates.append(folder)
            folder = folder.deletingLastPathComponent()
        }
        return candidates.map { $0.appendingPathComponent("Samples/\(sample.folder)") }
            .first { FileManager.default.fileExists(atPath: $0.appendingPathComponent(sample.manifest).path) }
    }
}

/// Set when the demo's check fails while the server keeps serving.
private final class CheckFailed: Sendable {
    let value = Locked(false)
}
