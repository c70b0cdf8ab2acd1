import Foundation
import GRDB

/// The ``AssetIndex`` in the library's `index.sqlite` (GRDB, WAL mode): the only place that
/// speaks SQL. Its schema and migrations are in `SQLiteAssetIndex+Schema.swift`, keys and
/// storage settings in `SQLiteAssetIndex+Keys.swift`, resources in `SQLiteAssetIndex+Resources.swift`.
final class SQLiteAssetIndex: AssetIndex {
    /// SQLite tells no one of a change: followers read the index on a timer.
    func changes() -> AsyncStream<Void>? { nil }

    /// The library folder, which holds `index.sqlite`.
    let root: URL
    let database: DatabasePool

    /// Opens (creating and migrating if needed) the index of the library at `root`.
    ///
    /// - Throws: ``CarryonError/Code/library`` when it cannot be opened or migrated.
    init(root: URL) throws(CarryonError) {
        self.root = root
        do {
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            // Few readers with small page caches: the index is small and read little, and each
            // connection's cache would otherwise take its default 2 MB of a long download's memory.
            configuration.maximumReaderCount = 2
            // secure_delete: a deleted (invalidated) sealed key is overwritten, not left in a free page.
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = -512; PRAGMA temp.cache_size = -512; PRAGMA secure_delete = ON") }
            database = try DatabasePool(path: root.appending(path: "index.sqlite", directoryHint: .notDirectory).path, configuration: configuration)
            try Self.migrate(database)
        } catch {
            throw CarryonError(.library, "cannot open the library at \(root.path): \(error)", cause: error)
        }
    }

    /// Brings the index to the current schema. Processes opening one library at once (a
    /// fresh library, or the first run of a new release) race to migrate it: GRDB reads which
    /// migrations are applied outside their transactions, so the loser's migration meets a
    /// table the winner made, and rolls back. It then reads again and finds nothing left to do.
    ///
    /// After migrating, the write-ahead log is emptied into the database: the migrations of a
    /// fresh library write about 400 KB of it (every schema page, once a migration), which would
    /// otherwise take room from the first downloads until SQLite checkpoints on its own.
    private static func migrate(_ database: DatabasePool) throws {
        if try database.read({ try migrator.hasCompletedMigrations($0) }) { return }
        var attempt = 0
        while true {
            do {
                try migrator.migrate(database)
                // Best effort: another process reading the index keeps its part of the log.
                try? database.writeWithoutTransaction { try $0.checkpoint(.truncate) }
                return
            } catch {
                attempt += 1
                if try database.read({ try migrator.hasCompletedMigrations($0) }) { return }
                guard attempt < 20 else { throw error }
                usleep(UInt32.random(in: 10_000...50_000))
            }
        }
    }

    /// Reads the index, turning a failure into a ``CarryonError/Code/library`` error (or
    /// ``CarryonError/Code/disk`` when the disk is full).
    func read<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws(CarryonError) -> T {
        do { return try await database.read(body) } catch {
            throw indexError(error, reading: true)
        }
    }

    /// Writes to the index in one transaction, turning a failure into a
    /// ``CarryonError/Code/library`` error (or ``CarryonError/Code/disk`` when the disk is full).
    func write<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws(CarryonError) -> T {
        do { return try await database.write(body) } catch let error as CarryonError {
            // A decision the transaction made (a claim refused, a fence), not a failure of the index.
            throw error
        } catch {
            throw indexError(error, reading: false)
        }
    }

    /// What a failed read or write of the index says: a full disk by its name and place (not
    /// SQLite's words, which read like a broken database), anything else as SQLite put it.
    private func indexError(_ error: any Error, reading: Bool) -> CarryonError {
        let index = root.appending(path: "index.sqlite", directoryHint: .notDirectory).path
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_FULL {
            let free = StorageManager.freeBytes(at: root.path)
            return CarryonError(.disk, "the disk holding the library is full: the index \(index) cannot be written (\(free) bytes free)",
                                cause: error)
        }
        return CarryonError(.library, "\(reading ? "reading" : "writing") the library index \(index) failed: \(Self.describe(error))", cause: error)
    }

    /// What went wrong, in at most 300 characters, without the row or the statement's
    /// arguments GRDB's descriptions quote: a row can be long, and can hold request headers.
    static func describe(_ error: any Error) -> String {
        var text = String(describing: error)
        if error is RowDecodingError, let cut = text.range(of: ", row: ") ?? text.range(of: " - row: ") {
            text = String(text[..<cut.lowerBound])
        }
        if let cut = text.range(of: ", arguments: ") ?? text.range(of: " - arguments: ") { text = String(text[..<cut.lowerBound]) }
        return text.count > 300 ? String(text.prefix(300)) + "…" : text
    }

    // MARK: Assets

    func insert(_ asset: AssetRecord) async throws(CarryonError) {
        try await write { db in try asset.insert(db) }
    }

    func asset(_ id: String) async throws(CarryonError) -> AssetRecord? {
        // Cached statements here and below: a listing reads each asset in turn, and compiling
        // its statements again (with GRDB's authorizer) was a fifth of the time.
        try await read { db in try AssetRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM asset WHERE id = ?"), arguments: [id]) }
    }

    func assetIDs() async throws(CarryonError) -> [String] {
        // createdAt has millisecond precision; rowid orders assets made within one millisecond.
        try await read { db in try String.fetchAll(db, sql: "SELECT id FROM asset ORDER BY createdAt, rowid") }
    }

    func assetIDs(startingWith prefix: String) async throws(CarryonError) -> [String] {
        try await read { db in
            // instr, not LIKE: `%` and `_` in what the user typed are not patterns.
            try String.fetchAll(db, sql: "SELECT id FROM asset WHERE instr(lower(id), lower(?)) = 1 ORDER BY id", arguments: [prefix])
        }
    }

    func state(of id: String) async throws(CarryonError) -> DownloadState? {
        // Read as text: a state that cannot be read counts as suspended, as the asset's row does.
        try await read { db in
            try String.fetchOne(db, sql: "SELECT CAST(state AS TEXT) FROM asset WHERE id = ?", arguments: [id]).map { DownloadState(rawValue: $0) ?? .suspended }
        }
    }

    func assetStates() async throws(CarryonError) -> [(id: String, state: DownloadState)] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT id, CAST(state AS TEXT) AS state FROM asset ORDER BY createdAt, rowid").map { row in
                (id: row["id"], state: (row["state"] as String?).flatMap(DownloadState.init(rawValue:)) ?? .suspended)
            }
        }
    }

    func setState(_ state: DownloadState, of id: String, error: String?, at date: Date) async throws(CarryonError) {
        try await write { db in
            try db.execute(sql: """
                UPDATE asset SET state = ?, updatedAt = ?, errorMessage = CASE WHEN ? THEN ? ELSE errorMessage END,
                completedAt = CASE WHEN ? = 'completed' THEN ? ELSE completedAt END WHERE id = ?
                """, arguments: [state, IndexDate(date), error != nil || state == .waiting, error, state.rawValue, IndexDate(date), id])
        }
    }

    func setOptions(_ options: DownloadOptions, of id: String) async throws(CarryonError) {
        let encoded = String(decoding: (try? JSONEncoder().encode(options)) ?? Data(), as: UTF8.self)
        try await write { db in try db.execute(sql: "UPDATE asset SET options = ? WHERE id = ?", arguments: [encoded, id]) }
    }

    func deleteAsset(_ id: String) async throws(CarryonError) {
        try await write { db in _ = try AssetRecord.deleteOne(db, key: id) }
    }

    // MARK: Plans

    func savePlan(_ planned: PlannedStream, of id: String, keeping: Bool, at date: Date, fence: Fence?) async throws(CarryonError) {
        let plan = planned.plan
        try await write { db in
            try Self.checkPlanning(id, fence: fence, at: date, db)
            // What the old rows had fetched is set aside in SQLite, not read into memory: a
            // recording plans again each round, and holding every row of a long one each time
            // made its memory grow with its length.
            if keeping { try Self.setAsideFetched(of: id, db) }
            try db.execute(sql: "DELETE FROM resource WHERE assetId = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM rendition WHERE assetId = ?", arguments: [id])
            for rendition in plan.renditions { try rendition.record.insert(db) }
            // One prepared statement for every row, its values bound through SQLite's C API: a
            // million segments are inserted in about a second, where GRDB's arguments (a boxed
            // value per column) took four and encoding each record fifteen.
            var insert = try ResourceInsert(db)
            for resource in plan.resources { try insert.insert(resource) }
            if keeping { try Self.restoreFetched(of: id, db) }
            try db.execute(sql: "DELETE FROM fallback WHERE assetId = ?", arguments: [id])
            for fallback in plan.fallbacks {
                try db.execute(sql: "INSERT INTO fallback (assetId, prefix, alternatives, query) VALUES (?, ?, ?, ?)",
                               arguments: [id, fallback.prefix, String(decoding: try JSONEncoder().encode(fallback.alternatives), as: UTF8.self),
                                           fallback.query])
            }
            try db.execute(sql: "UPDATE asset SET planned = 1, selection = ?, duration = ?, format = ?, updatedAt = ?, changes = changes + 1 WHERE id = ?",
                           arguments: [planned.selection.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) },
                                       plan.duration, planned.format, IndexDate(date), id])
        }
    }

    func appendPlan(_ planned: PlannedStream, of id: String, at date: Date, fence: Fence?) async throws(CarryonError) {
        let plan = planned.plan
        try await write { db in
            try Self.checkPlanning(id, fence: fence, at: date, db)
            // A round adds a few rows: one look over the asset's URIs for all of them.
            let uris = Array(Set(plan.resources.map(\.uri)))
            for start in stride(from: 0, to: uris.count, by: 500) {
                let batch = Array(uris[start..<min(uris.count, start + 500)])
                let marks = Array(repeating: "?", count: batch.count).joined(separator: ", ")
                if let uri = try String.fetchOne(db, sql: "SELECT uri FROM resource WHERE assetId = ? AND uri IN (\(marks)) LIMIT 1",
                                                 arguments: StatementArguments([id] + batch)) {
                    throw AppendRefused.error(id, uri: uri)
                }
            }
            var insert = try ResourceInsert(db)
            for resource in plan.resources { try insert.insert(resource) }
            for rendition in plan.renditions {
                try db.execute(sql: "UPDATE rendition SET duration = duration + ? WHERE assetId = ? AND key = ?",
                               arguments: [rendition.record.duration, id, rendition.record.key])
            }
            try db.execute(sql: """
                UPDATE asset SET duration = (SELECT MAX(duration) FROM rendition WHERE assetId = ?), updatedAt = ?, changes = changes + 1 WHERE id = ?
                """, arguments: [id, IndexDate(date), id])
        }
    }

    /// Whether asset `id`'s plan may be written: by the run that holds `fence`, or, without
    /// one, by a process that holds no claim (keys prefetched, renditions added) while no run
    /// holds it.
    private static func checkPlanning(_ id: String, fence: Fence?, at date: Date, _ db: Database) throws {
        if let fence {
            try check(fence, db)
        } else if let row = try row(db, id: id), let owner = row.owner, (row.leaseUntil ?? 0) > date.timeIntervalSince1970,
                  alive(owner, db, OwnershipContext(now: date, checksProcesses: true)) {
            throw CarryonError(.busy, "\(id) is being downloaded by another process; its plan is that process's")
        }
    }

    func forgetPlan(of id: String) async throws(CarryonError) {
        try await write { db in
            try db.execute(sql: "DELETE FROM resource WHERE assetId = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM rendition WHERE assetId = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM fallback WHERE assetId = ?", arguments: [id])
            try db.execute(sql: "UPDATE asset SET planned = 0, selection = NULL, changes = changes + 1 WHERE id = ?", arguments: [id])
        }
    }

    func fallbacks(of id: String) async throws(CarryonError) -> [Fallback] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT prefix, alternatives, query FROM fallback WHERE assetId = ? ORDER BY prefix", arguments: [id]).map { row in
                Fallback(prefix: row["prefix"], alternatives: try JSONDecoder().decode([String].self, from: Data((row["alternatives"] as String).utf8)),
                         query: row["query"])
            }
        }
    }

    func renditions(of id: String) async throws(CarryonError) -> [RenditionRecord] {
        try await read { db in
            try RenditionRecord.fetchAll(db.cachedStatement(sql: "SELECT * FROM rendition WHERE assetId = ? ORDER BY position"), arguments: [id])
        }
    }
}
