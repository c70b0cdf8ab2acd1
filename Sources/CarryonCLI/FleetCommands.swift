import ArgumentParser
import Carryon
import Foundation

/// `carryon enqueue`: put a download in the fleet's queue, for any worker.
struct Enqueue: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enqueue",
        abstract: "Queue a download for the fleet's workers (`carryon worker`) and print its id at once.",
        discussion: """
            The asset is made as `carryon download` makes it (the same stream options) and \
            waits in the index's queue until a worker has room; nothing is fetched here. Any \
            worker on a machine that shares the library's index and folder claims it (a note \
            says so when none runs now). `carryon \
            list` shows it waiting, then running with the worker's name (`carryon workers` \
            lists the workers alive now); `carryon serve` on \
            any machine plays it as it arrives, and suspends, cancels or deletes it (the worker \
            applies it).

            A fleet shares one index on PostgreSQL (--index or $CARRYON_INDEX) and one library \
            folder on shared storage (NFS, CephFS): see Documentation/Fleet.md. On a SQLite \
            library the workers are the processes on this machine.

            Examples:
              carryon enqueue https://cdn.example/show/main.m3u8 --name "The Show"
              CARRYON_INDEX=postgres://carryon@db.internal/carryon carryon enqueue URL --audio all
            """
    )

    @OptionGroup var stream: StreamOptions

    @OptionGroup var policy: PolicyOptions

    @OptionGroup var rate: RateLimitOptions

    @OptionGroup var heldKeys: HeldKeyOptions

    @Flag(help: "Print {\"id\": …, \"state\": …} instead of the id.")
    var json = false

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        let library = try self.library.open()
        try await self.library.withSession { session in
            var options = stream.options
            options.maximumBytesPerSecond = rate.bytesPerSecond
            options.licenseURL = heldKeys.licenseURL
            let task: DownloadTask
            do {
                let held = try heldKeys.heldKeys()
                task = try await session.makeTask(url: stream.url, name: stream.name, options: options, headers: stream.requestHeaders)
                // Sealed now, for the worker that claims it (another process): checked there
                // against the stream's KIDs only as it finds them.
                try await KeyStore(library: library).hold(try heldKeys.all(held), for: task.id, lifetime: DownloadSession.Configuration().keyLifetime)
                if !policy.isEmpty {
                    try await StorageManager(library: library).setPolicy(policy.applied(to: StoragePolicy()), for: task.id)
                }
                try await session.enqueueForFleet(task.id)
                if let url = (try? await task.snapshot())?.url, url.hasPrefix("file:") {
                    // Read by whichever worker claims it, on that worker's machine.
                    printNote("\(url) is a local file: every worker must see it at that path (shared storage)")
                }
            } catch {
                throw fail(error)
            }
            if json {
                try printJSON(["id": task.id, "state": DownloadState.waiting.rawValue])
            } else {
                print(task.id)
            }
            // Said, not refused: workers may be started after the queue is filled.
            if (try? await library.fleetWorkers())?.isEmpty == true {
                printNote("no worker runs now: the download waits until one starts (`carryon worker`; `carryon workers` lists them)")
            }
        }
    }
}

/// `carryon resume --fleet`: puts `tasks` in the fleet's queue (``DownloadSession/enqueueForFleet(_:)``)
/// and prints each id as `enqueue` does (with `json`, `{"id": …, "state": …}` a line); shuts
/// `session` down.
func handToFleet(_ tasks: [DownloadTask], session: DownloadSession, json: Bool) async throws {
    for task in tasks {
        do {
            try await session.enqueueForFleet(task.id)
            let state = try await task.snapshot().state
            if json { try printJSON(["id": task.id, "state": state.rawValue]) } else { print(task.id) }
        } catch {
            await session.shutdown()
            throw fail(error, id: task.id)
        }
    }
    await session.shutdown()
}

/// `carryon worker`: download what the fleet's queue holds until stopped.
struct Worker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Work for the fleet: claim queued downloads and run them until SIGTERM or Ctrl-C, which hands them back to the queue.",
        discussion: """
            The worker claims downloads queued with `carryon enqueue`, \
            at most --tasks at once, each under a lease it renews every third of --lease. \
            SIGTERM or Ctrl-C stops its transfers, hands every download it runs back to the \
            queue — waiting, with its bytes kept — and exits 0; another worker resumes each \
            from where it stopped. A worker that dies (kill -9, power, a partition) loses its \
            downloads when its lease runs out: the next worker resumes them, and anything the \
            dead one still writes is refused.

            Whoever fills the queue (any daemon's API) must not make the worker fetch its own \
            machine: a stream, or anything it names or redirects to, on this machine, its \
            loopback or link-local addresses is refused (the address is checked again when \
            the worker connects) unless --allow-private-origins.

            Progress shows on stderr (a line per 10 % of each download), or with --json one \
            JSON event per line on stdout, as `download --json` prints them.

            Examples:
              carryon worker --name rack-3 --tasks 4
              CARRYON_INDEX=postgres://carryon@db.internal/carryon carryon worker --library /mnt/fleet/library
            """
    )

    @Option(help: ArgumentHelp("Downloads run at once (1 to 64).", valueName: "n"))
    var tasks: Int = 2

    @Option(help: ArgumentHelp("The worker's name, shown beside each download it runs (default: `carryon worker`).", valueName: "name"))
    var name: String?

    @Flag(help: "Print one JSON event per line instead of progress notes.")
    var json = false

    @Flag(name: .customLong("allow-private-origins"), help: ArgumentHelp(
        "Download from this machine, its loopback and link-local addresses (169.254.0.0/16) too; without it they are refused, at every level of a stream, behind redirects and at connect time, since whoever fills the queue (any daemon's API) must not make the worker fetch them."))
    var allowPrivateOrigins = false

    @OptionGroup var library: LibraryOptions

    @OptionGroup var transfer: TransferOptions

    @OptionGroup var ownership: OwnershipOptions

    func validate() throws {
        guard (1...64).contains(tasks) else { throw ValidationError("--tasks must be between 1 and 64") }
        if let name, name.isEmpty || name.count > 100 || name.contains(where: \.isNewline) {
            throw ValidationError("--name must be 1 to 100 characters on one line")
        }
    }

    func run() async throws {
        let library = try self.library.open()
        var configuration = DownloadSession.Configuration(maximumConcurrentTasks: tasks)
        configuration.name = name
        transfer.configure(&configuration)
        ownership.configure(&configuration)
        // The queue is filled by others (any daemon's API): what they queue must not lead the
        // worker to its own host or link, unless told it may.
        configuration.locationRule.refusesPrivateHosts = !allowPrivateOrigins
        configuration.network.refusesPrivateAddresses = !allowPrivateOrigins
        let session = try await openSession(library, configuration)
        let stop = SignalWaiter(signals: [SIGINT, SIGTERM])
        let display = ProgressDisplay(json: json)
        let events = await session.events(followingOtherProcesses: false)
        let watcher = Task {
            for await event in events {
                display.show(event)
                guard !json else { continue }
                switch event {
                case .stateChanged(let id, .running): printNote("\(id): running")
                case .finished(let id, _): printNote("\(id): completed")
                case .failed(let id, let error): printNote("\(id): failed: \(error.message)")
                case .stateChanged(let id, let state) where state != .completed: printNote("\(id): \(state.rawValue)")
                default: break
                }
            }
        }
        do {
            try await session.joinFleet()
        } catch {
            await session.shutdown()
            throw fail(error)
        }
        if !json {
            printNote("working for the fleet as \(name ?? "carryon worker") (pid \(getpid())), \(tasks) at a time, on \(library.root.path) (index: \(library.indexLocation)); SIGTERM or Ctrl-C hands its downloads back to the queue")
        }
        let signal = await stop.wait()
        if !json { printNote("stopping (\(signal == SIGTERM ? "SIGTERM" : "interrupted")): handing running downloads back to the queue") }
        await session.shutdown()
        await watcher.value
        display.finishLine()
    }
}

/// Waits for the first of `signals`, which no longer stop the process by themselves.
final class SignalWaiter: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private let stream: AsyncStream<Int32>

    init(signals: [Int32]) {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        self.stream = stream
        let queue = DispatchQueue(label: "carryon.signals")
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    /// The signal that came first.
    func wait() async -> Int32 {
        for await number in stream {
            for source in sources { source.cancel() }
            return number
        }
        return SIGTERM
    }
}

/// `carryon workers`: the fleet's workers alive now.
struct Workers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workers",
        abstract: "List the fleet's workers alive now: who runs a download queued with `carryon enqueue`.",
        discussion: """
            Every `carryon worker` and `carryon serve --worker` whose heartbeat in the library's \
            index is current (renewed every few seconds while it runs, idle or not), on this \
            machine or any other that shares the index, the longest-running first: its name, \
            process id and host, since when it works, and how many downloads it runs now. A \
            worker that stops leaves at once; one that dies, once its heartbeat runs out (30 s \
            after the last; at once when read on its own machine). With none, a download \
            queued now waits until a worker starts. A process of an earlier release does not say \
            whether it works for the fleet: it is listed, marked `*`, as one that may. It \
            writes no row of the index (a new or older library's index is made or migrated \
            first, as by any command).

            Examples:
              carryon workers
              CARRYON_INDEX=postgres://carryon@db.internal/carryon carryon workers --json
            """
    )

    @Flag(help: "Print {\"workers\": [{\"name\", \"host\", \"pid\", \"since\", \"running\", \"earlierRelease\", \"description\"}, …]} instead of a table.")
    var json = false

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        let library = try library.open(existing: true)
        let workers: [FleetWorker]
        do { workers = try await library.fleetWorkers() } catch { throw fail(error) }
        if json {
            try printJSON(["workers": workers])
            return
        }
        guard !workers.isEmpty else {
            print("No worker runs now: a download queued with `carryon enqueue` waits until one starts (`carryon worker`).")
            return
        }
        let formatter = ISO8601DateFormatter()
        var table = TextTable(["NAME", "PID", "HOST", "SINCE", "RUNNING"])
        for worker in workers {
            table.add([(worker.name ?? "-") + (worker.earlierRelease ? " *" : ""), "\(worker.pid)", worker.host,
                       formatter.string(from: worker.since), "\(worker.running)"])
        }
        print(table.render(indent: 0), terminator: "")
        if workers.contains(where: \.earlierRelease) {
            print("* a process of an earlier release, which does not say whether it works for the fleet: it may.")
        }
    }
}
