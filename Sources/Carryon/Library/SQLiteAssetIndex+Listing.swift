import Foundation
import GRDB

/// Listings: pages of assets in an order (see ``AssetQuery``), and the figures a listing reads
/// in each asset's row (see `AssetFigures`, which the index keeps as JSON it does not read).
extension SQLiteAssetIndex {
    func assets(_ order: AssetQuery.Order, after: AssetCursor?, recordedStates: Set<DownloadState>, text: String?,
                limit: Int?, columns: ListingColumns) async throws(CarryonError) -> [(record: AssetRecord, cursor: AssetCursor)] {
        let (sql, arguments) = Self.listingQuery(order, after: after, recordedStates: recordedStates, text: text, limit: limit, columns: columns)
        return try await read { db in
            let reading = RowReading()
            // Read from SQLite's row as it comes (a cursor), not copied first.
            var page: [(record: AssetRecord, cursor: AssetCursor)] = []
            let statement = try db.cachedStatement(sql: sql)
            let rows = try Row.fetchCursor(statement, arguments: arguments)
            // Each row's values read from the statement the cursor steps.
            reading.statement = statement.sqliteStatement
            func value(_ column: String, in row: Row) -> DatabaseValue {
                reading.place(of: column, in: row).map { reading.value(at: $0, in: row) } ?? .null
            }
            while let row = try rows.next() {
                var record = try AssetRecord(row: row, reading: reading)
                if Bool.fromDatabaseValue(value("jsonReadable", in: row)) == false,
                   let whole = try AssetRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM asset WHERE id = ?"), arguments: [record.id]) {
                    // Its options, headers or selection cannot be read: the whole row, for the
                    // problem to be named as everywhere (the record keeps what it read).
                    record.problems = whole.problems
                }
                let key: String = switch order {
                case .created, .newest: String.fromDatabaseValue(value("createdKey", in: row)) ?? ""
                case .name: record.name
                case .size: String(Int64.fromDatabaseValue(value("sizeKey", in: row)) ?? -1)
                }
                page.append((record, AssetCursor(order: order, key: key, row: Int64.fromDatabaseValue(value("listingRow", in: row)) ?? 0)))
            }
            return page
        }
    }

    /// The columns of a table's listing: every column of an asset but its JSON (options,
    /// headers, selection and figures; the owner's progress, which ownerships read).
    static let leanColumns = ["id", "name", "url", "state", "errorMessage", "planned", "createdAt", "updatedAt",
                              "completedAt", "duration", "expiresAt", "priority", "lastPlayedAt", "format", "changes", "figuresOf",
                              "bytesOnDisk", "fraction"]

    /// The statement of a page: keyset paging over the order's index (see the migration
    /// "v8: listing figures"), the row id breaking ties.
    static func listingQuery(_ order: AssetQuery.Order, after: AssetCursor?, recordedStates: Set<DownloadState>, text: String?,
                             limit: Int?, columns: ListingColumns = .snapshot) -> (String, StatementArguments) {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let states = IndexRows.stateCondition(recordedStates) {
            conditions.append(states.sql)
            arguments += StatementArguments(states.values)
        }
        if let text, !text.isEmpty {
            // instr, not LIKE: `%` and `_` in what the user typed are not patterns.
            conditions.append("(instr(lower(name), lower(?)) > 0 OR instr(lower(id), lower(?)) = 1)")
            arguments += [text, text]
        }
        let key: String
        let descending: Bool
        switch order {
        case .created: (key, descending) = ("createdAt", false)
        case .newest: (key, descending) = ("createdAt", true)
        case .name: (key, descending) = ("name", false)
        case .size: (key, descending) = ("IFNULL(bytesOnDisk, -1)", true)
        }
        if let after {
            let beyond = descending ? "<" : ">"
            conditions.append("(\(key) \(beyond) ? OR (\(key) = ? AND rowid \(beyond) ?))")
            if order == .size {
                let size = Int64(after.key) ?? -1
                arguments += [size, size, after.row]
            } else {
                arguments += [after.key, after.key, after.row]
            }
        }
        let direction = descending ? " DESC" : ""
        // Without the JSON no listing shows (headers, and for a table the options too: most of
        // a row's bytes; a snapshot shows the options' time range), only checked by SQLite; a
        // row whose JSON is not readable is read whole.
        let selected = switch columns {
        case .table: Self.leanColumns.joined(separator: ", ")
            + ", json_valid(options) AND json_valid(headers) AND (selection IS NULL OR json_valid(selection)) AS jsonReadable"
        case .snapshot: Self.leanColumns.joined(separator: ", ") + ", selection, figures, options, json_valid(options) AND json_valid(headers) AS jsonReadable"
        }
        var sql = "SELECT \(selected), rowid AS listingRow, CAST(createdAt AS TEXT) AS createdKey, IFNULL(bytesOnDisk, -1) AS sizeKey FROM asset"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY \(key)\(direction), rowid\(direction)"
        if let limit {
            sql += " LIMIT ?"
            arguments += [limit]
        }
        return (sql, arguments)
    }

    func latestAssetIDs(of urls: [String]) async throws(CarryonError) -> [String: String] {
        try await read { db in
            var latest: [String: String] = [:]
            let statement = try db.cachedStatement(sql: Self.latestByURL)
            for url in Set(urls) {
                if let id = try String.fetchOne(statement, arguments: [url]) { latest[url] = id }
            }
            return latest
        }
    }

    /// The latest asset of a URL, through the index "v9: assets by URL".
    static let latestByURL = "SELECT id FROM asset WHERE url = ? ORDER BY createdAt DESC, rowid DESC LIMIT 1"

    func bundleChanged(_ id: String) async throws(CarryonError) {
        try await write { db in
            try db.cachedStatement(sql: "UPDATE asset SET changes = changes + 1 WHERE id = ?").execute(arguments: [id])
        }
    }

    func keepFigures(_ updates: [FiguresUpdate]) async throws(CarryonError) {
        guard !updates.isEmpty else { return }
        do {
            try await database.writeWithoutTransaction { db in
                // A reader keeping what it computed: it waits a moment for another process's
                // write, never the ten seconds a change waits (a process paused while it
                // writes would hold `list` that long).
                try db.execute(sql: "PRAGMA busy_timeout = 250")
                defer { try? db.execute(sql: "PRAGMA busy_timeout = 10000") }
                try db.inTransaction(.immediate) {
                    let statement = try db.makeStatement(sql: """
                        UPDATE asset SET figures = ?, figuresOf = changes, bytesOnDisk = ?, fraction = ?
                        WHERE id = ? AND changes = ? AND owner IS NULL
                        """)
                    for update in updates {
                        try statement.execute(arguments: [update.figures, update.bytesOnDisk, update.fraction, update.assetID, update.changes])
                    }
                    return .commit
                }
            }
        } catch {
            throw CarryonError(.library, "keeping the figures of \(updates.count) assets failed: \(Self.describe(error))", cause: error)
        }
    }
}

/// Figures to keep for one asset (`AssetFigures`, as JSON), computed at its count of changes
/// `changes`: kept only while the count is still that (a change since makes them stale as
/// they are written, and they are not kept).
struct FiguresUpdate: Sendable {
    var assetID: String
    var changes: Int64
    /// The figures' JSON.
    var figures: String
    var bytesOnDisk: Int
    var fraction: Double
}
