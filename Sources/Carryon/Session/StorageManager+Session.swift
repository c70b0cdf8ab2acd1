extension StorageManager {
    /// Removes what ``plan(incomingBytes:excluding:)`` lists, through `session` (so that
    /// bundles, rows and tasks go together), and returns the plan carried out. An asset another
    /// process started downloading after the plan was made is kept (as downloading) instead.
    @discardableResult
    public func purge(with session: DownloadSession, incomingBytes: Int = 0) async throws(CarryonError) -> PurgePlan {
        var plan = try await plan(incomingBytes: incomingBytes)
        for removal in plan.removals {
            do {
                try await session.delete(removal.id, unlessHeldElsewhere: true)
            } catch where error.code == .busy {
                plan.removals.removeAll { $0.id == removal.id }
                plan.kept.append(.init(id: removal.id, bytes: removal.bytes, reason: removal.reason, use: .downloading))
                plan.bytesFreed -= removal.bytes
                plan.libraryBytesAfter += removal.bytes
                plan.freeBytesAfter -= removal.bytes
            }
        }
        return plan
    }
}
