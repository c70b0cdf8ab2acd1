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
        // This session's tasks as they are before the index is read (see snapshot(_:)).
        let local = tasks
        let ownerships = try await scheduler.ownerships()
        var snapshots: [AssetSnapshot] = []
        for id in try await index.assetIDs() {
            do {
                snapshots.append(try await snapshot(of: id, task: local[id], ownership: ownerships[id]))
            } catch where error.code == .unknownAsset {
                // Deleted since the ids were read: not listed.
            }
        }
        return snapshots
    }

    /// Asset `id` (a whole id) as this session knew it (`task`) and the index then said
    /// (`ownership`, read after `task` was taken).
    private func snapshot(of id: String, task: SessionTask?, ownership: TaskOwnership?) async throws(CarryonError) -> AssetSnapshot {
        // A task idle here is the index's: another process may run it, and its progress is then
        // that process's, not this session's last run.
        let active = task?.knowsBest ?? false
        let tracker = task?.run?.tracker ?? (active || ownership?.holder == nil ? task?.lastProgress : nil)
        var snapshot = try await library.snapshot(of: id, live: .init(state: active ? task?.machine.state : nil, tracker: tracker,
                                                                      lastError: task?.lastError),
                                                  ownership: ownership)
        if let run = task?.run, run.tracker != nil { snapshot.progress.connections = run.requestsInFlight }
        return snapshot
    }

    func writeManifest(_ id: String) async throws(CarryonError) {
        try await BundleWriter(library: library).writeManifest(of: id)
    }
}
