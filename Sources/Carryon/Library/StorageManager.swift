import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An asset's storage policy: when it expires and how much it matters — the counterpart of
/// AVAssetDownloadStorageManagementPolicy.
public struct StoragePolicy: Sendable, Hashable, Codable {
    /// From this date a purge removes the asset; nil: never.
    public var expiresAt: Date?
    /// `important` assets are removed only after every `default` one.
    public var priority: AssetPriority

    /// Creates a policy; by default the asset never expires and has `default` priority.
    public init(expiresAt: Date? = nil, priority: AssetPriority = .default) {
        self.expiresAt = expiresAt
        self.priority = priority
    }
}

/// The library's storage rules: a quota and a minimum of free disk space, and whether a
/// download that would break them purges first or fails.
public struct LibraryStorageSettings: Sendable, Hashable, Codable {
    /// The most bytes the library's bundles may take; nil: no quota.
    public var quotaBytes: Int?
    /// The free bytes to keep on the library's file system; nil: no minimum of the library's
    /// own, and downloads keep ``DiskSpace/defaultReserve`` (0 turns that off too). Purges
    /// apply only a minimum set here.
    public var minimumFreeBytes: Int?
    /// Whether a download that would break a rule purges by the rules first (else it fails).
    public var purgeOnDownload: Bool

    /// Creates settings; by default there is no quota and no free-space minimum, and a download
    /// that would break a rule fails rather than purging.
    public init(quotaBytes: Int? = nil, minimumFreeBytes: Int? = nil, purgeOnDownload: Bool = false) {
        self.quotaBytes = quotaBytes
        self.minimumFreeBytes = minimumFreeBytes
        self.purgeOnDownload = purgeOnDownload
    }
}

/// A library's storage settings, what its bundles take and what the disk has free
/// (``StorageManager/report()``).
public struct StorageReport: Sendable, Hashable, Codable {
    /// The quota, the free-space reserve and what a download that needs room does.
    public var settings: LibraryStorageSettings
    /// Bytes the library's bundles take on disk.
    public var libraryBytes: Int
    /// Bytes free on the library's file system.
    public var freeBytes: Int
}

/// Keeps a library's storage in order, as AVAssetDownloadStorageManager does: each asset's
/// ``StoragePolicy``, the library's ``LibraryStorageSettings``, and purges that remove expired
/// assets first, then `default` before `important`, least recently played first, until the
/// quota and the free-space rule hold. An asset downloading (a process holds its bundle's lock)
/// or being played (a playback server holds a lease on it: see ``PlaybackLeases``) is never
/// removed; the plan says which assets it kept, and why.
///
/// Times and free space come from closures, so purges are tested without waiting or filling a
/// disk.
public struct StorageManager: Sendable {
    /// The library whose storage is managed.
    public let library: OfflineLibrary
    /// The current time.
    public var now: @Sendable () -> Date
    /// The free bytes of the file system holding the library.
    public var freeBytes: @Sendable () -> Int

    /// Creates a storage manager for `library`.
    ///
    /// - Parameters:
    ///   - library: The library to manage.
    ///   - now: The current time; by default the system clock.
    ///   - freeBytes: The free bytes of the library's file system; by default
    ///     ``freeBytes(at:)`` of the library folder.
    public init(library: OfflineLibrary, now: @escaping @Sendable () -> Date = { Date() },
                freeBytes: (@Sendable () -> Int)? = nil) {
        self.library = library
        self.now = now
        let root = library.root.path
        self.freeBytes = freeBytes ?? { Self.freeBytes(at: root) }
    }

    /// The free bytes for an unprivileged user on the file system holding `path` (statvfs).
    public static func freeBytes(at path: String) -> Int {
        DiskSpace.freeBytes(at: path)
    }

    // MARK: Policies and settings

    /// The policy of asset `id`.
    public func policy(for id: String) async throws(CarryonError) -> StoragePolicy {
        guard let asset = try await library.index.asset(id) else {
            throw CarryonError(.unknownAsset, "no asset has the id \(id)")
        }
        return StoragePolicy(expiresAt: asset.expiresAt, priority: asset.priority)
    }

    /// Sets the policy of asset `id`. It also replaces an expiry the index holds but cannot read.
    ///
    /// - Throws: ``CarryonError/Code/invalidValue`` when the expiry lies outside what the library
    ///   keeps (``DateText/earliest``…``DateText/latest``); ``CarryonError/Code/unknownAsset``.
    public func setPolicy(_ policy: StoragePolicy, for id: String) async throws(CarryonError) {
        if let expiresAt = policy.expiresAt { try DateText.check(expiresAt, naming: "the expiry") }
        if !(try await library.index.setPolicy(policy, of: id)) { throw CarryonError(.unknownAsset, "no asset has the id \(id)") }
    }

    /// The library's storage settings.
    public func settings() async throws(CarryonError) -> LibraryStorageSettings {
        try await library.index.storageSettings()
    }

    /// Replaces the library's storage settings.
    public func setSettings(_ settings: LibraryStorageSettings) async throws(CarryonError) {
        try await library.index.setStorageSettings(settings)
    }

    /// The settings with what the library takes and what the disk has free now: what
    /// `carryon storage` shows.
    public func report() async throws(CarryonError) -> StorageReport {
        let plan = try await plan()
        return StorageReport(settings: try await settings(), libraryBytes: plan.libraryBytesAfter + plan.bytesFreed,
                             freeBytes: plan.freeBytesAfter - plan.bytesFreed)
    }

    /// Records that a player asked for asset `id` now: the time a purge orders assets by
    /// (least recently played first).
    public func markPlayed(_ id: String) async throws(CarryonError) {
        try await library.index.markPlayed(id, at: now())
    }

    // MARK: Purging

    /// What a purge would remove now to make room for `incomingBytes` more (a download about
    /// to start), by the rules above.
    public func plan(incomingBytes: Int = 0, excluding busy: Set<String> = []) async throws(CarryonError) -> PurgePlan {
        let settings = try await settings()
        let assets = try await library.index.allAssets()
        let date = now()
        // Who holds what, from the index: a download a live process runs or has queued, a
        // player's lease.
        let context = library.ownershipContext()
        let ownerships = try await library.index.holdings(context)
        let playing = try await library.index.playbackHolders(context)
        let candidates = assets.map { asset in
            let downloading = busy.contains(asset.id) || ownerships[asset.id]?.holder != nil
            let players = downloading ? [] : (playing[asset.id] ?? []).map(\.pid).sorted()
            // The size a listing kept, while the asset has not changed since and no process
            // holds it; else its bundle walked.
            let kept = !downloading && asset.figuresAreCurrent ? asset.bytesOnDisk : nil
            return PurgeCandidate(id: asset.id, bytes: kept ?? BundleFiles.totalUsage(of: library.bundleURL(for: asset.id)), expiresAt: asset.expiresAt,
                                  priority: asset.priority, lastPlayedAt: asset.lastPlayedAt, createdAt: asset.createdAt,
                                  use: downloading ? .downloading : players.isEmpty ? nil : .playing, players: players)
        }
        return PurgePlanner.plan(candidates: candidates,
                                 rules: StorageRules(quotaBytes: settings.quotaBytes, minimumFreeBytes: settings.minimumFreeBytes),
                                 freeBytes: freeBytes(), now: date, incomingBytes: incomingBytes)
    }
}
