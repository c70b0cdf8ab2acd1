import Carryon
import Foundation
import HLS

/// Managing a downloaded asset from code: another language added later, what plays offline, and
/// the asset's place in the library's storage rules.
func manage(_ task: DownloadTask, in session: DownloadSession, library: OfflineLibrary) async throws {
    // Adds German audio, fetching only it; `variant: DownloadOptions(minimumBitrate: …)` would
    // add a better variant the same way. Asking for what the bundle already has is an error
    // whose code says so.
    do throws(CarryonError) {
        let added = try await session.addMediaSelections(task.id, audio: .languages(["de"]))
        print("adding \(added)")
        try await task.resume()
        _ = await task.waitUntilFinished()
    } catch {
        guard error.code == .selection else { throw error }
        print("nothing to add: \(error.message)")
    }

    let cache = try await task.snapshot().cache          // isPlayableOffline, audible, legible, variants
    print("plays offline: \(cache.isPlayableOffline), audio: \(cache.audible.map(\.name))")

    let storage = StorageManager(library: library)       // the clock and free space are injectable
    try await storage.setPolicy(StoragePolicy(expiresAt: Date().addingTimeInterval(30 * 86_400), priority: .important), for: task.id)
    try await storage.setSettings(LibraryStorageSettings(quotaBytes: 20 << 30, minimumFreeBytes: 2 << 30))
    let plan = try await storage.purge(with: session)    // storage.plan() shows it without removing
    print("purged \(plan.removals.count) assets, \(plan.bytesFreed) bytes")
}
