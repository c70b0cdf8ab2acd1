import GRDB
import GRDBSQLite

/// Inserts resource rows through one prepared statement whose values are bound with SQLite's C
/// API: GRDB's `StatementArguments` box each of the seventeen values of a row, which for a plan of
/// a million segments cost three of the four seconds its rows took to insert.
///
/// A value equal to the one the previous row bound is not bound again: `sqlite3_reset` keeps a
/// statement's bindings, and most columns (the asset, the rendition, the kind, the state, the
/// validators) repeat from row to row. SQLite takes the connection's mutex on every call, and
/// copies every text it is given.
struct ResourceInsert {
    private let statement: Statement
    /// The text or integer last bound to each parameter (1-based; index 0 unused), for the
    /// columns that repeat.
    private var boundText: [String?] = Array(repeating: nil, count: 18)
    private var boundInteger: [Int?] = Array(repeating: nil, count: 18)
    private var bound = Array(repeating: false, count: 18)

    init(_ db: Database) throws {
        statement = try db.makeStatement(sql: """
            INSERT INTO resource (assetId, renditionKey, ordinal, kind, uri, rangeOffset, rangeLength, fileName, state,
            bytes, expectedBytes, exactSize, startTime, duration, etag, lastModified, sha256)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
    }

    /// Inserts `resource` as a new row (its `id` is left to SQLite).
    mutating func insert(_ resource: ResourceRecord) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        try bindRepeating(resource.assetID, 1)
        try bindRepeating(resource.renditionKey, 2)
        try bind(resource.ordinal, 3)
        try bindRepeating(resource.kind.rawValue, 4)
        try bind(resource.uri, 5)
        try bind(resource.rangeOffset, 6)
        try bind(resource.rangeLength, 7)
        try bind(resource.fileName, 8)
        try bindRepeating(resource.state.rawValue, 9)
        try bindRepeating(resource.bytes, 10)
        try bind(resource.expectedBytes, 11)
        try bindRepeating(resource.exactSize ? 1 : 0, 12)
        try check(sqlite3_bind_double(handle, 13, resource.startTime))
        try check(sqlite3_bind_double(handle, 14, resource.duration))
        try bindRepeating(resource.etag, 15)
        try bindRepeating(resource.lastModified, 16)
        try bind(resource.sha256, 17)
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: lastMessage) }
    }

    private var lastMessage: String {
        String(cString: sqlite3_errmsg(sqlite3_db_handle(statement.sqliteStatement)))
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: lastMessage) }
    }

    /// Binds `value` unless the previous row bound the same.
    private mutating func bindRepeating(_ value: String?, _ index: Int32) throws {
        let slot = Int(index)
        guard !bound[slot] || boundText[slot] != value else { return }
        try bind(value, index)
        (boundText[slot], bound[slot]) = (value, true)
    }

    /// Binds `value` unless the previous row bound the same.
    private mutating func bindRepeating(_ value: Int?, _ index: Int32) throws {
        let slot = Int(index)
        guard !bound[slot] || boundInteger[slot] != value else { return }
        try bind(value, index)
        (boundInteger[slot], bound[slot]) = (value, true)
    }

    private func bind(_ value: String?, _ index: Int32) throws {
        guard let value else { return try check(sqlite3_bind_null(statement.sqliteStatement, index)) }
        var text = value
        try text.withUTF8 { bytes in
            // An empty string is text, not NULL: bound from a byte of its own, never a nil pointer.
            let empty: CChar = 0
            try withUnsafePointer(to: empty) { emptyPointer in
                let start = bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) } ?? emptyPointer
                // SQLITE_TRANSIENT: SQLite copies the text before the call returns.
                try check(sqlite3_bind_text(statement.sqliteStatement, index, start, Int32(bytes.count),
                                            unsafeBitCast(-1, to: sqlite3_destructor_type.self)))
            }
        }
    }

    private func bind(_ value: Int?, _ index: Int32) throws {
        guard let value else { return try check(sqlite3_bind_null(statement.sqliteStatement, index)) }
        try check(sqlite3_bind_int64(statement.sqliteStatement, index, Int64(value)))
    }
}
