import ArgumentParser
import Carryon
import CarryonServer
import Foundation

struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play an asset: print its playback URL, serve it until interrupted, and start a player if asked.",
        discussion: """
            The first line of output is the asset's playback URL, for any HLS player: an \
            MPEG-DASH asset plays as HLS too. `--format dash` prints a DASH asset's MPD URL \
            instead, for DASH players (GStreamer, dash.js, Shaka). With --player, that player (ffplay, mpv or vlc, if installed) is started on it, and \
            carryon stops serving when the player exits.

            An asset that is not complete keeps downloading in this process while it plays \
            (unless --no-download, or another carryon process is downloading it): what the \
            player asks for first is fetched first, stored as the download's own copy, and not \
            fetched again. A download that stops here (a certificate not trusted: --cacert is \
            not kept with the asset, give it again; a full disk; an origin gone) is reported on \
            standard error, and the server goes on serving what is stored. Ctrl-C stops serving \
            and suspends the download; `carryon resume` continues it.

            Examples:
              carryon play 7k2m9x4q1b
              carryon play 7k2m9x4q1b --player mpv
              gst-launch-1.0 playbin uri="$(carryon play 4m2k9x7q1b --format dash | head -n 1)"
              ffmpeg -i "$(carryon play 7k2m9x4q1b | head -n 1)" -c copy out.mkv
            """
    )

    @Argument(help: "The asset's id (a unique prefix is enough).")
    var id: String

    @Option(help: ArgumentHelp("A player to start on the URL: ffplay, mpv or vlc.", valueName: "name"))
    var player: String?

    @Flag(inversion: .prefixedNo, help: "Whether an incomplete asset keeps downloading while it plays (it does by default).")
    var download = true

    @Option(help: ArgumentHelp("The manifest to print: hls (main.m3u8, every asset) or dash (main.mpd, MPEG-DASH assets).", valueName: "format"))
    var format = LocalManifest.main.format

    @OptionGroup var server: ServerOptions
    @OptionGroup var rate: RateLimitOptions
    /// Trust and proxies for this process's downloads.
    @OptionGroup var network: NetworkOptions
    @OptionGroup var library: LibraryOptions

    func validate() throws {
        if let player, !["ffplay", "mpv", "vlc"].contains(player) {
            throw ValidationError("--player must be ffplay, mpv or vlc (got \(player))")
        }
        if !LocalManifest.playerFormats.contains(format) {
            throw ValidationError("--format must be \(LocalManifest.playerFormats.joined(separator: " or ")) (got \(format))")
        }
    }

    func run() async throws {
        let json = server.json
        let player = self.player
        var configuration = rate.configuration
        network.configure(&configuration)
        try await library.withSession(configuration: configuration, existing: true) { session in
            let task: DownloadTask
            let snapshot: AssetSnapshot
            do {
                task = try await session.task(id: id)
                snapshot = try await task.snapshot()
                if download, snapshot.state != .completed, snapshot.state != .cancelled,
                   !(await PlaybackSource(library: session.library).isDownloading(task.id)) {
                    do {
                        try await task.resume()
                        printNote("downloading \(task.id) while it plays (\(Int(snapshot.progress.fraction * 100))% done)")
                        Task { await Self.reportEnd(of: task, in: session) }
                    } catch let error as CarryonError where error.code == .busy {
                        // Another process took the download up since: it plays as that one fetches.
                        printNote(error.message)
                    }
                }
            } catch {
                throw fail(error, id: id)
            }
            if snapshot.state == .cancelled { throw fail("\(task.id) was cancelled; it has nothing to play", hint: "`carryon delete \(task.id)`, then `carryon download \(snapshot.url)` downloads it again.") }
            guard let manifest = LocalManifest.manifests(ofFormat: snapshot.format).first(where: { $0.format == format }) else {
                throw fail("\(task.id) is \(LocalManifest.displayName(ofFormat: snapshot.format)), not \(LocalManifest.displayName(ofFormat: format)): it has no \(format) manifest",
                           hint: "Leave out --format \(format): `carryon play \(task.id)` prints its HLS URL.")
            }
            let source = PlaybackSource(library: session.library, session: session)
            let assetID = task.id
            do {
                try await server.makeServer(source).run { handle in
                    let url = handle.url(of: manifest, for: assetID)
                    if json { try? printJSONLine(ListeningLine(url: handle.baseURL, playlist: url)) } else { print(url) }
                    fflush(nil)
                    if let player {
                        // Not awaited here: the server answers requests only once this returns.
                        Task {
                            await Self.launch(player, url: url)
                            // The player is done: stop serving, as Ctrl-C would.
                            kill(getpid(), SIGTERM)
                        }
                    }
                }
            } catch {
                throw fail("the playback server stopped: \(oneLine(String(describing: error)))", hint: "Check that the port is free (--port 0 picks a free port).")
            }
        }
    }

    /// Tells the person at the terminal how the download this process resumed ended, as
    /// `carryon download` would: a player only sees segments stop coming, so a certificate not
    /// trusted here (`--cacert` given to `download` is not kept with the asset), a full disk or
    /// an origin that is gone must be said where they can read it. Ctrl-C's suspension is not
    /// reported: it was asked for.
    static func reportEnd(of task: DownloadTask, in session: DownloadSession) async {
        let state = await task.waitUntilFinished()
        switch state {
        case .completed:
            printNote("\(task.id) is downloaded; it plays offline from now on")
        case .failed, .suspended:
            if let error = await session.lastError(of: task.id) {
                printError("\(task.id): the download stopped: \(error.message)", hint: hint(for: error, id: task.id))
            } else if state == .failed {
                let message = (try? await task.snapshot().error) ?? nil
                printError("\(task.id): the download failed\(message.map { ": \($0)" } ?? "")", hint: "`carryon show \(task.id)` tells what it did.")
            }
        default:
            break
        }
    }

    /// Runs `player` on `url` until it exits; a player that is not installed is reported and
    /// the server keeps serving.
    static func launch(_ player: String, url: String) async {
        guard let executable = findProgram(player) else {
            printNote("\(player) is not installed; serving until interrupted")
            return
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = player == "vlc" ? ["--play-and-exit", url] : [url]
        do {
            try process.run()
        } catch {
            printError("cannot start \(player): \(error)")
            return
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                process.waitUntilExit()
                continuation.resume()
            }
        }
    }

    static func findProgram(_ name: String) -> URL? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}
