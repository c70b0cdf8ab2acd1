@testable import Carryon
import Foundation
import GRDB

// What a test does to a library's index that it cannot do through ``AssetIndex``, because the
// protocol deliberately leaves it out: values the index's own writes never store, rows laid
// out as only an earlier release left them, every stored column read raw, SQLite's write lock,
// and another process's claim. Everything else a test reads and writes goes through
// `library.index`, the protocol, so that it runs against any backend.
//
// This file is the only place in Tests/ that speaks SQL or names `SQLiteAssetIndex` (besides
// the tests whose subject is the SQLite backend itself). A second backend (PostgreSQL) adds
// its own way of doing each of these here.

/// A value as the index stores it in a column, for writing one the index's own writes never
/// make: text where a date, a state or JSON belongs, a number where text does.
enum StoredValue: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case text(String)
    case integer(Int)

    init(stringLiteral value: String) { self = .text(value) }
    init(integerLiteral value: Int) { self = .integer(value) }

    var databaseValue: DatabaseValue {
        switch self {
        case .text(let text): text.databaseValue
        case .integer(let number): number.databaseValue
        }
    }
}

extension OfflineLibrary {
    /// The SQLite backend behind the library (nil on PostgreSQL): for this file's functions only.
    private var sqlite: SQLiteAssetIndex? { index as? SQLiteAssetIndex }
    /// The PostgreSQL backend behind the library (nil on SQLite).
    private var postgres: PostgresAssetIndex? { index as? PostgresAssetIndex }

    /// Makes asset `id` another live process's download, as that process would through the
    /// index: queued by an instance of its own, then claimed under a long lease. A completed
    /// asset is first made suspended (as adding media selections does). Returns the claim.
    ///
    /// Outside ``AssetIndex`` because a test is one process: ownership is decided between
    /// processes, so the test plays the other one with a ``TaskScheduler`` of its own, and
    /// flips a completed asset to suspended without the time of the change, as a plan that
    /// adds selections leaves it.
    func holdAsAnotherProcess(_ id: String, lease: Duration = .seconds(600)) async throws -> Fence {
        if let postgres {
            try await postgres.write { try await $0.execute("UPDATE asset SET state = 'suspended' WHERE id = ? AND state = 'completed'", [.text(id)]) }
        } else {
            try await sqlite?.write { db in try db.execute(sql: "UPDATE asset SET state = 'suspended' WHERE id = ? AND state = 'completed'", arguments: [id]) }
        }
        let other = TaskScheduler(index: index, lease: lease, checksProcesses: true, label: "another process")
        _ = try await other.enqueue(id)
        guard let fence = try await other.claimNext() else { throw CarryonError(.invalidState, "\(id) could not be claimed") }
        return fence
    }

    /// Records `instance` alive until `until` as a process of a release before the index said
    /// who works for the fleet writes it: its row without `fleetWorker`.
    func registerAsEarlierRelease(_ instance: Instance, label: String, at now: Date, until: Date) async throws {
        let sql = """
            INSERT INTO instance (id, host, pid, processStart, processScope, label, startedAt, aliveUntil) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """
        if let postgres {
            try await postgres.write { transaction in
                try await transaction.execute(sql, [.text(instance.id), .text(instance.host), .integer(Int64(instance.pid)), SQLValue(instance.processStart),
                                                    SQLValue(instance.processScope), .text(label), .real(now.timeIntervalSince1970), .real(until.timeIntervalSince1970)])
            }
        } else {
            try await sqlite?.write { db in
                try db.execute(sql: sql, arguments: [instance.id, instance.host, instance.pid, instance.processStart, instance.processScope, label,
                                                     now.timeIntervalSince1970, until.timeIntervalSince1970])
            }
        }
    }

    /// Ends another process's claim `fence` (from ``holdAsAnotherProcess(_:lease:)``) with
    /// `state`, as its run's end would.
    func release(_ fence: Fence, as state: DownloadState = .suspended) async throws {
        try await index.endRun(fence, state: state, error: nil, requeueAt: nil, at: Date())
    }

    /// Writes `values` straight into asset `id`'s row, column by column, as an earlier release
    /// or a careless hand would: a date past year 9999, text where a state, a priority or JSON
    /// belongs.
    ///
    /// Outside ``AssetIndex`` on purpose: its writes take typed values and refuse such ones,
    /// and the tests are about what the library does when it meets them anyway.
    func writeUnreadable(_ values: [(column: String, value: StoredValue)], intoAsset id: String) async throws {
        if let postgres {
            // Every column a test writes so is text in PostgreSQL (dates, states, JSON): a
            // number is written as its text, as SQLite would read it back.
            try await postgres.write { transaction in
                for (column, value) in values {
                    let text = switch value {
                    case .text(let text): text
                    case .integer(let number): String(number)
                    }
                    try await transaction.execute("UPDATE asset SET \(column) = ? WHERE id = ?", [.text(text), .text(id)])
                }
            }
        } else {
            try await sqlite?.write { db in try LibraryIndexFile.write(values, intoAsset: id, db) }
        }
    }

    /// Writes `value` straight into `column` of resource `id`'s row, as a careless hand or a
    /// damaged file would: a kind or a state Carryon does not know.
    ///
    /// Outside ``AssetIndex`` on purpose: its writes take typed values.
    func writeUnreadable(_ value: StoredValue, into column: String, ofResource id: Int64) async throws {
        if let postgres {
            let text = switch value {
            case .text(let text): text
            case .integer(let number): String(number)
            }
            try await postgres.write { try await $0.execute("UPDATE resource SET \(column) = ? WHERE id = ?", [.text(text), .integer(id)]) }
        } else {
            try await sqlite?.write { db in try db.execute(sql: "UPDATE resource SET \(column) = ? WHERE id = ?", arguments: [value.databaseValue, id]) }
        }
    }

    /// Inserts `resources` as rows, in their order, with the ordinals and states given.
    ///
    /// Outside ``AssetIndex`` on purpose: a plan saved through it numbers its resources'
    /// ordinals by their row and records each pending, so resources that share an ordinal (as
    /// an earlier release's later plans left them, and which the playback order breaks by
    /// row id) can be laid out only this way.
    func insertResourceRows(_ resources: [ResourceRecord]) async throws {
        if let postgres {
            try await postgres.write { transaction in
                for resource in resources { try await PostgresAssetIndex.insert(resource, into: "resource", withoutID: resource.id == nil, transaction) }
            }
        } else {
            try await sqlite?.write { db in
                for resource in resources {
                    var resource = resource
                    try resource.insert(db)
                }
            }
        }
    }

    /// Every stored column of asset `id`'s row and of its resources' rows, as text: equal
    /// before and after only when nothing at all was written to them — but the listing's
    /// figures (`figures`, `figuresOf`, `bytesOnDisk`, `fraction`), which any process that
    /// lists the asset may write (see `AssetFigures`), and whose JSON changes with the access
    /// log every process appends to.
    ///
    /// Outside ``AssetIndex`` on purpose: its records leave out the columns only the index
    /// itself reads (the owner, its epoch and lease, the run's progress, the count of changes),
    /// and a test that a fenced-off run wrote nothing must see those too.
    func storedRows(of id: String) async throws -> String {
        if let postgres {
            return try await postgres.read { transaction in
                // Each row's columns by name, in order: a row read from PostgreSQL has no order of its own.
                func text(_ rows: [Row], leaving: Set<String> = []) -> String {
                    rows.map { row in
                        row.columnNames.filter { !leaving.contains($0) }.sorted().map { "\($0):\(row[$0] as DatabaseValue)" }.joined(separator: " ")
                    }.joined(separator: "\n")
                }
                let asset = try await transaction.rows("SELECT * FROM asset WHERE id = ?", [.text(id)])
                let resources = try await transaction.rows("SELECT * FROM resource WHERE assetId = ? ORDER BY id", [.text(id)])
                return text(asset, leaving: ["figures", "figuresof", "bytesondisk", "fraction"]) + "\n" + text(resources)
            }
        }
        guard let sqlite else { throw CarryonError(.library, "the library's index is neither SQLite nor PostgreSQL") }
        return try await sqlite.read { db in
            let listing: Set<String> = ["figures", "figuresOf", "bytesOnDisk", "fraction"]
            let columns = try db.columns(in: "asset").map(\.name).filter { !listing.contains($0) }
            let asset = try Row.fetchAll(db, sql: "SELECT \(columns.joined(separator: ", ")) FROM asset WHERE id = ?", arguments: [id]).description
            let resources = try Row.fetchAll(db, sql: "SELECT * FROM resource WHERE assetId = ? ORDER BY id", arguments: [id]).description
            return asset + resources
        }
    }
}

/// A library's `index.sqlite` opened as another process opens it, for tests that hold no
/// ``OfflineLibrary`` on it while `carryon` processes use it: what an earlier release wrote
/// there, and whether a process holds its write lock.
final class LibraryIndexFile: Sendable {
    private let queue: DatabaseQueue

    /// Opens the index of the library folder `root`; a write waits `busyTimeout` seconds at most
    /// for another process's transaction to end (SQLite's default, not at all, when nil).
    init(libraryAt root: URL, busyTimeout: TimeInterval? = nil) throws {
        var configuration = Configuration()
        if let busyTimeout { configuration.busyMode = .timeout(busyTimeout) }
        queue = try DatabaseQueue(path: root.appendingPathComponent("index.sqlite").path, configuration: configuration)
    }

    /// Writes `values` straight into asset `id`'s row, as an earlier release that accepted them
    /// did (see ``OfflineLibrary/writeUnreadable(_:intoAsset:)``, outside ``AssetIndex`` for
    /// the same reason).
    func writeUnreadable(_ values: [(column: String, value: StoredValue)], intoAsset id: String) async throws {
        try await queue.write { db in try Self.write(values, intoAsset: id, db) }
    }

    /// Whether a write transaction begins within the busy timeout: false while another process
    /// is inside one (SQLite lets one writer at a time). Nothing is written.
    ///
    /// Outside ``AssetIndex`` on purpose: a lock on the index file is SQLite's, not the
    /// protocol's; a test pausing a process (SIGSTOP) between writes needs to know it holds none.
    func writeLockIsFree() async -> Bool {
        do {
            try await queue.writeWithoutTransaction { db in try db.inTransaction(.immediate) { .commit } }
            return true
        } catch {
            return false
        }
    }

    /// Closes the file.
    func close() throws {
        try queue.close()
    }

    static func write(_ values: [(column: String, value: StoredValue)], intoAsset id: String, _ db: Database) throws {
        for (column, value) in values {
            try db.execute(sql: "UPDATE asset SET \(column) = ? WHERE id = ?", arguments: [value.databaseValue, id])
        }
    }
}

extension OfflineLibrary {
    /// How the index looks up the latest asset of `url` (see `AssetIndex.latestAssetIDs(of:)`),
    /// its steps joined by `; `.
    func queryPlan(ofLatestByURL url: String) async throws -> String {
        if let postgres {
            return try await postgres.planOf("SELECT id FROM asset WHERE url = ? ORDER BY createdAt DESC, seq DESC LIMIT 1", [.text(url)])
        }
        guard let index = index as? SQLiteAssetIndex else { throw CarryonError(.library, "the library's index is not SQLite") }
        return try await index.database.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + SQLiteAssetIndex.latestByURL, arguments: [url])
                .map { $0["detail"] as String }.joined(separator: "; ")
        }
    }

    /// How SQLite (or PostgreSQL) runs the statement of a page of the listing (`EXPLAIN QUERY PLAN`), its steps
    /// joined by `; `.
    func queryPlan(ofListing order: AssetQuery.Order, after: AssetCursor?, recordedStates: Set<DownloadState>) async throws -> String {
        if let postgres {
            let (sql, values) = PostgresAssetIndex.listingQuery(order, after: after, recordedStates: recordedStates, text: nil, limit: 100,
                                                                columns: .snapshot)
            return try await postgres.planOf(sql, values)
        }
        guard let index = index as? SQLiteAssetIndex else { throw CarryonError(.library, "the library's index is not SQLite") }
        let (sql, arguments) = SQLiteAssetIndex.listingQuery(order, after: after, recordedStates: recordedStates, text: nil, limit: 100)
        return try await index.database.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }.joined(separator: "; ")
        }
    }
}

extension PostgresAssetIndex {
    /// PostgreSQL's plan of `sql` (`EXPLAIN`), its lines joined by `; `, with sequential and
    /// bitmap scans off: what the planner does with a table too large to read whole, for a
    /// page of 100 rows (a test's table is small enough that reading it whole, or gathering its
    /// matches and sorting them, costs less than walking an index). A step that sorts says
    /// `Sort Key`.
    func planOf(_ sql: String, _ values: [SQLValue]) async throws -> String {
        try await read { transaction in
            try await transaction.execute("SET LOCAL enable_seqscan = off")
            try await transaction.execute("SET LOCAL enable_bitmapscan = off")
            return try await transaction.rows("EXPLAIN " + sql, values).compactMap { $0["QUERY PLAN"] as String? }.joined(separator: "; ")
        }
    }
}
