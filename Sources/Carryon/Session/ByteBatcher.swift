/// Adds up the bytes a request writes and hands them on in batches of at least ``threshold``
/// bytes, or at once when bytes are taken back (a restart), so that progress follows a fast
/// transfer without a message per body chunk.
final class ByteBatcher: Sendable {
    private let pending = Locked(0)
    let threshold: Int

    init(threshold: Int = 256 << 10) {
        self.threshold = threshold
    }

    /// Adds `delta`; returns the batch to report when one is due.
    func add(_ delta: Int) -> Int? {
        pending.withLock { pending in
            pending += delta
            guard delta < 0 || pending >= threshold else { return nil }
            defer { pending = 0 }
            return pending
        }
    }

    /// What is left to report, if anything.
    func drain() -> Int? {
        pending.withLock { pending in
            defer { pending = 0 }
            return pending == 0 ? nil : pending
        }
    }
}
