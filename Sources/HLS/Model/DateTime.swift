/// An ISO 8601 date and time with a time zone, as used by `EXT-X-PROGRAM-DATE-TIME` and
/// `EXT-X-DATERANGE` (e.g. `2010-02-19T14:54:23.031+08:00`).
///
/// Keeps the text as written (so it is written back unchanged) beside the instant it denotes.
public struct DateTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The text as written.
    public let text: String
    /// The instant, in seconds since 1970-01-01T00:00:00Z.
    public let secondsSince1970: Double

    /// Parses `YYYY-MM-DDThh:mm:ss[.fff…](Z|±hh:mm|±hhmm|±hh)`; nil when the text is not such
    /// a date or names an impossible one.
    public init?(_ text: String) {
        // Read the UTF-8 in place: dates are on every segment of some playlists.
        var copy = text
        guard let seconds = copy.withUTF8({ Self.parse($0) }) else { return nil }
        self.text = text
        self.secondsSince1970 = seconds
    }

    /// The instant a date's text denotes, or nil.
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var index = 0
        func number(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            let value = Number.decimalInteger(bytes[index..<index + count])
            index += count
            return value
        }
        func expect(_ characters: StaticString) -> Bool {
            guard index < bytes.count else { return false }
            let found = characters.withUTF8Buffer { $0.contains(bytes[index]) }
            guard found else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
              expect("Tt "), let hour = number(2), expect(":"), let minute = number(2)
        else { return nil }
        var second = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            index += 1
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index])
                || bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",") {
                index += 1
            }
            let field = UnsafeBufferPointer(rebasing: bytes[start..<index])
            func isMark(_ byte: UInt8) -> Bool { byte == UInt8(ascii: ".") || byte == UInt8(ascii: ",") }
            // Two digits, then optionally a decimal mark and at least one digit.
            guard field.count >= 2, !isMark(field[0]), !isMark(field[1]),
                  field.count == 2 || (field.count > 3 && isMark(field[2]) && !field[3...].contains(where: isMark))
            else { return nil }
            let value: Double?
            if field.count > 2 && field[2] == UInt8(ascii: ",") {
                // A decimal comma (ISO 8601 allows it): read a copy with a point.
                let copy = field.map { $0 == UInt8(ascii: ",") ? UInt8(ascii: ".") : $0 }
                value = copy.withUnsafeBufferPointer { Number.decimalFloat($0) }
            } else {
                value = Number.decimalFloat(field)
            }
            guard let value else { return nil }
            second = value
        }
        var offsetSeconds = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "Z") || bytes[index] == UInt8(ascii: "z") {
            index += 1
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = number(2) else { return nil }
            var minutes = 0
            if index < bytes.count {
                _ = expect(":")
                guard let value = number(2) else { return nil }
                minutes = value
            }
            guard hours <= 23, minutes <= 59 else { return nil }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count, (1...12).contains(month), day >= 1,
              day <= Self.daysIn(month: month, year: year), minute <= 59, second < 61,
              hour < 24 || (hour == 24 && minute == 0 && second == 0)
        else { return nil }
        let days = Self.daysSince1970(year: year, month: month, day: day)
        return Double(days * 86400 + hour * 3600 + minute * 60 - offsetSeconds) + second
    }

    /// Makes a date from an instant, written in UTC with milliseconds
    /// (`2024-05-01T10:00:00.000Z`).
    public init(secondsSince1970 seconds: Double) {
        let milliseconds = Int((seconds * 1000).rounded())
        let days = Int((Double(milliseconds) / 86_400_000).rounded(.down))
        var rest = milliseconds - days * 86_400_000
        let (year, month, day) = Self.civil(daysSince1970: days)
        let hour = rest / 3_600_000
        rest -= hour * 3_600_000
        let minute = rest / 60_000
        rest -= minute * 60_000
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        self.text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):"
            + "\(pad(rest / 1000, 2)).\(pad(rest % 1000, 3))Z"
        self.secondsSince1970 = Double(milliseconds) / 1000
    }

    public var description: String { text }

    public static func < (lhs: DateTime, rhs: DateTime) -> Bool { lhs.secondsSince1970 < rhs.secondsSince1970 }

    private static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's days_from_civil / civil_from_days.
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(daysSince1970 days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
