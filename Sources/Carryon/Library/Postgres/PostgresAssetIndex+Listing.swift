import Foundation
import GRDB

/// Listings in the PostgreSQL index: keyset pages over the order's index, as on SQLite (see
/// `SQLiteAssetIndex+Listing.swift`), `seq` breaking ties where SQLite's row id does.
extension PostgresAssetIndex {
    func assets(_ order: AssetQuery.Order, after: AssetCursor?, recordedStates: Set<DownloadState>, text: String?,
                limit: Int?, columns: ListingColumns) async throws(CarryonError) -> [(record: AssetRecord, cursor: AssetCursor)] {
        let (sql, values) = Self.listingQuery(order, after: after, recordedStates: recordedStates, text: text, limit: limit, columns: columns)
        let page = try await read { transaction in
            var page: [ListedAsset] = []
            for row in try await transaction.rows(sql, values) {
                var record = try AssetRecord(row: row)
                if row["jsonReadable"] as Bool? == false,
                   let whole = try await transaction.row("SELECT * FROM asset WHERE id = ?", [.text(record.id)]) {
                    // Its options, headers or selection cannot be read: the whole row, for the
                    // problem to be named as everywhere.
                    record.problems = try AssetRecord(row: whole).problems
                }
                let key: String = switch order {
                case .created, .newest: row["createdKey"] ?? ""
                case .name: record.name
                case .size: String(row["sizeKey"] as Int64? ?? -1)
                }
                page.append(ListedAsset(record: record, cursor: AssetCursor(order: order, key: key, row: row["listingRow"] ?? 0)))
            }
            return page
        }
        return page.map { ($0.record, $0.cursor) }
    }

    private struct ListedAsset: Sendable {
        var record: AssetRecord
        var cursor: AssetCursor
    }

    /// The statement of a page (see `SQLiteAssetIndex.listingQuery`).
    static func listingQuery(_ order: AssetQuery.Order, after: AssetCursor?, recordedStates: Set<DownloadState>, text: String?,
                             limit: Int?, columns: ListingColumns) -> (String, [SQLValue]) {
        var conditions: [String] = []
        var values: [SQLValue] = []
        if let states = IndexRows.stateCondition(recordedStates) {
            conditions.append(states.sql)
            values += states.values.map(SQLValue.text)
        }
        if let text, !text.isEmpty {
            // strpos, not LIKE: `%` and `_` in what the user typed are not patterns.
            conditions.append("(strpos(lower(name), lower(?)) > 0 OR strpos(lower(id), lower(?)) = 1)")
            values += [.text(text), .text(text)]
        }
        let key: String
        let descending: Bool
        switch order {
        case .created: (key, descending) = ("createdAt", false)
        case .newest: (key, descending) = ("createdAt", true)
        case .name: (key, descending) = ("name", false)
        case .size: (key, descending) = ("COALESCE(bytesOnDisk, -1)", true)
        }
        if let after {
            let beyond = descending ? "<" : ">"
            conditions.append("(\(key), seq) \(beyond) (?, ?)")
            values += [order == .size ? .integer(Int64(after.key) ?? -1) : .text(after.key), .integer(after.row)]
        }
        let direction = descending ? " DESC" : ""
        let json = switch columns {
        case .table: "carryon_json_valid(options) AND carryon_json_valid(headers) AND (selection IS NULL OR carryon_json_valid(selection))"
        case .snapshot: "selection, figures, options, carryon_json_valid(options) AND carryon_json_valid(headers)"
        }
        var sql = "SELECT \(SQLiteAssetIndex.leanColumns.joined(separator: ", ")), \(json) AS jsonReadable, seq AS listingRow, "
            + "createdAt AS createdKey, COALESCE(bytesOnDisk, -1) AS sizeKey FROM asset"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY \(key)\(direction), seq\(direction)"
        if let limit {
            sql += " LIMIT ?"
            values.append(SQLValue(limit))
        }
        return (sql, values)
    }

    func latestAssetIDs(of urls: [String]) async throws(CarryonError) -> [String: String] {
        let found = try await read { transaction in
            var latest: [String: String] = [:]
            for url in Set(urls) {
                if let id: String = try await transaction.row("SELECT id FROM asset WHERE url = ? ORDER BY createdAt DESC, seq DESC LIMIT 1",
                                                              [.text(url)])?["id"] {
                    latest[url] = id
                }
            }
            return latest
        }
        return found
    }

    func bundleChanged(_ id: String) async throws(CarryonError) {
        try await write { transaction in try await transaction.execute("UPDATE asset SET changes = changes + 1 WHERE id = ?", [.text(id)]) }
    }

    func keepFigures(_ updates: [FiguresUpdate]) async throws(CarryonError) {
        guard !updates.isEmpty else { return }
        do {
            try await write { transaction in
                // A reader keeping what it computed waits a moment for a row another process
                // holds, never long (see SQLiteAssetIndex.keepFigures).
                try await transaction.execute("SET LOCAL lock_timeout = '250ms'")
                for update in updates {
                    try await transaction.execute("""
                        UPDATE asset SET figures = ?, figuresOf = changes, bytesOnDisk = ?, fraction = ?
                        WHERE id = ? AND changes = ? AND owner IS NULL
                        """, [.text(update.figures), SQLValue(update.bytesOnDisk), .real(update.fraction), .text(update.assetID),
                              .integer(update.changes)])
                }
            }
        } catch {
            throw CarryonError(.library, "keeping the figures of \(updates.count) assets failed: \(error.message)", cause: error)
        }
    }
}
