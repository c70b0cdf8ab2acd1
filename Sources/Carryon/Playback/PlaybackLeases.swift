import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The assets a playback server in this process is playing, each held by a lease: a file
/// `.playing-<pid>` in its bundle, locked (`flock`) while the lease lasts. A purge, in any
/// process, keeps an asset whose lease is held, and names the processes holding it.
///
/// A lease is taken at an asset's first request and lasts until the server stops
/// (``releaseAll()``, or this object's end), until the process exits (the system drops its
/// locks, even after `kill -9`), or until no request has come for the asset in ``idleLimit``:
/// a player that has gone without a word no longer holds an asset for ever.
public final class PlaybackLeases: Sendable {
    /// How long an asset no request has come for stays leased.
    public let idleLimit: Duration
    private let library: OfflineLibrary
    private let clock: @Sendable () -> ContinuousClock.Instant
    private let held = Locked<[String: Lease]>([:])

    private struct Lease {
        let lock: FileLock
        let path: String
        var lastUse: ContinuousClock.Instant
    }

    /// Leases on assets of `library`; `idleLimit` is ten minutes unless given.
    public init(library: OfflineLibrary, idleLimit: Duration = .seconds(600),
                clock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.library = library
        self.idleLimit = idleLimit
        self.clock = clock
    }

    deinit {
        releaseAll()
    }

    /// Takes a lease on `assetID`, or renews the one held; ends the leases idle for longer
    /// than ``idleLimit``. An asset whose bundle cannot take the lease file (it is being
    /// deleted) is not leased.
    public func hold(_ assetID: String) {
        let now = clock()
        let ended = held.withLock { held -> [Lease] in
            let idle = held.filter { $0.key != assetID && now - $0.value.lastUse > idleLimit }
            for key in idle.keys { held[key] = nil }
            if held[assetID] != nil {
                held[assetID]?.lastUse = now
            } else {
                let path = Self.leasePath(in: library.bundleURL(for: assetID), pid: getpid())
                if FileManager.default.fileExists(atPath: library.bundleURL(for: assetID).path), let lock = FileLock(path: path) {
                    held[assetID] = Lease(lock: lock, path: path, lastUse: now)
                }
            }
            return Array(idle.values)
        }
        for lease in ended { Self.end(lease) }
    }

    /// The assets leased now.
    public var assets: Set<String> {
        Set(held.withLock { $0.keys })
    }

    /// Ends every lease: the server has stopped.
    public func releaseAll() {
        for lease in held.withLock({ held in defer { held.removeAll() }; return Array(held.values) }) { Self.end(lease) }
    }

    private static func end(_ lease: Lease) {
        unlink(lease.path)
        withExtendedLifetime(lease.lock) {}
    }

    /// The file of process `pid`'s lease in `bundle`.
    static func leasePath(in bundle: URL, pid: Int32) -> String {
        bundle.appending(path: ".playing-\(pid)", directoryHint: .notDirectory).path
    }

    /// The processes holding a lease on the asset whose bundle is `bundle`, lowest first. A
    /// lease file whose process has gone is not a lease (it is left: the same process id
    /// reuses it, and the bundle's removal takes it).
    public static func holders(of bundle: URL) -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: bundle.path)) ?? []
        return names.compactMap { name -> Int32? in
            guard name.hasPrefix(".playing-"), let pid = Int32(name.dropFirst(".playing-".count)) else { return nil }
            return FileLock.isHeld(path: bundle.appending(path: name, directoryHint: .notDirectory).path) ? pid : nil
        }.sorted()
    }
}
