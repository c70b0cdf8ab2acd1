import Foundation
import GRDB

/// A folder of offline bundles with a SQLite index: the persistent store a ``DownloadSession``
/// works on. Tasks outlive the process because their state lives here.
///
/// The index (`index.sqlite`, WAL mode) is the source of truth for state; every state change is
/// one transaction. Each asset has a bundle folder under `bundles/`.
///
/// ```swift
/// let library = try OfflineLibrary(root: OfflineLibrary.defaultRoot())
/// for asset in try await library.assets() { print(asset.id, asset.name, asset.state) }
/// ```
public final class OfflineLibrary: Sendable {
    /// The library folder.
    public let root: URL
    let database: DatabasePool

    /// Opens (creating if needed) the library at `root`.
    ///
    /// - Throws: ``CarryonError`` with code ``CarryonError/Code/library`` when the folder cannot
    ///   be created or the index cannot be opened or migrated.
    public init(root: URL) throws(CarryonError) {
        self.root = root.standardizedFileURL
        do {
            try FileManager.default.createDirectory(at: self.root.appendingPathComponent("bundles"), withIntermediateDirectories: true)
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            // Few readers with small page caches: the index is small and read little, and each
            // connection's cache would otherwise take its default 2 MB of a long download's memory.
            configuration.maximumReaderCount = 2
            // secure_delete: a deleted (invalidated) sealed key is overwritten, not left in a free page.
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA cache_size = -512; PRAGMA secure_delete = ON") }
            database = try DatabasePool(path: self.root.appendingPathComponent("index.sqlite").path, configuration: configuration)
            try Self.migrator.migrate(database)
        } catch {
            throw CarryonError(.library, "cannot open the library at \(root.path): \(error)", cause: error)
        }
    }

    /// Where the library lives unless told otherwise: `$CARRYON_HOME`, else
    /// `$XDG_DATA_HOME/carryon`, else `~/.local/share/carryon`. A relative `XDG_DATA_HOME` is
    /// ignored, as the XDG Base Directory specification asks.
    public static func defaultRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let home = environment["CARRYON_HOME"], !home.isEmpty { return URL(fileURLWithPath: home) }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data).appendingPathComponent("carryon")
        }
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        return URL(fileURLWithPath: home).appendingPathComponent(".local/share/carryon")
    }

    /// The index of the library's assets, renditions and resources.
    var index: any AssetIndex { SQLiteAssetIndex(library: self) }

    /// The bundle folder of an asset.
    public func bundleURL(for id: String) -> URL {
        root.appendingPathComponent("bundles").appendingPathComponent(id)
    }

    /// Reads the index, turning a failure into a ``CarryonError/Code/library`` error (or
    /// ``CarryonError/Code/disk`` when the disk is full).
    func read<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws(CarryonError) -> T {
        do { return try await database.read(body) } catch {
            throw indexError(error, reading: true)
        }
    }

    /// Writes to the index in one transaction, turning a failure into a
    /// ``CarryonError/Code/library`` error (or ``CarryonError/Code/disk`` when the disk is full).
    func write<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws(CarryonError) -> T {
        do { return try await database.write(body) } catch {
            throw indexError(error, reading: false)
        }
    }

    /// What a failed read or write of the index says: a full disk by its name and place (not
    /// SQLite's words, which read like a broken database), anything else as SQLite put it.
    private func indexError(_ error: any Error, reading: Bool) -> CarryonError {
        let index = root.appendingPathComponent("index.sqlite").path
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_FULL {
            let free = StorageManager.freeBytes(at: root.path)
            return CarryonError(.disk, "the disk holding the library is full: the index \(index) cannot be written (\(free) bytes free)",
                                cause: error)
        }
        return CarryonError(.library, "\(reading ? "reading" : "writing") the library index failed: \(error)", cause: error)
    }

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
        return migrator
    }
}
