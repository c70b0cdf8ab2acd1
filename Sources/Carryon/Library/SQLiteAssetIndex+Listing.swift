import Foundation
import GRDB

/// Listings: pages of assets in an order (see ``AssetQuery``), and the figures a listing reads
/// in each asset's row (see ``AssetFigures``).
extension SQLiteAssetIndex {
    func assets(_ order: AssetQuery.Order, after: AssetCursor?, recordedStates: Set<DownloadState>, text: String?,
                limit: Int?) async throws(CarryonError) -> [(record: AssetRecord, cursor: AssetCursor)] {
        let (sql, arguments) = Self.listingQuery(order, after: after, recordedStates: recordedStates, text: text, limit: limit)
        return try await read { db in
            try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map { row in
                let record = try AssetRecord(row: row)
                let key: String = switch order {
                case .created, .newest: row["createdKey"] ?? ""
                case .name: record.name
                case .size: String(row["sizeKey"] as Int64? ?? -1)
                }
                return (record, AssetCursor(order: order, key: key, row: row["listingRow"]))
            }
        }
    }

    /// The statement of a page: keyset paging over the order's index (see the migration
    /// "v8: listing figures"), the row id breaking ties.
    static func listingQuery(_ order: AssetQuery.Order, after: AssetCursor?, recordedStates: Set<DownloadState>, text: String?,
                             limit: Int?) -> (String, StatementArguments) {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if !recordedStates.isEmpty {
            let states = recordedStates.map(\.rawValue).sorted()
            var condition = "state IN (\(states.map { _ in "?" }.joined(separator: ", ")))"
            arguments += StatementArguments(states)
            if recordedStates.contains(.suspended) {
                // A state no release writes reads as suspended (see AssetRecord(row:)).
                let known = DownloadState.allCases.map(\.rawValue)
                condition = "(\(condition) OR state NOT IN (\(known.map { _ in "?" }.joined(separator: ", "))))"
                arguments += StatementArguments(known)
            }
            conditions.append(condition)
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
        var sql = "SELECT *, rowid AS listingRow, CAST(createdAt AS TEXT) AS createdKey, IFNULL(bytesOnDisk, -1) AS sizeKey FROM asset"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY \(key)\(direction), rowid\(direction)"
        if let limit {
            sql += " LIMIT ?"
            arguments += [limit]
        }
        return (sql, arguments)
    }

    func bundleChanged(_ id: String) async throws(CarryonError) {
        try await write { db in
            try db.cachedStatement(sql: "UPDATE asset SET changes = changes + 1 WHERE id = ?").execute(arguments: [id])
        }
    }

    func keepFigures(_ updates: [FiguresUpdate]) async throws(CarryonError) {
        guard !updates.isEmpty else { return }
        let rows = updates.compactMap { update in
            update.figures.encoded().map { (update, $0) }
        }
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
                    for (update, text) in rows {
                        try statement.execute(arguments: [text, update.figures.bytesOnDisk, update.figures.progress.fraction,
                                                          update.assetID, update.changes])
                    }
                    return .commit
                }
            }
        } catch {
            throw CarryonError(.library, "keeping the figures of \(updates.count) assets failed: \(Self.describe(error))", cause: error)
        }
    }
}
