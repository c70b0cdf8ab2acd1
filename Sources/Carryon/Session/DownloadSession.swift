import AsyncHTTPClient
import Foundation
import HLS
import Logging
import NIOCore
import NIOFileSystem
import NIOPosix

/// Runs download tasks over an ``OfflineLibrary``, with bounded concurrency, retries and resume.
/// The counterpart of AVAssetDownloadURLSession with a background configuration: tasks live in
/// the library, so after a restart — even after `kill -9` — ``tasks()`` lists them with their
/// state and progress, and a task that was running comes back suspended, ready to ``DownloadTask/resume()``.
///
/// The library's index decides who runs what (see ``Configuration/lease``): a session claims
/// the tasks it queued, holds each under a lease it renews, and any process may steer them
/// (suspend, cancel, delete: the request is recorded and this session applies it). Several
/// processes — a daemon, a terminal, a script — work on one library without stepping on each
/// other's downloads: resuming one that another process runs or has queued answers
/// ``CarryonError/Code/busy`` and changes nothing.
///
/// ```swift
/// let library = try OfflineLibrary(root: OfflineLibrary.defaultRoot())
/// let session = try await DownloadSession(library: library)
/// let task = try await session.makeTask(url: "https://example.com/main.m3u8", name: "Example",
///                                       options: DownloadOptions(maximumResolution: .init(width: 1280, height: 720)))
/// Task {
///     for await event in await session.events() {
///         if case .progress(_, let progress) = event { print(progress.fraction) }
///     }
/// }
/// try await task.resume()
/// print(await task.waitUntilFinished())
/// await session.shutdown()
/// ```
///
/// ``withDownloadSession(library:configuration:logger:_:)`` opens a session for the length of a
/// closure and always shuts it down.
public actor DownloadSession {
    /// The library the session downloads into; its index records every task.
    public nonisolated let library: OfflineLibrary
    /// The library's index.
    nonisolated let index: any AssetIndex
    /// How the session runs its tasks, as given when it was opened.
    public nonisolated let configuration: Configuration
    /// The clients the session's requests go through: its trust and proxies (``Configuration/network``).
    nonisolated let network: Network
    let logger: Logger
    let requests: AsyncSemaphore
    /// Every task this session has touched: its life cycle and what it does here.
    var tasks: [String: SessionTask] = [:]
    /// The session's claims, leases and requests in the index.
    nonisolated let scheduler: TaskScheduler
    /// The storage rules every transfer's chunks are charged against as they arrive.
    let budget: ByteBudget
    /// Fetches under way, shared by the transfer and playback.
    var fetches = FetchRegistry()
    /// Every event, to every subscriber.
    nonisolated let fanout = EventFanout()
    /// The loop that renews leases, applies requests, starts queued tasks whose time has come
    /// and follows other processes' downloads; started by the first queued task or subscriber.
    var steering: Task<Void, Never>?
    /// Whether claims are being made now, and whether another pass was asked for meanwhile.
    var filling = (now: false, again: false)
    /// Following other processes' downloads for subscribers: the index's change signals
    /// (``AssetIndex/changes()``; none on SQLite), whether one came since the last read, and
    /// when the index was last read for them.
    var following = Following()
    /// Whether the session claims the fleet's queued tasks (``joinFleet()``).
    var worksForFleet = false
    /// The tasks this session claimed from the fleet's queue: handed back to it, not suspended,
    /// when the session shuts down.
    var fleetTasks: Set<String> = []
    var isShutDown = false
    /// Keys the user gave for an asset (``hold(_:for:requiringUse:)``), in memory until its
    /// keys are obtained, and the KIDs among them the stream must use.
    var givenKeys: [String: (keys: HeldKeys, required: Set<String>)] = [:]

    /// Opens a session over `library`. Nothing is written to the library until a task is
    /// resumed: opening a session changes no row another process holds.
    ///
    /// Call ``shutdown()`` when done, or use ``withDownloadSession(library:configuration:logger:_:)``.
    public init(library: OfflineLibrary, configuration: Configuration = Configuration(), logger: Logger? = nil) async throws(CarryonError) {
        self.library = library
        self.index = library.index
        self.configuration = configuration
        self.logger = logger ?? Logger(label: "carryon.session")
        self.network = try Network(settings: configuration.network, maximumRedirects: configuration.maximumRedirects,
                                   connectionsPerHost: configuration.connectionsPerHost, eventLoopGroup: Self.transferLoops)
        self.requests = AsyncSemaphore(configuration.adaptsConcurrency
            ? max(configuration.maximumConcurrentRequests, configuration.maximumConnections) : configuration.maximumConcurrentRequests)
        self.budget = ByteBudget(disk: configuration.diskSpace ?? .fileSystem(at: library.root.path))
        self.scheduler = TaskScheduler(index: library.index, lease: configuration.lease, checksProcesses: configuration.checksOwnerProcesses,
                                       label: configuration.name ?? Self.commandName)
    }

    /// What a session is called by default: the command that opened it (`carryon worker`),
    /// the program's name without its folder.
    static var commandName: String {
        let arguments = ProcessInfo.processInfo.arguments
        return ([arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "carryon"] + arguments.dropFirst().prefix(1))
            .joined(separator: " ")
    }

    /// The event loops every session's connections run on: the process's own group for
    /// downloads, apart from NIO's shared loops that servers in the process use (the daemon's
    /// API, playback), because these loops also write the bodies to disk as they arrive (see
    /// ``ResponseWriter``) and a disk slow to take them must not hold those servers up. One
    /// thread per core, made on first use and kept for the life of the process, as NIO's own
    /// shared loops are: a group per session would multiply threads and descriptors by the
    /// sessions a process holds (a test process holds dozens at once).
    static let transferLoops = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)

    deinit {
        // A session released without `shutdown()` — a caller's early return or throw, or this
        // initializer failing after the network was made — must not take the process down:
        // AsyncHTTPClient traps when a client that is still running is released. The network's
        // own deinit shuts its clients down, asynchronously.
        steering?.cancel()
    }

    /// Suspends running tasks (they resume in a later session) and releases the HTTP client.
    /// Tasks claimed from the fleet's queue (``joinFleet()``) go back to it instead, waiting for
    /// any worker to resume them.
    /// Tasks still waiting for room stay waiting, in the library, until this session's
    /// instance is gone from the index: then they read as suspended, for any process to
    /// resume. Every ``DownloadTask/waitUntilFinished()`` is answered before it returns.
    public func shutdown() async {
        guard !isShutDown else { return }
        isShutDown = true
        steering?.cancel()
        following.signals?.cancel()
        for (id, task) in tasks where task.isQueued {
            tasks[id]?.activity = .idle
            notifyFinished(id, .waiting)
        }
        let running = tasks.compactMap { $0.value.run == nil ? nil : $0.key }
        for id in running {
            if fleetTasks.contains(id) {
                // The fleet's: back in its queue, for any worker to resume from the bytes on disk
                // (its run's end sees the session shut down).
                tasks[id]?.run?.work.cancel()
            } else {
                _ = try? await suspend(id)
            }
        }
        for id in running { await tasks[id]?.run?.ended?.value }
        // Runs that ended just before, still recording how.
        for (id, task) in tasks where task.isFinishing { await settle(id) }
        await steering?.value
        // Requests being applied (a delete removing a bundle) finish before the session does.
        for task in tasks.values { await task.applying?.value }
        // In a task of its own: a shutdown called from a cancelled task still records these.
        await Task {
            for (id, task) in self.tasks where task.unrecordedEnd != nil { try? await self.recordUnrecordedEnd(id) }
            await self.scheduler.unregister()
        }.value
        await stopFetches()
        await network.shutdown()
        fanout.finish()
        for (id, task) in tasks {
            for waiter in task.waiters { waiter.resume(returning: task.machine.state) }
            tasks[id]?.waiters.removeAll()
        }
    }

    // MARK: The life cycle

    /// The state machine of task `id`: this session's while the task is active here, else the
    /// one the index gives now (another process may have changed it since).
    func machine(_ id: String) async throws(CarryonError) -> DownloadTaskStateMachine {
        if let task = tasks[id], task.knowsBest { return task.machine }
        guard let ownership = try await scheduler.ownership(of: id) else {
            throw CarryonError(.unknownAsset, "no asset has the id \(id)")
        }
        let machine = DownloadTaskStateMachine(state: ownership.effectiveState)
        if tasks[id] == nil { tasks[id] = SessionTask(machine: machine) } else { tasks[id]?.machine = machine }
        return machine
    }

    /// Records the end of task `id`'s last run that could not be recorded when it ended (a full
    /// disk), before anything else is asked of the task.
    func recordUnrecordedEnd(_ id: String) async throws(CarryonError) {
        guard let end = tasks[id]?.unrecordedEnd, let state = tasks[id]?.machine.state else { return }
        do {
            try await index.endRun(end.fence, state: state, error: end.error, requeueAt: nil, at: Date())
        } catch where error.cause is LostClaim {
            // Another process claimed it since: its state is that process's.
        }
        tasks[id]?.unrecordedEnd = nil
    }

    /// Keeps the state `machine` has reached for task `id` (the index was written by the claim,
    /// the run's end or the request that led here), and tells observers if it changed.
    func record(_ id: String, _ machine: DownloadTaskStateMachine) {
        let previous = tasks[id]?.machine.state
        if tasks[id] == nil { tasks[id] = SessionTask(machine: machine) } else { tasks[id]?.machine = machine }
        if previous != machine.state { emit(.stateChanged(taskID: id, state: machine.state)) }
    }

    /// Does what a transition of task `id`'s machine asks.
    func perform(_ action: DownloadTaskStateMachine.Action, for id: String) async throws(CarryonError) {
        switch action {
        case .none:
            break
        case .enqueue:
            await fill()
        case .startTransfer:
            // A transfer starts only from a claim (``fill()``): nothing else asks for one.
            break
        case .stopTransfer:
            tasks[id]?.run?.work.cancel()
        case .stopAndRemoveData:
            if let run = tasks[id]?.run {
                run.work.cancel()
                await run.ended?.value
            }
            try await removeData(id)
        case .finish:
            switch tasks[id]?.machine.state {
            case .completed?:
                do { try await writeManifest(id) } catch {
                    logger.warning("the bundle's manifest cannot be written", metadata: ["asset": "\(id)", "error": "\(error.message)"])
                }
                emit(.finished(taskID: id, location: library.bundleURL(for: id)))
            case .failed?:
                if let error = tasks[id]?.lastError { emit(.failed(taskID: id, error: error)) }
            default:
                break
            }
        }
    }
}

/// Opens a ``DownloadSession`` over `library`, runs `body` with it, and shuts it down whether
/// `body` returns or throws: its running tasks are suspended (they resume in a later session)
/// and its HTTP client is released.
///
/// ```swift
/// let library = try OfflineLibrary(root: OfflineLibrary.defaultRoot())
/// try await withDownloadSession(library: library) { session in
///     let task = try await session.makeTask(url: "https://example.com/main.m3u8")
///     try await task.resume()
///     print(await task.waitUntilFinished())
/// }
/// ```
public func withDownloadSession<Result: Sendable>(
    library: OfflineLibrary, configuration: DownloadSession.Configuration = .init(), logger: Logger? = nil,
    _ body: (DownloadSession) async throws -> Result
) async throws -> Result {
    let session = try await DownloadSession(library: library, configuration: configuration, logger: logger)
    do {
        let result = try await body(session)
        await session.shutdown()
        return result
    } catch {
        await session.shutdown()
        throw error
    }
}
