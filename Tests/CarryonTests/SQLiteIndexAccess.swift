@testable import Carryon
import Foundation

extension OfflineLibrary {
    /// The SQLite index behind the library, for tests that set up or read rows directly.
    var sqlite: SQLiteAssetIndex { index as! SQLiteAssetIndex }

    /// Makes asset `id` another live process's download, as that process would through the
    /// index: queued by an instance of its own, then claimed under a long lease. A completed
    /// asset is first made suspended (as adding media selections does). Returns the claim.
    func holdAsAnotherProcess(_ id: String, lease: Duration = .seconds(600)) async throws -> Fence {
        try await sqlite.write { db in try db.execute(sql: "UPDATE asset SET state = 'suspended' WHERE id = ? AND state = 'completed'", arguments: [id]) }
        let other = TaskScheduler(index: index, lease: lease, checksProcesses: true, label: "another process")
        _ = try await other.enqueue(id)
        guard let fence = try await other.claimNext() else { throw CarryonError(.invalidState, "\(id) could not be claimed") }
        return fence
    }

    /// Ends another process's claim `fence` with `state`, as its run's end would.
    func release(_ fence: Fence, as state: DownloadState = .suspended) async throws {
        try await index.endRun(fence, state: state, error: nil, requeueAt: nil, at: Date())
    }
}
