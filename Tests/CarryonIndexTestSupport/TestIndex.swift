@testable import Carryon
import CarryonTestSupport
import Foundation

/// Which backend the index-level tests run against: SQLite, unless `CARRYON_TEST_INDEX` is
/// `postgres` — then a PostgreSQL cluster of the test process's own (``PostgresServer``), one
/// database per library folder. `Scripts/test.sh` runs the index-level suites both ways.
public enum TestIndex {
    /// Whether this test process runs its libraries on PostgreSQL.
    public static var isPostgres: Bool { ProcessInfo.processInfo.environment["CARRYON_TEST_INDEX"] == "postgres" }

    /// The cluster, started by the first library that needs it.
    private static let server: Result<PostgresServer, any Error> = Result { try PostgresServer() }

    /// The index of the library in `root`: SQLite, or the PostgreSQL database of that folder
    /// (the same folder opened again finds the same database).
    public static func location(for root: URL) throws -> IndexLocation {
        guard isPostgres else { return .sqlite }
        let server = try server.get()
        let database = databaseName(for: root.standardizedFileURL.path)
        try server.createDatabase(database)
        return try IndexLocation(parsing: server.socketURL(database: database))
    }

    /// The cluster behind this process's libraries (nil on SQLite).
    public static func postgresServer() throws -> PostgresServer? {
        isPostgres ? try server.get() : nil
    }

    /// `lib_` and a 64-bit FNV-1a hash of `path`: a database name of its own for each folder.
    static func databaseName(for path: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return "lib_" + String(hash, radix: 16)
    }
}

extension OfflineLibrary {
    /// Opens (creating if needed) the library at `root` on the backend this test process runs
    /// (see ``TestIndex``).
    public convenience init(testingAt root: URL, masterKey: MasterKey? = nil) throws {
        try self.init(root: root, masterKey: masterKey, index: TestIndex.location(for: root))
    }
}
