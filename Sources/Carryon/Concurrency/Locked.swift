import Foundation

/// A value behind a lock: `Synchronization.Mutex`'s shape (`withLock { value in … }`) over a
/// pthread mutex (`NSLock`).
///
/// Why not `Mutex` itself: on Linux it locks with raw futex system calls that ThreadSanitizer
/// does not see, so every access it guards is reported as a race (a three-line program shows
/// it), and `Scripts/sanitize.sh` could then find no real race in the code that needs it most.
/// ThreadSanitizer knows pthread mutexes. The cost is one allocation per lock, which no lock
/// here is created often enough to notice.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value while holding the lock.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
