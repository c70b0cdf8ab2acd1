import Foundation

/// What a task looks like now, and the manifest written into its bundle.
extension DownloadSession {
    func snapshot(_ id: String) async throws(CarryonError) -> AssetSnapshot {
        let id = try await resolveID(id)
        let task = tasks[id]
        var snapshot = try await library.snapshot(of: id, live: .init(state: task?.machine.state, tracker: task?.run?.tracker ?? task?.lastProgress,
                                                                      lastError: task?.lastError))
        if let run = task?.run, run.tracker != nil { snapshot.progress.connections = run.requestsInFlight }
        return snapshot
    }

    func writeManifest(_ id: String) async throws(CarryonError) {
        try await BundleWriter(library: library).writeManifest(of: id)
    }
}
