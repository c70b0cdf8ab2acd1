import Foundation
import GRDB

/// Assets, plans and resources in the PostgreSQL index: SQLite's statements (see
/// `SQLiteAssetIndex.swift`) in PostgreSQL's words, records encoded and read as GRDB does.
extension PostgresAssetIndex {
    /// The columns that are booleans in PostgreSQL (integers in GRDB's encoding).
    static let booleanColumns: Set<String> = ["planned", "ismain", "exactsize"]

    /// Inserts `record` (a row GRDB encodes) into `table`, its `id` left to the table when
    /// `withoutID`.
    static func insert(_ record: some EncodableRecord, into table: String, withoutID: Bool = false,
                       _ transaction: PostgresTransaction) async throws {
        let values = try record.databaseDictionary.filter { !(withoutID && $0.key == "id") }.sorted { $0.key < $1.key }
        try await transaction.execute("INSERT INTO \(table) (\(values.map(\.key).joined(separator: ", "))) VALUES (\(values.map { _ in "?" }.joined(separator: ", ")))",
                                      values.map { SQLValue($0.value, boolean: booleanColumns.contains($0.key.lowercased())) })
    }

    // MARK: Assets

    func insert(_ asset: AssetRecord) async throws(CarryonError) {
        try await write { transaction in try await Self.insert(asset, into: "asset", transaction) }
    }

    func asset(_ id: String) async throws(CarryonError) -> AssetRecord? {
        try await read { transaction in try await transaction.row("SELECT * FROM asset WHERE id = ?", [.text(id)]).map(AssetRecord.init(row:)) }
    }

    func assetIDs() async throws(CarryonError) -> [String] {
        try await read { transaction in try await transaction.rows("SELECT id FROM asset ORDER BY createdAt, seq").map { $0["id"] } }
    }

    func assetIDs(startingWith prefix: String) async throws(CarryonError) -> [String] {
        try await read { transaction in
            // strpos, not LIKE: `%` and `_` in what the user typed are not patterns.
            try await transaction.rows("SELECT id FROM asset WHERE strpos(lower(id), lower(?)) = 1 ORDER BY id", [.text(prefix)]).map { $0["id"] }
        }
    }

    func state(of id: String) async throws(CarryonError) -> DownloadState? {
        try await read { transaction in
            try await transaction.row("SELECT state FROM asset WHERE id = ?", [.text(id)]).map { DownloadState(rawValue: $0["state"] ?? "") ?? .suspended }
        }
    }

    func assetStates() async throws(CarryonError) -> [(id: String, state: DownloadState)] {
        let rows = try await read { transaction in
            try await transaction.rows("SELECT id, state FROM asset ORDER BY createdAt, seq").map { row in
                IDAndState(id: row["id"], state: (row["state"] as String?).flatMap(DownloadState.init(rawValue:)) ?? .suspended)
            }
        }
        return rows.map { ($0.id, $0.state) }
    }

    private struct IDAndState: Sendable {
        var id: String
        var state: DownloadState
    }

    func setState(_ state: DownloadState, of id: String, error: String?, at date: Date) async throws(CarryonError) {
        try await write { transaction in
            try await transaction.execute("""
                UPDATE asset SET state = ?, updatedAt = ?, errorMessage = CASE WHEN ? THEN ? ELSE errorMessage END,
                completedAt = CASE WHEN ? THEN ? ELSE completedAt END WHERE id = ?
                """, [.text(state.rawValue), SQLValue(date), .boolean(error != nil || state == .waiting), SQLValue(error),
                      .boolean(state == .completed), SQLValue(date), .text(id)])
        }
    }

    func setOptions(_ options: DownloadOptions, of id: String) async throws(CarryonError) {
        let encoded = String(decoding: (try? JSONEncoder().encode(options)) ?? Data(), as: UTF8.self)
        try await write { transaction in try await transaction.execute("UPDATE asset SET options = ? WHERE id = ?", [.text(encoded), .text(id)]) }
    }

    func deleteAsset(_ id: String) async throws(CarryonError) {
        try await write { transaction in try await transaction.execute("DELETE FROM asset WHERE id = ?", [.text(id)]) }
    }

    // MARK: Plans

    func savePlan(_ planned: PlannedStream, of id: String, keeping: Bool, at date: Date, fence: Fence?) async throws(CarryonError) {
        let plan = planned.plan
        let selection = planned.selection.map { String(decoding: (try? JSONEncoder().encode($0)) ?? Data(), as: UTF8.self) }
        try await write { transaction in
            try await Self.checkPlanning(id, fence: fence, at: date, transaction)
            var kept: [String: ResourceRecord] = [:]
            if keeping {
                for row in try await transaction.rows("SELECT * FROM resource WHERE assetId = ?", [.text(id)]) {
                    let resource = try ResourceRecord(row: row)
                    kept[IndexRows.planKey(resource)] = resource
                }
            }
            try await transaction.execute("DELETE FROM resource WHERE assetId = ?", [.text(id)])
            try await transaction.execute("DELETE FROM rendition WHERE assetId = ?", [.text(id)])
            for rendition in plan.renditions { try await Self.insert(rendition.record, into: "rendition", transaction) }
            var resources: [ResourceRecord] = []
            resources.reserveCapacity(plan.resources.count)
            for var resource in plan.resources {
                if keeping, let old = kept[IndexRows.planKey(resource)] { resource = IndexRows.keeping(resource, from: old) }
                resources.append(resource)
            }
            try await Self.insertResources(resources, transaction)
            try await transaction.execute("DELETE FROM fallback WHERE assetId = ?", [.text(id)])
            for fallback in plan.fallbacks {
                try await transaction.execute("INSERT INTO fallback (assetId, prefix, alternatives, query) VALUES (?, ?, ?, ?)",
                                              [.text(id), .text(fallback.prefix),
                                               .text(String(decoding: try JSONEncoder().encode(fallback.alternatives), as: UTF8.self)),
                                               SQLValue(fallback.query)])
            }
            try await transaction.execute("""
                UPDATE asset SET planned = TRUE, selection = ?, duration = ?, format = ?, updatedAt = ?, changes = changes + 1 WHERE id = ?
                """, [SQLValue(selection), SQLValue(plan.duration), .text(planned.format), SQLValue(date), .text(id)])
        }
    }

    func appendPlan(_ planned: PlannedStream, of id: String, at date: Date, fence: Fence?) async throws(CarryonError) {
        let plan = planned.plan
        let resources = Array(plan.resources)
        try await write { transaction in
            try await Self.checkPlanning(id, fence: fence, at: date, transaction)
            let uris = Array(Set(resources.map(\.uri)))
            if !uris.isEmpty {
                let marks = Array(repeating: "?", count: uris.count).joined(separator: ", ")
                if let row = try await transaction.rows("SELECT uri FROM resource WHERE assetId = ? AND uri IN (\(marks)) LIMIT 1",
                                                        [.text(id)] + uris.map { .text($0) }).first {
                    throw AppendRefused.error(id, uri: row["uri"])
                }
            }
            try await Self.insertResources(resources, transaction)
            for rendition in plan.renditions {
                try await transaction.execute("UPDATE rendition SET duration = duration + ? WHERE assetId = ? AND key = ?",
                                              [SQLValue(rendition.record.duration), .text(id), .text(rendition.record.key)])
            }
            try await transaction.execute("""
                UPDATE asset SET duration = (SELECT MAX(duration) FROM rendition WHERE assetId = ?), updatedAt = ?, changes = changes + 1 WHERE id = ?
                """, [.text(id), SQLValue(date), .text(id)])
        }
    }

    /// Whether asset `id`'s plan may be written: by the run that holds `fence`, or, without
    /// one, by a process that holds no claim (keys prefetched, renditions added) while no run
    /// holds it.
    private static func checkPlanning(_ id: String, fence: Fence?, at date: Date, _ transaction: PostgresTransaction) async throws {
        if let fence {
            try await check(fence, transaction)
        } else if let row = try await ownershipRow(transaction, id: id), let owner = row.owner,
                  (row.leaseUntil ?? 0) > date.timeIntervalSince1970,
                  try await alive(owner, transaction, OwnershipContext(now: date, checksProcesses: true)) {
            throw CarryonError(.busy, "\(id) is being downloaded by another process; its plan is that process's")
        }
    }

    /// The resource columns a plan writes, in order (its `id` left to the table).
    private static let resourceColumns = ["assetId", "renditionKey", "ordinal", "kind", "uri", "rangeOffset", "rangeLength", "fileName",
                                          "state", "bytes", "expectedBytes", "exactSize", "startTime", "duration", "etag", "lastModified", "sha256"]

    /// Inserts `resources` in their order, a few hundred rows a statement (a plan can have a
    /// million; a statement takes at most 65,535 values).
    private static func insertResources(_ resources: [ResourceRecord], _ transaction: PostgresTransaction) async throws {
        let rowsPerStatement = 2_000
        let row = "(" + resourceColumns.map { _ in "?" }.joined(separator: ", ") + ")"
        var start = 0
        while start < resources.count {
            let chunk = resources[start..<min(start + rowsPerStatement, resources.count)]
            var values: [SQLValue] = []
            values.reserveCapacity(chunk.count * resourceColumns.count)
            for resource in chunk {
                values += [.text(resource.assetID), .text(resource.renditionKey), SQLValue(resource.ordinal), .text(resource.kind.rawValue),
                           .text(resource.uri), SQLValue(resource.rangeOffset), SQLValue(resource.rangeLength), .text(resource.fileName),
                           .text(resource.state.rawValue), SQLValue(resource.bytes), SQLValue(resource.expectedBytes),
                           .boolean(resource.exactSize), .real(resource.startTime), .real(resource.duration),
                           SQLValue(resource.etag), SQLValue(resource.lastModified), SQLValue(resource.sha256)]
            }
            try await transaction.execute("INSERT INTO resource (\(resourceColumns.joined(separator: ", "))) VALUES "
                                          + Array(repeating: row, count: chunk.count).joined(separator: ", "), values)
            start += chunk.count
        }
    }

    func forgetPlan(of id: String) async throws(CarryonError) {
        try await write { transaction in
            try await transaction.execute("DELETE FROM resource WHERE assetId = ?", [.text(id)])
            try await transaction.execute("DELETE FROM rendition WHERE assetId = ?", [.text(id)])
            try await transaction.execute("DELETE FROM fallback WHERE assetId = ?", [.text(id)])
            try await transaction.execute("UPDATE asset SET planned = FALSE, selection = NULL, changes = changes + 1 WHERE id = ?", [.text(id)])
        }
    }

    func fallbacks(of id: String) async throws(CarryonError) -> [Fallback] {
        try await read { transaction in
            try await transaction.rows("SELECT prefix, alternatives, query FROM fallback WHERE assetId = ? ORDER BY prefix", [.text(id)]).map { row in
                Fallback(prefix: row["prefix"], alternatives: try JSONDecoder().decode([String].self, from: Data((row["alternatives"] as String).utf8)),
                         query: row["query"])
            }
        }
    }

    func renditions(of id: String) async throws(CarryonError) -> [RenditionRecord] {
        try await read { transaction in
            try await transaction.rows("SELECT * FROM rendition WHERE assetId = ? ORDER BY position", [.text(id)]).map(RenditionRecord.init(row:))
        }
    }

    // MARK: Resources

    /// Lets this transaction's commit return before its WAL record is on disk
    /// (`synchronous_commit = off`, for this transaction only): for the writes a download makes
    /// per resource, whose loss in a crash of the server costs a resource fetched again, never
    /// a wrong row — commits stay in order, and a claim's or a run's end waits as before.
    static func commitWithoutWaiting(_ transaction: PostgresTransaction) async throws {
        try await transaction.execute("SET LOCAL synchronous_commit = off")
    }

    /// Resources of `sql`'s rows.
    private func resources(_ sql: String, _ values: [SQLValue]) async throws(CarryonError) -> [ResourceRecord] {
        try await read { transaction in try await transaction.rows(sql, values).map(ResourceRecord.init(row:)) }
    }

    func resources(of id: String) async throws(CarryonError) -> [ResourceRecord] {
        try await resources("SELECT * FROM resource WHERE assetId = ? ORDER BY ordinal, id", [.text(id)])
    }

    func pendingResources(of id: String, after place: ResourcePlace?, limit: Int) async throws(CarryonError) -> [ResourceRecord] {
        // resource_by_asset (assetId, state, ordinal, id) answers this without a sort.
        let ordinal = Int64(place?.ordinal ?? Int.min)
        let rowID = place?.id ?? Int64.min
        return try await resources("""
            SELECT * FROM resource WHERE assetId = ? AND state = 'pending' AND (ordinal, id) > (?, ?)
            ORDER BY ordinal, id LIMIT ?
            """, [.text(id), .integer(ordinal), .integer(rowID), SQLValue(limit)])
    }

    func resources(_ resourceIDs: [Int64], of id: String) async throws(CarryonError) -> [ResourceRecord] {
        guard !resourceIDs.isEmpty else { return [] }
        return try await resources("SELECT * FROM resource WHERE assetId = ? AND id IN (\(resourceIDs.map(String.init).joined(separator: ",")))",
                                   [.text(id)])
    }

    func resources(inFile fileName: String, of id: String) async throws(CarryonError) -> [ResourceRecord] {
        try await resources("SELECT * FROM resource WHERE assetId = ? AND fileName = ? ORDER BY rangeOffset, id", [.text(id), .text(fileName)])
    }

    func doneResources(of id: String) async throws(CarryonError) -> [ResourceRecord] {
        try await resources("SELECT * FROM resource WHERE assetId = ? AND state = 'done' ORDER BY id", [.text(id)])
    }

    func onDiskKeys(of id: String) async throws(CarryonError) -> Set<String> {
        try await read { transaction in
            Set(try await transaction.rows("SELECT uri, rangeOffset FROM resource WHERE assetId = ? AND state = 'done'", [.text(id)]).map {
                ResourceRecord.onDiskKey($0["uri"], offset: $0["rangeOffset"] as Int?)
            })
        }
    }

    /// The integer `sql` counts.
    private func count(_ sql: String, _ values: [SQLValue]) async throws(CarryonError) -> Int {
        try await read { transaction in Int(try await transaction.row(sql, values)?["count"] as Int64? ?? 0) }
    }

    func pendingCount(of id: String, rendition: String?) async throws(CarryonError) -> Int {
        if let rendition {
            return try await count("SELECT COUNT(*) AS count FROM resource WHERE assetId = ? AND renditionKey = ? AND state = 'pending'",
                                   [.text(id), .text(rendition)])
        }
        return try await count("SELECT COUNT(*) AS count FROM resource WHERE assetId = ? AND state = 'pending'", [.text(id)])
    }

    func pendingCount(of resourceIDs: [Int64]) async throws(CarryonError) -> Int {
        guard !resourceIDs.isEmpty else { return 0 }
        return try await count("SELECT COUNT(*) AS count FROM resource WHERE state != 'done' AND id IN (\(resourceIDs.map(String.init).joined(separator: ",")))", [])
    }

    func pendingBytes(of id: String) async throws(CarryonError) -> Int {
        try await count("SELECT COALESCE(SUM(expectedBytes), 0)::BIGINT AS count FROM resource WHERE assetId = ? AND state = 'pending'", [.text(id)])
    }

    func markPending(_ resourceIDs: [Int64], of id: String) async throws(CarryonError) {
        guard !resourceIDs.isEmpty else { return }
        try await write { transaction in
            for resourceID in resourceIDs {
                try await transaction.execute("""
                    UPDATE resource SET state = 'pending', bytes = NULL, etag = NULL, lastModified = NULL, sha256 = NULL
                    WHERE id = ? AND assetId = ?
                    """, [.integer(resourceID), .text(id)])
            }
            try await transaction.execute("UPDATE asset SET changes = changes + 1 WHERE id = ?", [.text(id)])
        }
    }

    func relocate(_ moves: [(id: Int64, uri: String)], of id: String, fence: Fence?) async throws(CarryonError) {
        guard !moves.isEmpty else { return }
        let moves = moves.map { Move(id: $0.id, uri: $0.uri) }
        try await write { transaction in
            if let fence { try await Self.check(fence, transaction) }
            for move in moves {
                try await transaction.execute("UPDATE resource SET uri = ? WHERE id = ? AND assetId = ?", [.text(move.uri), .integer(move.id), .text(id)])
            }
        }
    }

    private struct Move: Sendable {
        var id: Int64
        var uri: String
    }

    func markDone(_ resourceID: Int64, bytes: Int, etag: String?, lastModified: String?, sha256: String?, fence: Fence?) async throws(CarryonError) {
        try await write { transaction in
            try await Self.commitWithoutWaiting(transaction)
            if let fence { try await Self.check(fence, transaction) }
            var wasDone = false
            if fence == nil {
                wasDone = try await transaction.row("SELECT state FROM resource WHERE id = ?", [.integer(resourceID)])?["state"] as String? == "done"
            }
            try await transaction.execute("UPDATE resource SET state = 'done', bytes = ?, etag = ?, lastModified = ?, sha256 = ? WHERE id = ?",
                                          [SQLValue(bytes), SQLValue(etag), SQLValue(lastModified), SQLValue(sha256), .integer(resourceID)])
            // Outside a run, a change to count unless another run recorded it already (see
            // SQLiteAssetIndex.markDone).
            if fence == nil, !wasDone {
                try await transaction.execute("UPDATE asset SET changes = changes + 1 WHERE id = (SELECT assetId FROM resource WHERE id = ?)",
                                              [.integer(resourceID)])
            }
        }
    }

    func resourceCounts(of id: String) async throws(CarryonError) -> [String: (done: Int, total: Int)] {
        let rows = try await read { transaction in
            try await transaction.rows("""
                SELECT renditionKey, COUNT(*) FILTER (WHERE state = 'done') AS done, COUNT(*) AS total FROM resource WHERE assetId = ?
                GROUP BY renditionKey
                """, [.text(id)]).map { RenditionCount(key: $0["renditionKey"], done: $0["done"], total: $0["total"]) }
        }
        var counts: [String: (done: Int, total: Int)] = [:]
        for row in rows { counts[row.key] = (row.done, row.total) }
        return counts
    }

    private struct RenditionCount: Sendable {
        var key: String
        var done: Int
        var total: Int
    }

    private struct FileRow: Sendable {
        var fileName: String
        var uri: String
    }

    func files(of id: String) async throws(CarryonError) -> [(fileName: String, uri: String)] {
        let rows = try await read { transaction in
            try await transaction.rows("SELECT fileName, uri FROM resource WHERE assetId = ? ORDER BY ordinal, id", [.text(id)])
                .map { FileRow(fileName: $0["fileName"], uri: $0["uri"]) }
        }
        var files: [(fileName: String, uri: String)] = []
        var seen: Set<String> = []
        for row in rows where seen.insert(row.fileName).inserted {
            files.append((row.fileName, row.uri))
        }
        return files
    }
}
