import Foundation

/// Decides when a transfer has stalled: nothing received for ``timeout``, or fewer than
/// ``minimumBytesPerSecond`` on average over a whole ``timeout`` — curl's `--speed-limit` and
/// `--speed-time`, aria2c's `--lowest-speed-limit`. Time is passed in, so the decision is tested
/// without waiting; ``withStallDetection(_:_:)`` runs it against the clock.
struct StallWatch: Sendable {
    /// How long a transfer may receive nothing, and the window the average rate is taken over.
    let timeout: Duration
    /// The slowest average rate accepted over a window.
    let minimumBytesPerSecond: Int
    private var windowStart: ContinuousClock.Instant
    private var bytesInWindow = 0
    private var lastReceived: ContinuousClock.Instant
    private var holding = false

    /// Why a transfer was ended.
    enum Stall: Sendable, Equatable, CustomStringConvertible {
        /// Nothing arrived for the whole timeout.
        case silent(Duration)
        /// Only this many bytes arrived over this long.
        case slow(bytes: Int, over: Duration)

        var description: String {
            switch self {
            case .silent(let duration): "stalled: nothing arrived for \(seconds(duration))"
            case .slow(let bytes, let over): "stalled: \(bytes) bytes in \(seconds(over)), slower than 1 KB/s"
            }
        }

        private func seconds(_ duration: Duration) -> String {
            let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            return value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
        }
    }

    init(timeout: Duration, minimumBytesPerSecond: Int = 1024, now: ContinuousClock.Instant) {
        self.timeout = timeout
        self.minimumBytesPerSecond = minimumBytesPerSecond
        windowStart = now
        lastReceived = now
    }

    /// Records `bytes` received at `now` (bytes taken back, a negative count, are not progress).
    mutating func received(_ bytes: Int, at now: ContinuousClock.Instant) {
        guard bytes > 0 else { return }
        bytesInWindow += bytes
        lastReceived = now
    }

    /// Excuses `duration` the process could not run up to `now` (its watcher woke that much
    /// later than it asked to): bytes may have waited in the socket all that time, so it counts
    /// neither as silence nor against the rate.
    mutating func excuse(_ duration: Duration, at now: ContinuousClock.Instant) {
        guard duration > .zero else { return }
        lastReceived = min(lastReceived + duration, now)
        windowStart = min(windowStart + duration, now)
    }

    /// The transfer holds itself back (a rate limit's wait) until ``release(at:)``: that time
    /// is neither silence nor slowness, however long the holder takes to wake.
    mutating func hold() {
        holding = true
    }

    /// The hold is over at `now`: the watch starts afresh from then.
    mutating func release(at now: ContinuousClock.Instant) {
        holding = false
        lastReceived = max(lastReceived, now)
        windowStart = max(windowStart, now)
        bytesInWindow = 0
    }

    /// The stall at `now`, if the transfer has stalled; otherwise starts a new window when the
    /// current one is over.
    mutating func check(at now: ContinuousClock.Instant) -> Stall? {
        if holding { return nil }
        if now - lastReceived >= timeout { return .silent(timeout) }
        let elapsed = now - windowStart
        guard elapsed >= timeout else { return nil }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if Double(bytesInWindow) < Double(minimumBytesPerSecond) * seconds {
            return .slow(bytes: bytesInWindow, over: elapsed)
        }
        windowStart = now
        bytesInWindow = 0
        return nil
    }
}

/// A stalled transfer, ended by ``withStallDetection(_:_:)``.
struct StallError: Error, Sendable, CustomStringConvertible {
    var stall: StallWatch.Stall
    var description: String { stall.description }
}

/// What a transfer reports its progress to while ``withStallDetection(_:_:)`` watches it.
final class StallMeter: Sendable {
    private let watch: Locked<StallWatch>
    private let clock = ContinuousClock()

    /// How long the transfer may receive nothing (see ``StallWatch/timeout``).
    let timeout: Duration

    init(timeout: Duration) {
        self.timeout = timeout
        watch = Locked(StallWatch(timeout: timeout, now: ContinuousClock().now))
    }

    /// Records bytes received now.
    func received(_ bytes: Int) {
        let now = clock.now
        watch.withLock { $0.received(bytes, at: now) }
    }

    /// How often a watcher checks: a few times per timeout, so a stall is reported within a
    /// quarter of it (at most 1 s).
    var interval: Duration { min(timeout / 4, .seconds(1)) }

    /// The check a watcher makes when it wakes, having meant to wake at `due`: the stall, if
    /// the transfer has stalled. Woken late — the process was starved of CPU (a loaded machine,
    /// a stopped process, a busy event loop) — what arrived meanwhile may not have been read
    /// yet: beyond a watcher's ordinary lateness (half an interval), that time is not the
    /// server's.
    func check(due: ContinuousClock.Instant) -> StallWatch.Stall? {
        let now = clock.now
        return watch.withLock { watch in
            watch.excuse(now - due - interval / 2, at: now)
            return watch.check(at: now)
        }
    }

    /// The transfer holds itself back (a rate limit's wait) until ``release()``: no stall meanwhile.
    func hold() {
        watch.withLock { $0.hold() }
    }

    /// The hold is over: the watch starts afresh from now.
    func release() {
        let now = clock.now
        watch.withLock { $0.release(at: now) }
    }

    var now: ContinuousClock.Instant { clock.now }
}

/// Runs `body` — a request and its body — and ends it with a ``StallError`` when it stalls (see
/// ``StallWatch``): `body` reports what it receives to the meter it is given. The waiting for
/// the response's head counts too, so a server that accepts and never answers is a stall.
func withStallDetection<T: Sendable>(_ timeout: Duration,
                                     _ body: @escaping @Sendable (StallMeter) async throws -> T) async throws -> T {
    let meter = StallMeter(timeout: timeout)
    return try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body(meter) }
        group.addTask {
            while true {
                let due = meter.now + meter.interval
                try await Task.sleep(for: meter.interval)
                if let stall = meter.check(due: due) { throw StallError(stall: stall) }
            }
        }
        defer { group.cancelAll() }
        // The first child to finish: the body's result, or the watcher's stall.
        guard let first = try await group.next(), let result = first else {
            throw CancellationError()
        }
        return result
    }
}
