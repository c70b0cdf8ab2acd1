import Foundation
import GRDB

/// Content keys (sealed under the library's master key, as on SQLite) and storage settings in
/// the PostgreSQL index.
extension PostgresAssetIndex {
    // MARK: Content keys

    func storeKey(_ info: ContentKeyInfo, sealed: Data, fence: Fence?) async throws(CarryonError) {
        let lifetime = String(decoding: (try? JSONEncoder().encode(info.lifetime)) ?? Data("{}".utf8), as: UTF8.self)
        try await write { transaction in
            if let fence { try await Self.check(fence, transaction) }
            try await transaction.execute("""
                INSERT INTO contentKey (assetId, id, uri, method, keyFormat, sealed, storedAt, lifetime, firstPlayedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)
                ON CONFLICT (assetId, id) DO UPDATE SET uri = excluded.uri, method = excluded.method, keyFormat = excluded.keyFormat,
                    sealed = excluded.sealed, storedAt = excluded.storedAt, lifetime = excluded.lifetime, firstPlayedAt = NULL
                """, [.text(info.assetID), .text(info.id), .text(info.uri), .text(info.method), .text(info.keyFormat), .bytes(sealed),
                      SQLValue(info.storedAt), .text(lifetime)])
        }
    }

    func keys(of assetID: String?) async throws(CarryonError) -> [ContentKeyInfo] {
        try await read { transaction in
            try await transaction.rows("""
                SELECT assetId, id, uri, method, keyFormat, sealed IS NULL AS invalidated, storedAt, lifetime, firstPlayedAt
                FROM contentKey \(assetID == nil ? "" : "WHERE assetId = ?") ORDER BY assetId, seq
                """, assetID.map { [.text($0)] } ?? []).map(IndexRows.keyInfo)
        }
    }

    func sealedKey(_ keyID: String, of assetID: String) async throws(CarryonError) -> SealedKey? {
        try await read { transaction in
            try await transaction.row("""
                SELECT assetId, id, uri, method, keyFormat, sealed IS NULL AS invalidated, storedAt, lifetime, firstPlayedAt, sealed
                FROM contentKey WHERE assetId = ? AND id = ?
                """, [.text(assetID), .text(keyID)]).map { SealedKey(info: IndexRows.keyInfo($0), sealed: $0["sealed"]) }
        }
    }

    func recordFirstPlayback(ofKey keyID: String, of assetID: String, at date: Date) async throws(CarryonError) {
        try await write { transaction in
            try await transaction.execute("UPDATE contentKey SET firstPlayedAt = ? WHERE assetId = ? AND id = ? AND firstPlayedAt IS NULL",
                                          [SQLValue(date), .text(assetID), .text(keyID)])
        }
    }

    func invalidateKeys(of assetID: String) async throws(CarryonError) {
        // The old row version keeps the bytes until VACUUM reclaims it (PostgreSQL has no
        // secure_delete): the sealed bytes are useless without the master key, which is not
        // in the database.
        try await write { transaction in
            try await transaction.execute("UPDATE contentKey SET sealed = NULL WHERE assetId = ?", [.text(assetID)])
        }
    }

    func removeKeys(of assetID: String) async throws(CarryonError) {
        try await write { transaction in try await transaction.execute("DELETE FROM contentKey WHERE assetId = ?", [.text(assetID)]) }
    }

    // MARK: Storage

    func allAssets() async throws(CarryonError) -> [AssetRecord] {
        try await read { transaction in
            try await transaction.rows("SELECT \(SQLiteAssetIndex.leanColumns.joined(separator: ", ")) FROM asset ORDER BY createdAt, seq")
                .map(AssetRecord.init(row:))
        }
    }

    func setPolicy(_ policy: StoragePolicy, of id: String) async throws(CarryonError) -> Bool {
        try await write { transaction in
            try await transaction.execute("UPDATE asset SET expiresAt = ?, priority = ? WHERE id = ? RETURNING 1",
                                          [SQLValue(policy.expiresAt), .text(policy.priority.rawValue), .text(id)]) > 0
        }
    }

    func markPlayed(_ id: String, at date: Date) async throws(CarryonError) {
        try await write { transaction in
            try await transaction.execute("UPDATE asset SET lastPlayedAt = ? WHERE id = ?", [SQLValue(date), .text(id)])
        }
    }

    func storageSettings() async throws(CarryonError) -> LibraryStorageSettings {
        let values = try await read { transaction in
            try await transaction.rows("SELECT key, value FROM setting").reduce(into: [String: String]()) { $0[$1["key"]] = $1["value"] }
        }
        return IndexRows.storageSettings(values)
    }

    func setStorageSettings(_ settings: LibraryStorageSettings) async throws(CarryonError) {
        try await write { transaction in
            for (key, value) in IndexRows.settingRows(settings) {
                if let value {
                    try await transaction.execute("INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                                                  [.text(key), .text(value)])
                } else {
                    try await transaction.execute("DELETE FROM setting WHERE key = ?", [.text(key)])
                }
            }
        }
    }
}
