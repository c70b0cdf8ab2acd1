import AsyncHTTPClient
import Foundation

import HLS
import Logging
import NIOCore
import NIOFileSystem

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
    var machines: [String: DownloadTaskStateMachine] = [:]
    var running: [String: Task<Void, Never>] = [:]
    var queue: [String] = []
    var locks: [String: FileLock] = [:]
    var trackers: [String: ProgressTracker] = [:]
    /// The renditions whose completion each running task has reported: several resources of a
    /// rendition can finish while one of them is between awaits, and each then sees none left.
    var reportedRenditions: [String: Set<String>] = [:]
    /// For each running task, the byte ranges still to come of each shared file (a file that
    /// segments address by ranges): counted here, not read back from the index after every
    /// range, which made a 90 000-range file cost 90 000 squared row reads.
    var rangesLeft: [String: [String: Int]] = [:]
    /// For each running task, its renditions' durations, for the time-range events.
    var renditionDurations: [String: [String: Double]] = [:]
    var lastProgressEvent: [String: Double] = [:]
    /// The last error of each task, also kept here because recording it in the index can fail
    /// for the same reason the task did (a full disk).
    var lastErrors: [String: CarryonError] = [:]
    /// The storage rules every transfer's chunks are charged against as they arrive.
    let budget: ByteBudget
    /// How a running task fetches: set while its transfer runs, so that playback can ask for a
    /// resource out of turn.
    var transfers: [String: (fetcher: ResourceFetcher, bundle: URL)] = [:]
    /// Fetches under way, by resource id: the transfer and playback wait on the same one, so
    /// a resource is never fetched twice.
    var fetches: [Int64: SharedFetch] = [:]
    /// Fetches every waiter left, until they have stopped writing.
    var cancelledFetches: [Int64: (generation: UUID, task: Task<Void, Never>)] = [:]
    var subscribers: [UUID: AsyncStream<DownloadEvent>.Continuation] = [:]
    var finishWaiters: [String: [CheckedContinuation<DownloadState, Never>]] = [:]
    var isShutDown = false

    /// Opens a session over `library`. Tasks recorded as running whose process is gone (no
    /// process holds their lock) come back suspended.
    public init(library: OfflineLibrary, configuration: Configuration = Configuration(), logger: Logger? = nil) async throws(CarryonError) {
        self.library = library
        self.index = library.index
        self.configuration = configuration
        self.logger = logger ?? Logger(label: "carryon.session")
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.redirectConfiguration = .follow(max: configuration.maximumRedirects, allowCycles: false)
        clientConfiguration.connectionPool = .init(idleTimeout: .seconds(60),
                                                   concurrentHTTP1ConnectionsPerHostSoftLimit: configuration.maximumConnectionsPerHost)
        clientConfiguration.decompression = .disabled
        // A refused or failed connection is an error for RetryPolicy to back off from and
        // report; left to the client, it retried silently until each request's timeout (about
        // 100 s before a download to a closed port said anything).
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        self.requests = AsyncSemaphore(configuration.maximumConcurrentRequests)
        self.budget = ByteBudget(disk: configuration.diskSpace ?? .fileSystem(at: library.root.path))
        try await recoverCrashedTasks()
    }

    deinit {
        // A session released without `shutdown()` — a caller's early return or throw, or this
        // initializer failing after the client was made — must not take the process down:
        // AsyncHTTPClient traps when a client that is still running is released. Its
        // asynchronous shutdown keeps the client alive until it has finished.
        if !isShutDown { client.shutdown { _ in } }
    }

    /// Suspends running tasks (they resume in a later session) and releases the HTTP client.
    public func shutdown() async {
        guard !isShutDown else { return }
        isShutDown = true
        queue.removeAll()
        for id in Array(running.keys) { try? await suspend(id) }
        for task in Array(running.values) { await task.value }
        try? await client.shutdown()
        for continuation in subscribers.values { continuation.finish() }
        subscribers.removeAll()
    }

    // MARK: Events

    /// A stream of every task's events from now on. Each call makes a new stream.
    public func events() -> AsyncStream<DownloadEvent> {
        let (stream, continuation) = AsyncStream<DownloadEvent>.makeStream(bufferingPolicy: .bufferingNewest(4096))
        let id = UUID()
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        return stream
    }

    func unsubscribe(_ id: UUID) {
        subscribers[id] = nil
    }

    func emit(_ event: DownloadEvent) {
        for continuation in subscribers.values { continuation.yield(event) }
    }

    // MARK: Tasks

    /// Creates a task for the stream at `url` (a multivariant or media playlist; http, https or
    /// file). It does not start until ``DownloadTask/resume()``.
    public func makeTask(url: String, name: String? = nil, options: DownloadOptions = DownloadOptions(),
                         headers: [HTTPHeader] = []) async throws(CarryonError) -> DownloadTask {
        let absolute = try PlaylistFetcher.absoluteURL(for: url)
        let id = Self.makeID()
        let now = Date()
        let record = AssetRecord(id: id, name: name ?? Self.defaultName(for: absolute), url: absolute, state: .suspended,
                                 errorMessage: nil, options: options, headers: headers, selection: nil, planned: false,
                                 createdAt: now, updatedAt: now, completedAt: nil, duration: nil)
        try await index.insert(record)
        machines[id] = DownloadTaskStateMachine(state: .suspended)
        return DownloadTask(id: id, session: self)
    }

    /// Every task the library knows, oldest first.
    public func tasks() async throws(CarryonError) -> [DownloadTask] {
        try await index.assetIDs().map { DownloadTask(id: $0, session: self) }
    }

    /// The task with `id` (the whole id, or a unique prefix of it).
    public func task(id: String) async throws(CarryonError) -> DownloadTask {
        DownloadTask(id: try await resolveID(id), session: self)
    }

    /// Resolves a full id or a unique prefix.
    func resolveID(_ text: String) async throws(CarryonError) -> String {
        try await library.resolveID(text)
    }

    func machine(_ id: String) async throws(CarryonError) -> DownloadTaskStateMachine {
        if let machine = machines[id] { return machine }
        guard let state = try await index.state(of: id) else {
            throw CarryonError(.unknownAsset, "no asset has the id \(id)")
        }
        let machine = DownloadTaskStateMachine(state: state)
        machines[id] = machine
        return machine
    }

    func resume(_ id: String) async throws(CarryonError) {
        var machine = try await machine(id)
        let action: DownloadTaskStateMachine.Action
        do { action = try machine.resume() } catch { throw CarryonError(.invalidState, "\(id): \(error)") }
        try await setState(id, machine)
        lastErrors[id] = nil
        if action == .enqueue, running[id] == nil, !queue.contains(id) {
            queue.append(id)
            schedule()
        }
    }

    func suspend(_ id: String) async throws(CarryonError) {
        // Another process's download is its own to suspend: writing its state here would leave
        // it downloading under a state that says it is not.
        if running[id] == nil, isDownloadedElsewhere(id) {
            throw CarryonError(.busy, "\(id) is being downloaded by another process; only that process can suspend it")
        }
        var machine = try await machine(id)
        let action = machine.suspend()
        try await setState(id, machine)
        queue.removeAll { $0 == id }
        if action == .stopTransfer { running[id]?.cancel() }
        if running[id] == nil { notifyFinished(id, machine.state) }
    }

    func cancel(_ id: String) async throws(CarryonError) {
        var machine = try await machine(id)
        let action: DownloadTaskStateMachine.Action
        do { action = try machine.cancel() } catch { throw CarryonError(.invalidState, "\(id): \(error)") }
        queue.removeAll { $0 == id }
        if let task = running[id] {
            task.cancel()
            await task.value
        }
        try await setState(id, machine)
        if action == .stopAndRemoveData {
            try await removeData(id)
        }
        notifyFinished(id, .cancelled)
    }

    /// Removes an asset: its bundle and its rows. A running task is stopped first.
    ///
    /// - Throws: ``CarryonError/Code/busy`` when another process is downloading the asset (its
    ///   files are in use there: it must stop first). A player reading it through a
    ///   playback server gets 404s from then on.
    public func delete(_ id: String) async throws(CarryonError) {
        let id = try await resolveID(id)
        if running[id] == nil, isDownloadedElsewhere(id) {
            throw CarryonError(.busy, "\(id) is being downloaded by another process; it must stop before the asset is deleted")
        }
        queue.removeAll { $0 == id }
        if let task = running[id] {
            machines[id] = DownloadTaskStateMachine(state: .cancelled)
            task.cancel()
            await task.value
        }
        try await removeData(id)
        try await index.deleteAsset(id)
        AssetLogs(library: library).remove(id)
        machines[id] = nil
        trackers[id] = nil
        reportedRenditions[id] = nil
        rangesLeft[id] = nil
        renditionDurations[id] = nil
        notifyFinished(id, .cancelled)
    }

    /// Whether another process (or session) holds the asset's bundle lock, downloading it.
    private func isDownloadedElsewhere(_ id: String) -> Bool {
        locks[id] == nil && FileLock.isHeld(path: library.bundleURL(for: id).appendingPathComponent(".lock").path)
    }

    func waitUntilFinished(_ id: String) async -> DownloadState {
        if running[id] == nil && !queue.contains(id) {
            return (try? await machine(id).state) ?? .cancelled
        }
        return await withCheckedContinuation { continuation in
            finishWaiters[id, default: []].append(continuation)
        }
    }

    func notifyFinished(_ id: String, _ state: DownloadState) {
        guard running[id] == nil, !queue.contains(id) else { return }
        for waiter in finishWaiters.removeValue(forKey: id) ?? [] { waiter.resume(returning: state) }
    }

    func setState(_ id: String, _ machine: DownloadTaskStateMachine, error: String? = nil) async throws(CarryonError) {
        let previous = machines[id]?.state
        machines[id] = machine
        let state = machine.state
        try await index.setState(state, of: id, error: error, at: Date())
        if previous != state { emit(.stateChanged(taskID: id, state: state)) }
    }

    func removeData(_ id: String) async throws(CarryonError) {
        locks[id] = nil
        try await index.forgetPlan(of: id)
        let bundle = library.bundleURL(for: id)
        if FileManager.default.fileExists(atPath: bundle.path) {
            do { try FileManager.default.removeItem(at: bundle) } catch {
                throw CarryonError(.disk, "cannot remove \(bundle.path): \(error.localizedDescription)", cause: error)
            }
        }
    }

    // MARK: Scheduling

    func schedule() {
        guard !isShutDown else { return }
        while running.count < configuration.maximumConcurrentTasks, !queue.isEmpty {
            let id = queue.removeFirst()
            guard var machine = machines[id], (try? machine.start()) != nil else { continue }
            machines[id] = machine
            running[id] = Task { await self.run(id) }
        }
    }

    func run(_ id: String) async {
        let outcome: Result<Void, CarryonError>
        do {
            try await setState(id, machines[id] ?? DownloadTaskStateMachine(state: .running))
            try await perform(id)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        running[id] = nil
        locks[id] = nil
        trackers[id]?.resetInFlight()
        var machine = machines[id] ?? DownloadTaskStateMachine(state: .running)
        switch outcome {
        case .success:
            if machine.state == .running {
                _ = try? machine.complete()
                try? await setState(id, machine)
                try? await writeManifest(id)
                emit(.finished(taskID: id, location: library.bundleURL(for: id)))
            }
        case .failure(let error) where error.code == .cancelled:
            // Suspended or cancelled: the state was set by whoever stopped the task. A task
            // still running was stopped by no one; it must not stay "running" with nothing
            // downloading, where `resume` would do nothing.
            if machine.state == .running {
                _ = machine.suspend()
                let stopped = CarryonError(.transfer, "the transfer stopped without being asked to; resume goes on")
                lastErrors[id] = stopped
                await logError(stopped, for: id)
                try? await setState(id, machine, error: stopped.message)
            }
        case .failure(let failure):
            let error = needing(failure, id)
            if machine.state == .running {
                // A stall is the server's fault and a storage rule the library's, not the
                // download's: suspended with what arrived kept, for `resume` once the server
                // answers again or there is room. Anything else fails the task.
                let suspends = error.code == .stalled || error.code == .storage
                _ = suspends ? machine.suspend() : machine.fail()
                lastErrors[id] = error
                machines[id] = machine
                await logError(error, for: id)
                try? await setState(id, machine, error: error.message)
                if !suspends { emit(.failed(taskID: id, error: error)) }
            }
        }
        notifyFinished(id, machines[id]?.state ?? machine.state)
        schedule()
    }

    /// A full disk's error, with how much more the download needs.
    private func needing(_ error: CarryonError, _ id: String) -> CarryonError {
        guard error.code == .disk, let progress = trackers[id]?.snapshot(at: Self.now()) else { return error }
        let left = max(0, progress.bytesExpected - progress.bytesDone)
        return CarryonError(error.code, "\(error.message); the download still needs \(progress.isExact ? "" : "about ")\(left) more bytes",
                            cause: error.cause)
    }

    /// Writes a task's failure to its error log.
    func logError(_ error: CarryonError, for id: String) async {
        let url = (try? await index.asset(id))??.url
        AssetLogs(library: library).error(.init(date: Date(), event: "download", uri: url ?? id, errorDomain: "carryon",
                                                errorCode: error.code.rawValue, comment: error.message), for: id)
    }

    // MARK: Recovery

    func recoverCrashedTasks() async throws(CarryonError) {
        for id in try await index.interruptedAssetIDs() where !FileLock.isHeld(path: library.bundleURL(for: id).appendingPathComponent(".lock").path) {
            var machine = DownloadTaskStateMachine(state: .running)
            _ = machine.recoverAfterCrash()
            do {
                try await index.suspendIfInterrupted(id)
            } catch where error.code == .disk {
                // On a full disk the session still opens, to read: the task is suspended here,
                // and recorded so by the first session that has room to.
                logger.warning("a crashed task's state cannot be recorded", metadata: ["asset": "\(id)", "error": "\(error.message)"])
            }
            machines[id] = machine
        }
    }

    static func makeID() -> String {
        let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")
        var generator = SystemRandomNumberGenerator()
        return String((0..<10).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }

    static func defaultName(for url: String) -> String {
        var path = Substring(url)
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        let parts = path.split(separator: "/").filter { !$0.isEmpty }
        guard let last = parts.last else { return url }
        if ["main.m3u8", "master.m3u8", "index.m3u8", "playlist.m3u8", "prog_index.m3u8"].contains(last.lowercased()), parts.count >= 2 {
            return String(parts[parts.count - 2])
        }
        return last.hasSuffix(".m3u8") ? String(last.dropLast(5)) : String(last)
    }
}
