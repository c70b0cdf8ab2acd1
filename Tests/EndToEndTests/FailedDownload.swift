@testable import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// Downloads `url` into a new library in `folder`, expecting it to fail, and returns the error
/// the task reports (the session shut down).
func failedDownloadError(_ url: String, in folder: URL, options: DownloadOptions = DownloadOptions()) async throws -> String {
    let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
    let session = try await DownloadSession(library: library)
    let task = try await session.makeTask(url: url, options: options)
    try await task.resume()
    let state = await task.waitUntilFinished()
    let error = try await task.snapshot().error ?? ""
    await session.shutdown()
    #expect(state == .failed, "\(url) ended \(state): \(error)")
    return error
}
