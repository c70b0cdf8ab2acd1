/// How many requests a task keeps in flight, decided by the link: start at a few, double while
/// the bytes completed per window keep rising (a slow start, as TCP's; the window after a change
/// is not judged, for the requests it added have not completed yet), step back when more did
/// not help, halve when the
/// server pushes back (429, 503, a reset, `Retry-After`), and never pass the maximum. A link
/// that caps each connection grows to many; a link whose capacity is shared stays where it
/// began. Time is passed in, so the decisions are tested without waiting.
struct ConcurrencyController: Sendable {
    /// The most requests in flight (`--max-connections`).
    let maximum: Int
    /// How long each measurement of throughput lasts.
    let window: Duration
    /// The requests to keep in flight now.
    private(set) var limit: Int
    private var windowStart: ContinuousClock.Instant
    private var bytesInWindow = 0
    /// The throughput of the last window that set the pace, and the limit it had.
    private var best: (rate: Double, limit: Int)?
    /// Whether more requests are still being tried.
    private var growing = true
    /// Whether the limit changed in the window now ending: the requests it added have not
    /// completed yet, so that window says nothing of them and is not judged.
    private var settling = false

    /// A controller starting at `start` requests (at most `maximum`), measuring over `window`.
    init(start: Int = 8, maximum: Int = 32, window: Duration = .seconds(1), now: ContinuousClock.Instant) {
        self.maximum = max(1, maximum)
        self.window = window
        limit = min(max(1, start), self.maximum)
        windowStart = now
    }

    /// Records `bytes` of a request completed at `now`; at the end of a window, decides.
    mutating func completed(_ bytes: Int, at now: ContinuousClock.Instant) {
        bytesInWindow += max(0, bytes)
        let elapsed = now - windowStart
        guard elapsed >= window else { return }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = Double(bytesInWindow) / seconds
        windowStart = now
        bytesInWindow = 0
        guard growing else { return }
        if settling {
            settling = false
            return
        }
        if let best, rate <= best.rate * 1.1 {
            // More requests did not bring 10 % more: the link is full; go back to what was enough.
            limit = best.limit
            growing = false
            return
        }
        best = (rate, limit)
        limit = min(maximum, limit * 2)
        if limit == best?.limit { growing = false } else { settling = true }
    }

    /// The server pushed back at `now`: half as many requests, and no more growing.
    mutating func throttled(at now: ContinuousClock.Instant) {
        limit = max(1, limit / 2)
        growing = false
        windowStart = now
        bytesInWindow = 0
    }
}
