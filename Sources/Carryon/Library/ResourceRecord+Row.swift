import GRDB
import GRDBSQLite

/// How a row of the `resource` table is read: each column's place found once per statement, each
/// value read with SQLite's C API. GRDB's `Decodable` path looks every value up by name, and
/// GRDB finds a name by lowercasing it and each column's name in turn: reading the 602 resources
/// of a 20-minute asset took 3 ms that way, at the start of its download and again at its end.
///
/// A value read as SQLite converts it (as that path did); a required value that is NULL, or a
/// kind or state Carryon does not know, fails the read with the column and the row's id named.
extension ResourceRecord {
    /// Where each column is in a statement's rows (nil: not there).
    struct Places {
        let id, assetID, renditionKey, ordinal, kind, uri, rangeOffset, rangeLength, fileName, state,
            bytes, expectedBytes, exactSize, startTime, duration, etag, lastModified, sha256: Int32?

        init(_ columnNames: [String]) {
            // The index's own names, as its migrations wrote them; SQLite compares them
            // without case, and so does this.
            var places: [String: Int32] = [:]
            for (place, name) in columnNames.enumerated() where places[name.lowercased()] == nil {
                places[name.lowercased()] = Int32(place)
            }
            (id, assetID, renditionKey, ordinal) = (places["id"], places["assetid"], places["renditionkey"], places["ordinal"])
            (kind, uri, rangeOffset, rangeLength) = (places["kind"], places["uri"], places["rangeoffset"], places["rangelength"])
            (fileName, state, bytes, expectedBytes) = (places["filename"], places["state"], places["bytes"], places["expectedbytes"])
            (exactSize, startTime, duration) = (places["exactsize"], places["starttime"], places["duration"])
            (etag, lastModified, sha256) = (places["etag"], places["lastmodified"], places["sha256"])
        }
    }

    /// Every row `statement` gives with `arguments`, read as resources.
    static func fetchRows(_ statement: Statement, arguments: StatementArguments) throws -> [ResourceRecord] {
        let places = Places(statement.columnNames)
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        var resources: [ResourceRecord] = []
        let handle = statement.sqliteStatement
        while try rows.next() != nil {
            resources.append(try ResourceRecord(StatementColumns(handle: handle), places))
        }
        return resources
    }

    /// A row from anywhere (GRDB's record requests): found by name, read as values.
    init(row: Row) throws {
        try self.init(RowColumns(row: row), Places(Array(row.columnNames)))
    }

    private init(_ row: some ResourceColumns, _ places: Places) throws {
        let id = row.integer(places.id).map(Int64.init)
        func required<T>(_ value: T?, _ column: String) throws -> T {
            guard let value else {
                throw CarryonError(.library, "resource \(id.map(String.init) ?? "?") of the index has no \(column) Carryon can read")
            }
            return value
        }
        self.id = id
        assetID = try required(row.text(places.assetID), "assetId")
        renditionKey = try required(row.text(places.renditionKey), "renditionKey")
        ordinal = try required(row.integer(places.ordinal), "ordinal")
        let kindText = try required(row.text(places.kind), "kind")
        guard let kind = ResourceKind(rawValue: kindText) else {
            throw CarryonError(.library, "resource \(id.map(String.init) ?? "?") of the index is of a kind Carryon does not know (\(kindText.prefix(40)))")
        }
        self.kind = kind
        uri = try required(row.text(places.uri), "uri")
        rangeOffset = row.integer(places.rangeOffset)
        rangeLength = row.integer(places.rangeLength)
        fileName = try required(row.text(places.fileName), "fileName")
        let stateText = try required(row.text(places.state), "state")
        guard let state = ResourceState(rawValue: stateText) else {
            throw CarryonError(.library, "resource \(id.map(String.init) ?? "?") of the index is in a state Carryon does not know (\(stateText.prefix(40)))")
        }
        self.state = state
        bytes = row.integer(places.bytes)
        expectedBytes = try required(row.integer(places.expectedBytes), "expectedBytes")
        exactSize = try required(row.integer(places.exactSize), "exactSize") != 0
        startTime = try required(row.double(places.startTime), "startTime")
        duration = try required(row.double(places.duration), "duration")
        etag = row.text(places.etag)
        lastModified = row.text(places.lastModified)
        sha256 = row.text(places.sha256)
    }
}

/// A row's values by place: nil for NULL or a column the row does not have.
private protocol ResourceColumns {
    func integer(_ place: Int32?) -> Int?
    func double(_ place: Int32?) -> Double?
    func text(_ place: Int32?) -> String?
}

/// The current row of a statement, read with SQLite's own conversions.
private struct StatementColumns: ResourceColumns {
    let handle: SQLiteStatement

    private func isNull(_ place: Int32) -> Bool { sqlite3_column_type(handle, place) == SQLITE_NULL }

    func integer(_ place: Int32?) -> Int? {
        guard let place, !isNull(place) else { return nil }
        return Int(sqlite3_column_int64(handle, place))
    }

    func double(_ place: Int32?) -> Double? {
        guard let place, !isNull(place) else { return nil }
        return sqlite3_column_double(handle, place)
    }

    func text(_ place: Int32?) -> String? {
        guard let place, !isNull(place), let text = sqlite3_column_text(handle, place) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, place))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }
}

/// A GRDB row, its values converted as GRDB converts them.
private struct RowColumns: ResourceColumns {
    let row: Row

    private func value(_ place: Int32?) -> DatabaseValue? {
        guard let place else { return nil }
        let value: DatabaseValue = row[Int(place)]
        return value.isNull ? nil : value
    }

    func integer(_ place: Int32?) -> Int? { value(place).flatMap(Int.fromDatabaseValue) }
    func double(_ place: Int32?) -> Double? { value(place).flatMap(Double.fromDatabaseValue) }
    func text(_ place: Int32?) -> String? { value(place).flatMap(String.fromDatabaseValue) }
}
