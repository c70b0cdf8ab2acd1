import ArgumentParser
import Carryon
import CarryonServer
import Foundation

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the library to players, with the daemon's JSON API, over HTTP on loopback (HTTPS with --tls-cert), until interrupted.",
        discussion: """
            The first line of output is the server's base URL, which carries a random token: \
            a request without it, or with a Host header other than the server's own, is \
            refused, so other users and web pages cannot read the library. Open the base URL \
            in a browser for the web app: the catalog's streams to download and play, progress, \
            the player with its logs, the library and its storage. An asset plays at \
            <base URL>/<id>/main.m3u8 (`carryon play ID` prints that URL for you).

            The server listens on 127.0.0.1 only. For other devices (a media box, a kiosk), \
            --bind 0.0.0.0 listens on every interface and --host NAME names the machine as they \
            reach it (mediabox.local, 192.168.1.20); requests must still carry the token. \
            Beyond loopback it serves HTTPS with --tls-cert and --tls-key (PEM; read again on \
            SIGHUP), or plain HTTP only with --allow-plain-http. Downloads trust the system's \
            CAs and --cacert, and go through HTTPS_PROXY or --proxy.

            The daemon's JSON API is under <base URL>/api/: GET /api/assets lists the library, \
            POST /api/assets starts a download ({"url": …, "audio": "en,de", …}, the options of \
            `carryon download`; with "fleet": true it is queued for the fleet's workers \
            instead), GET and DELETE /api/assets/ID, POST /api/assets/ID/cancel, \
            /suspend and /resume, POST /api/assets/ID/selections (as `carryon add`), GET \
            /api/assets/ID/logs, GET /api/catalog (the --catalog file's streams with their \
            offline state; POST /api/assets takes {"catalog": NAME} too), GET and PUT /api/storage, POST /api/purge (?dryRun=true \
            to see what would go), POST /api/assets/ID/verify, GET /api/verification (the last \
            check of the whole library, which --verify-daily makes once a day at the least CPU \
            and disk priority), GET /api/events (Server-Sent Events: every task's events as \
            `download --json` prints them); GET /api/openapi.json describes it all. Downloads run in \
            this process; Ctrl-C or SIGTERM suspends them, and `carryon serve --resume` (or \
            `carryon resume`) continues them. The API takes http(s) stream URLs only, local files \
            only under a folder named by --allow-files (and what a local stream names, at every \
            level, only there too); a request that changes anything is refused when it comes \
            from another web page (its Origin header). Bound beyond loopback, the API fetches \
            no stream from this machine, its loopback or link-local addresses unless \
            --allow-private-origins. A connection has --head-timeout seconds to send a \
            request (408 after), --idle-timeout seconds idle between requests, --send-timeout \
            seconds to take any of an answer (closed after), and at most --max-connections are \
            open at once (503 past it).

            A complete asset plays whole. An asset another carryon process is downloading plays \
            as it arrives: a request for a file not yet downloaded waits for it. An asset that \
            is neither plays what is on disk: each playlist ends before its first missing segment.

            Examples:
              carryon serve
              carryon serve --port 8080 --json
              carryon serve --catalog Streams.plist --allow-files /srv/media
              carryon serve --resume
              carryon serve --verify-daily
              carryon serve --worker --index postgres://carryon@db.internal/carryon --library /mnt/fleet/library
              carryon serve --bind 0.0.0.0 --host mediabox.local --port 8080 --token-file ~/.carryon-token --tls-cert fullchain.pem --tls-key privkey.pem
              curl -X POST "$BASE/api/assets" -d '{"url": "https://cdn.example/show/main.m3u8"}'
            """
    )

    @Option(name: .customLong("allow-files"), help: ArgumentHelp(
        "A folder whose files the API may download as streams (repeatable); without it the API takes http(s) URLs only.",
        valueName: "dir"))
    var allowFiles: [String] = []

    @Flag(name: .customLong("allow-private-origins"), help: ArgumentHelp(
        "With --bind beyond loopback, still download streams from this machine, its loopback and link-local addresses (169.254.0.0/16); without it they are refused, so that whoever reaches the API cannot make the daemon fetch them."))
    var allowPrivateOrigins = false

    @Option(help: ArgumentHelp("A catalog of streams (Streams.plist or JSON) the API offers by name, with their offline state.", valueName: "file"))
    var catalog: String?

    @Flag(help: "Resume the library's suspended downloads on start, in this process.")
    var resume = false

    @Flag(name: .customLong("verify-daily"), help: ArgumentHelp(
        "Check the whole library once a day, in the background at the least CPU and disk priority, as `carryon verify` does: damage goes to each asset's error log and to standard error (a JSON line with --json); GET /api/verification shows the last check."))
    var verifyDaily = false

    @Option(name: .customLong("verify-every"), help: ArgumentHelp(
        "Check the library this often instead of daily (30d, 12h, 90m; from 1m to 3650d); implies --verify-daily.", valueName: "duration"))
    var verifyEvery: String?

    @Flag(help: "Also work for the fleet, as `carryon worker` does: claim the downloads queued with `carryon enqueue`; Ctrl-C or SIGTERM hands them back to the queue.")
    var worker = false

    @Option(name: .customLong("token-file"), help: ArgumentHelp(
        "Keep the token in this file, so that the base URL stays the same across restarts: read when it exists, else made and written there (readable by its owner only).",
        valueName: "file"))
    var tokenFile: String?

    @OptionGroup var server: ServerOptions
    @OptionGroup var rate: RateLimitOptions
    /// Trust and proxies for this process's downloads.
    @OptionGroup var network: NetworkOptions
    @OptionGroup var ownership: OwnershipOptions
    @OptionGroup var library: LibraryOptions

    func validate() throws {
        if let verifyEvery {
            // Under a minute the checks would follow each other without rest; past ten years the
            // next one's date is past what a date in JSON can say.
            guard let seconds = parseDuration(verifyEvery), seconds >= 60, seconds <= 3650 * 86_400 else {
                throw ValidationError("--verify-every takes a duration from 1m to 3650d, such as 12h, 90m or 30d, not \"\(verifyEvery)\"")
            }
        }
        for folder in allowFiles {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw ValidationError("--allow-files must name a folder that exists: \(folder)")
            }
        }
    }

    func run() async throws {
        let json = server.json
        let allowFiles = self.allowFiles
        var streams: StreamCatalog?
        if let catalog {
            do { streams = try StreamCatalog(contentsOf: URL(fileURLWithPath: catalog)) } catch { throw fail(error) }
        }
        // Every location a local stream names, at every level, is read only inside --allow-files
        // (none without it): not only the stream URL the API checks.
        // Bound beyond loopback, the API serves a network: it fetches nothing on this machine
        // or its link for whoever reaches it, unless told it may.
        let rule = StreamURLRule(allowedFolders: allowFiles, refusesPrivateOrigins: server.servesNetwork && !allowPrivateOrigins)
        var configuration = rate.configuration
        network.configure(&configuration)
        configuration.locationRule = rule.locationRule
        ownership.configure(&configuration)
        try await library.withSession(configuration: configuration) { [streams] session in
            let token = try tokenFile.map(Self.token(keptIn:))
            var playback = try server.makeServer(PlaybackSource(library: session.library, session: session), token: token)
            var api = DaemonAPI(session: session, streams: rule, catalog: streams)
            api.verificationInterval = verificationInterval
            playback.api = api
            try await resumeSuspended(in: session)
            if worker {
                do { try await session.joinFleet() } catch { throw fail(error) }
                printNote("working for the fleet: claiming downloads queued with `carryon enqueue`")
            }
            // The library checked in the background, on its own schedule, once the server
            // listens (its line first) and until it stops.
            let interval = verificationInterval
            let verification = Locked<Task<Void, Never>?>(nil)
            defer { verification.withLock { $0?.cancel() } }
            do {
                try await playback.run { handle in
                    if json { try? printJSONLine(ListeningLine(url: handle.baseURL)) } else { print(handle.baseURL) }
                    fflush(nil)
                    if let interval {
                        verification.withLock { $0 = Task { await Self.verify(session, every: interval, json: json) } }
                    }
                }
            } catch {
                throw fail("the playback server stopped: \(oneLine(String(describing: error)))", hint: "Check that the port is free (--port 0 picks a free port).")
            }
        }
    }
}

extension Serve {
    /// Between two checks of the library: `--verify-every`, a day with `--verify-daily`, nil for none.
    var verificationInterval: Duration? {
        if let verifyEvery, let seconds = parseDuration(verifyEvery) { return .milliseconds(Int64(seconds * 1000)) }
        return verifyDaily ? .seconds(86_400) : nil
    }

    /// Checks the library every `interval`, saying on standard error what each check found (with
    /// `--json`, as a JSON line on standard output, after the listening line).
    static func verify(_ session: DownloadSession, every interval: Duration, json: Bool) async {
        await session.verifyLibrary(every: interval) { outcome in
            switch outcome {
            case .success(let check):
                if json {
                    try? printJSONLine(VerificationLine(verification: check))
                } else if check.isIntact {
                    printNote("verified the library: \(check.assets) assets, \(formatBytes(check.bytes)) read, intact")
                } else {
                    var lines = ["verified the library: \(check.assets) assets, \(formatBytes(check.bytes)) read; damaged:"]
                    for report in check.damaged {
                        lines.append("  \(report.id) \(report.name): \(report.damage.count) resource\(report.damage.count == 1 ? "" : "s") (`carryon verify \(report.id) --repair` mends)")
                    }
                    for (id, message) in check.failures.sorted(by: { $0.key < $1.key }) {
                        lines.append("  \(id): not checked: \(message)")
                    }
                    printNote(lines.joined(separator: "\n"))
                }
            case .failure(let error):
                printNote("the library could not be verified: \(error.message)")
            }
        }
    }

    /// What `--json` prints after each check of the library.
    struct VerificationLine: Encodable {
        let event = "verified"
        var verification: LibraryVerification
    }

    /// The token kept in the file at `path`: read when the file exists, else a new random one,
    /// written there readable by its owner only.
    static func token(keptIn path: String) throws -> String {
        if FileManager.default.fileExists(atPath: path) {
            let text: String
            do { text = try String(contentsOfFile: path, encoding: .utf8) } catch { throw fail("cannot read --token-file \(path): \(error.localizedDescription)", hint: "Give a file this user can read, or a new path for a new token.") }
            let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard PlaybackServer.isValidToken(token) else {
                throw fail("--token-file \(path) does not hold a token (at least 16 letters and digits)", hint: "Remove it, and serve writes a new one there.")
            }
            return token
        }
        let token = PlaybackServer.makeToken()
        guard FileManager.default.createFile(atPath: path, contents: Data((token + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
            throw fail("cannot write --token-file \(path)", hint: "Check that its folder exists and this user may write there.")
        }
        return token
    }

    /// Resumes the suspended downloads with `--resume`; without it, says how many wait.
    func resumeSuspended(in session: DownloadSession) async throws {
        var suspended: [DownloadTask] = []
        do {
            // The states alone, in two reads of the index: a snapshot of every asset (its
            // resources, its bundle walked) made the start grow with the library (2 s a 1,000).
            for id in try await session.library.assetIDs(in: [.suspended]) { suspended.append(try await session.task(id: id)) }
            guard !suspended.isEmpty else { return }
            if resume {
                for task in suspended {
                    do {
                        try await task.resume()
                    } catch where error.code == .busy {
                        // Resumed by another process since it was listed: it goes on there.
                        printNote(error.message)
                    }
                }
                printNote("resuming \(suspended.count) suspended download\(suspended.count == 1 ? "" : "s"): \(suspended.map(\.id).joined(separator: ", "))")
            } else {
                printNote("\(suspended.count) download\(suspended.count == 1 ? " is" : "s are") suspended (\(suspended.map(\.id).joined(separator: ", "))): "
                          + "`carryon serve --resume` resumes them on start, POST <base URL>/api/assets/ID/resume one at a time")
            }
        } catch {
            throw fail(error)
        }
    }
}

struct Play: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
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
        try await library.withSession(configuration: configuration) { session in
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
