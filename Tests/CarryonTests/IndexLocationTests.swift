@testable import Carryon
import Foundation
import Testing

/// `CARRYON_INDEX` and `--index`: which index a library uses, read as libpq reads a URL, and
/// never printed with its password.
@Suite("Where a library's index is")
struct IndexLocationTests {
    @Test("sqlite, nothing or an empty value is the index in the library folder")
    func sqliteByDefault() throws {
        #expect(try IndexLocation(parsing: "sqlite") == .sqlite)
        #expect(try IndexLocation(parsing: " SQLite ") == .sqlite)
        #expect(try IndexLocation.fromEnvironment([:]) == .sqlite)
        #expect(try IndexLocation.fromEnvironment(["CARRYON_INDEX": ""]) == .sqlite)
    }

    @Test("a TCP URL: user, password (percent-encoded), host, port, database and sslmode")
    func tcpURL() throws {
        let location = try IndexLocation(parsing: "postgresql://fleet:p%40ss%2Fword@db.internal:6543/carryon?sslmode=require")
        guard case .postgres(let url) = location else { Issue.record("not PostgreSQL: \(location)"); return }
        #expect(url.user == "fleet" && url.password == "p@ss/word")
        #expect(url.host == "db.internal" && url.port == 6543 && url.socketFolder == nil)
        #expect(url.database == "carryon" && url.tlsMode == .require)
        #expect(location.description == "postgres://fleet:***@db.internal:6543/carryon?sslmode=require")
        #expect(url.connectTimeout == 15 && url.applicationName == "carryon")
        let tuned = try PostgresIndexURL(parsing: "postgres://fleet@db/carryon?connect_timeout=3&application_name=worker-7")
        #expect(tuned.connectTimeout == 3 && tuned.applicationName == "worker-7")
    }

    @Test("a Unix socket: host is a folder; the port names its file; the database defaults to the user")
    func socketURL() throws {
        let url = try PostgresIndexURL(parsing: "postgres://carryon@/?host=/tmp/pg-sock&port=5499")
        #expect(url.host == nil && url.socketFolder == "/tmp/pg-sock" && url.port == 5499)
        #expect(url.database == "carryon" && url.password == nil && url.tlsMode == .prefer)
        #expect(url.description == "postgres://carryon@/carryon?host=/tmp/pg-sock&port=5499")
    }

    @Test("what is wrong is named, and the password is never in the message", arguments: [
        ("mysql://root:hunter2@db/carryon", "mysql"),
        ("postgres://root:hunter2@db:99999/carryon", "99999"),
        ("postgres://root:hunter2@db/carryon?sslmode=sometimes", "sslmode sometimes"),
        ("postgres://root:hunter2@db/carryon?sslcert=/x", "parameter sslcert"),
        ("postgres://root:hunter2@db/a/b", "database"),
        ("postgres://root@db/carryon?password=hunter2&typo=1", "parameter typo"),
        ("postgres://root:hunter2@db/carryon?connect_timeout=soon", "connect_timeout soon"),
    ])
    func refused(text: String, named: String) {
        #expect {
            try IndexLocation(parsing: text)
        } throws: { error in
            let message = "\(error)"
            return (error as? CarryonError)?.code == .invalidValue && message.contains(named) && !message.contains("hunter2")
        }
    }

    @Test("CARRYON_INDEX that cannot be read is named as the variable")
    func environmentNamed() {
        #expect {
            try IndexLocation.fromEnvironment(["CARRYON_INDEX": "postgres://u:hunter2@db:0/x"])
        } throws: { error in
            "\(error)".contains("CARRYON_INDEX") && !"\(error)".contains("hunter2")
        }
    }
}
