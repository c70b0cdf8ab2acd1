import Foundation
import GRDB

/// The resources of the index in the library's `index.sqlite`: read a page at a time, by file,
/// done or pending; marked done, pending or moved.
extension SQLiteAssetIndex {
    func resources(of id: String) async throws(CarryonError) -> [ResourceRecord] {
        try await read { db in
            try ResourceRecord.fetchRows(db.cachedStatement(sql: "SELECT * FROM resource WHERE assetId = ? ORDER BY ordinal"), arguments: [id])
        }
    }

    func pendingResources(of id: String, after place: ResourcePlace?, limit: Int) async throws(CarryonError) -> [ResourceRecord] {
        try await read { db in
            // resource_by_asset (assetId, state, ordinal) answers this without a sort.
            let ordinal = place?.ordinal ?? Int.min
            let rowID = place?.id ?? Int64.min
            return try ResourceRecord.fetchRows(db.cachedStatement(sql: """
                SELECT * FROM resource WHERE assetId = ? AND state = 'pending' AND (ordinal > ? OR (ordinal = ? AND id > ?))
                ORDER BY ordinal, id LIMIT ?
                """), arguments: [id, ordinal, ordinal, rowID, limit])
        }
    }

    func resources(_ resourceIDs: [Int64], of id: String) async throws(CarryonError) -> [ResourceRecord] {
        try await read { db in
            let sql = "SELECT * FROM resource WHERE assetId = ? AND id IN (\(databaseQuestionMarks(count: resourceIDs.count)))"
            return try ResourceRecord.fetchRows(db.makeStatement(sql: sql), arguments: [id] + StatementArguments(resourceIDs))
        }
    }

    func resources(inFile fileName: String, of id: String) async throws(CarryonError) -> [ResourceRecord] {
        try await read { db in
            try ResourceRecord.fetchRows(db.cachedStatement(sql: "SELECT * FROM resource WHERE assetId = ? AND fileName = ? ORDER BY rangeOffset"),
                                   arguments: [id, fileName])
        }
    }

    func doneResources(of id: String) async throws(CarryonError) -> [ResourceRecord] {
        try await read { db in
            try ResourceRecord.fetchRows(db.cachedStatement(sql: "SELECT * FROM resource WHERE assetId = ? AND state = 'done'"), arguments: [id])
        }
    }

    func onDiskKeys(of id: String) async throws(CarryonError) -> Set<String> {
        try await read { db in
            var keys: Set<String> = []
            let rows = try Row.fetchCursor(db, sql: "SELECT uri, rangeOffset FROM resource WHERE assetId = ? AND state = 'done'", arguments: [id])
            while let row = try rows.next() { keys.insert(ResourceRecord.onDiskKey(row["uri"], offset: row["rangeOffset"])) }
            return keys
        }
    }

    func pendingCount(of id: String, rendition: String?) async throws(CarryonError) -> Int {
        try await read { db in
            if let rendition {
                return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM resource WHERE assetId = ? AND renditionKey = ? AND state = 'pending'",
                                        arguments: [id, rendition]) ?? 0
            }
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM resource WHERE assetId = ? AND state = 'pending'", arguments: [id]) ?? 0
        }
    }

    func pendingCount(of resourceIDs: [Int64]) async throws(CarryonError) -> Int {
        try await read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM resource WHERE state != 'done' AND id IN (\(resourceIDs.map(String.init).joined(separator: ",")))") ?? 0
        }
    }

    func pendingBytes(of id: String) async throws(CarryonError) -> Int {
        try await read { db in
            try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(expectedBytes), 0) FROM resource WHERE assetId = ? AND state = 'pending'",
                             arguments: [id]) ?? 0
        }
    }

    func markPending(_ resourceIDs: [Int64], of id: String) async throws(CarryonError) {
        guard !resourceIDs.isEmpty else { return }
        try await write { db in
            let update = try db.makeStatement(sql: """
                UPDATE resource SET state = 'pending', bytes = NULL, etag = NULL, lastModified = NULL, sha256 = NULL
                WHERE id = ? AND assetId = ?
                """)
            for resourceID in resourceIDs {
                update.setUncheckedArguments([resourceID, id])
                try update.execute()
            }
            try db.execute(sql: "UPDATE asset SET changes = changes + 1 WHERE id = ?", arguments: [id])
        }
    }

    func relocate(_ moves: [(id: Int64, uri: String)], of id: String, fence: Fence?) async throws(CarryonError) {
        guard !moves.isEmpty else { return }
        try await write { db in
            if let fence { try Self.check(fence, db) }
            let update = try db.makeStatement(sql: "UPDATE resource SET uri = ? WHERE id = ? AND assetId = ?")
            for move in moves {
                update.setUncheckedArguments([move.uri, move.id, id])
                try update.execute()
            }
        }
    }

    func markDone(_ resourceID: Int64, bytes: Int, etag: String?, lastModified: String?, sha256: String?, fence: Fence?) async throws(CarryonError) {
        try await write { db in
            if let fence { try Self.check(fence, db) }
            let wasDone = try fence == nil
                && String.fetchOne(db.cachedStatement(sql: "SELECT state FROM resource WHERE id = ?"), arguments: [resourceID]) == "done"
            // Once per resource: the statement is compiled once per connection.
            try db.cachedStatement(sql: "UPDATE resource SET state = 'done', bytes = ?, etag = ?, lastModified = ?, sha256 = ? WHERE id = ?")
                .execute(arguments: [bytes, etag, lastModified, sha256, resourceID])
            // Outside a run (a fetch playback waited for, ending after it), a change to count
            // unless another run recorded it already; a run's changes are counted when it is
            // claimed and when it ends (see AssetFigures).
            if fence == nil, !wasDone {
                try db.cachedStatement(sql: "UPDATE asset SET changes = changes + 1 WHERE id = (SELECT assetId FROM resource WHERE id = ?)")
                    .execute(arguments: [resourceID])
            }
        }
    }

    func resourceCounts(of id: String) async throws(CarryonError) -> [String: (done: Int, total: Int)] {
        try await read { db in
            var counts: [String: (done: Int, total: Int)] = [:]
            for row in try Row.fetchAll(db.cachedStatement(sql: """
                SELECT renditionKey, SUM(state = 'done') AS done, COUNT(*) AS total FROM resource WHERE assetId = ? GROUP BY renditionKey
                """), arguments: [id]) {
                counts[row["renditionKey"]] = (row["done"], row["total"])
            }
            return counts
        }
    }

    func files(of id: String) async throws(CarryonError) -> [(fileName: String, uri: String)] {
        let rows = try await read { db in
            // Two columns a row, read as they come: a long asset has thousands.
            var files: [FileRow] = []
            var seen: Set<String> = []
            let rows = try Row.fetchCursor(db, sql: "SELECT fileName, uri FROM resource WHERE assetId = ? ORDER BY ordinal", arguments: [id])
            while let row = try rows.next() {
                let fileName: String = row["fileName"]
                guard seen.insert(fileName).inserted else { continue }
                files.append(FileRow(fileName: fileName, uri: row["uri"]))
            }
            return files
        }
        return rows.map { ($0.fileName, $0.uri) }
    }

    private struct FileRow: Sendable {
        var fileName: String
        var uri: String
    }
}
