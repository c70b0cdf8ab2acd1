/// When each chunk of a rate-limited transfer may be written: the bytes before it and it, at the
/// rate, from the first chunk on — curl's `--limit-rate`, for all of a task's connections at
/// once. A pause earns no credit: after it the bytes are paced from then, so any window of time
/// carries at most the rate's worth (and one chunk's share of it). Time is passed in, so the
/// pacing is tested without waiting; ``RateLimit`` runs it against the clock.
struct RatePacer: Sendable {
    /// The most bytes a second.
    let bytesPerSecond: Int
    /// When the bytes admitted so far have had their time.
    private var caughtUp: ContinuousClock.Instant?

    init(bytesPerSecond: Int) {
        self.bytesPerSecond = max(1, bytesPerSecond)
    }

    /// How long a chunk of `bytes` that arrived at `now` waits before it is written: until it
    /// and every chunk admitted before it have taken their time at the rate.
    mutating func delay(for bytes: Int, at now: ContinuousClock.Instant) -> Duration {
        let start = max(caughtUp ?? now, now)
        let end = start + .nanoseconds(Int64((Double(max(0, bytes)) / Double(bytesPerSecond) * 1e9).rounded(.up)))
        caughtUp = end
        return end - now
    }
}

/// A task's rate limit, shared by its connections: each chunk waits its turn (see
/// ``RatePacer``) before it is written. The TCP connection holds the rest meanwhile, so the
/// server sends no faster than the limit.
final class RateLimit: Sendable {
    private let pacer: Locked<RatePacer>
    private let clock = ContinuousClock()

    /// A limit of `bytesPerSecond` (at least 1).
    init(bytesPerSecond: Int) {
        pacer = Locked(RatePacer(bytesPerSecond: bytesPerSecond))
    }

    /// How long a chunk of `bytes` arriving now waits before it is written; the caller holds
    /// its stall watch meanwhile (see ``StallMeter/hold()``): the wait, or a late waking from
    /// it, is not a silent server.
    func delay(for bytes: Int) -> Duration {
        let now = clock.now
        return pacer.withLock { $0.delay(for: bytes, at: now) }
    }
}
