import Foundation

/// The assets a playback server in this process is playing, each held by a lease: a row in the
/// library's index naming the holder (an instance of this process: its host and process id) and
/// when the lease ends. A purge, in any process on any host, keeps an asset whose lease is held,
/// and names the processes holding it.
///
/// A lease is taken at an asset's first request and lasts until the server stops
/// (``releaseAll()``), until no request has come for the asset in ``idleLimit`` (a player that
/// has gone without a word no longer holds an asset for ever), or until its process is gone (on
/// the same host this is known at once, even after `kill -9`; from another host, when the
/// lease's time runs out).
public final class PlaybackLeases: Sendable {
    /// How long an asset no request has come for stays leased.
    public let idleLimit: Duration
    private let library: OfflineLibrary
    private let clock: @Sendable () -> ContinuousClock.Instant
    /// Who holds the leases in the index.
    let holder = Instance.make()
    private let held = Locked<[String: Lease]>([:])

    private struct Lease {
        var lastUse: ContinuousClock.Instant
        /// When the row was last written: it is written again once a tenth of the idle limit has passed.
        var written: ContinuousClock.Instant
    }

    /// Leases on assets of `library`; `idleLimit` is ten minutes unless given.
    public init(library: OfflineLibrary, idleLimit: Duration = .seconds(600),
                clock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.library = library
        self.idleLimit = idleLimit
        self.clock = clock
    }

    deinit {
        let index = library.index
        let holder = holder.id
        if !held.withLock({ $0.isEmpty }) { Task { try? await index.releasePlayback(nil, by: holder) } }
    }

    /// Takes a lease on `assetID`, or renews the one held; ends the leases idle for longer
    /// than ``idleLimit``. An asset the index no longer has is not leased.
    public func hold(_ assetID: String) async {
        let now = clock()
        let (ended, write) = held.withLock { held -> ([String], Bool) in
            let idle = held.filter { $0.key != assetID && now - $0.value.lastUse > idleLimit }.map(\.key)
            for key in idle { held[key] = nil }
            let write = held[assetID].map { now - $0.written >= idleLimit / 10 } ?? true
            held[assetID, default: Lease(lastUse: now, written: now)].lastUse = now
            if write { held[assetID]?.written = now }
            return (idle, write)
        }
        if !ended.isEmpty { try? await library.index.releasePlayback(ended, by: holder.id) }
        if write {
            let seconds = Double(idleLimit.components.seconds) + Double(idleLimit.components.attoseconds) / 1e18
            try? await library.index.holdPlayback(assetID, by: holder, until: Date().addingTimeInterval(seconds))
        }
    }

    /// The assets leased now.
    public var assets: Set<String> {
        Set(held.withLock { $0.keys })
    }

    /// Ends every lease: the server has stopped.
    public func releaseAll() async {
        held.withLock { $0.removeAll() }
        try? await library.index.releasePlayback(nil, by: holder.id)
    }

    /// The processes holding a lease on asset `assetID` now (in any process of any host), by
    /// process id, lowest first.
    public static func holders(of assetID: String, in library: OfflineLibrary) async throws(CarryonError) -> [Int32] {
        (try await library.index.playbackHolders(library.ownershipContext())[assetID] ?? []).map(\.pid).sorted()
    }
}
