import Foundation
import GRDB

/// The index's tables, and the migrations that bring an index written by any earlier release
/// to them (each runs once, in order, in its own transaction). A migration is never changed
/// once released: a new one is added.
extension SQLiteAssetIndex {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "asset") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull()
                t.column("url", .text).notNull()
                t.column("state", .text).notNull()
                t.column("errorMessage", .text)
                t.column("options", .jsonText).notNull()
                t.column("headers", .jsonText).notNull()
                t.column("selection", .jsonText)
                t.column("planned", .boolean).notNull().defaults(to: false)
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
                t.column("completedAt", .datetime)
                t.column("duration", .double)
            }
            try db.create(table: "rendition") { t in
                t.column("assetId", .text).notNull().references("asset", onDelete: .cascade)
                t.column("key", .text).notNull()
                t.column("type", .text).notNull()
                t.column("name", .text).notNull()
                t.column("language", .text)
                t.column("uri", .text).notNull()
                t.column("isMain", .boolean).notNull()
                t.column("duration", .double).notNull()
                t.column("position", .integer).notNull()
                t.primaryKey(["assetId", "key"])
            }
            try db.create(table: "resource") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("assetId", .text).notNull().references("asset", onDelete: .cascade)
                t.column("renditionKey", .text).notNull()
                t.column("ordinal", .integer).notNull()
                t.column("kind", .text).notNull()
                t.column("uri", .text).notNull()
                t.column("rangeOffset", .integer)
                t.column("rangeLength", .integer)
                t.column("fileName", .text).notNull()
                t.column("state", .text).notNull()
                t.column("bytes", .integer)
                t.column("expectedBytes", .integer).notNull()
                t.column("exactSize", .boolean).notNull()
                t.column("startTime", .double).notNull()
                t.column("duration", .double).notNull()
                t.column("etag", .text)
                t.column("lastModified", .text)
            }
            try db.create(index: "resource_by_asset", on: "resource", columns: ["assetId", "state", "ordinal"])
        }
        migrator.registerMigration("v2: storage policy") { db in
            try db.alter(table: "asset") { t in
                t.add(column: "expiresAt", .datetime)
                t.add(column: "priority", .text).notNull().defaults(to: AssetPriority.default.rawValue)
                t.add(column: "lastPlayedAt", .datetime)
            }
            try db.create(table: "setting") { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()
            }
        }
        migrator.registerMigration("v3: content keys") { db in
            try db.create(table: "contentKey") { t in
                t.column("assetId", .text).notNull().references("asset", onDelete: .cascade)
                t.column("id", .text).notNull()
                t.column("uri", .text).notNull()
                t.column("method", .text).notNull()
                t.column("keyFormat", .text).notNull()
                // AES-GCM under the master key; NULL once invalidated.
                t.column("sealed", .blob)
                t.column("storedAt", .datetime).notNull()
                t.column("lifetime", .jsonText).notNull()
                t.column("firstPlayedAt", .datetime)
                t.primaryKey(["assetId", "id"])
            }
        }
        migrator.registerMigration("v4: stream formats") { db in
            // Every asset recorded so far is HLS, the only format read until then.
            try db.alter(table: "asset") { t in
                t.add(column: "format", .text).notNull().defaults(to: "hls")
            }
        }
        migrator.registerMigration("v5: fallbacks") { db in
            // Other locations of an asset's files (an MPD's several BaseURLs); none until then.
            try db.create(table: "fallback") { t in
                t.column("assetId", .text).notNull().references("asset", onDelete: .cascade)
                t.column("prefix", .text).notNull()
                t.column("alternatives", .jsonText).notNull()
                t.primaryKey(["assetId", "prefix"])
            }
        }
        migrator.registerMigration("v6: fallback queries") { db in
            // A query to add to a URI that fails without it (the MPD URL's token); none until then.
            try db.alter(table: "fallback") { t in
                t.add(column: "query", .text)
            }
        }
        migrator.registerMigration("v7: ownership") { db in
            // Who runs what (see Ownership): the owner and its lease, the fencing epoch, the queue
            // and requests from other processes. Rows an earlier release left running or waiting
            // have no owner and no queuer: no live process holds them, so they read as suspended
            // and any process may claim them.
            try db.alter(table: "asset") { t in
                t.add(column: "owner", .text)
                t.add(column: "leaseUntil", .double)
                t.add(column: "epoch", .integer).notNull().defaults(to: 0)
                t.add(column: "queuedBy", .text)
                t.add(column: "queuedAt", .double)
                t.add(column: "request", .text)
                t.add(column: "progress", .jsonText)
            }
            try db.create(index: "asset_by_owner", on: "asset", columns: ["owner"])
            try db.create(index: "asset_by_queue", on: "asset", columns: ["queuedBy", "state"])
            // Sessions that queue or run tasks, each alive while its heartbeat lasts.
            try db.create(table: "instance") { t in
                t.primaryKey("id", .text)
                t.column("host", .text).notNull()
                t.column("pid", .integer).notNull()
                t.column("processStart", .integer)
                t.column("processScope", .text)
                t.column("label", .text).notNull()
                t.column("startedAt", .double).notNull()
                t.column("aliveUntil", .double).notNull()
            }
            // Players' leases: an asset being played, which a purge keeps.
            try db.create(table: "playbackLease") { t in
                t.column("assetId", .text).notNull().references("asset", onDelete: .cascade)
                t.column("holder", .text).notNull()
                t.column("host", .text).notNull()
                t.column("pid", .integer).notNull()
                t.column("processStart", .integer)
                t.column("processScope", .text)
                t.column("until", .double).notNull()
                t.primaryKey(["assetId", "holder"])
            }
        }
        migrator.registerMigration("v8: listing figures") { db in
            // What a listing shows of an asset, kept in its row (see AssetFigures): `changes`
            // counts the changes to its plan, resources and bundle, `figuresOf` says which count
            // `figures` were computed at; they are current while the two are equal. Rows of an
            // earlier release have none: their first listing computes them.
            try db.alter(table: "asset") { t in
                t.add(column: "changes", .integer).notNull().defaults(to: 1)
                t.add(column: "figuresOf", .integer)
                t.add(column: "figures", .jsonText)
                t.add(column: "bytesOnDisk", .integer)
                t.add(column: "fraction", .double)
            }
            // The listing's orders and filters (see AssetQuery): oldest first, by state, by
            // name, by size (unknown sizes last); each index ends with the row id that breaks ties.
            try db.create(index: "asset_by_created", on: "asset", columns: ["createdAt"])
            try db.create(index: "asset_by_state", on: "asset", columns: ["state", "createdAt"])
            try db.create(index: "asset_by_name", on: "asset", columns: ["name"])
            try db.execute(sql: "CREATE INDEX asset_by_size ON asset (IFNULL(bytesOnDisk, -1))")
        }
        migrator.registerMigration("v9: assets by URL") { db in
            // A catalog's streams looked up by URL, the latest asset of each first (see
            // AssetIndex.latestAssetIDs(of:)), not found in a pass over every asset.
            try db.create(index: "asset_by_url", on: "asset", columns: ["url", "createdAt"])
        }
        migrator.registerMigration("v10: resource digests") { db in
            // Each resource's SHA-256, computed as it is written (see BundleVerifier); resources
            // an earlier release fetched have none until `verify --record`.
            try db.alter(table: "resource") { t in
                t.add(column: "sha256", .text)
            }
        }
        migrator.registerMigration("v11: fleet workers") { db in
            // Which live instances work for the fleet (`carryon worker`, `serve --worker`): what
            // a daemon tells a caller about to queue for it (see AssetIndex.fleetWorkers). This
            // release writes true or false; NULL is an instance of an earlier release (a worker
            // still running through the upgrade), which does not say, and may be one.
            try db.alter(table: "instance") { t in
                t.add(column: "fleetWorker", .boolean)
            }
        }
        return migrator
    }
}

// The records are the index's rows; how GRDB reads and writes them is the SQLite backend's
// business, declared here and nowhere above the index.
extension DownloadState: DatabaseValueConvertible {}
extension ResourceState: DatabaseValueConvertible {}
extension ResourceKind: DatabaseValueConvertible {}
extension AssetRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "asset"

    /// Dates as ``IndexDate`` writes them: GRDB's text, without loading ICU.
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .custom { IndexDate.text(of: $0) }
    }

    /// Dates as ``IndexDate`` reads them.
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .custom { IndexDate.date(from: $0) }
    }
}
extension RenditionRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "rendition"
}

extension ResourceRecord: FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "resource"

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
