import Foundation

/// Why a purge cannot remove an asset now.
public enum AssetUse: String, Sendable, Hashable, Codable, CaseIterable {
    /// A process is downloading it (it holds the bundle's lock), or the download asking for
    /// room is its own.
    case downloading
    /// A playback server is playing it (see `PlaybackLeases`).
    case playing
}

/// An offline asset that a storage purge may remove.
public struct PurgeCandidate: Sendable, Hashable {
    /// A stable identifier of the asset; also the final tie-breaker.
    public var id: String
    /// The bytes the asset occupies on disk. Negative values count as 0.
    public var bytes: Int
    /// When the asset's content stops being playable, if ever.
    /// An asset with `expiresAt <= now` is expired.
    public var expiresAt: Date?
    /// How strongly the asset should be kept.
    public var priority: AssetPriority
    /// When the asset was last played, or `nil` if it never was.
    public var lastPlayedAt: Date?
    /// When the asset was downloaded; stands in for `lastPlayedAt` when the
    /// asset was never played.
    public var createdAt: Date
    /// Whether the asset is being downloaded or played, or nil. Assets in use are never
    /// removed, not even when expired.
    public var use: AssetUse?
    /// The processes playing the asset, when ``use`` is ``AssetUse/playing``.
    public var players: [Int32]
    /// Whether the asset is in use (``use`` is not nil).
    public var isBusy: Bool { use != nil }

    /// Creates a candidate.
    ///
    /// - Parameters:
    ///   - id: A stable identifier of the asset.
    ///   - bytes: The bytes the asset occupies on disk.
    ///   - expiresAt: When the content expires, if ever.
    ///   - priority: How strongly the asset should be kept.
    ///   - lastPlayedAt: When it was last played, or `nil` if never.
    ///   - createdAt: When it was downloaded.
    ///   - use: Whether it is being downloaded or played.
    ///   - players: The processes playing it.
    public init(
        id: String,
        bytes: Int,
        expiresAt: Date? = nil,
        priority: AssetPriority = .default,
        lastPlayedAt: Date? = nil,
        createdAt: Date,
        use: AssetUse? = nil,
        players: [Int32] = []
    ) {
        self.id = id
        self.bytes = bytes
        self.expiresAt = expiresAt
        self.priority = priority
        self.lastPlayedAt = lastPlayedAt
        self.createdAt = createdAt
        self.use = use
        self.players = players
    }
}

/// The storage limits a purge tries to restore. A `nil` limit is not enforced.
public struct StorageRules: Sendable, Hashable {
    /// The most bytes the library (plus any incoming download) may occupy.
    public var quotaBytes: Int?
    /// The fewest bytes that must stay free on the volume after any incoming
    /// download has been written.
    public var minimumFreeBytes: Int?

    /// Creates rules; omit a limit to leave it unenforced.
    ///
    /// - Parameters:
    ///   - quotaBytes: The most bytes the library may occupy.
    ///   - minimumFreeBytes: The fewest bytes that must stay free.
    public init(quotaBytes: Int? = nil, minimumFreeBytes: Int? = nil) {
        self.quotaBytes = quotaBytes
        self.minimumFreeBytes = minimumFreeBytes
    }
}

/// What a purge would remove, and the storage situation afterwards.
public struct PurgePlan: Sendable, Hashable, Codable {
    /// One asset the purge removes.
    public struct Removal: Sendable, Hashable, Codable {
        /// Why an asset is removed.
        public enum Reason: String, Sendable, Hashable, Codable, CaseIterable {
            /// Its content had expired.
            case expired
            /// The quota was broken when it was chosen (takes precedence when
            /// both rules were broken).
            case quota
            /// Only the minimum free space was broken when it was chosen.
            case freeSpace
        }

        /// The removed asset's ``PurgeCandidate/id``.
        public var id: String
        /// The bytes removing it frees (its size, or 0 if negative).
        public var bytes: Int
        /// Why it is removed.
        public var reason: Reason

        /// Creates a removal.
        ///
        /// - Parameters:
        ///   - id: The removed asset's identifier.
        ///   - bytes: The bytes removing it frees.
        ///   - reason: Why it is removed.
        public init(id: String, bytes: Int, reason: Reason) {
            self.id = id
            self.bytes = bytes
            self.reason = reason
        }
    }

    /// An asset the purge would have removed, kept because it is in use.
    public struct Kept: Sendable, Hashable, Codable {
        /// The kept asset's ``PurgeCandidate/id``.
        public var id: String
        /// Its bytes.
        public var bytes: Int
        /// Why it would have been removed.
        public var reason: Removal.Reason
        /// What keeps it.
        public var use: AssetUse
        /// The processes playing it, when it is kept for being played.
        public var processes: [Int32]

        /// Creates a kept asset.
        public init(id: String, bytes: Int, reason: Removal.Reason, use: AssetUse, processes: [Int32] = []) {
            self.id = id
            self.bytes = bytes
            self.reason = reason
            self.use = use
            self.processes = processes
        }
    }

    /// The assets to remove, in the order they were chosen.
    public var removals: [Removal]
    /// The assets in use that would otherwise have been removed, in the order they came up.
    public var kept: [Kept]
    /// The total bytes the removals free.
    public var bytesFreed: Int
    /// The library's bytes after the removals (not counting the incoming download).
    public var libraryBytesAfter: Int
    /// The volume's free bytes after the removals (before the incoming
    /// download is written).
    public var freeBytesAfter: Int
    /// Whether both rules hold after the removals, with room for the incoming download.
    public var satisfied: Bool
    /// The bytes still missing to meet the rules: the larger of the quota
    /// overrun and the free-space deficit. 0 when ``satisfied``.
    public var shortfall: Int

    /// Creates a plan.
    ///
    /// - Parameters:
    ///   - removals: The assets to remove, in order.
    ///   - bytesFreed: The total bytes the removals free.
    ///   - libraryBytesAfter: The library's bytes afterwards.
    ///   - freeBytesAfter: The volume's free bytes afterwards.
    ///   - satisfied: Whether both rules hold afterwards.
    ///   - shortfall: The bytes still missing to meet the rules.
    ///   - kept: The assets in use that would otherwise have been removed.
    public init(
        removals: [Removal],
        bytesFreed: Int,
        libraryBytesAfter: Int,
        freeBytesAfter: Int,
        satisfied: Bool,
        shortfall: Int,
        kept: [Kept] = []
    ) {
        self.removals = removals
        self.kept = kept
        self.bytesFreed = bytesFreed
        self.libraryBytesAfter = libraryBytesAfter
        self.freeBytesAfter = freeBytesAfter
        self.satisfied = satisfied
        self.shortfall = shortfall
    }
}

/// Decides which offline assets a storage purge removes, in the spirit of
/// `AVAssetDownloadStorageManager`.
public enum PurgePlanner {
    /// Plans a purge.
    ///
    /// An asset in use (downloading or being played) is never removed; one that would have
    /// been is listed in ``PurgePlan/kept`` with the reason.
    ///
    /// 1. Every expired (`expiresAt <= now`) asset not in use is removed, even
    ///    when the rules already hold — expired content is dead. They are
    ///    listed oldest expiry first, then by id.
    /// 2. Then, while a rule is broken, assets not in use are removed: every
    ///    `default` asset before any `important` one; within a priority the
    ///    least recently played first (a never-played asset counts as played
    ///    at `createdAt`); ties go to the larger asset, then the smaller id.
    ///    Zero-byte assets are skipped here since removing them cannot help.
    ///    Removal stops as soon as both rules hold.
    ///
    /// The quota holds when `libraryBytes + incomingBytes <= quotaBytes`; the
    /// free-space rule holds when `freeBytes - incomingBytes >= minimumFreeBytes`.
    /// Removing an asset frees its bytes on disk as well. If the rules cannot
    /// be met after removing everything allowed, the plan is not `satisfied`.
    /// Sums saturate instead of overflowing.
    ///
    /// - Parameters:
    ///   - candidates: The library's assets; their bytes make up the library size.
    ///   - rules: The limits to restore.
    ///   - freeBytes: The volume's free bytes now.
    ///   - now: The instant expiry is judged against.
    ///   - incomingBytes: The size of a download about to start, which must fit
    ///     (negative values count as 0).
    /// - Returns: The removals and the resulting storage situation.
    public static func plan(
        candidates: [PurgeCandidate],
        rules: StorageRules,
        freeBytes: Int,
        now: Date,
        incomingBytes: Int = 0
    ) -> PurgePlan {
        let incoming = max(0, incomingBytes)
        var state = StorageState(
            rules: rules,
            libraryBytes: candidates.reduce(0) { saturatingAdd($0, size(of: $1)) },
            freeBytes: freeBytes,
            incomingBytes: incoming)
        var removals: [PurgePlan.Removal] = []
        var bytesFreed = 0

        func remove(_ candidate: PurgeCandidate, reason: PurgePlan.Removal.Reason) {
            let bytes = size(of: candidate)
            removals.append(.init(id: candidate.id, bytes: bytes, reason: reason))
            bytesFreed = saturatingAdd(bytesFreed, bytes)
            state.libraryBytes = max(0, saturatingSubtract(state.libraryBytes, bytes))
            state.freeBytes = saturatingAdd(state.freeBytes, bytes)
        }

        var kept: [PurgePlan.Kept] = []
        func keep(_ candidate: PurgeCandidate, reason: PurgePlan.Removal.Reason) {
            guard let use = candidate.use else { return }
            kept.append(.init(id: candidate.id, bytes: size(of: candidate), reason: reason, use: use,
                              processes: use == .playing ? candidate.players : []))
        }

        let expired = candidates
            .filter { candidate in candidate.expiresAt.map { $0 <= now } ?? false }
            .sorted { lhs, rhs in
                let lhsExpiry = lhs.expiresAt ?? now
                let rhsExpiry = rhs.expiresAt ?? now
                return lhsExpiry != rhsExpiry ? lhsExpiry < rhsExpiry : lhs.id < rhs.id
            }
        for candidate in expired {
            if candidate.isBusy { keep(candidate, reason: .expired) } else { remove(candidate, reason: .expired) }
        }

        let live = candidates
            .filter { candidate in candidate.expiresAt.map { $0 > now } ?? true }
            .filter { size(of: $0) > 0 }
            .sorted(by: evictsBefore)
        for candidate in live {
            let reason: PurgePlan.Removal.Reason
            if state.quotaOverrun > 0 {
                reason = .quota
            } else if state.freeSpaceDeficit > 0 {
                reason = .freeSpace
            } else {
                break
            }
            if candidate.isBusy { keep(candidate, reason: reason) } else { remove(candidate, reason: reason) }
        }

        let shortfall = max(0, state.quotaOverrun, state.freeSpaceDeficit)
        return PurgePlan(
            removals: removals,
            bytesFreed: bytesFreed,
            libraryBytesAfter: state.libraryBytes,
            freeBytesAfter: state.freeBytes,
            satisfied: shortfall == 0,
            shortfall: shortfall,
            kept: kept)
    }

    /// Whether `lhs` is removed before `rhs` when making room.
    static func evictsBefore(_ lhs: PurgeCandidate, _ rhs: PurgeCandidate) -> Bool {
        if lhs.priority != rhs.priority {
            return lhs.priority == .default
        }
        let lhsPlayed = lhs.lastPlayedAt ?? lhs.createdAt
        let rhsPlayed = rhs.lastPlayedAt ?? rhs.createdAt
        if lhsPlayed != rhsPlayed {
            return lhsPlayed < rhsPlayed
        }
        let lhsBytes = size(of: lhs)
        let rhsBytes = size(of: rhs)
        if lhsBytes != rhsBytes {
            return lhsBytes > rhsBytes
        }
        return lhs.id < rhs.id
    }

    /// A candidate's size, with negative sizes counted as 0.
    static func size(of candidate: PurgeCandidate) -> Int {
        max(0, candidate.bytes)
    }

    /// `lhs + rhs`, clamped to `Int`'s range instead of overflowing.
    static func saturatingAdd(_ lhs: Int, _ rhs: Int) -> Int {
        let (sum, overflow) = lhs.addingReportingOverflow(rhs)
        guard overflow else { return sum }
        return rhs > 0 ? Int.max : Int.min
    }

    /// `lhs - rhs`, clamped to `Int`'s range instead of overflowing.
    static func saturatingSubtract(_ lhs: Int, _ rhs: Int) -> Int {
        let (difference, overflow) = lhs.subtractingReportingOverflow(rhs)
        guard overflow else { return difference }
        return rhs > 0 ? Int.min : Int.max
    }
}

/// The running storage situation while a purge is planned.
private struct StorageState {
    /// The limits being restored.
    let rules: StorageRules
    /// The library's bytes so far.
    var libraryBytes: Int
    /// The volume's free bytes so far.
    var freeBytes: Int
    /// The size of the download that must fit.
    let incomingBytes: Int

    /// By how many bytes the quota is exceeded (0 when it holds or is unset).
    var quotaOverrun: Int {
        guard let quota = rules.quotaBytes else { return 0 }
        let needed = PurgePlanner.saturatingAdd(libraryBytes, incomingBytes)
        return max(0, PurgePlanner.saturatingSubtract(needed, quota))
    }

    /// By how many bytes free space falls short (0 when it holds or is unset).
    var freeSpaceDeficit: Int {
        guard let minimum = rules.minimumFreeBytes else { return 0 }
        let remaining = PurgePlanner.saturatingSubtract(freeBytes, incomingBytes)
        return max(0, PurgePlanner.saturatingSubtract(minimum, remaining))
    }
}
