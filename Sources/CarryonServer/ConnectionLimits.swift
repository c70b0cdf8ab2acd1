import CCarryonSystem
import Foundation

/// What a server allows a connection: how long it may take to send a request, to wait idle
/// for the next, to send a body, and how many connections it keeps at once.
///
/// Without limits, a client that connects and sends nothing, trickles its headers a byte a
/// second, or announces a 50 MB body and sends 1 KB holds a connection (and its memory) for as
/// long as it likes, and none of it needs the token. ``PlaybackServer`` (and with it the daemon's
/// API) and ``Origin`` apply these limits to every connection:
///
/// - A request's head must arrive within ``headTimeout`` of the connection being accepted, or of
///   the first byte of a later request on it; otherwise the client gets `408 Request Timeout`
///   and the connection is closed.
/// - A connection idle between requests is closed after ``idleTimeout``.
/// - A request body must arrive at ``minimumBodyRate`` bytes a second on average, after a grace
///   of ``headTimeout``; a slower one gets `408` and the connection is closed.
/// - At most ``maximumConnections`` are open at once: one more is answered
///   `503 Service Unavailable` with `Retry-After: 1` and closed, before anything it sends is read.
/// - An answer whose client takes none of it for ``sendTimeout`` (the bytes waiting to go out do
///   not move) is cut off: the connection is closed, as nginx's `send_timeout` does.
///
/// An answer is never timed out while its client takes it, however slowly: a player reading a
/// segment slowly is a player. One that stops reading altogether (a paused player that keeps
/// the connection, a client gone without a word, or one that means harm) no longer holds the
/// connection, its file and its buffers for as long as it likes.
///
/// ```swift
/// var server = try PlaybackServer(source: PlaybackSource(library: library))
/// server.limits = ConnectionLimits(idleTimeout: .seconds(15), maximumConnections: 2_000)
/// ```
public struct ConnectionLimits: Sendable, Hashable {
    /// How long a request's head may take to arrive: 10 seconds by default.
    public var headTimeout: Duration
    /// How long a connection may wait for its next request: 60 seconds by default.
    public var idleTimeout: Duration
    /// The slowest a request body may arrive on average, in bytes a second, once
    /// ``headTimeout`` has passed since its head: 1,024 by default.
    public var minimumBodyRate: Int
    /// The most connections open at once: 512 by default. Each open connection takes a file
    /// descriptor: raise the process's limit (`ulimit -n`, systemd's `LimitNOFILE=`) with it.
    public var maximumConnections: Int
    /// How long an answer may wait for its client to take any of it before the connection is
    /// closed: 60 seconds by default. Checked four times in that time, so a connection is closed
    /// between one and one and a quarter times it after its client stopped reading.
    public var sendTimeout: Duration

    /// Limits with the defaults, or those given.
    public init(headTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(60), minimumBodyRate: Int = 1_024,
                maximumConnections: Int = 512, sendTimeout: Duration = .seconds(60)) {
        self.headTimeout = headTimeout
        self.idleTimeout = idleTimeout
        self.minimumBodyRate = minimumBodyRate
        self.maximumConnections = maximumConnections
        self.sendTimeout = sendTimeout
    }

    /// The shortest any of the timeouts may be: a second.
    public static let shortestTimeout = Duration.seconds(1)
    /// The longest any of the timeouts may be: a day.
    public static let longestTimeout = Duration.seconds(86_400)
    /// The most connections a server may be told to keep open at once.
    public static let mostConnections = 1_000_000

    /// Checks that every limit can be applied: each timeout from ``shortestTimeout`` to
    /// ``longestTimeout``, ``minimumBodyRate`` zero or more (zero: as slow as a byte a second), and
    /// ``maximumConnections`` from 1 to ``mostConnections``. ``PlaybackServer`` and ``Origin`` check
    /// their limits before they listen: a timeout of zero, or of a nanosecond, would close every
    /// connection at once, and one of a thousand years is a typo, not a limit.
    ///
    /// - Throws: ``ConnectionLimitsError``, naming the limit and its value.
    public func validate() throws(ConnectionLimitsError) {
        for (name, value) in [("headTimeout", headTimeout), ("idleTimeout", idleTimeout), ("sendTimeout", sendTimeout)]
        where value < Self.shortestTimeout || value > Self.longestTimeout {
            let (shortest, longest) = (Self.shortestTimeout.components.seconds, Self.longestTimeout.components.seconds)
            throw ConnectionLimitsError("\(name) must be between \(shortest) and \(longest) seconds (got \(value))")
        }
        guard minimumBodyRate >= 0 else {
            throw ConnectionLimitsError("minimumBodyRate must be zero or more bytes a second (got \(minimumBodyRate))")
        }
        guard (1...Self.mostConnections).contains(maximumConnections) else {
            throw ConnectionLimitsError("maximumConnections must be between 1 and \(Self.mostConnections) (got \(maximumConnections))")
        }
    }
}

/// Connection limits a server cannot apply (see ``ConnectionLimits/validate()``): names the
/// limit and the value given.
public struct ConnectionLimitsError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// The connections a server has open now, counted against ``ConnectionLimits/maximumConnections``.
///
/// When most of many connections have closed, the memory they took is given back to the
/// system: glibc keeps what a thousand connections freed for later, and a daemon that met a
/// burst (or an attack) would otherwise keep it for its whole life (measured by
/// `Scripts/security-probe.py`: 47 MiB before 1,500 connections, 72 with them, 73 after).
final class OpenConnections: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    /// The most open since memory was last given back.
    private var peak = 0

    /// Counts one more connection, unless `maximum` are open: then false.
    func enter(maximum: Int) -> Bool {
        lock.withLock {
            guard count < maximum else { return false }
            count += 1
            peak = max(peak, count)
            return true
        }
    }

    /// Counts a connection closed.
    func leave() {
        let release = lock.withLock {
            count -= 1
            guard peak >= 64, count <= peak / 4 else { return false }
            peak = count
            return true
        }
        if release { DispatchQueue.global(qos: .utility).async { _ = carryon_release_free_memory() } }
    }

    /// How many are open.
    var current: Int { lock.withLock { count } }
}
