@testable import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// A download run to its end by ``completedDownload(_:in:options:configuration:)``.
struct CompletedDownload {
    var library: OfflineLibrary
    var id: String
    var snapshot: AssetSnapshot
}

/// Downloads `url` into a new library in `folder`, expecting it to complete, and returns the
/// library, the asset's id and its snapshot (the session shut down).
func completedDownload(_ url: String, in folder: URL, options: DownloadOptions = DownloadOptions(),
                       configuration: DownloadSession.Configuration = .init()) async throws -> CompletedDownload {
    let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
    let session = try await DownloadSession(library: library, configuration: configuration)
    let task = try await session.makeTask(url: url, options: options)
    try await task.resume()
    let state = await task.waitUntilFinished()
    let snapshot = try await task.snapshot()
    await session.shutdown()
    #expect(state == .completed, "\(url) ended \(state): \(snapshot.error ?? "")")
    return CompletedDownload(library: library, id: task.id, snapshot: snapshot)
}
