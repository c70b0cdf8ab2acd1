import Foundation

/// What a task looks like now, and the manifest written into its bundle.
extension DownloadSession {
    func snapshot(_ id: String) async throws(CarryonError) -> AssetSnapshot {
        let id = try await resolveID(id)
        let task = tasks[id]
        // A task idle here is the index's: another process may run it, and its progress is then
        // that process's, not this session's last run.
        let active = task?.knowsBest ?? false
        let ownership = try await scheduler.ownership(of: id)
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
