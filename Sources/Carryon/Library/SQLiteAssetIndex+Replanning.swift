import GRDB

/// A plan written again over one the index holds (`savePlan(keeping: true)`): each resource of
/// the new plan that the old one had (the same URI, byte range and file; `IndexRows.planKey`)
/// keeps what was fetched of it (`IndexRows.keeping`). The old rows' fetched columns wait in a
/// temporary table of the writer's connection while the plan's rows are written, so that a
/// plan planned again every few seconds (a live recording's) holds none of its rows in memory,
/// however many it has.
extension SQLiteAssetIndex {
    /// Copies what asset `id`'s rows have fetched aside, before they are deleted.
    static func setAsideFetched(of id: String, _ db: Database) throws {
        try db.execute(sql: """
            CREATE TEMP TABLE IF NOT EXISTS keptResource (uri TEXT NOT NULL, rangeOffset INTEGER NOT NULL, fileName TEXT NOT NULL,
            state TEXT NOT NULL, bytes INTEGER, expectedBytes INTEGER NOT NULL, exactSize BOOLEAN NOT NULL, etag TEXT, lastModified TEXT, sha256 TEXT);
            DELETE FROM temp.keptResource;
            """)
        try db.execute(sql: """
            INSERT INTO temp.keptResource
            SELECT uri, IFNULL(rangeOffset, -1), fileName, state, bytes, expectedBytes, exactSize, etag, lastModified, sha256
            FROM resource WHERE assetId = ?
            """, arguments: [id])
        try db.execute(sql: "CREATE INDEX IF NOT EXISTS temp.keptResource_by_key ON keptResource (uri, rangeOffset, fileName)")
    }

    /// Gives asset `id`'s new rows what their old ones had fetched, and empties the table.
    static func restoreFetched(of id: String, _ db: Database) throws {
        // Row values, not UPDATE … FROM (SQLite 3.33): the SQLite of older systems runs it too.
        // Of two old rows for one resource, the one on disk.
        try db.execute(sql: """
            UPDATE resource SET (state, bytes, expectedBytes, exactSize, etag, lastModified, sha256) = (
              SELECT kept.state, kept.bytes, kept.expectedBytes, kept.exactSize, kept.etag, kept.lastModified, kept.sha256 FROM temp.keptResource AS kept
              WHERE kept.uri = resource.uri AND kept.rangeOffset = IFNULL(resource.rangeOffset, -1) AND kept.fileName = resource.fileName
              ORDER BY kept.state = 'done' DESC LIMIT 1)
            WHERE assetId = ? AND EXISTS (
              SELECT 1 FROM temp.keptResource AS kept
              WHERE kept.uri = resource.uri AND kept.rangeOffset = IFNULL(resource.rangeOffset, -1) AND kept.fileName = resource.fileName)
            """, arguments: [id])
        try db.execute(sql: "DELETE FROM temp.keptResource")
    }
}
