import NIOFileSystem
#if canImport(Glibc)
import Glibc
#endif

/// The partial file a fetch writes into: its size, and emptying it to start over.
extension ResourceFetcher {
    /// The size of the file at `path`, 0 when there is none: one `stat(2)`, on the caller's
    /// thread (a turn on the file system's thread pool cost each fetch two thread switches
    /// for a call that does not wait on the disk).
    func fileSize(_ path: FilePath) throws -> Int {
        var info = stat()
        guard stat(path.string, &info) == 0 else {
            let code = errno
            if code == ENOENT { return 0 }
            throw CarryonError(.disk, "reading \(path.string): \(String(cString: strerror(code)))")
        }
        return Int(info.st_size)
    }

    /// Empties a partial file of `bytes` bytes to start over, and says so to the budget and
    /// the progress.
    func discard(_ path: FilePath, _ bytes: Int, progress: @Sendable (Int) -> Void) async throws {
        try await truncate(path)
        budget?.giveBack(bytes)
        progress(-bytes)
    }

    func truncate(_ path: FilePath) async throws {
        try await FileSystem.shared.withFileHandle(forWritingAt: path, options: .newFile(replaceExisting: true)) { _ in }
    }
}
