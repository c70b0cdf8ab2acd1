import Foundation
import GRDB
import Logging
import NIOCore
import NIOSSL
import PostgresNIO

/// The ``AssetIndex`` in a PostgreSQL database (PostgresNIO): one index that many machines
/// share, each one's workers claiming from the same queue (see ``IndexLocation``).
///
/// Every method is one transaction, as on SQLite. Writes run `SERIALIZABLE` and are tried
/// again when PostgreSQL refuses one for a concurrent transaction (SQLSTATE 40001, 40P01):
/// each decision reads, decides with ``Ownership``'s rules and writes, as SQLite's one writer
/// at a time does, without a lock of Carryon's own. Reads run `REPEATABLE READ READ ONLY`.
///
/// Its schema and migrations are in `PostgresAssetIndex+Schema.swift`; the connection's
/// password is never in a message or a log.
final class PostgresAssetIndex: AssetIndex {
    let url: PostgresIndexURL
    let client: PostgresClient
    private let running: Task<Void, Never>
    /// The schema brought up to date by the first statement (made again after a failure
    /// to connect: the server may be back).
    private let migration = Locked<Task<Void, any Error>?>(nil)
    /// The queries' logger: silent (PostgresNIO logs statements and their values at debug).
    let logger: Logger

    /// How long a statement waits for a connection before it fails, naming the server.
    let connectionWait: Duration
    /// How long a statement waits for its answer before its connection is closed and it fails
    /// (see ``PostgresTransaction``).
    let statementWait: Duration

    /// Connects to the index `url` names (lazily: the first statement connects and migrates);
    /// a statement that gets no connection within `connectionWait` (the URL's
    /// `connect_timeout` when nil) fails.
    init(url: PostgresIndexURL, connectionWait: Duration? = nil, statementWait: Duration = .seconds(30)) throws(CarryonError) {
        self.url = url
        self.connectionWait = connectionWait ?? .seconds(url.connectTimeout)
        self.statementWait = statementWait
        var logger = Logger(label: "carryon.index.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        logger.logLevel = .critical
        self.logger = logger
        var configuration: PostgresClient.Configuration
        if let folder = url.socketFolder {
            configuration = PostgresClient.Configuration(unixSocketPath: "\(folder)/.s.PGSQL.\(url.port)", username: url.user,
                                                         password: url.password, database: url.database)
        } else {
            configuration = PostgresClient.Configuration(host: url.host ?? "localhost", port: url.port, username: url.user,
                                                         password: url.password, database: url.database, tls: try Self.tls(url))
        }
        configuration.options.connectTimeout = .seconds(min(url.connectTimeout, 10))
        // A transaction left open by a process that stopped talking — partitioned, paused — would
        // hold its rows' locks until the server noticed the connection dead (hours): the server
        // ends such a session after 10 s, and its locks with it, so another worker can claim.
        configuration.options.additionalStartupParameters = [("application_name", url.applicationName),
                                                             ("idle_in_transaction_session_timeout", "10s")]
        configuration.options.maximumConnections = 8
        configuration.options.connectionIdleTimeout = .seconds(30)
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        running = Task { await client.run() }
    }

    deinit {
        running.cancel()
    }

    /// The TLS the URL's `sslmode` asks for.
    private static func tls(_ url: PostgresIndexURL) throws(CarryonError) -> PostgresClient.Configuration.TLS {
        guard let configuration = try tlsConfiguration(url) else { return .disable }
        return url.tlsMode == .prefer ? .prefer(configuration) : .require(configuration)
    }

    /// The TLS configuration `sslmode` asks for; nil: none (`disable`).
    static func tlsConfiguration(_ url: PostgresIndexURL) throws(CarryonError) -> TLSConfiguration? {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch url.tlsMode {
        case .disable: return nil
        case .prefer, .require:
            // libpq's meaning: encrypted, the certificate not checked.
            configuration.certificateVerification = .none
        case .verifyCA, .verifyFull:
            configuration.certificateVerification = url.tlsMode == .verifyCA ? .noHostnameVerification : .fullVerification
            if let path = url.rootCertificate {
                do {
                    configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(path))
                } catch {
                    throw CarryonError(.certificate, "the index URL's sslrootcert \(path) cannot be read as PEM certificates: \(error)", cause: error)
                }
            }
        }
        return configuration
    }

    // MARK: Transactions

    /// Waits for the schema to be current: migrates it on the first call, and again after a
    /// call that could not (the server down, say); a newer schema is refused every time.
    private func ready() async throws {
        let task = migration.withLock { task in
            if let task { return task }
            let made = Task { [logger] in try await self.leasing { connection in try await Self.migrate(connection, logger: logger) } }
            task = made
            return made
        }
        do {
            try await task.value
        } catch {
            if !(error is CarryonError) { migration.withLock { if $0 == task { $0 = nil } } }
            throw error
        }
    }

    /// Reads the index in one `REPEATABLE READ` transaction.
    func read<T: Sendable>(_ body: @escaping @Sendable (PostgresTransaction) async throws -> T) async throws(CarryonError) -> T {
        try await transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", reading: true, body)
    }

    /// Reads the index with one statement, which is a transaction of its own (no `BEGIN` and
    /// `COMMIT` around it: two round trips fewer, for the reads a download makes per resource).
    func readOne<T: Sendable>(_ body: @escaping @Sendable (PostgresTransaction) async throws -> T) async throws(CarryonError) -> T {
        try await transaction(nil, reading: true, body)
    }

    /// Writes to the index in one `SERIALIZABLE` transaction, tried again while PostgreSQL
    /// refuses it for a concurrent one.
    @discardableResult
    func write<T: Sendable>(_ body: @escaping @Sendable (PostgresTransaction) async throws -> T) async throws(CarryonError) -> T {
        try await transaction("BEGIN ISOLATION LEVEL SERIALIZABLE", reading: false, body)
    }

    private func transaction<T: Sendable>(_ begin: String?, reading: Bool,
                                          _ body: @escaping @Sendable (PostgresTransaction) async throws -> T) async throws(CarryonError) -> T {
        var attempt = 0
        while true {
            do {
                try await ready()
                return try await leasing { [logger, statementWait] connection in
                    let transaction = PostgresTransaction(connection: connection, logger: logger, statementWait: statementWait)
                    guard let begin else { return try await body(transaction) }
                    try await transaction.execute(begin)
                    do {
                        let result = try await body(transaction)
                        try await transaction.execute("COMMIT")
                        return result
                    } catch {
                        _ = try? await transaction.execute("ROLLBACK")
                        throw error
                    }
                }
            } catch let error as CarryonError {
                // A decision the transaction made (a claim refused, a fence), not a failure of the index.
                throw error
            } catch is NoConnection {
                throw await noConnection()
            } catch let error as PostgresTransaction.NoAnswer {
                throw CarryonError(.library, "\(reading ? "reading" : "writing") the library index \(url) failed: the server did not answer within \(error.wait) (the connection was lost, or the server is stuck); the connection is closed and the next statement opens another",
                                   cause: error)
            } catch {
                attempt += 1
                if Self.isConflict(error), attempt < 30 {
                    try? await Task.sleep(for: .milliseconds(Int.random(in: 2...(10 + 5 * attempt))))
                    continue
                }
                throw indexError(error, reading: reading)
            }
        }
    }

    /// Runs `body` on a connection of the pool; fails when none is had within
    /// ``connectionWait`` (the pool goes on trying to connect for ever: a server down or out of
    /// reach would hold every command).
    private func leasing<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let leased = Locked(false)
        return try await withThrowingTaskGroup(of: T?.self) { [client, connectionWait] group in
            group.addTask {
                try await client.withConnection { connection in
                    leased.withLock { $0 = true }
                    return try await body(connection)
                }
            }
            group.addTask {
                try await Task.sleep(for: connectionWait)
                if !leased.withLock({ $0 }) { throw NoConnection() }
                return nil
            }
            while let result = try await group.next() {
                if let result {
                    group.cancelAll()
                    return result
                }
            }
            throw CancellationError()
        }
    }

    /// No connection to the server within ``connectionWait``.
    struct NoConnection: Error {}

    /// Whether PostgreSQL refused a transaction for a concurrent one (serialization failure,
    /// deadlock): tried again.
    static func isConflict(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, let state = error.serverInfo?[.sqlState] else { return false }
        return state == "40001" || state == "40P01"
    }

    /// What a failed statement says: the server's message and SQLSTATE, or what stopped the
    /// connection — the URL without its password.
    func indexError(_ error: any Error, reading: Bool) -> CarryonError {
        if let error = error as? CarryonError { return error }
        let what = "\(reading ? "reading" : "writing") the library index \(url) failed: \(Self.describe(error))"
        if let error = error as? PSQLError, error.serverInfo?[.sqlState] == "53100" {
            return CarryonError(.disk, "the disk holding the PostgreSQL index is full: \(what)", cause: error)
        }
        return CarryonError(.library, what, cause: error)
    }

    /// An error in words: PostgreSQL's message (`PSQLError`'s description hides it), or the
    /// connection's failure; never a statement's values.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(describing: error) }
        if let info = error.serverInfo {
            let message = info[.message] ?? "an error"
            let state = info[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            let detail = info[.detail].map { ": \($0)" } ?? ""
            return String((message + detail + state).prefix(400))
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}
