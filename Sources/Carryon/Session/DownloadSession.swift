import AsyncHTTPClient
import Foundation
import GRDB
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
    /// How a session runs its tasks.
    public struct Configuration: Sendable {
        /// Tasks downloading at once; others wait.
        public var maximumConcurrentTasks: Int
        /// Requests in flight at once, across all tasks.
        public var maximumConcurrentRequests: Int
        /// Requests in flight at once for one task.
        public var maximumRequestsPerTask: Int
        /// Connections to one host at once.
        public var maximumConnectionsPerHost: Int
        /// Redirects followed before a request fails.
        public var maximumRedirects: Int
        /// Retries with backoff for each request.
        public var retry: RetryPolicy
        /// How long one request may take.
        public var requestTimeout: Duration
        /// The largest playlist accepted.
        public var maximumPlaylistBytes: Int
        /// App code that supplies keys Carryon cannot fetch itself, by URI scheme (`skd`) or
        /// by `KEYFORMAT`.
        public var keyProviders: [String: any ContentKeyProvider] = [:]
        /// The lifetime given to keys whose provider does not say.
        public var keyLifetime = KeyLifetime()
        /// The app's own master key for the key store; by default the library's.
        public var masterKey: MasterKey?
        /// How long a request may receive nothing, or less than 1 KB/s on average, before it is
        /// a failed attempt (30 s by default, as aria2c's and yt-dlp's timeouts). It is retried
        /// like any other; when every attempt stalls the task is suspended with a message that
        /// names the resource, and ``DownloadTask/resume()`` continues from the bytes on disk.
        public var stallTimeout: Duration = .seconds(30)
        /// Whether a new task obtains its content keys before any media (the default: a key
        /// that cannot be had fails the task at once), or leaves them for
        /// ``DownloadSession/renewKeys(_:lifetime:onlyMissing:)`` after the download, as
        /// PRESTOplay offers both.
        public var prefetchKeys = true
        /// The disk the library lives on, for the storage rules that every written chunk is
        /// counted against; nil (the default): the library folder's file system. Tests give a
        /// disk of any size here without filling one.
        public var diskSpace: DiskSpace?

        /// A configuration with the given limits; each parameter sets the property of the same name.
        /// The defaults run 2 tasks at once with up to 8 requests in flight (8 for one task, 8
        /// connections to one host), follow 5 redirects, give a request 60 seconds, accept playlists
        /// up to 64 MiB, and retry with ``RetryPolicy``'s defaults. The key settings keep their
        /// defaults; set them on the value.
        public init(maximumConcurrentTasks: Int = 2, maximumConcurrentRequests: Int = 8, maximumRequestsPerTask: Int = 8,
                    maximumConnectionsPerHost: Int = 8, maximumRedirects: Int = 5, retry: RetryPolicy = RetryPolicy(),
                    requestTimeout: Duration = .seconds(60), maximumPlaylistBytes: Int = 64 << 20) {
            self.maximumConcurrentTasks = maximumConcurrentTasks
            self.maximumConcurrentRequests = maximumConcurrentRequests
            self.maximumRequestsPerTask = maximumRequestsPerTask
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            self.maximumRedirects = maximumRedirects
            self.retry = retry
            self.requestTimeout = requestTimeout
            self.maximumPlaylistBytes = maximumPlaylistBytes
        }
    }

    /// The library the session downloads into; its index records every task.
    public nonisolated let library: OfflineLibrary
    /// How the session runs its tasks, as given when it was opened.
    public nonisolated let configuration: Configuration
    nonisolated let client: HTTPClient
    let logger: Logger
    private let requests: AsyncSemaphore
    private var machines: [String: DownloadTaskStateMachine] = [:]
    private var running: [String: Task<Void, Never>] = [:]
    private var queue: [String] = []
    private var locks: [String: FileLock] = [:]
    private var trackers: [String: ProgressTracker] = [:]
    /// The renditions whose completion each running task has reported: several resources of a
    /// rendition can finish while one of them is between awaits, and each then sees none left.
    private var reportedRenditions: [String: Set<String>] = [:]
    /// For each running task, the byte ranges still to come of each shared file (a file that
    /// segments address by ranges): counted here, not read back from the index after every
    /// range, which made a 90 000-range file cost 90 000 squared row reads.
    private var rangesLeft: [String: [String: Int]] = [:]
    /// For each running task, its renditions' durations, for the time-range events.
    private var renditionDurations: [String: [String: Double]] = [:]
    private var lastProgressEvent: [String: Double] = [:]
    /// The last error of each task, also kept here because recording it in the index can fail
    /// for the same reason the task did (a full disk).
    private var lastErrors: [String: CarryonError] = [:]
    /// The storage rules every transfer's chunks are charged against as they arrive.
    private let budget: ByteBudget
    /// How a running task fetches: set while its transfer runs, so that playback can ask for a
    /// resource out of turn.
    private var transfers: [String: (fetcher: ResourceFetcher, bundle: URL)] = [:]
    /// Fetches under way, by resource id: the transfer and playback wait on the same one, so
    /// a resource is never fetched twice.
    private var fetches: [Int64: Task<Void, any Error>] = [:]
    private var subscribers: [UUID: AsyncStream<DownloadEvent>.Continuation] = [:]
    private var finishWaiters: [String: [CheckedContinuation<DownloadState, Never>]] = [:]
    private var isShutDown = false

    /// Opens a session over `library`. Tasks recorded as running whose process is gone (no
    /// process holds their lock) come back suspended.
    public init(library: OfflineLibrary, configuration: Configuration = Configuration(), logger: Logger? = nil) async throws(CarryonError) {
        self.library = library
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

    private func unsubscribe(_ id: UUID) {
        subscribers[id] = nil
    }

    private func emit(_ event: DownloadEvent) {
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
        try await write { db in try record.insert(db) }
        machines[id] = DownloadTaskStateMachine(state: .suspended)
        return DownloadTask(id: id, session: self)
    }

    /// Every task the library knows, oldest first.
    public func tasks() async throws(CarryonError) -> [DownloadTask] {
        // createdAt has millisecond precision; rowid orders tasks made within one millisecond.
        let ids = try await read { db in try String.fetchAll(db, sql: "SELECT id FROM asset ORDER BY createdAt, rowid") }
        return ids.map { DownloadTask(id: $0, session: self) }
    }

    /// The task with `id` (the whole id, or a unique prefix of it).
    public func task(id: String) async throws(CarryonError) -> DownloadTask {
        DownloadTask(id: try await resolveID(id), session: self)
    }

    /// Resolves a full id or a unique prefix.
    func resolveID(_ text: String) async throws(CarryonError) -> String {
        let matches = try await read { db in
            // instr, not LIKE: `%` and `_` in what the user typed are not patterns.
            try String.fetchAll(db, sql: "SELECT id FROM asset WHERE instr(lower(id), lower(?)) = 1 ORDER BY id", arguments: [text])
        }
        if matches.contains(text) { return text }
        guard !matches.isEmpty, !text.isEmpty else {
            throw CarryonError(.unknownAsset, "no asset has the id \(text)")
        }
        guard matches.count == 1 else {
            throw CarryonError(.unknownAsset, "\(text) is the start of several ids (\(matches.joined(separator: ", "))); give more of it")
        }
        return matches[0]
    }

    private func machine(_ id: String) async throws(CarryonError) -> DownloadTaskStateMachine {
        if let machine = machines[id] { return machine }
        guard let state = try await read({ db in try DownloadState.fetchOne(db, sql: "SELECT state FROM asset WHERE id = ?", arguments: [id]) }) else {
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
    /// - Throws: ``CarryonError/Code/invalidState`` when another process is downloading the
    ///   asset (its files are in use there: stop it first). A player reading it through a
    ///   playback server gets 404s from then on.
    public func delete(_ id: String) async throws(CarryonError) {
        let id = try await resolveID(id)
        if running[id] == nil, FileLock.isHeld(path: library.bundleURL(for: id).appendingPathComponent(".lock").path) {
            throw CarryonError(.invalidState, "\(id) is being downloaded by another carryon process; stop it there (Ctrl-C) before deleting")
        }
        queue.removeAll { $0 == id }
        if let task = running[id] {
            machines[id] = DownloadTaskStateMachine(state: .cancelled)
            task.cancel()
            await task.value
        }
        try await removeData(id)
        try await write { db in _ = try AssetRecord.deleteOne(db, key: id) }
        AssetLogs(library: library).remove(id)
        machines[id] = nil
        trackers[id] = nil
        reportedRenditions[id] = nil
        rangesLeft[id] = nil
        renditionDurations[id] = nil
        notifyFinished(id, .cancelled)
    }

    func waitUntilFinished(_ id: String) async -> DownloadState {
        if running[id] == nil && !queue.contains(id) {
            return (try? await machine(id).state) ?? .cancelled
        }
        return await withCheckedContinuation { continuation in
            finishWaiters[id, default: []].append(continuation)
        }
    }

    private func notifyFinished(_ id: String, _ state: DownloadState) {
        guard running[id] == nil, !queue.contains(id) else { return }
        for waiter in finishWaiters.removeValue(forKey: id) ?? [] { waiter.resume(returning: state) }
    }

    private func setState(_ id: String, _ machine: DownloadTaskStateMachine, error: String? = nil) async throws(CarryonError) {
        let previous = machines[id]?.state
        machines[id] = machine
        let state = machine.state
        let now = Date()
        try await write { db in
            try db.execute(sql: """
                UPDATE asset SET state = ?, updatedAt = ?, errorMessage = CASE WHEN ? THEN ? ELSE errorMessage END,
                completedAt = CASE WHEN ? = 'completed' THEN ? ELSE completedAt END WHERE id = ?
                """, arguments: [state, now, error != nil || state == .waiting, error, state.rawValue, now, id])
        }
        if previous != state { emit(.stateChanged(taskID: id, state: state)) }
    }

    private func removeData(_ id: String) async throws(CarryonError) {
        locks[id] = nil
        try await write { db in
            try db.execute(sql: "DELETE FROM resource WHERE assetId = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM rendition WHERE assetId = ?", arguments: [id])
            try db.execute(sql: "UPDATE asset SET planned = 0, selection = NULL WHERE id = ?", arguments: [id])
        }
        let bundle = library.bundleURL(for: id)
        if FileManager.default.fileExists(atPath: bundle.path) {
            do { try FileManager.default.removeItem(at: bundle) } catch {
                throw CarryonError(.disk, "cannot remove \(bundle.path): \(error.localizedDescription)", cause: error)
            }
        }
    }

    // MARK: Scheduling

    private func schedule() {
        guard !isShutDown else { return }
        while running.count < configuration.maximumConcurrentTasks, !queue.isEmpty {
            let id = queue.removeFirst()
            guard var machine = machines[id], (try? machine.start()) != nil else { continue }
            machines[id] = machine
            running[id] = Task { await self.run(id) }
        }
    }

    private func run(_ id: String) async {
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
            // Suspended or cancelled: the state was set by whoever stopped the task.
            break
        case .failure(let error):
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

    /// Writes a task's failure to its error log.
    private func logError(_ error: CarryonError, for id: String) async {
        let url = (try? await read { db in
            try String.fetchOne(db, sql: "SELECT url FROM asset WHERE id = ?", arguments: [id])
        }) ?? nil
        AssetLogs(library: library).error(.init(date: Date(), event: "download", uri: url ?? id, errorDomain: "carryon",
                                                errorCode: error.code.rawValue, comment: error.message), for: id)
    }

    // MARK: Downloading

    private func perform(_ id: String) async throws(CarryonError) {
        let bundle = library.bundleURL(for: id)
        let lock = try lockBundle(id)
        locks[id] = lock
        guard let asset = try await read({ db in try AssetRecord.fetchOne(db, key: id) }) else {
            throw CarryonError(.unknownAsset, "no asset has the id \(id)")
        }
        let fetcher = playlistFetcher(for: asset)
        if !asset.planned {
            let planner = DownloadPlanner(fetcher: fetcher, options: asset.options)
            let (plan, selection) = try await cancellable { try await planner.plan(assetId: id, url: asset.url) }
            // Keys before any media: a key Carryon cannot obtain fails the task here.
            if configuration.prefetchKeys { try await obtainKeys(plan.keys, for: id, fetcher: fetcher) }
            try await persist(plan, selection: selection, for: asset)
            if let selection { emit(.mediaSelectionResolved(taskID: id, selection: selection)) }
        }
        try await makeRoom(for: id)
        emit(.willDownload(taskID: id, location: bundle))
        try await transfer(id, asset: asset)
    }

    /// Obtains an asset's content keys again — from the origin, a `data:` URI or the app's
    /// provider, as at download time — without fetching any media: after they were
    /// invalidated, or to give them a new lifetime (`lifetime`, else the session's
    /// ``Configuration/keyLifetime``; a provider's own answer wins). Returns the keys' ids.
    ///
    /// - Throws: ``CarryonError/Code/invalidState`` while the asset is downloading elsewhere or
    ///   has not read its playlists; ``CarryonError/Code/keys`` when a key cannot be obtained
    ///   (the keys kept so far stay as they were).
    ///
    /// With `onlyMissing`, only keys the store does not have or that were invalidated are
    /// obtained (keys left for after the download, with ``Configuration/prefetchKeys`` off).
    public func renewKeys(_ id: String, lifetime: KeyLifetime? = nil, onlyMissing: Bool = false) async throws(CarryonError) -> [String] {
        let id = try await resolveID(id)
        guard let asset = try await read({ db in try AssetRecord.fetchOne(db, key: id) }), asset.planned else {
            throw CarryonError(.invalidState, "\(id) has not read its playlists yet: resume it first")
        }
        let fetcher = playlistFetcher(for: asset)
        // The playlists are read again for the keys they name; nothing is written but the keys.
        let (plan, _) = try await DownloadPlanner(fetcher: fetcher, options: asset.options)
            .plan(assetId: id, url: asset.url, pinnedVariant: asset.selection?.variant.uri,
                  additionalVariants: asset.selection?.additionalVariants ?? [])
        var keys = plan.keys
        if onlyMissing {
            let valid = Set(try await KeyStore(library: library, masterKey: configuration.masterKey).keys(of: id)
                .filter { !$0.isInvalidated }.map(\.id))
            keys.removeAll { valid.contains($0.id) }
        }
        try await obtainKeys(keys, for: id, fetcher: fetcher, lifetime: lifetime)
        return keys.map(\.id)
    }

    /// Reads a task's playlists, chooses what it will download and obtains its keys (unless
    /// ``Configuration/prefetchKeys`` is off) — everything but the media, which a later
    /// ``DownloadTask/resume()`` fetches. For `carryon keys prefetch URL`: keys in hand before
    /// anything is downloaded.
    public func prepare(_ id: String) async throws(CarryonError) {
        let id = try await resolveID(id)
        guard running[id] == nil, !queue.contains(id) else {
            throw CarryonError(.invalidState, "\(id) is downloading")
        }
        let lock = try lockBundle(id)
        defer { withExtendedLifetime(lock) {} }
        guard let asset = try await read({ db in try AssetRecord.fetchOne(db, key: id) }) else {
            throw CarryonError(.unknownAsset, "no asset has the id \(id)")
        }
        guard !asset.planned else { return }
        let fetcher = playlistFetcher(for: asset)
        let (plan, selection) = try await DownloadPlanner(fetcher: fetcher, options: asset.options).plan(assetId: id, url: asset.url)
        if configuration.prefetchKeys { try await obtainKeys(plan.keys, for: id, fetcher: fetcher) }
        try await persist(plan, selection: selection, for: asset)
        if let selection { emit(.mediaSelectionResolved(taskID: id, selection: selection)) }
    }

    /// The fetcher for an asset's playlists (and keys): its headers, the session's limits, and
    /// only the locations its stream may lead to.
    private func playlistFetcher(for asset: AssetRecord) -> PlaylistFetcher {
        PlaylistFetcher(client: client, headers: asset.headers.map { ($0.name, $0.value) },
                        maximumPlaylistBytes: configuration.maximumPlaylistBytes, timeout: configuration.requestTimeout,
                        retry: configuration.retry, stallTimeout: configuration.stallTimeout)
            .forStream(asset.url)
    }

    /// Creates an asset's bundle folder and takes its lock: this process works on it now.
    private func lockBundle(_ id: String) throws(CarryonError) -> FileLock {
        let bundle = library.bundleURL(for: id)
        do {
            try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        } catch {
            throw CarryonError(.disk, "cannot create \(bundle.path): \(error.localizedDescription)", cause: error)
        }
        guard let lock = FileLock(path: bundle.appendingPathComponent(".lock").path) else {
            throw CarryonError(.invalidState, "\(id) is being downloaded by another carryon process")
        }
        return lock
    }

    /// Obtains and seals the content keys of a plan (see ``ContentKeyFetcher``). All are
    /// obtained before any is stored, so a failure leaves the key store as it was.
    private func obtainKeys(_ keys: [DownloadPlan.PlannedKey], for id: String, fetcher: PlaylistFetcher,
                            lifetime: KeyLifetime? = nil) async throws(CarryonError) {
        guard !keys.isEmpty else { return }
        let store = try KeyStore(library: library, masterKey: configuration.masterKey)
        let keyFetcher = ContentKeyFetcher(fetcher: fetcher, providers: configuration.keyProviders)
        var obtained: [(DownloadPlan.PlannedKey, ContentKeyResponse)] = []
        for key in keys {
            // Awaited before the tuple is built: see SizeEstimator for the miscompile that a
            // tuple built around an `await` meets in release builds.
            let response = try await cancellable { try await keyFetcher.key(key, assetID: id) }
            obtained.append((key, response))
        }
        for (key, response) in obtained {
            try await store.store(response.key, id: key.id, assetID: id, uri: key.uri, method: key.method, keyFormat: key.keyFormat,
                                  lifetime: response.lifetime ?? lifetime ?? configuration.keyLifetime)
        }
    }

    /// Checks the library's storage rules before a transfer: when the bytes still to come
    /// would break the quota or leave less free than the reserve (the library's minimum, else
    /// ``DiskSpace/defaultReserve``), purges by the rules if the library is set to and that is
    /// enough, and otherwise stops with the sizes involved. Then sets the session's
    /// ``ByteBudget``, which holds the same rules against the bytes as they arrive.
    private func makeRoom(for id: String) async throws(CarryonError) {
        let disk = configuration.diskSpace ?? .fileSystem(at: library.root.path)
        let storage = StorageManager(library: library, freeBytes: disk.free)
        let settings = try await storage.settings()
        let reserve = settings.minimumFreeBytes ?? disk.defaultReserve
        let incoming = try await read { db in
            try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(expectedBytes), 0) FROM resource WHERE assetId = ? AND state = 'pending'",
                             arguments: [id]) ?? 0
        }
        let plan = try await storage.plan(incomingBytes: incoming, excluding: [id])
        var libraryBytes = plan.libraryBytesAfter + plan.bytesFreed
        let free = plan.freeBytesAfter - plan.bytesFreed
        let fitsQuota = settings.quotaBytes.map { libraryBytes + incoming <= $0 } ?? true
        let keepsFree = free - incoming >= reserve
        if !fitsQuota || !keepsFree {
            guard settings.purgeOnDownload, plan.satisfied, plan.freeBytesAfter - incoming >= reserve else {
                var rules: [String] = []
                if let quota = settings.quotaBytes { rules.append("the library holds \(libraryBytes) bytes of its \(quota)-byte quota") }
                rules.append("\(free) bytes are free and \(reserve) must stay free"
                             + (settings.minimumFreeBytes == nil ? " (the default reserve: 1 GiB, or 5 % of a smaller disk)" : ""))
                let purge = settings.purgeOnDownload ? "a purge by the rules cannot make enough room" : "`carryon purge` or `carryon storage --purge-on-download` can make room"
                throw CarryonError(.storage, "\(id) needs about \(incoming) more bytes, but \(rules.joined(separator: " and ")); \(purge)")
            }
            for removal in plan.removals {
                logger.info("purging to make room", metadata: ["asset": "\(removal.id)", "reason": "\(removal.reason.rawValue)"])
                try await delete(removal.id)
            }
            libraryBytes = plan.libraryBytesAfter
        }
        budget.measure(.init(quotaBytes: settings.quotaBytes, reserveBytes: reserve, reserveIsDefault: settings.minimumFreeBytes == nil),
                       libraryBytes: libraryBytes)
    }

    /// Runs `body`, turning cancellation into ``CarryonError/Code/cancelled``.
    private func cancellable<T: Sendable>(_ body: () async throws -> T) async throws(CarryonError) -> T {
        do {
            return try await body()
        } catch let error as CarryonError {
            if Task.isCancelled { throw CarryonError(.cancelled, "stopped") }
            throw error
        } catch {
            if Task.isCancelled || error is CancellationError { throw CarryonError(.cancelled, "stopped") }
            throw CarryonError(.transfer, "\(error)", cause: error)
        }
    }

    /// Plans more media selections into an existing bundle — more audio languages, more
    /// subtitles — keeping everything already downloaded: the counterpart of downloading
    /// additional media selections with AVAggregateAssetDownloadTask. Returns the keys of the
    /// renditions added; the task is then suspended, and ``DownloadTask/resume()`` fetches only
    /// what they need. The local playlists offer them from then on.
    ///
    /// - Throws: ``CarryonError/Code/invalidState`` when the task is downloading (suspend it
    ///   first) or was cancelled, or has not read its playlists yet;
    ///   ``CarryonError/Code/selection`` when the choice adds nothing the stream offers.
    ///
    /// With `variant`, the variant its bitrate and resolution bounds choose (by the rules of
    /// ``MediaSelector``, e.g. `minimumBitrate` for a better one) is added too, and the local
    /// multivariant playlist offers both.
    public func addMediaSelections(_ id: String, audio: DownloadOptions.RenditionChoice = .none,
                                   subtitles: DownloadOptions.RenditionChoice = .none,
                                   variant: DownloadOptions? = nil) async throws(CarryonError) -> [String] {
        let id = try await resolveID(id)
        var machine = try await machine(id)
        do { _ = try machine.addMedia() } catch { throw CarryonError(.invalidState, "\(id): \(error)") }
        let bundle = library.bundleURL(for: id)
        guard let lock = FileLock(path: bundle.appendingPathComponent(".lock").path) else {
            throw CarryonError(.invalidState, "\(id) is being downloaded by another carryon process; suspend it there first")
        }
        defer { withExtendedLifetime(lock) {} }
        guard let asset = try await read({ db in try AssetRecord.fetchOne(db, key: id) }), asset.planned,
              let current = asset.selection else {
            throw CarryonError(.invalidState, "\(id) has not read its playlists yet (or is a single media playlist): resume it first")
        }
        func merged(_ choice: DownloadOptions.RenditionChoice, type: String) -> DownloadOptions.RenditionChoice {
            let have = current.renditions.filter { $0.type == type }.map(\.name)
            switch choice {
            case .all: return .all
            case .none, .automatic: return have.isEmpty ? .none : .languages(have)
            case .languages(let wanted): return .languages(have + wanted)
            }
        }
        var options = asset.options
        options.audio = merged(audio, type: "AUDIO")
        options.subtitles = merged(subtitles, type: "SUBTITLES")
        let fetcher = playlistFetcher(for: asset)
        var additionalVariants = current.additionalVariants
        if let variant {
            let main = try await fetcher.fetch(asset.url)
            let multivariant: MultivariantPlaylist
            do {
                multivariant = try MultivariantPlaylist(main.parsed.playlist, url: main.url, warnings: main.parsed.warnings)
            } catch {
                throw CarryonError(.playlist, "\(main.url): \(error)", cause: error)
            }
            let chosen = try MediaSelector(options: variant).chooseVariant(multivariant.variants)
            if current.variants.contains(where: { $0.uri == chosen.uri }) {
                throw CarryonError(.selection, "\(id) already has the variant those bounds choose (\(chosen.resolution?.description ?? chosen.uri), \(chosen.bandwidth) bit/s)")
            }
            additionalVariants.append(MediaSelector.selected(chosen))
        }
        let (plan, selection) = try await DownloadPlanner(fetcher: fetcher, options: options)
            .plan(assetId: id, url: asset.url, pinnedVariant: current.variant.uri, additionalVariants: additionalVariants)
        guard let selection else {
            throw CarryonError(.selection, "\(id) is a single media playlist: it has no renditions or variants to add")
        }
        let addedURIs = selection.renditions.map(\.uri).filter { uri in !current.renditions.contains { $0.uri == uri } }
            + additionalVariants.map(\.uri).filter { uri in !current.additionalVariants.contains { $0.uri == uri } }
        guard !addedURIs.isEmpty else {
            throw CarryonError(.selection, "\(id) already has every rendition asked for (\(current.renditions.map { "\($0.type.lowercased()) \($0.name)" }.joined(separator: ", ")))")
        }
        var saved = asset
        saved.options = options
        try await persist(plan, selection: selection, for: saved, keeping: true)
        let encoded = String(decoding: (try? JSONEncoder().encode(options)) ?? Data(), as: UTF8.self)
        try await write { db in
            try db.execute(sql: "UPDATE asset SET options = ? WHERE id = ?", arguments: [encoded, id])
        }
        try await setState(id, machine)
        emit(.mediaSelectionResolved(taskID: id, selection: selection))
        return plan.renditions.filter { addedURIs.contains($0.record.uri) }.map(\.record.key)
    }

    /// Writes a plan's playlists and rows. With `keeping`, resources the bundle already has
    /// (the same URI and byte range, at the same file) keep their state, size and validators.
    private func persist(_ plan: DownloadPlan, selection: MediaSelection?, for asset: AssetRecord,
                         keeping: Bool = false) async throws(CarryonError) {
        let bundle = library.bundleURL(for: asset.id)
        if let origin = plan.originMain {
            try BundleFiles.write(Data(KeyStore.redactingDataKeys(in: origin)), to: bundle.appendingPathComponent("origin/main.m3u8"))
        }
        for rendition in plan.renditions {
            try BundleFiles.write(Data(KeyStore.redactingDataKeys(in: rendition.originText)),
                                  to: bundle.appendingPathComponent("origin/\(rendition.record.key).m3u8"))
            try BundleFiles.write(Data(rendition.localText.utf8), to: bundle.appendingPathComponent("\(rendition.record.key)/index.m3u8"))
        }
        try BundleFiles.write(Data(plan.localMain.utf8), to: bundle.appendingPathComponent("main.m3u8"))
        let now = Date()
        try await write { db in
            var kept: [String: ResourceRecord] = [:]
            if keeping {
                for resource in try ResourceRecord.filter(Column("assetId") == asset.id).fetchAll(db) {
                    kept["\(resource.uri) \(resource.rangeOffset ?? -1) \(resource.fileName)"] = resource
                }
            }
            try db.execute(sql: "DELETE FROM resource WHERE assetId = ?", arguments: [asset.id])
            try db.execute(sql: "DELETE FROM rendition WHERE assetId = ?", arguments: [asset.id])
            for rendition in plan.renditions { try rendition.record.insert(db) }
            // One prepared statement for every row: a million segments are inserted in about
            // a second, where encoding each record took fifteen.
            let insert = try db.makeStatement(sql: """
                INSERT INTO resource (assetId, renditionKey, ordinal, kind, uri, rangeOffset, rangeLength, fileName, state,
                bytes, expectedBytes, exactSize, startTime, duration, etag, lastModified)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for var resource in plan.resources {
                if let old = kept["\(resource.uri) \(resource.rangeOffset ?? -1) \(resource.fileName)"] {
                    resource.state = old.state
                    resource.bytes = old.bytes
                    resource.expectedBytes = old.expectedBytes
                    resource.exactSize = old.exactSize
                    resource.etag = old.etag
                    resource.lastModified = old.lastModified
                }
                insert.setUncheckedArguments([
                    resource.assetId, resource.renditionKey, resource.ordinal, resource.kind.rawValue, resource.uri,
                    resource.rangeOffset, resource.rangeLength, resource.fileName, resource.state.rawValue, resource.bytes,
                    resource.expectedBytes, resource.exactSize, resource.startTime, resource.duration, resource.etag,
                    resource.lastModified,
                ])
                try insert.execute()
            }
            try db.execute(sql: "UPDATE asset SET planned = 1, selection = ?, duration = ?, updatedAt = ? WHERE id = ?",
                           arguments: [selection.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) },
                                       plan.duration, now, asset.id])
        }
        try await writeManifest(asset.id)
    }

    private func transfer(_ id: String, asset: AssetRecord) async throws(CarryonError) {
        let bundle = library.bundleURL(for: id)
        let resources = try await read { db in
            try ResourceRecord.filter(Column("assetId") == id).order(Column("ordinal")).fetchAll(db)
        }
        trackers[id] = ProgressTracker(resources: resources)
        reportedRenditions[id] = []
        rangesLeft[id] = resources.reduce(into: [:]) { left, resource in
            if resource.rangeOffset != nil, resource.state != .done { left[resource.fileName, default: 0] += 1 }
        }
        renditionDurations[id] = try await read { db in
            try Row.fetchAll(db, sql: "SELECT key, duration FROM rendition WHERE assetId = ?", arguments: [id])
                .reduce(into: [String: Double]()) { $0[$1["key"]] = $1["duration"] }
        }
        try await finishSharedFiles(id, resources: resources)
        emitProgress(id, force: true)
        let pending = resources.filter { $0.state == .pending }
        // A stream read through a multivariant playlist declares its variants' bandwidth, which
        // bounds how large a segment may grow (see ResourceRecord.growthLimit).
        let bandwidthKnown = try await read { db in
            try Bool.fetchOne(db, sql: "SELECT selection IS NOT NULL FROM asset WHERE id = ?", arguments: [id]) ?? false
        }
        let fetcher = ResourceFetcher(client: client, headers: asset.headers, retry: configuration.retry,
                                      timeout: configuration.requestTimeout, logger: logger, rule: .stream(asset.url),
                                      stallTimeout: configuration.stallTimeout, budget: budget, bandwidthKnown: bandwidthKnown)
        let perTask = configuration.maximumRequestsPerTask
        transfers[id] = (fetcher, bundle)
        defer { transfers[id] = nil }
        try await cancellable {
            try await withThrowingTaskGroup(of: Void.self) { group in
                var iterator = pending.makeIterator()
                var inFlight = 0
                while let resource = iterator.next() {
                    if inFlight >= perTask {
                        try await group.next()
                        inFlight -= 1
                    }
                    group.addTask { try await self.fetchOnce(resource, with: fetcher, into: bundle, queued: true) }
                    inFlight += 1
                }
                try await group.waitForAll()
            }
        }
        let remaining = try await read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM resource WHERE assetId = ? AND state = 'pending'", arguments: [id]) ?? 0
        }
        guard remaining == 0 else {
            throw CarryonError(.transfer, "\(remaining) resources are still missing after the transfer")
        }
        emitProgress(id, force: true)
    }

    /// Fetches `resource` unless it is done, or joins the fetch under way. A queued fetch (the
    /// transfer's) waits for a request slot; playback's does not.
    private func fetchOnce(_ resource: ResourceRecord, with fetcher: ResourceFetcher, into bundle: URL, queued: Bool) async throws {
        let id = resource.id!
        if let fetch = fetches[id] {
            try await withTaskCancellationHandler { try await fetch.value } onCancel: { fetch.cancel() }
            return
        }
        if trackers[resource.assetId]?.isDone(id) == true { return }
        let fetch = Task { try await self.fetch(resource, with: fetcher, into: bundle, queued: queued) }
        fetches[id] = fetch
        defer { fetches[id] = nil }
        try await withTaskCancellationHandler { try await fetch.value } onCancel: { fetch.cancel() }
    }

    /// Fetches the resources of a task this session is running now, ahead of its order, and
    /// returns when they are on disk: how playback gets what the download has not reached yet.
    /// The download then does not fetch them again.
    ///
    /// - Throws: ``CarryonError/Code/invalidState`` if the task is not running in this session,
    ///   or the fetch's error.
    public func fetchNow(_ assetID: String, resources: [Int64]) async throws(CarryonError) {
        guard let transfer = transfers[assetID] else {
            throw CarryonError(.invalidState, "\(assetID) is not downloading in this process")
        }
        let records = try await read { db in
            try ResourceRecord.filter(Column("assetId") == assetID && resources.contains(Column("id"))).fetchAll(db)
        }
        try await cancellable {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for record in records where record.state == .pending {
                    group.addTask { try await self.fetchOnce(record, with: transfer.fetcher, into: transfer.bundle, queued: false) }
                }
                try await group.waitForAll()
            }
        }
    }

    /// The error that last stopped task `id` in this session: why it failed, or why the
    /// session suspended it (``CarryonError/Code/stalled`` when the server stopped sending,
    /// ``CarryonError/Code/storage`` when a storage rule would break); nil when it was not
    /// stopped by an error, or not in this session.
    public func lastError(of id: String) -> CarryonError? {
        lastErrors[id]
    }

    /// Whether this session is downloading `assetID` now.
    public func isTransferring(_ assetID: String) -> Bool {
        transfers[assetID] != nil
    }

    private nonisolated func fetch(_ resource: ResourceRecord, with fetcher: ResourceFetcher, into bundle: URL, queued: Bool) async throws {
        if queued { try await requests.acquire() }
        defer { if queued { Task { await requests.release() } } }
        let final = bundle.appendingPathComponent(resource.fileName)
        let part: URL
        if let offset = resource.rangeOffset {
            part = bundle.appendingPathComponent("\(resource.fileName).\(offset).part")
        } else {
            part = bundle.appendingPathComponent("\(resource.fileName).part")
        }
        try FileManager.default.createDirectory(at: part.deletingLastPathComponent(), withIntermediateDirectories: true)
        let id = resource.id!
        let assetId = resource.assetId
        let counter = ByteBatcher()
        let clock = ContinuousClock()
        let started = clock.now
        let result = try await fetcher.fetch(resource.uri, range: resource.byteRange, into: part.path,
                                             validators: .init(etag: resource.etag, lastModified: resource.lastModified),
                                             limit: resource.growthLimit(bandwidthKnown: fetcher.bandwidthKnown)) { delta in
            // Bytes are reported in batches: a task per body chunk would queue faster than the
            // session drains them on a fast link.
            if let batch = counter.add(delta) { Task { await self.recordBytes(batch, resource: id, asset: assetId) } }
        }
        if let rest = counter.drain() { await recordBytes(rest, resource: id, asset: assetId) }
        let elapsed = clock.now - started
        let url = URL(string: resource.uri)
        AssetLogs(library: library).access(
            .init(date: Date(), event: "download", uri: resource.uri,
                  server: url?.host.map { host in url?.port.map { "\(host):\($0)" } ?? host }, status: result.status,
                  bytes: result.transferred,
                  duration: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18), for: assetId)
        if let offset = resource.rangeOffset {
            // Copy the range into the shared file at its offset; the shared file keeps its
            // temporary name until every range of it is in.
            let shared = FilePath(bundle.appendingPathComponent("\(resource.fileName).part").path)
            try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(part.path)) { reader in
                try await FileSystem.shared.withFileHandle(forWritingAt: shared, options: .modifyFile(createIfNecessary: true)) { writer in
                    var position: Int64 = 0
                    for try await chunk in reader.readChunks(chunkLength: .kibibytes(256)) {
                        try await writer.write(contentsOf: chunk, toAbsoluteOffset: Int64(offset) + position)
                        position += Int64(chunk.readableBytes)
                    }
                }
            }
            try FileManager.default.removeItem(at: part)
        } else {
            try BundleFiles.rename(part, to: final)
        }
        try await resourceDone(resource, bytes: result.bytes, validators: result.validators)
    }

    private func recordBytes(_ delta: Int, resource: Int64, asset: String) {
        trackers[asset]?.add(delta, to: resource, at: Self.now())
        emitProgress(asset, force: false)
    }

    private func resourceDone(_ resource: ResourceRecord, bytes: Int, validators: ResourceFetcher.Validators) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE resource SET state = 'done', bytes = ?, etag = ?, lastModified = ? WHERE id = ?",
                           arguments: [bytes, validators.etag, validators.lastModified, resource.id])
        }
        trackers[resource.assetId]?.finish(resource.id!, bytes: bytes)
        if resource.kind == .segment, trackers[resource.assetId] != nil {
            let duration = renditionDurations[resource.assetId]?[resource.renditionKey] ?? 0
            if let snapshot = trackers[resource.assetId]?.snapshot(at: Self.now()) {
                emit(.timeRangeLoaded(taskID: resource.assetId, rendition: resource.renditionKey,
                                      range: .init(start: resource.startTime, end: resource.startTime + resource.duration),
                                      loaded: snapshot.loadedTimeRanges[resource.renditionKey] ?? [],
                                      expected: .init(start: 0, end: duration)))
            }
        }
        if resource.rangeOffset != nil, let left = rangesLeft[resource.assetId]?[resource.fileName] {
            rangesLeft[resource.assetId]?[resource.fileName] = left - 1
            if left == 1 { try finishSharedFile(resource.fileName, of: resource.assetId) }
        }
        var left = trackers[resource.assetId]?.unfinished(in: resource.renditionKey)
        if left == nil {
            left = try await read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM resource WHERE assetId = ? AND renditionKey = ? AND state = 'pending'",
                                 arguments: [resource.assetId, resource.renditionKey]) ?? 0
            }
        }
        if left == 0, reportedRenditions[resource.assetId, default: []].insert(resource.renditionKey).inserted {
            emit(.renditionCompleted(taskID: resource.assetId, key: resource.renditionKey))
        }
        emitProgress(resource.assetId, force: true)
    }

    /// Renames each shared file whose ranges are all in to its final name.
    private func finishSharedFiles(_ id: String, resources: [ResourceRecord]) async throws(CarryonError) {
        let byFile = Dictionary(grouping: resources.filter { $0.rangeOffset != nil }, by: \.fileName)
        for (fileName, ranges) in byFile where ranges.allSatisfy({ $0.state == .done }) {
            try finishSharedFile(fileName, of: id)
        }
    }

    /// Renames a shared file whose ranges are all in to its final name.
    private func finishSharedFile(_ fileName: String, of id: String) throws(CarryonError) {
        let bundle = library.bundleURL(for: id)
        let part = bundle.appendingPathComponent("\(fileName).part")
        if FileManager.default.fileExists(atPath: part.path) {
            try BundleFiles.rename(part, to: bundle.appendingPathComponent(fileName))
        }
    }

    private func emitProgress(_ id: String, force: Bool) {
        guard let tracker = trackers[id] else { return }
        let now = Self.now()
        if !force, let last = lastProgressEvent[id], now - last < 0.2 { return }
        lastProgressEvent[id] = now
        emit(.progress(taskID: id, progress: tracker.snapshot(at: now)))
    }

    /// Seconds on a monotonic clock, for rates.
    static func now() -> Double {
        let duration = ContinuousClock.now - start
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static let start = ContinuousClock.now

    // MARK: Snapshots

    func snapshot(_ id: String) async throws(CarryonError) -> AssetSnapshot {
        let id = try await resolveID(id)
        // A running task's progress comes from its tracker; the resources are read only
        // without one, and the asset cache needs counts only.
        let tracker = trackers[id]
        guard let (asset, renditions, resources, counts) = try await read({ db
            -> (AssetRecord, [RenditionRecord], [ResourceRecord], [String: (done: Int, total: Int)])? in
            guard let asset = try AssetRecord.fetchOne(db, key: id) else { return nil }
            var counts: [String: (done: Int, total: Int)] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT renditionKey, SUM(state = 'done') AS done, COUNT(*) AS total FROM resource WHERE assetId = ? GROUP BY renditionKey
                """, arguments: [id]) {
                counts[row["renditionKey"]] = (row["done"], row["total"])
            }
            return (asset, try RenditionRecord.filter(Column("assetId") == id).fetchAll(db),
                    tracker == nil ? try ResourceRecord.filter(Column("assetId") == id).fetchAll(db) : [], counts)
        }) else {
            throw CarryonError(.unknownAsset, "no asset has the id \(id)")
        }
        let bundle = library.bundleURL(for: id)
        let progress = tracker?.snapshot(at: Self.now()) ?? ProgressTracker(resources: resources).snapshot(at: 0)
        let state = machines[id]?.state ?? asset.state
        let error = state == .failed ? (lastErrors[id]?.message ?? asset.errorMessage) : asset.errorMessage
        let usage = BundleFiles.usage(of: bundle).filter { !$0.key.hasPrefix(".") }
        return AssetSnapshot(
            id: id, name: asset.name, url: asset.url, state: state, error: error, progress: progress,
            selection: asset.selection, duration: asset.duration, bundlePath: bundle.path,
            playlist: asset.planned ? bundle.appendingPathComponent("main.m3u8").path : nil,
            bytesOnDisk: usage.values.reduce(0, +), bytesByRendition: usage, createdAt: asset.createdAt,
            completedAt: asset.completedAt, policy: StoragePolicy(expiresAt: asset.expiresAt, priority: asset.priority),
            lastPlayedAt: asset.lastPlayedAt, playback: AssetLogs(library: library).playbackSummary(for: id),
            cache: AssetCache(renditions: renditions, counts: counts, planned: asset.planned))
    }

    private func writeManifest(_ id: String) async throws(CarryonError) {
        let bundle = library.bundleURL(for: id)
        guard let (asset, renditions, files) = try await read({ db -> (AssetRecord, [RenditionRecord], [BundleManifest.File])? in
            guard let asset = try AssetRecord.fetchOne(db, key: id) else { return nil }
            var files: [BundleManifest.File] = []
            if asset.state == .completed {
                // Two columns a row, read as they come: a long asset has thousands.
                var seen: Set<String> = []
                let rows = try Row.fetchCursor(db, sql: "SELECT fileName, uri FROM resource WHERE assetId = ? ORDER BY ordinal", arguments: [id])
                while let row = try rows.next() {
                    let fileName: String = row["fileName"]
                    guard seen.insert(fileName).inserted else { continue }
                    files.append(.init(path: fileName, bytes: BundleFiles.size(of: bundle.appendingPathComponent(fileName)) ?? 0,
                                       uri: row["uri"]))
                }
            }
            return (asset, try RenditionRecord.filter(Column("assetId") == id).order(Column("position")).fetchAll(db), files)
        }) else { return }
        let manifest = BundleManifest(
            id: id, name: asset.name, url: asset.url, state: asset.state, playlist: "main.m3u8", duration: asset.duration ?? 0,
            createdAt: asset.createdAt, completedAt: asset.completedAt, variant: asset.selection?.variant,
            renditions: renditions.map {
                .init(key: $0.key, type: $0.type, name: $0.name, language: $0.language, playlist: "\($0.key)/index.m3u8",
                      uri: $0.uri, duration: $0.duration)
            },
            files: files)
        do {
            try BundleFiles.write(try manifest.encoded(), to: library.bundleURL(for: id).appendingPathComponent("manifest.json"))
        } catch let error as CarryonError {
            throw error
        } catch {
            throw CarryonError(.disk, "cannot write the manifest of \(id): \(error)", cause: error)
        }
    }

    // MARK: Recovery

    private func recoverCrashedTasks() async throws(CarryonError) {
        let stale = try await read { db in
            try String.fetchAll(db, sql: "SELECT id FROM asset WHERE state IN ('running', 'waiting')")
        }
        for id in stale where !FileLock.isHeld(path: library.bundleURL(for: id).appendingPathComponent(".lock").path) {
            var machine = DownloadTaskStateMachine(state: .running)
            _ = machine.recoverAfterCrash()
            try await write { db in
                try db.execute(sql: "UPDATE asset SET state = 'suspended' WHERE id = ? AND state IN ('running', 'waiting')", arguments: [id])
            }
            machines[id] = machine
        }
    }

    // MARK: Database

    func read<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws(CarryonError) -> T {
        try await library.read(body)
    }

    func write<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws(CarryonError) -> T {
        try await library.write(body)
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
