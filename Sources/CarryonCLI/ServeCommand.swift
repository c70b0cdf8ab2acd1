import ArgumentParser
import Carryon
import CarryonServer
import Foundation

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
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
            --allow-private-origins: not where a stream or a redirect leads, nor where a name \
            resolves by the time it connects. A connection has --head-timeout seconds to send a \
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
        // …and checks the address each connection reached, not only the name beforehand.
        configuration.network.refusesPrivateAddresses = rule.refusesPrivateOrigins
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
                        let manifests = report.manifests.isEmpty ? "" : ", \(report.manifests.count) manifest\(report.manifests.count == 1 ? "" : "s")"
                        lines.append("  \(report.id) \(report.name): \(report.damage.count) resource\(report.damage.count == 1 ? "" : "s")\(manifests) (`carryon verify \(report.id) --repair` mends)")
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
