import Foundation
import GRDB
import GRDBSQLite

/// How a row of the `asset` table is read: a value that cannot be read (a date past year 9999
/// written by an earlier release, text where a number belongs, JSON cut short) never fails the
/// read — one bad row would take `list`, `show`, the API and playback of every other asset
/// down with it. The value is read as the safest one (an expiry as never, options as the
/// defaults) and named in ``AssetRecord/problems``, quoting at most a short excerpt of it; setting
/// the value again (`carryon policy`) writes a readable one.
extension AssetRecord {
    init(row: Row) throws {
        try self.init(row: row, reading: nil)
    }

    /// Reads `row` with `reading`'s column places and decoded JSON, shared by the rows of one
    /// listing (nil: looked up by name, decoded each time).
    init(row: Row, reading: RowReading?) throws {
        var reader = TolerantRow(row: row, reading: reading)
        id = reader.text("id", "id", or: "")
        name = reader.text("name", "name", or: id)
        url = reader.text("url", "stream URL", or: "")
        state = reader.state()
        errorMessage = String.fromDatabaseValue(reader.value("errorMessage"))
        options = reader.json(DownloadOptions.self, "options", "download options", or: "the defaults") ?? DownloadOptions()
        headers = reader.json([HTTPHeader].self, "headers", "request headers", or: "none") ?? []
        selection = reader.json(MediaSelection.self, "selection", "selection", or: "none until the playlists are read again")
        planned = Bool.fromDatabaseValue(reader.value("planned")) ?? false
        let created = reader.date("createdAt", "creation date", or: "1970-01-01")
        let updated = reader.date("updatedAt", "last change", or: "its creation date")
        createdAt = created ?? updated ?? Date(timeIntervalSince1970: 0)
        updatedAt = updated ?? createdAt
        completedAt = reader.date("completedAt", "completion date", or: "unknown")
        duration = reader.duration()
        expiresAt = reader.date("expiresAt", "expiry", or: "never until a new policy is set")
        priority = reader.priority()
        lastPlayedAt = reader.date("lastPlayedAt", "last playback", or: "never played")
        format = String.fromDatabaseValue(reader.value("format")) ?? "hls"
        problems = reader.problems
        changes = Int64.fromDatabaseValue(reader.value("changes")) ?? 1
        figuresOf = Int64.fromDatabaseValue(reader.value("figuresOf"))
        figures = String.fromDatabaseValue(reader.value("figures"))
        bytesOnDisk = Int.fromDatabaseValue(reader.value("bytesOnDisk"))
        fraction = Double.fromDatabaseValue(reader.value("fraction"))
    }
}

/// A row read value by value, each value that cannot be read noted in ``problems``.
private struct TolerantRow {
    let row: Row
    /// What could not be read, in words.
    var problems: [String] = []

    let reading: RowReading?

    init(row: Row, reading: RowReading? = nil) {
        self.row = row
        self.reading = reading
        reading?.startRow()
    }

    /// The stored value of `column` (NULL when the row has no such column).
    func value(_ column: String) -> DatabaseValue {
        if let reading { return reading.place(of: column, in: row).map { reading.value(at: $0, in: row) } ?? .null }
        return (row[column] as DatabaseValue?) ?? .null
    }

    /// Notes that `column`, the asset's `what`, cannot be read and counts as `fallback`.
    mutating func unreadable(_ column: String, _ what: String, readAs fallback: String) {
        problems.append("its \(what) (\(column) \(Self.excerpt(value(column)))) cannot be read; it counts as \(fallback)")
    }

    mutating func text(_ column: String, _ what: String, or fallback: String) -> String {
        if let text = String.fromDatabaseValue(value(column)) { return text }
        unreadable(column, what, readAs: fallback.isEmpty ? "empty" : fallback)
        return fallback
    }

    /// A date within what the library keeps; nil when NULL, or when unreadable (noted).
    mutating func date(_ column: String, _ what: String, or fallback: String) -> Date? {
        let stored: DatabaseValue
        if let reading {
            guard let place = reading.place(of: column, in: row) else { return nil }
            // The index's own text read where SQLite holds it, with no string made: a listing
            // reads five dates a row.
            if let date = reading.storedDate(at: place) { return date }
            stored = reading.value(at: place, in: row)
        } else {
            stored = value(column)
        }
        if stored.isNull { return nil }
        if let date = IndexDate.date(from: stored), Self.isKept(date) { return date }
        unreadable(column, what, readAs: fallback)
        return nil
    }

    /// Whether the library keeps `date`: years 1 to 9999.
    static func isKept(_ date: Date) -> Bool {
        date.timeIntervalSince1970.isFinite && date <= DateText.latest && date >= Date(timeIntervalSince1970: -62_135_596_800)
    }

    /// JSON text decoded as GRDB encodes the record's nested values; nil when NULL, or when
    /// unreadable (noted).
    mutating func json<T: Decodable>(_ type: T.Type, _ column: String, _ what: String, or fallback: String) -> T? {
        let stored = value(column)
        if stored.isNull { return nil }
        if let text = String.fromDatabaseValue(stored),
           let decoded = reading.map({ $0.decoded(T.self, column, text) })
            ?? (try? AssetRecord.databaseJSONDecoder(for: column).decode(T.self, from: Data(text.utf8))) {
            return decoded
        }
        unreadable(column, what, readAs: fallback)
        return nil
    }

    mutating func state() -> DownloadState {
        if let text = String.fromDatabaseValue(value("state")), let state = DownloadState(rawValue: text) { return state }
        unreadable("state", "state", readAs: "suspended")
        return .suspended
    }

    mutating func priority() -> AssetPriority {
        let stored = value("priority")
        if stored.isNull { return .default }
        if let text = String.fromDatabaseValue(stored), let priority = AssetPriority(rawValue: text) { return priority }
        unreadable("priority", "priority", readAs: "default")
        return .default
    }

    func duration() -> Double? {
        guard let seconds = Double.fromDatabaseValue(value("duration")), seconds.isFinite, seconds >= 0 else { return nil }
        return seconds
    }

    /// What a problem quotes of a stored value: at most 24 printable characters.
    static func excerpt(_ value: DatabaseValue) -> String {
        if let text = String.fromDatabaseValue(value) { return DateText.excerpt(text, limit: 24) }
        if value.isNull { return "NULL" }
        if let number = Int64.fromDatabaseValue(value) { return String(number) }
        if let number = Double.fromDatabaseValue(value) { return String(number) }
        if let data = Data.fromDatabaseValue(value) { return "a blob of \(data.count) bytes" }
        return "a value"
    }
}

/// What the rows of one listing share as they are read: each column's place (looked up once,
/// not by name in every row, which GRDB lowercases each time), and each distinct JSON text
/// decoded once (most assets have the same options and headers, many the same selection).
final class RowReading {
    private var places: [String: Int]?
    /// The columns looked up in the first row, in turn, with their places: every row looks up
    /// the same ones in the same order, compared without hashing.
    private var sequence: [(column: String, place: Int?)] = []
    private var position = 0
    private var decoded: [String: Any] = [:]
    private var undecodable: Set<String> = []
    /// The last text decoded of each column, and what it gave: the next row's is most often
    /// the same (compared, not hashed).
    private var last: [String: (text: String, value: Any?)] = [:]

    /// The statement whose current row is read, when the rows come from SQLite: values are
    /// read from it with SQLite's own calls, not through GRDB's generic decoding (most of a
    /// listing's reading time).
    var statement: SQLiteStatement?

    /// A new row begins: its lookups follow the first row's order.
    func startRow() {
        position = 0
    }

    /// The value at `place` in `row`.
    func value(at place: Int, in row: Row) -> DatabaseValue {
        if let statement { return DatabaseValue(sqliteStatement: statement, index: CInt(place)) }
        return row[place] as DatabaseValue
    }

    /// The date at `place`, when the statement holds it as the index writes dates and it is one
    /// the library keeps; nil for anything else (read as a value then).
    func storedDate(at place: Int) -> Date? {
        guard let statement, sqlite3_column_type(statement, CInt(place)) == SQLITE_TEXT,
              let text = sqlite3_column_text(statement, CInt(place)) else { return nil }
        let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, CInt(place))))
        guard let date = IndexDate.date(fromStoredBytes: bytes), TolerantRow.isKept(date) else { return nil }
        return date
    }

    /// Where `column` is in `row` (every row of the listing has the same columns), or nil.
    func place(of column: String, in row: Row) -> Int? {
        if position < sequence.count, sequence[position].column == column {
            position += 1
            return sequence[position - 1].place
        }
        if places == nil {
            var found: [String: Int] = [:]
            for (place, name) in row.columnNames.enumerated() where found[name] == nil { found[name] = place }
            places = found
        }
        let place = places?[column]
        if position == sequence.count {
            sequence.append((column, place))
            position += 1
        }
        return place
    }

    /// `text` of `column` decoded as `T`, or nil when it cannot be.
    func decoded<T: Decodable>(_ type: T.Type, _ column: String, _ text: String) -> T? {
        if let previous = last[column], previous.text == text { return previous.value as? T }
        let value = decodedOnce(type, column, text)
        last[column] = (text, value)
        return value
    }

    private func decodedOnce<T: Decodable>(_ type: T.Type, _ column: String, _ text: String) -> T? {
        let key = column + "\u{0}" + text
        if let value = decoded[key] as? T { return value }
        if undecodable.contains(key) { return nil }
        guard let value = try? AssetRecord.databaseJSONDecoder(for: column).decode(T.self, from: Data(text.utf8)) else {
            undecodable.insert(key)
            return nil
        }
        decoded[key] = value
        return value
    }
}
