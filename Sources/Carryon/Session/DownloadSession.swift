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
    nonisolated let client: HTTPClient
    let logger: Logger
    let requests: AsyncSemaphore
    /// Every task this session has touched: its life cycle and, while it runs here, its run.
    var tasks: [String: SessionTask] = [:]
    /// Tasks waiting for room, in order.
    var queue: [String] = []
    /// Queued tasks that may not start before a time: their stream did not answer, and they
    /// try again then (``deferStart(_:after:)``).
    var notBefore: [String: ContinuousClock.Instant] = [:]
    /// When the scheduler is next woken for a task whose time has come.
    var wakeAt: ContinuousClock.Instant?
    /// The storage rules every transfer's chunks are charged against as they arrive.
    let budget: ByteBudget
    /// Fetches under way, by resource id: the transfer and playback wait on the same one, so
    /// a resource is never fetched twice.
    var fetches: [Int64: SharedFetch] = [:]
    /// Fetches every waiter left, until they have stopped writing.
    var cancelledFetches: [Int64: (generation: UInt64, task: Task<Void, Never>)] = [:]
    /// The last number handed out to tell fetches and their waiters apart.
    var tickets: UInt64 = 0
    var subscribers: [UUID: AsyncStream<DownloadEvent>.Continuation] = [:]
    var finishWaiters: [String: [CheckedContinuation<DownloadState, Never>]] = [:]
    /// Tasks whose run has ended and whose end is being recorded: their state still says
    /// running, so ``waitUntilFinished(_:)`` waits for the recorded end rather than answer that.
    var finishing: Set<String> = []
    var isShutDown = false

    /// Opens a session over `library`. Tasks recorded as running whose process is gone (no
    /// process holds their lock) come back suspended.
    ///
    /// Call ``shutdown()`` when done, or use ``withDownloadSession(library:configuration:logger:_:)``.
    public init(library: OfflineLibrary, configuration: Configuration = Configuration(), logger: Logger? = nil) async throws(CarryonError) {
        self.library = library
        self.index = library.index
        self.configuration = configuration
        self.logger = logger ?? Logger(label: "carryon.session")
        self.client = HTTPClient(eventLoopGroupProvider: .shared(Self.transferLoops),
                                 configuration: .carryon(maximumRedirects: configuration.maximumRedirects,
                                                         connectionsPerHost: configuration.connectionsPerHost))
        self.requests = AsyncSemaphore(configuration.adaptsConcurrency
            ? max(configuration.maximumConcurrentRequests, configuration.maximumConnections) : configuration.maximumConcurrentRequests)
        self.budget = ByteBudget(disk: configuration.diskSpace ?? .fileSystem(at: library.root.path))
        try await recoverCrashedTasks()
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
        // initializer failing after the client was made — must not take the process down:
        // AsyncHTTPClient traps when a client that is still running is released. Its
        // asynchronous shutdown keeps the client alive until it has finished.
        if !isShutDown { client.shutdown { _ in } }
    }

    /// Suspends running tasks (they resume in a later session) and releases the HTTP client.
    /// Tasks still waiting for room stay waiting, in the library, for a later session. Every
    /// ``DownloadTask/waitUntilFinished()`` is answered before it returns.
    public func shutdown() async {
        guard !isShutDown else { return }
        isShutDown = true
        let queued = queue
        queue.removeAll()
        for id in queued { notifyFinished(id, tasks[id]?.machine.state ?? .waiting) }
        let running = tasks.compactMap { $0.value.run == nil ? nil : $0.key }
        for id in running { try? await suspend(id) }
        for id in running { await tasks[id]?.run?.work.value }
        // Runs that ended just before, still recording how.
        for id in finishing { await settle(id) }
        await stopFetches()
        try? await client.shutdown()
        for continuation in subscribers.values { continuation.finish() }
        subscribers.removeAll()
        for (id, waiters) in finishWaiters {
            for waiter in waiters { waiter.resume(returning: tasks[id]?.machine.state ?? .cancelled) }
        }
        finishWaiters.removeAll()
    }

    // MARK: The life cycle

    /// The state machine of task `id`: this session's, else the one its recorded state gives.
    func machine(_ id: String) async throws(CarryonError) -> DownloadTaskStateMachine {
        if let task = tasks[id] { return task.machine }
        guard let state = try await index.state(of: id) else {
            throw CarryonError(.unknownAsset, "no asset has the id \(id)")
        }
        let machine = DownloadTaskStateMachine(state: state)
        tasks[id] = SessionTask(machine: machine)
        return machine
    }

    /// Records the state `machine` has reached for task `id`, and tells observers if it changed.
    func setState(_ id: String, _ machine: DownloadTaskStateMachine, error: String? = nil) async throws(CarryonError) {
        let previous = tasks[id]?.machine.state
        if tasks[id] == nil { tasks[id] = SessionTask(machine: machine) } else { tasks[id]?.machine = machine }
        try await index.setState(machine.state, of: id, error: error, at: Date())
        if previous != machine.state { emit(.stateChanged(taskID: id, state: machine.state)) }
    }

    /// Does what a transition of task `id`'s machine asks: every action the machine returns is
    /// performed here (the scheduler, which cannot wait, starts a run through the same
    /// `startRun` that `startTransfer` performs).
    func perform(_ action: DownloadTaskStateMachine.Action, for id: String) async throws(CarryonError) {
        switch action {
        case .none:
            break
        case .enqueue:
            notBefore[id] = nil
            if tasks[id]?.run == nil, !queue.contains(id) {
                queue.append(id)
                schedule()
            }
        case .startTransfer:
            startRun(id)
        case .stopTransfer:
            queue.removeAll { $0 == id }
            tasks[id]?.run?.work.cancel()
        case .stopAndRemoveData:
            queue.removeAll { $0 == id }
            if let run = tasks[id]?.run {
                run.work.cancel()
                await run.work.value
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

    // MARK: Scheduling

    func schedule() {
        guard !isShutDown else { return }
        let now = ContinuousClock.now
        while tasks.values.count(where: { $0.run != nil }) < configuration.maximumConcurrentTasks,
              let index = queue.firstIndex(where: { notBefore[$0].map { $0 <= now } ?? true }) {
            let id = queue.remove(at: index)
            notBefore[id] = nil
            guard var machine = tasks[id]?.machine, let action = try? machine.start() else { continue }
            tasks[id]?.machine = machine
            if action == .startTransfer { startRun(id) }
        }
        // A task waiting for its time is started when it comes.
        if let next = queue.compactMap({ notBefore[$0] }).min(), wakeAt.map({ next < $0 }) ?? true {
            wakeAt = next
            Task { [weak self] in
                try? await Task.sleep(until: next)
                await self?.wake(at: next)
            }
        }
    }

    private func wake(at instant: ContinuousClock.Instant) {
        if wakeAt == instant { wakeAt = nil }
        schedule()
    }

    /// Task `id`'s run ended before the task had a plan because its stream did not answer
    /// (`error`, whose cause is a ``PlaylistFetcher/RetryLater``): the task waits in the queue
    /// again, holding no slot, until the retry policy's next delay (or the server's
    /// `Retry-After`) has passed. False when the policy says not to wait that long.
    private func deferStart(_ id: String, _ error: CarryonError, machine: inout DownloadTaskStateMachine) async -> Bool {
        guard let later = error.cause as? PlaylistFetcher.RetryLater, !isShutDown else { return false }
        let attempt = (tasks[id]?.startAttempts ?? 0) + 1
        guard case .retry(let delay) = configuration.retry.decision(afterAttempt: attempt, retryAfter: later.retryAfter,
                                                                    randomUnit: Double.random(in: 0...1)),
              (try? machine.deferStart()) != nil else { return false }
        tasks[id]?.startAttempts = attempt
        AssetLogs(library: library).error(.init(date: Date(), event: "download", uri: (try? await index.asset(id))??.url ?? id,
                                                errorDomain: "carryon", errorCode: error.code.rawValue,
                                                comment: "\(error.message); trying again in \(delay), holding no task slot meanwhile"), for: id)
        try? await setState(id, machine)
        notBefore[id] = ContinuousClock.now + delay
        queue.append(id)
        return true
    }

    /// Starts task `id`'s run: what the machine's `startTransfer` asks for.
    private func startRun(_ id: String) {
        let work = Task { await self.run(id) }
        tasks[id]?.run = TaskRun(work: work, bundle: library.bundleURL(for: id))
    }

    func run(_ id: String) async {
        let outcome: Result<Void, CarryonError>
        do {
            if let machine = tasks[id]?.machine { try await setState(id, machine) }
            try await perform(id)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        // The run is over whatever ended it: what it owned goes (the bundle's lock with it),
        // so the actions below find no run to stop.
        let run = tasks[id]?.run
        tasks[id]?.run = nil
        finishing.insert(id)
        if let progress = run?.finalProgress() { tasks[id]?.lastProgress = progress }
        if var machine = tasks[id]?.machine, machine.state == .running {
            switch outcome {
            case .success:
                let action = (try? machine.complete()) ?? .none
                try? await setState(id, machine)
                try? await perform(action, for: id)
            case .failure(let error) where error.code == .cancelled:
                // Suspended or cancelled, the state was set by whoever stopped the task; one
                // still running was stopped by no one. It must not stay "running" with nothing
                // downloading, where `resume` would do nothing.
                let action = machine.suspend()
                let stopped = CarryonError(.transfer, "the transfer stopped without being asked to; resume goes on")
                await stop(id, with: stopped)
                try? await setState(id, machine, error: stopped.message)
                try? await perform(action, for: id)
            case .failure(let failure):
                // A stream that did not answer before the task had a plan: tried again later,
                // the slot given to the next task meanwhile.
                if await deferStart(id, failure, machine: &machine) { break }
                // A stall is the server's fault and a storage rule the library's, not the
                // download's: suspended with what arrived kept, for `resume` once the server
                // answers again or there is room. Anything else fails the task.
                let error = needing(failure, id)
                let action = error.code == .stalled || error.code == .storage ? machine.suspend() : machine.fail()
                await stop(id, with: error)
                try? await setState(id, machine, error: error.message)
                try? await perform(action, for: id)
            }
        }
        if !queue.contains(id) { tasks[id]?.startAttempts = 0 }
        finishing.remove(id)
        notifyFinished(id, tasks[id]?.machine.state ?? .cancelled)
        schedule()
    }

    /// Keeps `error` as what stopped task `id`, and writes it to the task's error log.
    private func stop(_ id: String, with error: CarryonError) async {
        tasks[id]?.lastError = error
        let url = (try? await index.asset(id))??.url
        AssetLogs(library: library).error(.init(date: Date(), event: "download", uri: url ?? id, errorDomain: "carryon",
                                                errorCode: error.code.rawValue, comment: error.message), for: id)
    }

    /// A full disk's error, with how much more the download needs.
    private func needing(_ error: CarryonError, _ id: String) -> CarryonError {
        guard error.code == .disk, let progress = (tasks[id]?.run?.tracker ?? tasks[id]?.lastProgress)?.snapshot(at: Self.now()) else {
            return error
        }
        let left = max(0, progress.bytesExpected - progress.bytesDone)
        return CarryonError(error.code, "\(error.message); the download still needs \(progress.isExact ? "" : "about ")\(left) more bytes",
                            cause: error.cause)
    }

    // MARK: Recovery

    /// Tasks recorded as running or waiting whose process is gone (no process holds their
    /// bundle's lock) are recorded suspended: their process died mid-download.
    func recoverCrashedTasks() async throws(CarryonError) {
        for id in try await index.interruptedAssetIDs() where !FileLock.isHeld(path: library.bundleURL(for: id).appending(path: ".lock", directoryHint: .notDirectory).path) {
            guard var machine = try? await machine(id) else { continue }
            // A running task's process died; a waiting one's queue died with its process.
            let action = machine.state == .running ? machine.recoverAfterCrash() : machine.suspend()
            do {
                try await index.suspendIfInterrupted(id)
            } catch where error.code == .disk {
                // On a full disk the session still opens, to read: the task is suspended here,
                // and recorded so by the first session that has room to.
                logger.warning("a crashed task's state cannot be recorded", metadata: ["asset": "\(id)", "error": "\(error.message)"])
            }
            tasks[id]?.machine = machine
            // Nothing runs here yet: recovery asks for nothing to be done, and that is done.
            try await perform(action, for: id)
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
