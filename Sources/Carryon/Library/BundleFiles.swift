import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing into a bundle: every file goes to a temporary name first and is renamed into place
/// when complete, so a crash never leaves a half-written file under its final name.
enum BundleFiles {
    /// Writes `data` to `url` atomically (temporary file + rename), creating folders.
    static func write(_ data: Data, to url: URL) throws(CarryonError) {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).tmp")
            try data.write(to: temporary)
            try rename(temporary, to: url)
        } catch let error as CarryonError {
            throw error
        } catch {
            throw CarryonError(.disk, "cannot write \(url.path): \(error.localizedDescription)", cause: error)
        }
    }

    /// Renames `source` to `destination`, replacing it (rename(2): atomic on one file system).
    static func rename(_ source: URL, to destination: URL) throws(CarryonError) {
        if Glibc.rename(source.path, destination.path) != 0 {
            let code = errno
            throw CarryonError(.disk, "cannot move \(source.path) to \(destination.path): \(String(cString: strerror(code)))")
        }
    }

    /// The size of a file, or nil when it does not exist.
    static func size(of url: URL) -> Int? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }
}
