import Foundation

/// What a task looks like now, and the manifest written into its bundle.
extension DownloadSession {
    func snapshot(_ id: String) async throws(CarryonError) -> AssetSnapshot {
        let id = try await resolveID(id)
        // What this session knows of the task is taken before the index is read, never after:
        // a run whose end is recorded in between would otherwise leave neither view saying it
        // ended (the index read before the end, the task no longer knowing best).
        let task = tasks[id]
        return try await snapshot(of: id, task: task, ownership: try await scheduler.ownership(of: id))
    }

    /// Every asset, oldest first, each as ``DownloadTask/snapshot()`` shows it: the ownerships
    /// read once for all (what the API's asset list gives).
    public func snapshots() async throws(CarryonError) -> [AssetSnapshot] {
        try await snapshots(AssetQuery()).assets
    }

    /// A page of the library's assets (see ``OfflineLibrary/assets(_:)``), each as
    /// ``DownloadTask/snapshot()`` shows it.
    ///
    /// - Throws: ``CarryonError/Code/invalidValue`` when the query's limit or cursor is not one
    ///   a listing can take.
    public func snapshots(_ query: AssetQuery) async throws(CarryonError) -> AssetPage<AssetSnapshot> {
        // This session's tasks as they are before the index is read (see snapshot(_:)).
        let local = tasks
        let ownerships = try await scheduler.holdings()
        var live: [String: OfflineLibrary.LiveState] = [:]
        for (id, task) in local { live[id] = Self.live(task, ownership: ownerships[id]) }
        let library = library
        var page = try await library.page(query, ownerships: ownerships, live: live) { record, live, ownership, kept in
            await library.snapshot(of: record, live: live, ownership: ownership, keeping: &kept)
        }
        for index in page.assets.indices {
            if let run = local[page.assets[index].id]?.run, run.tracker != nil { page.assets[index].progress.connections = run.requestsInFlight }
        }
        return page
    }

    /// The latest asset of each of `urls` that has one (see ``StreamCatalog/offlineStates(given:)``),
    /// each as ``DownloadTask/snapshot()`` shows it, oldest first: one look-up by an index per
    /// URL, whatever the library's size — what a catalog's offline states need.
    public func latestSnapshots(of urls: [String]) async throws(CarryonError) -> [AssetSnapshot] {
        var snapshots: [AssetSnapshot] = []
        for id in try await library.index.latestAssetIDs(of: urls).values {
            // Deleted since it was looked up: not shown.
            guard let snapshot = try? await snapshot(id) else { continue }
            snapshots.append(snapshot)
        }
        return snapshots.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// What this session knows of `task` that the index does not say (the index said
    /// `ownership`, read after `task` was taken).
    private static func live(_ task: SessionTask?, ownership: TaskOwnership?) -> OfflineLibrary.LiveState? {
        guard let task else { return nil }
        // A task idle here is the index's: another process may run it, and its progress is then
        // that process's, not this session's last run.
        let active = task.knowsBest
        let tracker = task.run?.tracker ?? (active || ownership?.holder == nil ? task.lastProgress : nil)
        return .init(state: active ? task.machine.state : nil, tracker: tracker, lastError: task.lastError)
    }

    /// Asset `id` (a whole id) as this session knew it (`task`) and the index then said
    /// (`ownership`, read after `task` was taken).
    private func snapshot(of id: String, task: SessionTask?, ownership: TaskOwnership?) async throws(CarryonError) -> AssetSnapshot {
        var snapshot = try await library.snapshot(of: id, live: Self.live(task, ownership: ownership) ?? .init(), ownership: ownership)
        if let run = task?.run, run.tracker != nil { snapshot.progress.connections = run.requestsInFlight }
        return snapshot
    }

    func writeManifest(_ id: String) async throws(CarryonError) {
        try await BundleWriter(library: library).writeManifest(of: id)
    }
}
