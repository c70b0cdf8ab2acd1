import Foundation

/// Admitting a download: whether the bytes still to come fit the library's storage rules, what
/// a purge must remove first when they do not and the library allows one, and the rules the
/// transfer's bytes are then charged against as they arrive (see ``ByteBudget``).
extension StorageManager {
    /// A download admitted.
    struct Admission: Sendable {
        /// The assets to remove first, by the purge rules (through the session, so that their
        /// tasks stop and their rows go with them).
        var removals: [PurgePlan.Removal]
        /// The rules the transfer's bytes are charged against.
        var rules: ByteBudget.Rules
        /// The library's bytes once the removals are done.
        var libraryBytes: Int
    }

    /// Admits asset `id`'s download of `incomingBytes` more on `disk`: when they would break
    /// the quota or leave less free than the reserve (the library's minimum, else
    /// ``DiskSpace/defaultReserve``), a purge by the rules makes room if the library is set to
    /// and that is enough.
    ///
    /// - Throws: ``CarryonError/Code/storage`` with the sizes involved when there is no room.
    func admit(_ id: String, incomingBytes incoming: Int, on disk: DiskSpace) async throws(CarryonError) -> Admission {
        let settings = try await settings()
        let reserve = settings.minimumFreeBytes ?? disk.defaultReserve
        let plan = try await plan(incomingBytes: incoming, excluding: [id])
        var libraryBytes = plan.libraryBytesAfter + plan.bytesFreed
        let free = plan.freeBytesAfter - plan.bytesFreed
        let fitsQuota = settings.quotaBytes.map { libraryBytes + incoming <= $0 } ?? true
        let keepsFree = free - incoming >= reserve
        var removals: [PurgePlan.Removal] = []
        if !fitsQuota || !keepsFree {
            guard settings.purgeOnDownload, plan.satisfied, plan.freeBytesAfter - incoming >= reserve else {
                var rules: [String] = []
                if let quota = settings.quotaBytes { rules.append("the library holds \(libraryBytes) bytes of its \(quota)-byte quota") }
                rules.append("\(free) bytes are free and \(reserve) must stay free"
                             + (settings.minimumFreeBytes == nil ? " (the default reserve: 1 GiB, or 5 % of a smaller disk)" : ""))
                let purge = settings.purgeOnDownload ? "a purge by the rules cannot make enough room" : "a purge, or allowing one on download, can make room"
                throw CarryonError(.storage, "\(id) needs about \(incoming) more bytes, but \(rules.joined(separator: " and ")); \(purge)")
            }
            removals = plan.removals
            libraryBytes = plan.libraryBytesAfter
        }
        let rules = ByteBudget.Rules(quotaBytes: settings.quotaBytes, reserveBytes: reserve, reserveIsDefault: settings.minimumFreeBytes == nil,
                                     bookkeepingBytes: reserve > 0 ? ByteBudget.Rules.bookkeeping : 0)
        return Admission(removals: removals, rules: rules, libraryBytes: libraryBytes)
    }
}
