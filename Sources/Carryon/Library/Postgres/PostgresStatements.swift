import Foundation
import GRDB
import Logging
import NIOCore
import PostgresNIO

/// A value bound to a statement of the PostgreSQL index. Typed even when NULL is not: a NULL
/// is sent without a type, and the server takes the column's.
enum SQLValue: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    case text(String)
    case integer(Int64)
    case real(Double)
    case boolean(Bool)
    case bytes(Data)
    case null

    init(stringLiteral value: String) { self = .text(value) }
    init(integerLiteral value: Int64) { self = .integer(value) }
    init(booleanLiteral value: Bool) { self = .boolean(value) }

    init(_ value: String?) { self = value.map(SQLValue.text) ?? .null }
    init(_ value: Int?) { self = value.map { .integer(Int64($0)) } ?? .null }
    init(_ value: Int64?) { self = value.map(SQLValue.integer) ?? .null }
    init(_ value: Int32) { self = .integer(Int64(value)) }
    init(_ value: Double?) { self = value.map(SQLValue.real) ?? .null }
    init(_ value: Bool) { self = .boolean(value) }
    /// A date as the index keeps it (``IndexDate``'s text, which sorts as the instant does).
    init(_ date: Date?) { self = date.map { .text(IndexDate.text(of: $0)) } ?? .null }

    /// A value GRDB encoded (a record's column), into a column of PostgreSQL's: integers into
    /// the columns in `booleans` as booleans.
    init(_ value: DatabaseValue, boolean: Bool) {
        switch value.storage {
        case .null: self = .null
        case .int64(let number): self = boolean ? .boolean(number != 0) : .integer(number)
        case .double(let number): self = .real(number)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .bytes(data)
        }
    }

    fileprivate func append(to bindings: inout PostgresBindings) {
        switch self {
        case .text(let text): bindings.append(text)
        case .integer(let number): bindings.append(number)
        case .real(let number): bindings.append(number)
        case .boolean(let flag): bindings.append(flag)
        case .bytes(let data): bindings.append(ByteBuffer(bytes: data))
        case .null: bindings.appendNull()
        }
    }
}

/// One connection's transaction on the PostgreSQL index: statements written with `?` for their
/// values (as the SQLite backend's), rows read into GRDB's `Row` so that both backends read a
/// value the same way (see ``IndexRows`` and `AssetRecord(row:)`).
///
/// Each statement has `statementWait` to be answered. A connection the server ended while a
/// transaction was open on it (`idle_in_transaction_session_timeout`: its process went silent,
/// partitioned or paused) never answers the transaction's next statement — PostgresNIO waits
/// for ever — so past that time the connection is closed, which fails the statement
/// (``NoAnswer``) and gives the pool's slot back.
struct PostgresTransaction {
    let connection: PostgresConnection
    let logger: Logger
    var statementWait: Duration = .seconds(30)

    /// No answer to a statement within ``statementWait``: its connection was closed.
    struct NoAnswer: Error {
        var wait: Duration
    }

    /// The rows `sql` returns.
    func rows(_ sql: String, _ values: [SQLValue] = []) async throws -> [Row] {
        let query = Self.query(sql, values)
        return try await answered { [connection, logger] in
            var rows: [Row] = []
            for try await row in try await connection.query(query, logger: logger) {
                rows.append(Self.row(row))
            }
            return RowsBox(rows: rows)
        }.rows
    }

    /// GRDB's rows, which are not `Sendable`, carried out of the statement's task whole: no
    /// one else holds them.
    private struct RowsBox: @unchecked Sendable {
        var rows: [Row]
    }

    /// `work`'s result, or ``NoAnswer`` (the connection closed) when it takes longer than
    /// ``statementWait``.
    private func answered<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let waiting = Locked<CheckedContinuation<T, any Error>?>(nil)
        let finish = { @Sendable (result: Result<T, any Error>) -> Bool in
            guard let continuation = waiting.withLock({ state in defer { state = nil }; return state }) else { return false }
            continuation.resume(with: result)
            return true
        }
        let statement = Locked<Task<Void, Never>?>(nil)
        let timer = Locked<Task<Void, Never>?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiting.withLock { $0 = continuation }
                timer.withLock {
                    $0 = Task { [connection, statementWait] in
                        // Cancelled when the statement is answered: no sleeper is left behind.
                        do { try await Task.sleep(for: statementWait) } catch { return }
                        if finish(.failure(NoAnswer(wait: statementWait))) {
                            statement.withLock { $0 }?.cancel()
                            try? await connection.close()
                        }
                    }
                }
                statement.withLock {
                    $0 = Task {
                        do { _ = finish(.success(try await work())) } catch { _ = finish(.failure(error)) }
                        timer.withLock { $0 }?.cancel()
                    }
                }
            }
        } onCancel: {
            statement.withLock { $0 }?.cancel()
        }
    }

    /// The first row `sql` returns, or nil.
    func row(_ sql: String, _ values: [SQLValue] = []) async throws -> Row? {
        try await rows(sql, values).first
    }

    /// Runs `sql`, returning how many rows it returned (a write's `RETURNING 1` counts the rows
    /// it changed).
    @discardableResult
    func execute(_ sql: String, _ values: [SQLValue] = []) async throws -> Int {
        let query = Self.query(sql, values)
        return try await answered { [connection, logger] in
            var count = 0
            for try await _ in try await connection.query(query, logger: logger) { count += 1 }
            return count
        }
    }

    /// `sql` with its `?` numbered `$1`, `$2`… (none inside a quoted literal) and `values` bound.
    static func query(_ sql: String, _ values: [SQLValue]) -> PostgresQuery {
        var text = ""
        text.reserveCapacity(sql.utf8.count + 16)
        var number = 0
        var quoted = false
        for character in sql {
            if character == "'" { quoted.toggle() }
            if character == "?", !quoted {
                number += 1
                text += "$\(number)"
            } else {
                text.append(character)
            }
        }
        precondition(number == values.count, "\(number) placeholders for \(values.count) values in: \(sql)")
        var bindings = PostgresBindings(capacity: values.count)
        for value in values { value.append(to: &bindings) }
        return PostgresQuery(unsafeSQL: text, binds: bindings)
    }

    /// `row` as GRDB's row of named values: text, integers, reals, booleans (as GRDB stores
    /// them, 0 or 1), bytes and NULLs; other types as their text.
    static func row(_ row: PostgresRow) -> Row {
        var values: [String: (any DatabaseValueConvertible)?] = [:]
        for cell in row {
            values[cell.columnName] = .some(value(cell))
        }
        return Row(values)
    }

    private static func value(_ cell: PostgresCell) -> DatabaseValue {
        guard cell.bytes != nil else { return .null }
        do {
            switch cell.dataType {
            case .int2, .int4, .int8: return try cell.decode(Int64.self).databaseValue
            case .float4, .float8: return try cell.decode(Double.self).databaseValue
            case .bool: return try cell.decode(Bool.self).databaseValue
            case .bytea: return Data(try cell.decode(ByteBuffer.self).readableBytesView).databaseValue
            default: return try cell.decode(String.self).databaseValue
            }
        } catch {
            return .null
        }
    }
}
