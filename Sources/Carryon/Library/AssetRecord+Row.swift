import Foundation
import GRDB

/// How a row of the `asset` table is read: a value that cannot be read (a date past year 9999
/// written by an earlier release, text where a number belongs, JSON cut short) never fails the
/// read — one bad row would take `list`, `show`, the API and playback of every other asset
/// down with it. The value is read as the safest one (an expiry as never, options as the
/// defaults) and named in ``AssetRecord/problems``, quoting at most a short excerpt of it; setting
/// the value again (`carryon policy`) writes a readable one.
extension AssetRecord {
    init(row: Row) throws {
        var problems: [String] = []
        func value(_ column: String) -> DatabaseValue {
            (row[column] as DatabaseValue?) ?? .null
        }
        func unreadable(_ column: String, _ what: String, readAs fallback: String) {
            problems.append("its \(what) (\(column) \(Self.excerpt(value(column)))) cannot be read; it counts as \(fallback)")
        }
        func text(_ column: String, _ what: String, or fallback: String) -> String {
            if let text = String.fromDatabaseValue(value(column)) { return text }
            unreadable(column, what, readAs: fallback.isEmpty ? "empty" : fallback)
            return fallback
        }
        func date(_ column: String, _ what: String, or fallback: String) -> Date?? {
            let stored = value(column)
            if stored.isNull { return .some(nil) }
            if let date = IndexDate.date(from: stored), date.timeIntervalSince1970.isFinite, date <= DateText.latest,
               date >= Date(timeIntervalSince1970: -62_135_596_800) {
                return .some(date)
            }
            unreadable(column, what, readAs: fallback)
            return nil
        }
        func json<T: Decodable>(_ type: T.Type, _ column: String, _ what: String, or fallback: String) -> T?? {
            let stored = value(column)
            if stored.isNull { return .some(nil) }
            if let text = String.fromDatabaseValue(stored),
               let decoded = try? Self.databaseJSONDecoder(for: column).decode(T.self, from: Data(text.utf8)) {
                return .some(decoded)
            }
            unreadable(column, what, readAs: fallback)
            return nil
        }

        id = text("id", "id", or: "")
        name = text("name", "name", or: id)
        url = text("url", "stream URL", or: "")
        if let stateText = String.fromDatabaseValue(value("state")), let stored = DownloadState(rawValue: stateText) {
            state = stored
        } else {
            unreadable("state", "state", readAs: "suspended")
            state = .suspended
        }
        errorMessage = String.fromDatabaseValue(value("errorMessage"))
        options = (json(DownloadOptions.self, "options", "download options", or: "the defaults") ?? nil) ?? DownloadOptions()
        headers = (json([HTTPHeader].self, "headers", "request headers", or: "none") ?? nil) ?? []
        selection = json(MediaSelection.self, "selection", "selection", or: "none until the playlists are read again") ?? nil
        planned = Bool.fromDatabaseValue(value("planned")) ?? false
        let created = date("createdAt", "creation date", or: "1970-01-01") ?? nil
        let updated = date("updatedAt", "last change", or: "its creation date") ?? nil
        createdAt = created ?? updated ?? Date(timeIntervalSince1970: 0)
        updatedAt = updated ?? createdAt
        completedAt = date("completedAt", "completion date", or: "unknown") ?? nil
        duration = Double.fromDatabaseValue(value("duration")).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        expiresAt = date("expiresAt", "expiry", or: "never until a new policy is set") ?? nil
        if value("priority").isNull {
            priority = .default
        } else if let text = String.fromDatabaseValue(value("priority")), let stored = AssetPriority(rawValue: text) {
            priority = stored
        } else {
            unreadable("priority", "priority", readAs: "default")
            priority = .default
        }
        lastPlayedAt = date("lastPlayedAt", "last playback", or: "never played") ?? nil
        format = String.fromDatabaseValue(value("format")) ?? "hls"
        self.problems = problems
    }

    /// What a problem quotes of a stored value: at most 24 printable characters.
    private static func excerpt(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "NULL"
        case .int64(let number): return String(number)
        case .double(let number): return String(number)
        case .string(let text): return DateText.excerpt(text, limit: 24)
        case .blob(let data): return "a blob of \(data.count) bytes"
        }
    }
}
