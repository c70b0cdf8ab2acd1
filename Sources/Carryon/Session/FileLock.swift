import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock on a file (`flock`), held by the process that runs a task, so that another
/// process opening the library can tell a task that is running from one whose process died.
final class FileLock: @unchecked Sendable {
    private let descriptor: Int32

    /// Takes the lock, or returns nil when another process holds it.
    init?(path: String) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    /// Whether some process holds the lock at `path` now.
    static func isHeld(path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
            flock(descriptor, LOCK_UN)
            return false
        }
        return true
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
