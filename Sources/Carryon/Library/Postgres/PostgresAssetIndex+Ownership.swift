import Foundation
import GRDB

/// Who runs what, in the PostgreSQL index: one `SERIALIZABLE` transaction per decision, as
/// SQLite's (see `SQLiteAssetIndex+Ownership.swift`). A claim also locks the row it takes
/// (`FOR UPDATE SKIP LOCKED`): workers claiming at once each take a different task rather
/// than all but one being refused and trying again.
extension PostgresAssetIndex {
    private static let registerInstance = """
        INSERT INTO instance (id, host, pid, processStart, processScope, label, startedAt, aliveUntil, fleetWorker) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET aliveUntil = excluded.aliveUntil, fleetWorker = (COALESCE(instance.fleetWorker, FALSE) OR excluded.fleetWorker)
        """

    private static func instanceValues(_ instance: Instance, label: String, fleetWorker: Bool, startedAt: Double, until: Double) -> [SQLValue] {
        [.text(instance.id), .text(instance.host), SQLValue(instance.pid), SQLValue(instance.processStart), SQLValue(instance.processScope),
         .text(label), .real(startedAt), .real(until), .boolean(fleetWorker)]
    }

    func register(_ instance: Instance, label: String, fleetWorker: Bool, until: Date, at now: Date) async throws(CarryonError) {
        try await write { transaction in
            try await transaction.execute(Self.registerInstance, Self.instanceValues(instance, label: label, fleetWorker: fleetWorker,
                                                                                    startedAt: now.timeIntervalSince1970, until: until.timeIntervalSince1970))
            // Instances gone for a day hold nothing any more: their rows read as no one's.
            try await transaction.execute("DELETE FROM instance WHERE aliveUntil < ?", [.real(now.timeIntervalSince1970 - 86_400)])
        }
    }

    func unregister(_ instanceID: String) async throws(CarryonError) {
        try await write { transaction in try await transaction.execute("DELETE FROM instance WHERE id = ?", [.text(instanceID)]) }
    }

    func fleetWorkers(_ context: OwnershipContext) async throws(CarryonError) -> [FleetWorker] {
        try await read { transaction in
            FleetWorker.live(try await transaction.rows(FleetWorker.query, [.real(context.seconds)]).map {
                (IndexRows.instance($0), $0["aliveUntil"], $0["startedAt"], $0["running"], $0["fleetWorker"])
            }, context)
        }
    }

    func ownership(of id: String, _ context: OwnershipContext) async throws(CarryonError) -> TaskOwnership? {
        try await read { transaction in try await Self.ownerships(transaction, context, id: id)[id] }
    }

    func ownerships(_ context: OwnershipContext) async throws(CarryonError) -> [String: TaskOwnership] {
        try await read { transaction in try await Self.ownerships(transaction, context, id: nil) }
    }

    func holdings(_ context: OwnershipContext) async throws(CarryonError) -> [String: TaskOwnership] {
        try await read { transaction in try await Self.ownerships(transaction, context, id: nil, heldOnly: true) }
    }

    func enqueue(_ id: String, by instance: String, startingAt start: Date?,
                 _ context: OwnershipContext) async throws(CarryonError) -> (Ownership.EnqueueDecision, TaskOwnership?) {
        let result = try await write { transaction in
            guard let current = try await Self.ownerships(transaction, context, id: id)[id] else {
                throw CarryonError(.unknownAsset, "no asset has the id \(id)")
            }
            let alive = try await Self.liveInstances(transaction, context)
            let decision = Ownership.enqueue(current.row, by: instance, now: context.seconds) { alive.contains($0) }
            if decision == .queue {
                // Owned by no one until claimed: a run that held it before (its lease ran out)
                // is fenced off from here on.
                try await transaction.execute("""
                    UPDATE asset SET state = 'waiting', owner = NULL, leaseUntil = NULL, queuedBy = ?, queuedAt = ?,
                    request = NULL, progress = NULL, errorMessage = NULL, updatedAt = ? WHERE id = ?
                    """, [.text(instance), .real((start ?? context.now).timeIntervalSince1970), SQLValue(context.now), .text(id)])
                try await Self.notify(id, transaction)
            }
            return Enqueued(decision: decision, current: current)
        }
        return (result.decision, result.current)
    }

    private struct Enqueued: Sendable {
        var decision: Ownership.EnqueueDecision
        var current: TaskOwnership?
    }

    func claimNext(by instance: String, fromFleet: Bool, lease: Double, _ context: OwnershipContext) async throws(CarryonError) -> Fence? {
        try await write { transaction in
            guard let id: String = try await transaction.row("""
                SELECT id FROM asset WHERE \(IndexRows.claimable)
                ORDER BY CASE priority WHEN 'important' THEN 0 ELSE 1 END, queuedAt, seq LIMIT 1 FOR UPDATE SKIP LOCKED
                """, [.real(context.seconds), .text(instance), .boolean(fromFleet), .text(Ownership.fleet), .real(context.seconds)])?["id"],
                let row = try await Self.ownershipRow(transaction, id: id) else { return nil }
            let alive = try await Self.liveInstances(transaction, context)
            guard let claim = Ownership.claim(row, by: instance, fromFleet: fromFleet, now: context.seconds, lease: lease,
                                              isAlive: { alive.contains($0) }) else { return nil }
            // A fleet's task keeps its queue while it runs: if its worker dies, it is the fleet's again.
            let changed = try await transaction.execute("""
                UPDATE asset SET state = 'running', changes = changes + 1, owner = ?, leaseUntil = ?, epoch = ?,
                queuedBy = CASE WHEN queuedBy = ? THEN queuedBy END, updatedAt = ?
                WHERE id = ? AND epoch = ? AND state = ? AND request IS NULL RETURNING 1
                """, [.text(instance), .real(claim.leaseUntil), .integer(claim.epoch), .text(Ownership.fleet), SQLValue(context.now), .text(id),
                      .integer(row.epoch), .text(row.state.rawValue)])
            guard changed == 1 else { return nil }
            try await Self.notify(id, transaction)
            return Fence(assetID: id, owner: instance, epoch: claim.epoch)
        }
    }

    func renew(_ instance: Instance, label: String, fleetWorker: Bool, aliveUntil: Date, fences: [Fence], lease: Double,
               _ context: OwnershipContext) async throws(CarryonError) -> [Fence] {
        try await write { transaction in
            // Made again if another process cleared it (this one was asleep for a day).
            try await transaction.execute(Self.registerInstance, Self.instanceValues(instance, label: label, fleetWorker: fleetWorker,
                                                                                    startedAt: context.seconds, until: aliveUntil.timeIntervalSince1970))
            var lost: [Fence] = []
            for fence in fences {
                guard let row = try await Self.ownershipRow(transaction, id: fence.assetID),
                      let until = Ownership.renew(row, fence, now: context.seconds, lease: lease) else {
                    lost.append(fence)
                    continue
                }
                try await transaction.execute("UPDATE asset SET leaseUntil = ? WHERE id = ?", [.real(until), .text(fence.assetID)])
            }
            return lost
        }
    }

    func endRun(_ fence: Fence, state: DownloadState, error: String?, requeueAt: Date?, at date: Date) async throws(CarryonError) {
        try await write { transaction in
            try await Self.check(fence, transaction)
            try await transaction.execute("""
                UPDATE asset SET state = ?, owner = NULL, leaseUntil = NULL, progress = NULL, changes = changes + 1,
                request = CASE WHEN (request = 'suspend' AND ?) OR (request = 'cancel' AND ?) THEN NULL ELSE request END,
                queuedBy = CASE WHEN NOT ? THEN NULL WHEN queuedBy = ? THEN queuedBy ELSE owner END, queuedAt = ?, updatedAt = ?,
                errorMessage = CASE WHEN ? THEN ? ELSE errorMessage END,
                completedAt = CASE WHEN ? THEN ? ELSE completedAt END WHERE id = ?
                """, [.text(state.rawValue), .boolean(state == .suspended), .boolean(state == .cancelled), .boolean(requeueAt != nil),
                      .text(Ownership.fleet), SQLValue(requeueAt?.timeIntervalSince1970), SQLValue(date), .boolean(error != nil), SQLValue(error),
                      .boolean(state == .completed), SQLValue(date), .text(fence.assetID)])
            try await Self.notify(fence.assetID, transaction)
        }
    }

    func setStateUnlessHeld(_ state: DownloadState, of id: String, by instance: String, error: String?,
                            _ context: OwnershipContext) async throws(CarryonError) -> TaskOwnership? {
        try await write { transaction in
            guard let current = try await Self.ownerships(transaction, context, id: id)[id] else {
                throw CarryonError(.unknownAsset, "no asset has the id \(id)")
            }
            // The fleet's queue is no process: anyone may take a task out of it.
            if let holder = current.holder, holder.instance != instance, !Ownership.isFleet(holder) { return current }
            // Written by a process that holds no claim: whatever claim the row still names is
            // fenced off from here on.
            try await transaction.execute("""
                UPDATE asset SET state = ?, owner = NULL, leaseUntil = NULL, epoch = epoch + CASE WHEN owner IS NULL THEN 0 ELSE 1 END,
                changes = changes + 1, queuedBy = NULL, queuedAt = NULL, request = NULL, progress = NULL, updatedAt = ?,
                errorMessage = CASE WHEN ? THEN NULLIF(?, '') ELSE errorMessage END WHERE id = ? AND epoch = ?
                """, [.text(state.rawValue), SQLValue(context.now), .boolean(error != nil), SQLValue(error), .text(id), .integer(current.row.epoch)])
            try await Self.notify(id, transaction)
            return nil
        }
    }

    func request(_ request: Ownership.Request, of id: String, by instance: String, onlyIfUnheld: Bool,
                 _ context: OwnershipContext) async throws(CarryonError) -> RequestOutcome {
        try await write { transaction in
            guard let current = try await Self.ownerships(transaction, context, id: id)[id] else {
                throw CarryonError(.unknownAsset, "no asset has the id \(id)")
            }
            guard let holder = current.holder else { return .unheld }
            if holder.instance == instance { return .mine }
            if onlyIfUnheld { return .heldElsewhere(current) }
            // No process runs a task waiting in the fleet's queue: the asking one applies it.
            if Ownership.isFleet(holder) { return .unheld }
            // A later request replaces an earlier one unless it asks less (a delete stays a delete).
            if current.row.request == .delete, request != .delete { return .sent(current) }
            try await transaction.execute("UPDATE asset SET request = ? WHERE id = ? AND epoch = ?",
                                          [.text(request.rawValue), .text(id), .integer(current.row.epoch)])
            return .sent(current)
        }
    }

    func takeRequest(_ request: Ownership.Request, of id: String) async throws(CarryonError) -> Bool {
        try await write { transaction in
            try await transaction.execute("UPDATE asset SET request = NULL WHERE id = ? AND request = ? RETURNING 1",
                                          [.text(id), .text(request.rawValue)]) == 1
        }
    }

    func requests(for instance: String) async throws(CarryonError) -> [(id: String, request: Ownership.Request)] {
        let rows = try await read { transaction in
            try await transaction.rows("""
                SELECT id, request FROM asset WHERE request IS NOT NULL AND (owner = ? OR (queuedBy = ? AND state = 'waiting'))
                """, [.text(instance), .text(instance)]).map { RequestRow(id: $0["id"], request: $0["request"] ?? "") }
        }
        return rows.compactMap { row in Ownership.Request(rawValue: row.request).map { (row.id, $0) } }
    }

    private struct RequestRow: Sendable {
        var id: String
        var request: String
    }

    func holds(_ fence: Fence) async throws(CarryonError) -> Bool {
        try await readOne { transaction in try await Self.ownershipRow(transaction, id: fence.assetID).map { Ownership.admits($0, fence) } ?? false }
    }

    func writeProgress(_ progress: DownloadProgress, fence: Fence) async throws(CarryonError) {
        var compact = progress
        compact.loadedTimeRanges = [:]
        let text = String(decoding: (try? JSONEncoder().encode(compact)) ?? Data("{}".utf8), as: UTF8.self)
        try await write { transaction in
            try await Self.commitWithoutWaiting(transaction)
            let written = try await transaction.execute("UPDATE asset SET progress = ? WHERE id = ? AND owner = ? AND epoch = ? RETURNING 1",
                                                        [.text(text), .text(fence.assetID), .text(fence.owner), .integer(fence.epoch)])
            if written == 1 { try await Self.notify(fence.assetID, transaction) }
        }
    }

    // MARK: Players' leases

    func holdPlayback(_ assetID: String, by instance: Instance, until: Date) async throws(CarryonError) {
        try await write { transaction in
            try await transaction.execute("""
                INSERT INTO playbackLease (assetId, holder, host, pid, processStart, processScope, until)
                SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM asset WHERE id = ?)
                ON CONFLICT (assetId, holder) DO UPDATE SET until = excluded.until
                """, [.text(assetID), .text(instance.id), .text(instance.host), SQLValue(instance.pid), SQLValue(instance.processStart),
                      SQLValue(instance.processScope), .real(until.timeIntervalSince1970), .text(assetID)])
            // Leases that ended a day ago (their process killed before it could end them).
            try await transaction.execute("DELETE FROM playbackLease WHERE until < ?", [.real(Date().timeIntervalSince1970 - 86_400)])
        }
    }

    func releasePlayback(_ assetIDs: [String]?, by holder: String) async throws(CarryonError) {
        try await write { transaction in
            if let assetIDs {
                for id in assetIDs {
                    try await transaction.execute("DELETE FROM playbackLease WHERE holder = ? AND assetId = ?", [.text(holder), .text(id)])
                }
            } else {
                try await transaction.execute("DELETE FROM playbackLease WHERE holder = ?", [.text(holder)])
            }
        }
    }

    func playbackHolders(_ context: OwnershipContext) async throws(CarryonError) -> [String: [Instance]] {
        try await read { transaction in
            IndexRows.playbackHolders(try await transaction.rows("SELECT * FROM playbackLease WHERE until > ?", [.real(context.seconds)]), context)
        }
    }

    // MARK: Reading rows

    /// Tells the processes following the index (``changes()``) that task `id` changed, when
    /// `transaction` commits.
    static func notify(_ id: String, _ transaction: PostgresTransaction) async throws {
        try await transaction.execute("SELECT pg_notify(?, ?)", [.text(changesChannel), .text(id)])
    }

    /// The channel ``notify(_:_:)`` signals on.
    static let changesChannel = "carryon_changes"

    /// Refuses a write under `fence` when the row is no longer the fence's; otherwise locks the
    /// row (`FOR SHARE`) until the write's transaction ends, so that no claim comes between.
    static func check(_ fence: Fence, _ transaction: PostgresTransaction) async throws {
        guard let row = try await ownershipRow(transaction, id: fence.assetID, lock: "FOR SHARE") else {
            throw CarryonError(.unknownAsset, "no asset has the id \(fence.assetID)")
        }
        guard Ownership.admits(row, fence) else {
            throw CarryonError(.busy, "\(fence.assetID) was claimed by another process after this one's lease ran out; this run stops and writes nothing more",
                                cause: LostClaim())
        }
    }

    static func ownershipRow(_ transaction: PostgresTransaction, id: String, lock: String = "") async throws -> Ownership.Row? {
        try await transaction.row("SELECT state, owner, leaseUntil, epoch, queuedBy, queuedAt, request FROM asset WHERE id = ? \(lock)",
                                  [.text(id)]).map(IndexRows.ownership)
    }

    /// Whether instance `id` is alive.
    static func alive(_ id: String, _ transaction: PostgresTransaction, _ context: OwnershipContext) async throws -> Bool {
        guard let row = try await transaction.row("SELECT * FROM instance WHERE id = ?", [.text(id)]) else { return false }
        return context.isAlive(IndexRows.instance(row), aliveUntil: row["aliveUntil"])
    }

    /// The ids of the live instances.
    static func liveInstances(_ transaction: PostgresTransaction, _ context: OwnershipContext) async throws -> Set<String> {
        Set(try await transaction.rows("SELECT * FROM instance").compactMap { row -> String? in
            let instance = IndexRows.instance(row)
            return context.isAlive(instance, aliveUntil: row["aliveUntil"]) ? instance.id : nil
        })
    }

    /// The ownership of asset `id` (of every asset when nil; with `heldOnly`, of those a
    /// process may hold).
    static func ownerships(_ transaction: PostgresTransaction, _ context: OwnershipContext, id: String?,
                           heldOnly: Bool = false) async throws -> [String: TaskOwnership] {
        let filter = id != nil ? " WHERE id = ?" : heldOnly ? " WHERE owner IS NOT NULL OR queuedBy IS NOT NULL OR state IN ('running', 'waiting')" : ""
        let rows = try await transaction.rows("SELECT id, state, owner, leaseUntil, epoch, queuedBy, queuedAt, request, progress FROM asset" + filter,
                                              id.map { [.text($0)] } ?? [])
        guard !rows.isEmpty else { return [:] }
        return IndexRows.ownerships(rows, instances: try await transaction.rows("SELECT * FROM instance"), context)
    }
}
