import Foundation
import GRDB

/// An instant as the SQLite index stores it: the text `yyyy-MM-dd HH:mm:ss.SSS` in UTC, which is
/// GRDB's own format for `Date`, so libraries written by earlier releases read the same.
///
/// GRDB writes and reads that text with a `DateFormatter` and a `Calendar` set to the
/// `en_US_POSIX` locale, and both load ICU's locale data: about 4 MiB of a download's peak
/// memory went to formatting `updatedAt` (Benchmarks/README.md). This type does the same
/// arithmetically. Text in any other form SQLite dates take (no milliseconds, a `T`, a time
/// zone) and numbers are handed to GRDB's reading, which accepts them all.
struct IndexDate: DatabaseValueConvertible, Sendable, Hashable {
    /// The instant.
    let date: Date

    /// Wraps `date`.
    init(_ date: Date) {
        self.date = date
    }

    /// `yyyy-MM-dd HH:mm:ss.SSS` in UTC, rounded to the nearest millisecond like GRDB's formatter.
    static func text(of date: Date) -> String {
        // Foundation's DateFormatter hands ICU `(reference-date seconds + 978307200) × 1000 + 0.5`
        // and ICU takes the floor: the same arithmetic gives the same millisecond, halves included.
        let seconds = min(max(date.timeIntervalSinceReferenceDate, -9.0e15), 9.0e15)
        let milliseconds = ((seconds + 978_307_200) * 1000 + 0.5).rounded(.down)
        let fields = UTCComponents(millisecondsSince1970: Int64(milliseconds))
        return "\(fields.dateText) \(fields.timeWithMillisecondsText)"
    }

    /// The instant a stored value names: the index's own text quickly, anything else as GRDB
    /// reads it; nil when it names none.
    static func date(from value: DatabaseValue) -> Date? {
        if case .string(let text) = value.storage, let date = date(fromStoredText: text) {
            return date
        }
        return Date.fromDatabaseValue(value)
    }

    /// Reads exactly `yyyy-MM-dd HH:mm:ss.SSS` (four-digit year); nil for any other text.
    static func date(fromStoredText text: String) -> Date? {
        text.utf8.withContiguousStorageIfAvailable { date(fromStoredBytes: $0) } ?? nil
    }

    /// Reads exactly `yyyy-MM-dd HH:mm:ss.SSS` from UTF-8 `bytes`; nil for any other text.
    static func date(fromStoredBytes bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count == 23, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: " "), bytes[13] == UInt8(ascii: ":"),
              bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: ".") else { return nil }
        func number(_ start: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for index in start..<start + count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              let millisecond = number(20, 3),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        let days = UTCComponents.daysSince1970(year: year, month: month, day: day)
        let milliseconds = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millisecond
        return Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    var databaseValue: DatabaseValue {
        Self.text(of: date).databaseValue
    }

    static func fromDatabaseValue(_ value: DatabaseValue) -> IndexDate? {
        date(from: value).map(IndexDate.init)
    }
}
