@testable import Carryon
import CarryonIndexTestSupport
import CarryonTestSupport
import Foundation
import Testing

/// What only the PostgreSQL index has to get right: its schema made by processes racing on a
/// fresh database, a newer schema refused, claims by many connections at once, and a URL's
/// password kept out of every message. (Everything the SQLite index does, it does too: the
/// index-level suites run on it as well, with CARRYON_TEST_INDEX=postgres.)
@Suite("The PostgreSQL index", .heavy)
struct PostgresIndexTests {
    /// A cluster of the test's own and a fresh database on it.
    static func database(_ body: (PostgresServer, IndexLocation, String) async throws -> Void) async throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let name = "t_" + UUID().uuidString.prefix(8).lowercased()
        try server.createDatabase(name)
        try await body(server, try IndexLocation(parsing: server.url(database: name)), name)
    }

    static func asset(_ id: String, at date: Date = Date()) -> AssetRecord {
        AssetRecord(id: id, name: id, url: "https://cdn.example/\(id).m3u8", state: .suspended, errorMessage: nil, options: DownloadOptions(),
                    headers: [], selection: nil, planned: false, createdAt: date, updatedAt: date, completedAt: nil, duration: nil)
    }

    @Test("processes opening a fresh database at once: one makes the schema, every one works on it")
    func racingMigrations() async throws {
        try await Self.database { server, location, name in
            try await withTemporaryDirectory { folder in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for worker in 0..<6 {
                        group.addTask {
                            let library = try OfflineLibrary(root: folder, index: location)
                            try await library.index.insert(Self.asset("asset-\(worker)"))
                        }
                    }
                    try await group.waitForAll()
                }
                #expect(try server.psql("SELECT version FROM carryon_schema ORDER BY version", database: name)
                    .split(separator: "\n").map(String.init) == PostgresAssetIndex.migrations.indices.map { String($0 + 1) })
                let library = try OfflineLibrary(root: folder, index: location)
                #expect(try await library.index.assetIDs().sorted() == (0..<6).map { "asset-\($0)" })
            }
        }
    }

    @Test("a database a newer release migrated is refused, naming both versions; nothing is written")
    func newerSchemaRefused() async throws {
        try await Self.database { server, location, name in
            try await withTemporaryDirectory { folder in
                let library = try OfflineLibrary(root: folder, index: location)
                try await library.index.insert(Self.asset("kept"))
                let newer = PostgresAssetIndex.migrations.count + 7
                _ = try server.psql("INSERT INTO carryon_schema VALUES (\(newer), 'from the future', '2030-01-01 00:00:00.000')", database: name)
                let later = try OfflineLibrary(root: folder, index: location)
                await #expect {
                    try await later.index.insert(Self.asset("refused"))
                } throws: { error in
                    let message = "\(error)"
                    return (error as? CarryonError)?.code == .library && message.contains("newer release")
                        && message.contains("version \(newer)") && message.contains("up to \(PostgresAssetIndex.migrations.count)")
                }
                #expect(try server.psql("SELECT id FROM asset ORDER BY id", database: name) == "kept\n")
            }
        }
    }

    @Test("eight connections claiming from one queue at once: every task claimed exactly once")
    func concurrentClaims() async throws {
        try await Self.database { _, location, _ in
            try await withTemporaryDirectory { folder in
                let library = try OfflineLibrary(root: folder, index: location)
                let scheduler = TaskScheduler(index: library.index, lease: .seconds(60), checksProcesses: true, label: "fleet")
                let ids = (0..<40).map { String(format: "task-%02d", $0) }
                for id in ids {
                    try await library.index.insert(Self.asset(id))
                    #expect(try await scheduler.enqueue(id).0 == .queue)
                }
                let claimed = try await withThrowingTaskGroup(of: [String].self) { group in
                    for _ in 0..<8 {
                        group.addTask {
                            var mine: [String] = []
                            while let fence = try await scheduler.claimNext() { mine.append(fence.assetID) }
                            return mine
                        }
                    }
                    return try await group.reduce(into: [String]()) { $0 += $1 }
                }
                #expect(claimed.sorted() == ids, "claimed \(claimed.count) times for \(ids.count) tasks")
                for id in ids { #expect(try await library.index.state(of: id) == .running) }
            }
        }
    }

    @Test("a server that does not answer: the error names the host and port, never the password")
    func passwordNeverShown() async throws {
        try await withTemporaryDirectory { folder in
            let port = try ServerProgram.freePort()
            // Nothing listens there: the pool tries to connect until the statement gives up.
            let location = try IndexLocation(parsing: "postgres://fleet:hunter2secret@127.0.0.1:\(port)/carryon?sslmode=disable")
            #expect(!location.description.contains("hunter2secret"))
            guard case .postgres(let url) = location else { return }
            let index = try PostgresAssetIndex(url: url, connectionWait: .seconds(2))
            await #expect {
                _ = try await index.assetIDs()
            } throws: { error in
                let message = "\(error)"
                return (error as? CarryonError)?.code == .library && message.contains("127.0.0.1:\(port)") && message.contains("within 2 seconds")
                    && !message.contains("hunter2secret")
            }
            // Through the library, as a command opens it: the same words.
            let library = try OfflineLibrary(root: folder, index: location)
            #expect(library.indexLocation.description.contains("fleet:***@"))
        }
    }

    @Test("TLS as sslmode asks: require encrypts, verify-full checks the certificate against sslrootcert and names one that does not verify; a missing database is named")
    func tlsModes() async throws {
        try await withTemporaryDirectory { folder in
            let authority = try await TestCA.make(in: folder.appendingPathComponent("ca"))
            let issued = try await authority.issue("postgres")
            let server = try PostgresServer(certificate: issued.certificate, key: issued.key)
            defer { server.stop() }
            try server.createDatabase("tls")
            let base = "postgres://\(server.user)@127.0.0.1:\(server.port)/tls"
            func index(_ query: String) throws -> PostgresAssetIndex? {
                guard case .postgres(let url) = try IndexLocation(parsing: base + "?" + query) else { return nil }
                return try PostgresAssetIndex(url: url, connectionWait: .seconds(3))
            }
            func assetIDs(_ query: String) async throws -> [String] {
                try await index(query)?.assetIDs() ?? []
            }
            let required = try #require(try index("sslmode=require"))
            let verified = try #require(try index("sslmode=verify-full&sslrootcert=\(authority.certificate.path)"))
            let requiredIDs = try await required.assetIDs()
            let verifiedIDs = try await verified.assetIDs()
            #expect(requiredIDs.isEmpty && verifiedIDs.isEmpty)
            // Both indexes' connections are open, and encrypted.
            #expect(try server.psql("SELECT count(*) FROM pg_stat_ssl JOIN pg_stat_activity USING (pid) WHERE ssl AND datname = 'tls'",
                                    database: "postgres") == "2\n")
            await #expect {
                _ = try await assetIDs("sslmode=verify-full")
            } throws: { error in
                (error as? CarryonError)?.code == .certificate && "\(error)".contains("sslrootcert") && "\(error)".contains("within 3 seconds")
            }
            await #expect {
                guard case .postgres(let url) = try IndexLocation(parsing: "postgres://\(server.user)@127.0.0.1:\(server.port)/nowhere?sslmode=disable") else { return }
                _ = try await PostgresAssetIndex(url: url, connectionWait: .seconds(3)).assetIDs()
            } throws: { error in
                "\(error)".contains("database \"nowhere\" does not exist")
            }
        }
    }

    @Test("a transaction whose process stops talking (partitioned, paused) is ended by the server after 10 s, and the lock it held on a task's row with it: another worker claims the task")
    func silentTransactionEnds() async throws {
        try await Self.database { _, location, _ in
            do {
                guard case .postgres(let url) = location else { throw CarryonError(.invalidValue, "not a PostgreSQL index") }
                let index = try PostgresAssetIndex(url: url, statementWait: .seconds(5))
                try await index.insert(Self.asset("x"))
                let worker = TaskScheduler(index: index, lease: .seconds(30), checksProcesses: false, label: "worker")
                _ = try await index.enqueue("x", by: Ownership.fleet, startingAt: nil, worker.context())
                try await worker.register()
                // A process that locked the row (as a run's fenced write does) and then said nothing more.
                let locked = Locked(false)
                let silent = Task {
                    try await index.write { transaction in
                        _ = try await transaction.rows("SELECT id FROM asset WHERE id = ? FOR SHARE", [.text("x")])
                        locked.withLock { $0 = true }
                        try await Task.sleep(for: .seconds(12))
                    }
                }
                while !locked.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
                let start = ContinuousClock.now
                // Skipped while it is locked; claimed once the server has ended the silent session.
                #expect(try await worker.claimNext(fromFleet: true) == nil)
                var claim: Fence?
                while claim == nil, ContinuousClock.now - start < .seconds(18) {
                    try await Task.sleep(for: .milliseconds(250))
                    claim = try await worker.claimNext(fromFleet: true)
                }
                let waited = ContinuousClock.now - start
                #expect(claim?.assetID == "x" && waited >= .seconds(9) && waited < .seconds(18), "claimed \(String(describing: claim)) after \(waited)")
                // The silent transaction's own write is refused: its session is gone.
                // The silent transaction's next statement finds its connection ended: it fails (its
                // connection closed after the statement wait), never hangs, and writes nothing.
                let refused = await #expect(throws: CarryonError.self) { try await silent.value }
                #expect(refused?.message.contains("did not answer within 5") == true, "\(String(describing: refused))")
            }
        }
    }

    @Test("a follower listening for the index's changes (LISTEN) is told of a queueing, a claim, progress and a run's end, each when it commits; SQLite tells none")
    func changesAreSignalled() async throws {
        try await Self.database { _, location, _ in
            try await withTemporaryDirectory { folder in
                let library = try OfflineLibrary(root: folder, index: location)
                try await library.index.insert(Self.asset("x"))
                let changes = try #require(library.index.changes())
                let count = Locked(0)
                let counting = Task { for await _ in changes { count.withLock { $0 += 1 } } }
                defer { counting.cancel() }
                // The first signal says it listens (what changed before is read once then).
                func waitForSignal(after seen: Int) async throws -> Bool {
                    let deadline = ContinuousClock.now + .seconds(10)
                    while ContinuousClock.now < deadline {
                        if count.withLock({ $0 }) > seen { return true }
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    return false
                }
                #expect(try await waitForSignal(after: 0))
                let worker = TaskScheduler(index: library.index, lease: .seconds(30), checksProcesses: false, label: "worker")
                try await worker.register()
                func signalled(_ what: String, _ change: () async throws -> Void) async throws {
                    // Signals still arriving from earlier changes are let through first.
                    try await Task.sleep(for: .milliseconds(200))
                    let seen = count.withLock { $0 }
                    try await change()
                    #expect(try await waitForSignal(after: seen), "no signal after \(what)")
                }
                try await signalled("a queueing") { _ = try await library.index.enqueue("x", by: Ownership.fleet, startingAt: nil, worker.context()) }
                var fence: Fence?
                try await signalled("a claim") { fence = try await worker.claimNext(fromFleet: true) }
                let claim = try #require(fence)
                try await signalled("progress") {
                    try await library.index.writeProgress(DownloadProgress(bytesDone: 1, bytesExpected: 2, isExact: true, resourcesDone: 0,
                                                                           resourcesTotal: 1, loadedTimeRanges: [:]), fence: claim)
                }
                try await signalled("a run's end") { try await library.index.endRun(claim, state: .completed, error: nil, requeueAt: nil, at: Date()) }
            }
        }
        try await withTemporaryDirectory { folder in
            let sqlite = try OfflineLibrary(root: folder)
            #expect(sqlite.index.changes() == nil)
        }
    }
}
