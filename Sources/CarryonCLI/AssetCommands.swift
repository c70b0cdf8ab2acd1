import ArgumentParser
import Carryon
import HLS
import Foundation

/// `carryon list`: the assets in the library, or a page of them.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the assets in the library with their state and size on disk.",
        discussion: """
            Every asset, oldest first, unless filtered, sorted or limited. With --limit, the
            last line on stderr gives the command of the next page (its --cursor): pages never
            repeat or skip an asset, whatever is added or deleted between them.

            Examples:
              carryon list
              carryon list --state failed,suspended
              carryon list --search concert --sort size --limit 20
              carryon list --json | jq '.[] | select(.state == "completed") | .id'
            """
    )

    @Option(name: .long, parsing: .singleValue,
            help: "Only assets in these states (waiting, running, suspended, completed, failed, cancelled; comma-separated or repeated).")
    var state: [String] = []

    @Option(name: .long, help: "Only assets whose name contains this text, or whose id starts with it (ignoring case).")
    var search: String?

    @Option(name: .long, help: "The order: created (oldest first), newest, name or size (largest first).")
    var sort: String = "created"

    @Option(name: .long, help: "At most this many assets (1 to 10000).")
    var limit: Int?

    @Option(name: .long, help: "Where the page starts: the cursor the page before gave.")
    var cursor: String?

    @Flag(help: "Print a JSON array of assets (the shape of `show --json`).")
    var json = false

    @OptionGroup var library: LibraryOptions

    func validate() throws {
        _ = try query()
    }

    /// The query the options ask for.
    func query() throws -> AssetQuery {
        var query = AssetQuery(text: search, limit: limit, cursor: cursor)
        for name in state.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: true) }) {
            guard let state = DownloadState(rawValue: String(name)) else {
                throw ValidationError("--state \(name) is not one of \(DownloadState.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            query.states.insert(state)
        }
        guard let order = AssetQuery.Order(rawValue: sort) else {
            throw ValidationError("--sort \(sort) is not one of \(AssetQuery.Order.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        query.order = order
        if let limit, !(1...AssetQuery.maximumLimit).contains(limit) {
            throw ValidationError("--limit \(limit) is not between 1 and \(AssetQuery.maximumLimit)")
        }
        return query
    }

    /// What a failed listing says: a cursor no listing gave is a mistake in the command line
    /// (exit 64), not one of the library's. Said as every error is, with a hint: found only as
    /// the listing reads it, it would otherwise come with the usage of `carryon` itself.
    func refusal(_ error: CarryonError) -> any Error {
        guard error.code == .invalidValue else { return fail(error) }
        printError(error.message, hint: "Leave out --cursor for the first page; each page's last line on stderr gives the next one's.")
        return ExitCode.validationFailure
    }

    /// The command that lists the page after this one, its words quoted for a POSIX shell.
    func nextPageCommand(_ cursor: String) -> String {
        var words = ["carryon", "list"]
        if !state.isEmpty { words += ["--state", state.joined(separator: ",")] }
        if let search { words += ["--search", search] }
        if sort != "created" { words += ["--sort", sort] }
        if let limit { words += ["--limit", String(limit)] }
        if json { words.append("--json") }
        if let path = library.path { words += ["--library", path] }
        words += ["--cursor", cursor]
        return words.map { word in
            word.allSatisfy({ $0.isLetter || $0.isNumber || "-_.,/=:".contains($0) }) && !word.isEmpty
                ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }.joined(separator: " ")
    }

    func run() async throws {
        // Read without a session: no HTTP client, nothing written but the figures it computes
        // (a full disk, or other processes downloading, change nothing here).
        let library = try library.open(existing: true)
        do {
            let query = try query()
            if json {
                let page: (json: Data, next: String?)
                do { page = try await library.assetsJSON(query) } catch { throw refusal(error) }
                try FileHandle.standardOutput.write(contentsOf: page.json)
                try FileHandle.standardOutput.write(contentsOf: Data("\n".utf8))
                if let next = page.next { printNote("the next page: \(nextPageCommand(next))") }
                return
            }
            let page: AssetPage<AssetSummary>
            do { page = try await library.summaries(query) } catch { throw refusal(error) }
            let snapshots = page.assets
            defer {
                if let next = page.next { printNote("the next page: \(nextPageCommand(next))") }
            }
            if snapshots.isEmpty {
                let filtered = !state.isEmpty || search != nil || cursor != nil
                print(filtered ? "No asset matches." : "The library is empty. `carryon download URL` adds a stream.")
                return
            }
            // Who runs each download, when another process does: a fleet's workers.
            let workers = snapshots.contains { $0.worker != nil }
            var table = TextTable(["ID", "NAME", "STATE", "PROGRESS", "ON DISK", "DURATION"] + (workers ? ["WORKER"] : []) + ["URL"])
            for asset in snapshots {
                table.add([asset.id, asset.name, Terminal.paint(asset.state), "\(Int(asset.fraction * 100))%",
                           formatBytes(asset.bytesOnDisk), asset.duration.map(formatDuration) ?? "-"]
                          + (workers ? [asset.worker ?? "-"] : []) + [asset.url])
            }
            print(table.render(indent: 0), terminator: "")
            for asset in snapshots {
                for problem in asset.problems ?? [] { printNote("\(asset.id): \(problem)") }
            }
        }
    }
}

/// `carryon show`: one asset in detail.
struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one asset: state, progress, the chosen variant and renditions, bytes, and where it is.",
        discussion: """
            ID is an asset id from `carryon list` (a unique prefix is enough).

            Examples:
              carryon show 7k2m9x4q1b
              ffplay "$(carryon show 7k2m9x4q1b --json | jq -r .playlist)"
            """
    )

    @Argument(help: "The asset's id.")
    var id: String

    @Flag(help: "Print one JSON object.")
    var json = false

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        let library = try library.open(existing: true)
        do {
            let asset: AssetSnapshot
            do {
                asset = try await library.asset(id)
            } catch {
                throw fail(error, id: id)
            }
            if json {
                try printJSON(asset)
                return
            }
            print("\(asset.name)  (\(asset.id))")
            print("State       \(Terminal.paint(asset.state))\(asset.error.map { " — \($0)" } ?? "")")
            if let worker = asset.worker { print("Worker      \(worker)") }
            print("URL         \(asset.url)")
            let manifests = LocalManifest.manifests(ofFormat: asset.format)
            let extra = manifests.dropFirst().map(\.path)
            print("Format      \(LocalManifest.displayName(ofFormat: asset.format))\(extra.isEmpty ? "" : " (\(extra.joined(separator: ", ")), and \(manifests[0].path) for HLS players)")")
            let progress = asset.progress
            print("Progress    \(Int(progress.fraction * 100))%  \(formatProgressBytes(progress))  (\(progress.resourcesDone) of \(progress.resourcesTotal) resources)")
            if let connections = progress.connections {
                print("Requests    \(connections) in flight (the number the link takes; --concurrency fixes it)")
            }
            print("On disk     \(formatBytes(asset.bytesOnDisk))")
            var renditions = TextTable([])
            for (key, bytes) in asset.bytesByRendition.sorted(by: { $0.key < $1.key }) where !key.contains(".") && key != "origin" {
                renditions.add([key, formatBytes(bytes)])
            }
            print(renditions.render(indent: 12), terminator: "")
            let cache = asset.cache
            print("Offline     \(cache.isPlayableOffline ? "playable" : "not playable yet")")
            if cache.variants.count > 1 {
                let text = cache.variants.map { "\($0.name) \($0.isComplete ? "complete" : "\($0.resourcesDone)/\($0.resourcesTotal)")" }
                print("            variants: \(text.joined(separator: ", "))")
            }
            for (group, options) in [("audible", cache.audible), ("legible", cache.legible)] where !options.isEmpty {
                let text = options.map { "\($0.language ?? $0.name) \($0.isComplete ? "complete" : "\($0.resourcesDone)/\($0.resourcesTotal)")" }
                print("            \(group): \(text.joined(separator: ", "))")
            }
            for problem in asset.problems ?? [] { print("Problem     \(problem)") }
            print("Policy      expires \(asset.policy.expiresAt.map { ISO8601DateFormatter().string(from: $0) } ?? "never"), priority \(asset.policy.priority.rawValue)")
            if let playback = asset.playback {
                let startup = playback.startupSeconds.map { String(format: "%.3f s", $0) } ?? "-"
                let bitrate = playback.timeWeightedIndicatedBitrate.map { formatBitrate(Int($0)) } ?? "-"
                print("Playback    \(playback.sessions) session\(playback.sessions == 1 ? "" : "s"), startup \(startup), \(formatBytes(playback.bytesServed)) in \(playback.segmentsServed) segments, indicated \(bitrate)")
            }
            if let duration = asset.duration { print("Duration    \(formatDuration(duration))") }
            if let live = asset.live {
                let offset = asset.timeRange.map(\.start) ?? 0
                var text = "a live stream, from " + (offset > 0 ? "\(formatDuration(offset)) into its window"
                    : live.fromStart ? "the oldest segment its window held" : "the live edge")
                if let end = asset.timeRange?.end { text += ", for \(formatDuration(end - offset))" }
                if let missed = live.missedSegments, missed > 0 {
                    text += "; \(missed) segment\(missed == 1 ? "" : "s") missed (\(formatDuration(live.missedSeconds ?? 0))), kept as gaps"
                } else {
                    text += "; nothing missed"
                }
                print("Recorded    \(text)")
            } else if let range = asset.timeRange {
                print("Range       \(range) of the stream (the segments that cover it)")
            }
            if let selection = asset.selection {
                let variant = selection.variant
                print("Variant     \(variant.resolution ?? "-")  \(formatBitrate(variant.bandwidth))  \(variant.codecs ?? "")\(variant.videoRange.map { "  \($0)" } ?? "")")
                for rendition in selection.renditions {
                    print("Rendition   \(rendition.type.lowercased())  \(rendition.language ?? "-")  \(rendition.name)\(rendition.channels.map { "  \($0) ch" } ?? "")")
                }
            }
            for (key, ranges) in progress.loadedTimeRanges.sorted(by: { $0.key < $1.key }) {
                let text = ranges.map { "\(formatDuration($0.start))–\(formatDuration($0.end))" }.joined(separator: ", ")
                print("Loaded      \(key): \(text)")
            }
            print("Bundle      \(asset.bundlePath)")
            if let playlist = asset.playlist { print("Playlist    \(playlist)") }
        }
    }
}

/// `carryon resume`: continue suspended or failed downloads.
struct Resume: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Continue a suspended or failed download (all of them when no ID is given).",
        discussion: """
            Only what is missing is fetched; a partly fetched segment continues with a Range \
            request where the server allows it. With --fleet, nothing is fetched here: the \
            downloads wait in the fleet's queue for any worker (`carryon worker`).

            Examples:
              carryon resume 7k2m9x4q1b
              carryon resume
              carryon resume 7k2m9x4q1b --fleet
            """
    )

    @Argument(help: "The asset's id; all resumable assets when omitted.")
    var id: String?

    @Flag(help: "Print one JSON event per line.")
    var json = false

    @Flag(help: "Hand the downloads to the fleet's workers (carryon worker, serve --worker) instead of running them here: they wait in the fleet's queue, their bytes kept.")
    var fleet = false

    @OptionGroup var library: LibraryOptions

    @OptionGroup var transfer: TransferOptions

    @OptionGroup var rate: RateLimitOptions

    @OptionGroup var refresh: RefreshOptions

    @OptionGroup var ownership: OwnershipOptions

    @OptionGroup var heldKeys: HeldKeyOptions

    func validate() throws {
        if id == nil, !heldKeys.isEmpty { throw ValidationError("--key, --keys-file and --license-url are for one asset: give its id") }
    }

    func run() async throws {
        var configuration = DownloadSession.Configuration()
        transfer.configure(&configuration)
        configuration.maximumBytesPerSecond = rate.bytesPerSecond
        refresh.configure(&configuration)
        ownership.configure(&configuration)
        // One asset must be in the library; "all that are resumable" may be none yet (a boot
        // script's resume before the first download).
        let session = try await openSession(try library.open(existing: id != nil), configuration)
        var tasks: [DownloadTask] = []
        do {
            if let id {
                let held = try heldKeys.heldKeys()
                tasks = [try await session.task(id: id)]
                try await heldKeys.apply(held, to: session, for: tasks[0].id)
                if fleet, !heldKeys.isEmpty {
                    // A worker (another process) plans it: the keys sealed for it now.
                    try await KeyStore(library: session.library).hold(try heldKeys.all(held), for: tasks[0].id, lifetime: configuration.keyLifetime)
                }
            } else {
                for task in try await session.tasks() where try await task.snapshot().state.isResumable {
                    tasks.append(task)
                }
            }
        } catch {
            await session.shutdown()
            throw fail(error, id: id)
        }
        if tasks.isEmpty {
            await session.shutdown()
            if !json { print("Nothing to resume.") }   // JSON Lines: no task, no line
            return
        }
        if fleet { return try await handToFleet(tasks, session: session, json: json) }
        try await TaskRunner(session: session, json: json).run(tasks)
    }
}

/// `carryon delete`: remove an asset entirely.
struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Remove an asset: its bundle and its entry in the library.",
        discussion: "Example:\n  carryon delete 7k2m9x4q1b"
    )

    @Argument(help: "The asset's id.")
    var id: String

    @Flag(help: "Print {\"id\": …, \"deleted\": true} as JSON.")
    var json = false

    @OptionGroup var library: LibraryOptions

    struct Deleted: Encodable {
        var id: String
        var deleted: Bool
    }

    func run() async throws {
        try await library.withSession(existing: true) { session in
            do {
                let task = try await session.task(id: id)
                try await session.delete(task.id)
                if json { try printJSON(Deleted(id: task.id, deleted: true)) } else { print("\(task.id) deleted") }
            } catch let error as CarryonError {
                throw fail(error, id: id)
            }
        }
    }
}
