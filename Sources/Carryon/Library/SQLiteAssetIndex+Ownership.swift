import Foundation
import GRDB

/// Who runs what, in one transaction per decision: the rows are read, ``Ownership``'s pure rules
/// decide, and what they decide is written before the transaction ends — a claim is a
/// compare-and-set on the row's state and epoch that no other process can come between.
extension SQLiteAssetIndex {
    /// Records `instance` alive until `until`, made if it is not (again, should another
    /// process have cleared it); a fleet worker once `fleetWorker` says so (the flag only turns
    /// on: a renewal that read it before the session joined, written after, leaves it on).
    private static let registerInstance = """
        INSERT INTO instance (id, host, pid, processStart, processScope, label, startedAt, aliveUntil, fleetWorker) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(id) DO UPDATE SET aliveUntil = excluded.aliveUntil, fleetWorker = (COALESCE(instance.fleetWorker, FALSE) OR excluded.fleetWorker)
        """

    func register(_ instance: Instance, label: String, fleetWorker: Bool, until: Date, at now: Date) async throws(CarryonError) {
        try await write { db in
            try db.execute(sql: Self.registerInstance, arguments: [instance.id, instance.host, instance.pid, instance.processStart, instance.processScope,
                                                                   label, now.timeIntervalSince1970, until.timeIntervalSince1970, fleetWorker])
            // Instances gone for a day hold nothing any more: their rows read as no one's.
            try db.execute(sql: "DELETE FROM instance WHERE aliveUntil < ?", arguments: [now.timeIntervalSince1970 - 86_400])
        }
    }

    func unregister(_ instanceID: String) async throws(CarryonError) {
        try await write { db in try db.execute(sql: "DELETE FROM instance WHERE id = ?", arguments: [instanceID]) }
    }

    func fleetWorkers(_ context: OwnershipContext) async throws(CarryonError) -> [FleetWorker] {
        try await read { db in
            FleetWorker.live(try Row.fetchAll(db, sql: FleetWorker.query, arguments: [context.seconds]).map {
                (IndexRows.instance($0), $0["aliveUntil"], $0["startedAt"], $0["running"], $0["fleetWorker"])
            }, context)
        }
    }

    func ownership(of id: String, _ context: OwnershipContext) async throws(CarryonError) -> TaskOwnership? {
        try await read { db in try Self.ownerships(db, context, id: id)[id] }
    }

    func ownerships(_ context: OwnershipContext) async throws(CarryonError) -> [String: TaskOwnership] {
        try await read { db in try Self.ownerships(db, context, id: nil) }
    }

    func holdings(_ context: OwnershipContext) async throws(CarryonError) -> [String: TaskOwnership] {
        try await read { db in try Self.ownerships(db, context, id: nil, heldOnly: true) }
    }

    func enqueue(_ id: String, by instance: String, startingAt start: Date?,
                 _ context: OwnershipContext) async throws(CarryonError) -> (Ownership.EnqueueDecision, TaskOwnership?) {
        try await write { db in
            guard let current = try Self.ownerships(db, context, id: id)[id] else {
                throw CarryonError(.unknownAsset, "no asset has the id \(id)")
            }
            let decision = Ownership.enqueue(current.row, by: instance, now: context.seconds) { Self.alive($0, db, context) }
            if decision == .queue {
                // Owned by no one until claimed: a run that held it before (its lease ran out)
                // is fenced off from here on.
                try db.execute(sql: """
                    UPDATE asset SET state = 'waiting', owner = NULL, leaseUntil = NULL, queuedBy = ?, queuedAt = ?,
                    request = NULL, progress = NULL, errorMessage = NULL, updatedAt = ? WHERE id = ?
                    """, arguments: [instance, (start ?? context.now).timeIntervalSince1970, IndexDate(context.now), id])
            }
            return (decision, current)
        }
    }

    func claimNext(by instance: String, fromFleet: Bool, lease: Double, _ context: OwnershipContext) async throws(CarryonError) -> Fence? {
        try await write { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT id FROM asset WHERE \(IndexRows.claimable)
                ORDER BY CASE priority WHEN 'important' THEN 0 ELSE 1 END, queuedAt, rowid LIMIT 1
                """, arguments: [context.seconds, instance, fromFleet, Ownership.fleet, context.seconds])
            guard let id: String = rows.first?["id"], let row = try Self.row(db, id: id),
                  let claim = Ownership.claim(row, by: instance, fromFleet: fromFleet, now: context.seconds, lease: lease,
                                              isAlive: { Self.alive($0, db, context) }) else { return nil }
            // A fleet's task keeps its queue while it runs: if its worker dies, it is the fleet's again.
            try db.execute(sql: """
                UPDATE asset SET state = 'running', changes = changes + 1, owner = ?, leaseUntil = ?, epoch = ?,
                queuedBy = CASE WHEN queuedBy = ? THEN queuedBy END, updatedAt = ?
                WHERE id = ? AND epoch = ? AND state = ? AND request IS NULL
                """, arguments: [instance, claim.leaseUntil, claim.epoch, Ownership.fleet, IndexDate(context.now), id, row.epoch, row.state])
            return db.changesCount == 1 ? Fence(assetID: id, owner: instance, epoch: claim.epoch) : nil
        }
    }

    func renew(_ instance: Instance, label: String, fleetWorker: Bool, aliveUntil: Date, fences: [Fence], lease: Double,
               _ context: OwnershipContext) async throws(CarryonError) -> [Fence] {
        try await write { db in
            // Made again if another process cleared it (this one was asleep for a day).
            try db.execute(sql: Self.registerInstance, arguments: [instance.id, instance.host, instance.pid, instance.processStart, instance.processScope,
                                                                   label, context.seconds, aliveUntil.timeIntervalSince1970, fleetWorker])
            var lost: [Fence] = []
            for fence in fences {
                guard let row = try Self.row(db, id: fence.assetID),
                      let until = Ownership.renew(row, fence, now: context.seconds, lease: lease) else {
                    lost.append(fence)
                    continue
                }
                try db.execute(sql: "UPDATE asset SET leaseUntil = ? WHERE id = ?", arguments: [until, fence.assetID])
            }
            return lost
        }
    }

    func endRun(_ fence: Fence, state: DownloadState, error: String?, requeueAt: Date?, at date: Date) async throws(CarryonError) {
        try await write { db in
            try Self.check(fence, db)
            try db.execute(sql: """
                UPDATE asset SET state = ?, owner = NULL, leaseUntil = NULL, progress = NULL, changes = changes + 1,
                request = CASE WHEN (request = 'suspend' AND ? = 'suspended') OR (request = 'cancel' AND ? = 'cancelled') THEN NULL ELSE request END,
                queuedBy = CASE WHEN ? IS NULL THEN NULL WHEN queuedBy = ? THEN queuedBy ELSE owner END, queuedAt = ?, updatedAt = ?,
                errorMessage = CASE WHEN ? THEN ? ELSE errorMessage END,
                completedAt = CASE WHEN ? = 'completed' THEN ? ELSE completedAt END WHERE id = ?
                """, arguments: [state, state.rawValue, state.rawValue, requeueAt?.timeIntervalSince1970, Ownership.fleet,
                                 requeueAt?.timeIntervalSince1970, IndexDate(date),
                                 error != nil, error, state.rawValue, IndexDate(date), fence.assetID])
        }
    }

    func setStateUnlessHeld(_ state: DownloadState, of id: String, by instance: String, error: String?,
                            _ context: OwnershipContext) async throws(CarryonError) -> TaskOwnership? {
        try await write { db in
            guard let current = try Self.ownerships(db, context, id: id)[id] else {
                throw CarryonError(.unknownAsset, "no asset has the id \(id)")
            }
            // The fleet's queue is no process: anyone may take a task out of it.
            if let holder = current.holder, holder.instance != instance, !Ownership.isFleet(holder) { return current }
            // Written by a process that holds no claim: whatever claim the row still names (a
            // lease run out, or this instance's own claim in flight) is fenced off from here on.
            try db.execute(sql: """
                UPDATE asset SET state = ?, owner = NULL, leaseUntil = NULL, epoch = epoch + (owner IS NOT NULL), changes = changes + 1,
                queuedBy = NULL, queuedAt = NULL, request = NULL, progress = NULL, updatedAt = ?,
                errorMessage = CASE WHEN ? THEN NULLIF(?, '') ELSE errorMessage END WHERE id = ? AND epoch = ?
                """, arguments: [state, IndexDate(context.now), error != nil, error, id, current.row.epoch])
            return nil
        }
    }

    func request(_ request: Ownership.Request, of id: String, by instance: String, onlyIfUnheld: Bool,
                 _ context: OwnershipContext) async throws(CarryonError) -> RequestOutcome {
        try await write { db in
            guard let current = try Self.ownerships(db, context, id: id)[id] else {
                throw CarryonError(.unknownAsset, "no asset has the id \(id)")
            }
            guard let holder = current.holder else { return .unheld }
            if holder.instance == instance { return .mine }
            if onlyIfUnheld { return .heldElsewhere(current) }
            // No process runs a task waiting in the fleet's queue: the asking one applies it.
            if Ownership.isFleet(holder) { return .unheld }
            // A later request replaces an earlier one unless it asks less (a delete stays a delete).
            if current.row.request == .delete, request != .delete { return .sent(current) }
            try db.execute(sql: "UPDATE asset SET request = ? WHERE id = ? AND epoch = ?", arguments: [request.rawValue, id, current.row.epoch])
            return .sent(current)
        }
    }

    func takeRequest(_ request: Ownership.Request, of id: String) async throws(CarryonError) -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE asset SET request = NULL WHERE id = ? AND request = ?", arguments: [id, request.rawValue])
            return db.changesCount == 1
        }
    }

    func requests(for instance: String) async throws(CarryonError) -> [(id: String, request: Ownership.Request)] {
        try await read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, request FROM asset WHERE request IS NOT NULL AND (owner = ? OR (queuedBy = ? AND state = 'waiting'))
                """, arguments: [instance, instance]).compactMap { row in
                Ownership.Request(rawValue: row["request"] ?? "").map { (row["id"], $0) }
            }
        }
    }

    func holds(_ fence: Fence) async throws(CarryonError) -> Bool {
        try await read { db in try Self.row(db, id: fence.assetID).map { Ownership.admits($0, fence) } ?? false }
    }

    func writeProgress(_ progress: DownloadProgress, fence: Fence) async throws(CarryonError) {
        var compact = progress
        compact.loadedTimeRanges = [:]
        let text = String(decoding: (try? JSONEncoder().encode(compact)) ?? Data("{}".utf8), as: UTF8.self)
        try await write { db in
            try db.cachedStatement(sql: "UPDATE asset SET progress = ? WHERE id = ? AND owner = ? AND epoch = ?")
                .execute(arguments: [text, fence.assetID, fence.owner, fence.epoch])
        }
    }

    // MARK: Players' leases

    func holdPlayback(_ assetID: String, by instance: Instance, until: Date) async throws(CarryonError) {
        try await write { db in
            try db.execute(sql: """
                INSERT INTO playbackLease (assetId, holder, host, pid, processStart, processScope, until)
                SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM asset WHERE id = ?)
                ON CONFLICT(assetId, holder) DO UPDATE SET until = excluded.until
                """, arguments: [assetID, instance.id, instance.host, instance.pid, instance.processStart, instance.processScope,
                                 until.timeIntervalSince1970, assetID])
            // Leases that ended a day ago (their process killed before it could end them).
            try db.execute(sql: "DELETE FROM playbackLease WHERE until < ?", arguments: [Date().timeIntervalSince1970 - 86_400])
        }
    }

    func releasePlayback(_ assetIDs: [String]?, by holder: String) async throws(CarryonError) {
        try await write { db in
            if let assetIDs {
                for id in assetIDs {
                    try db.execute(sql: "DELETE FROM playbackLease WHERE holder = ? AND assetId = ?", arguments: [holder, id])
                }
            } else {
                try db.execute(sql: "DELETE FROM playbackLease WHERE holder = ?", arguments: [holder])
            }
        }
    }

    func playbackHolders(_ context: OwnershipContext) async throws(CarryonError) -> [String: [Instance]] {
        try await read { db in
            IndexRows.playbackHolders(try Row.fetchAll(db, sql: "SELECT * FROM playbackLease WHERE until > ?", arguments: [context.seconds]), context)
        }
    }

    // MARK: Reading rows

    /// Refuses a write under `fence` when the row is no longer the fence's: another process
    /// claimed it after this one's lease ran out.
    static func check(_ fence: Fence, _ db: Database) throws {
        guard let row = try row(db, id: fence.assetID) else {
            throw CarryonError(.unknownAsset, "no asset has the id \(fence.assetID)")
        }
        guard Ownership.admits(row, fence) else {
            throw CarryonError(.busy, "\(fence.assetID) was claimed by another process after this one's lease ran out; this run stops and writes nothing more",
                                cause: LostClaim())
        }
    }

    /// The ownership columns of asset `id`. Read twice for every file a download puts in place
    /// (``holds(_:)`` and the fence of ``markDone(_:bytes:etag:lastModified:sha256:fence:)``):
    /// the statement is compiled once per connection, not at every read.
    static func row(_ db: Database, id: String) throws -> Ownership.Row? {
        try Row.fetchOne(db.cachedStatement(sql: """
            SELECT CAST(state AS TEXT) AS state, owner, leaseUntil, epoch, queuedBy, queuedAt, request FROM asset WHERE id = ?
            """), arguments: [id]).map(IndexRows.ownership)
    }

    /// Whether instance `id` is alive.
    static func alive(_ id: String, _ db: Database, _ context: OwnershipContext) -> Bool {
        guard let row = try? Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM instance WHERE id = ?"), arguments: [id]) else {
            return false
        }
        return context.isAlive(IndexRows.instance(row), aliveUntil: row["aliveUntil"])
    }

    /// The ownership of asset `id` (of every asset when nil; with `heldOnly`, of those a
    /// process may hold: an owner or a queue named, or a state of running or waiting — each
    /// found through an index, not a pass over every asset).
    static func ownerships(_ db: Database, _ context: OwnershipContext, id: String?, heldOnly: Bool = false) throws -> [String: TaskOwnership] {
        let filter = id != nil ? " WHERE id = ?" : heldOnly ? " WHERE owner IS NOT NULL OR queuedBy IS NOT NULL OR state IN ('running', 'waiting')" : ""
        let rows = try Row.fetchAll(db, sql: """
            SELECT id, CAST(state AS TEXT) AS state, owner, leaseUntil, epoch, queuedBy, queuedAt, request, progress FROM asset
            """ + filter, arguments: id.map { [$0] } ?? [])
        guard !rows.isEmpty else { return [:] }
        return IndexRows.ownerships(rows, instances: try Row.fetchAll(db, sql: "SELECT * FROM instance"), context)
    }
}
