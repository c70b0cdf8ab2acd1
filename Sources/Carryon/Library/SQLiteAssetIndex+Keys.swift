import Foundation
import GRDB

/// Content keys and storage settings in the SQLite index.
extension SQLiteAssetIndex {
    // MARK: Content keys

    func storeKey(_ info: ContentKeyInfo, sealed: Data, fence: Fence?) async throws(CarryonError) {
        let lifetime = String(decoding: (try? JSONEncoder().encode(info.lifetime)) ?? Data("{}".utf8), as: UTF8.self)
        try await write { db in
            if let fence { try Self.check(fence, db) }
            try db.execute(sql: """
                INSERT INTO contentKey (assetId, id, uri, method, keyFormat, sealed, storedAt, lifetime, firstPlayedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)
                ON CONFLICT(assetId, id) DO UPDATE SET uri = excluded.uri, method = excluded.method, keyFormat = excluded.keyFormat,
                    sealed = excluded.sealed, storedAt = excluded.storedAt, lifetime = excluded.lifetime, firstPlayedAt = NULL
                """, arguments: [info.assetID, info.id, info.uri, info.method, info.keyFormat, sealed, IndexDate(info.storedAt), lifetime])
        }
    }

    func keys(of assetID: String?) async throws(CarryonError) -> [ContentKeyInfo] {
        try await read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT assetId, id, uri, method, keyFormat, sealed IS NULL AS invalidated, storedAt, lifetime, firstPlayedAt
                FROM contentKey \(assetID == nil ? "" : "WHERE assetId = ?") ORDER BY assetId, rowid
                """, arguments: StatementArguments(assetID.map { [$0] } ?? []))
            return rows.map(IndexRows.keyInfo)
        }
    }

    func sealedKey(_ keyID: String, of assetID: String) async throws(CarryonError) -> SealedKey? {
        try await read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT assetId, id, uri, method, keyFormat, sealed IS NULL AS invalidated, storedAt, lifetime, firstPlayedAt, sealed
                FROM contentKey WHERE assetId = ? AND id = ?
                """, arguments: [assetID, keyID]) else { return nil }
            return SealedKey(info: IndexRows.keyInfo(row), sealed: row["sealed"])
        }
    }

    func recordFirstPlayback(ofKey keyID: String, of assetID: String, at date: Date) async throws(CarryonError) {
        try await write { db in
            try db.execute(sql: "UPDATE contentKey SET firstPlayedAt = ? WHERE assetId = ? AND id = ? AND firstPlayedAt IS NULL",
                           arguments: [IndexDate(date), assetID, keyID])
        }
    }

    func invalidateKeys(of assetID: String) async throws(CarryonError) {
        // secure_delete (set when the index is opened) overwrites the sealed bytes' page.
        try await write { db in
            try db.execute(sql: "UPDATE contentKey SET sealed = NULL WHERE assetId = ?", arguments: [assetID])
        }
    }

    func removeKeys(of assetID: String) async throws(CarryonError) {
        try await write { db in
            try db.execute(sql: "DELETE FROM contentKey WHERE assetId = ?", arguments: [assetID])
        }
    }

    // MARK: Storage

    func allAssets() async throws(CarryonError) -> [AssetRecord] {
        try await read { db in
            let reading = RowReading()
            return try Row.fetchAll(db, sql: "SELECT \(Self.leanColumns.joined(separator: ", ")) FROM asset").map { row in
                try AssetRecord(row: row, reading: reading)
            }
        }
    }

    func setPolicy(_ policy: StoragePolicy, of id: String) async throws(CarryonError) -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE asset SET expiresAt = ?, priority = ? WHERE id = ?",
                           arguments: [policy.expiresAt.map(IndexDate.init), policy.priority.rawValue, id])
            return db.changesCount > 0
        }
    }

    func markPlayed(_ id: String, at date: Date) async throws(CarryonError) {
        try await write { db in
            try db.execute(sql: "UPDATE asset SET lastPlayedAt = ? WHERE id = ?", arguments: [IndexDate(date), id])
        }
    }

    func storageSettings() async throws(CarryonError) -> LibraryStorageSettings {
        let values = try await read { db in
            try Row.fetchAll(db, sql: "SELECT key, value FROM setting").reduce(into: [String: String]()) { $0[$1["key"]] = $1["value"] }
        }
        return IndexRows.storageSettings(values)
    }

    func setStorageSettings(_ settings: LibraryStorageSettings) async throws(CarryonError) {
        try await write { db in
            for (key, value) in IndexRows.settingRows(settings) {
                if let value {
                    try db.execute(sql: "INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                                   arguments: [key, value])
                } else {
                    try db.execute(sql: "DELETE FROM setting WHERE key = ?", arguments: [key])
                }
            }
        }
    }
}
