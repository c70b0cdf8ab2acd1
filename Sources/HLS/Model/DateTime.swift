/// An ISO 8601 date and time with a time zone, as used by `EXT-X-PROGRAM-DATE-TIME` and
/// `EXT-X-DATERANGE` (e.g. `2010-02-19T14:54:23.031+08:00`).
///
/// Keeps the text as written (so it is written back unchanged) beside the instant it denotes.
/// A date written the way ``init(secondsSince1970:)`` writes one — UTC, milliseconds, as
/// `EXT-X-PROGRAM-DATE-TIME` on every segment of many playlists has it — keeps only the
/// instant, and makes its text when asked.
public struct DateTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The text as written, when it is not the canonical text of ``secondsSince1970``.
    let written: String?
    /// The instant, in seconds since 1970-01-01T00:00:00Z.
    public let secondsSince1970: Double

    /// The text as written.
    public var text: String { written ?? Self.canonicalText(secondsSince1970) }

    /// Parses `YYYY-MM-DDThh:mm:ss[.fff…](Z|±hh:mm|±hhmm|±hh)`; nil when the text is not such
    /// a date or names an impossible one.
    public init?(_ text: String) {
        // Read the UTF-8 in place: dates are on every segment of some playlists.
        var copy = text
        guard let date = copy.withUTF8({ Self(bytes: $0, text: text) }) else { return nil }
        self = date
    }

    /// A date from its parts (as ``Segment`` keeps them).
    init(written: String?, secondsSince1970: Double) {
        self.written = written
        self.secondsSince1970 = secondsSince1970
    }

    /// Whether the date was written exactly as ``init(secondsSince1970:)`` writes it.
    var isCanonical: Bool { written == nil }

    /// Parses a date from its UTF-8 bytes; `text`, when given, is the same date as a String (to
    /// keep instead of making one).
    init?(bytes: UnsafeBufferPointer<UInt8>, text: String? = nil) {
        let canonical = Self.isCanonicalText(bytes)
        guard let seconds = canonical ? Self.parseCanonical(bytes) : Self.parseAnyForm(bytes) else { return nil }
        self.secondsSince1970 = seconds
        self.written = canonical ? nil : (text ?? String(decoding: bytes, as: UTF8.self))
    }

    /// Whether `bytes` are exactly what ``canonicalText(_:)`` makes of the instant they denote:
    /// `YYYY-MM-DDThh:mm:ss.fffZ` with an hour below 24 and a second below 60, when they are a
    /// date at all (the marks' places are checked here, the digits by ``parseCanonical(_:)``).
    private static func isCanonicalText(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 24, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              bytes[19] == UInt8(ascii: "."), bytes[23] == UInt8(ascii: "Z"),
              bytes[11] < UInt8(ascii: "2") || bytes[12] < UInt8(ascii: "4"), bytes[17] < UInt8(ascii: "6")
        else { return false }
        return true
    }

    /// The instant of `YYYY-MM-DDThh:mm:ss.fffZ` (the places of the marks already checked), as
    /// ``parseAnyForm(_:)`` computes it, in straight-line code: many playlists date every segment.
    private static func parseCanonical(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var invalid: UInt8 = 0
        @inline(__always) func digit(_ index: Int) -> Int {
            let value = bytes[index] &- UInt8(ascii: "0")
            invalid |= value > 9 ? 1 : 0
            return Int(value)
        }
        let year = digit(0) * 1000 + digit(1) * 100 + digit(2) * 10 + digit(3)
        let month = digit(5) * 10 + digit(6)
        let day = digit(8) * 10 + digit(9)
        let hour = digit(11) * 10 + digit(12)
        let minute = digit(14) * 10 + digit(15)
        let milliseconds = digit(17) * 10_000 + digit(18) * 1000 + digit(20) * 100 + digit(21) * 10 + digit(22)
        guard invalid == 0, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour < 24, minute <= 59
        else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        return Double(days * 86400 + hour * 3600 + minute * 60) + Double(milliseconds) / 1000
    }

    /// The instant of a date in any of the forms ``init(_:)`` reads, or nil.
    private static func parseAnyForm(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        let count = bytes.count
        // `YYYY-MM-DDThh:mm` at fixed places: read in place, as dates are on every segment of
        // some playlists.
        guard count >= 17, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") || bytes[10] == UInt8(ascii: " "),
              bytes[13] == UInt8(ascii: ":")
        else { return nil }
        var invalid = false
        func digits(_ from: Int, _ count: Int) -> Int {
            var value = 0
            for index in from..<from + count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                invalid = invalid || digit > 9
                value = value &* 10 &+ Int(digit)
            }
            return value
        }
        let year = digits(0, 4), month = digits(5, 2), day = digits(8, 2), hour = digits(11, 2), minute = digits(14, 2)
        guard !invalid else { return nil }
        var index = 16
        var second = 0.0
        if bytes[index] == UInt8(ascii: ":") {
            // Two digits, then optionally a decimal mark (ISO 8601 allows a comma) and at least one digit.
            index += 1
            guard index + 2 <= count else { return nil }
            var mantissa = digits(index, 2)
            guard !invalid else { return nil }
            index += 2
            var fractionDigits = 0
            if index < count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",") {
                index += 1
                let start = index
                while index < count, bytes[index] &- UInt8(ascii: "0") <= 9 {
                    if index - start < 13 {
                        mantissa = mantissa &* 10 &+ Int(bytes[index] &- UInt8(ascii: "0"))
                        fractionDigits += 1
                    }
                    index += 1
                }
                guard index > start else { return nil }
            }
            // At most 15 digits are read (a 13th decimal of a second is past what the instant's
            // Double holds), so the quotient is the correctly rounded value.
            second = Double(mantissa) / Number.powerOfTen(fractionDigits)
        }
        var offsetSeconds = 0
        guard index < count else { return nil }
        if bytes[index] == UInt8(ascii: "Z") || bytes[index] == UInt8(ascii: "z") {
            index += 1
        } else if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard index + 2 <= count else { return nil }
            let hours = digits(index, 2)
            index += 2
            var minutes = 0
            if index < count {
                if bytes[index] == UInt8(ascii: ":") { index += 1 }
                guard index + 2 <= count else { return nil }
                minutes = digits(index, 2)
                index += 2
            }
            guard !invalid, hours <= 23, minutes <= 59 else { return nil }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard index == count, (1...12).contains(month), day >= 1,
              day <= Self.daysIn(month: month, year: year), minute <= 59, second < 61,
              hour < 24 || (hour == 24 && minute == 0 && second == 0)
        else { return nil }
        let days = Self.daysSince1970(year: year, month: month, day: day)
        return Double(days * 86400 + hour * 3600 + minute * 60 - offsetSeconds) + second
    }

    /// Makes a date from an instant, written in UTC with milliseconds
    /// (`2024-05-01T10:00:00.000Z`).
    public init(secondsSince1970 seconds: Double) {
        self.written = nil
        self.secondsSince1970 = Double(Int((seconds * 1000).rounded())) / 1000
    }

    /// An instant in UTC with milliseconds: `2024-05-01T10:00:00.000Z`.
    private static func canonicalText(_ seconds: Double) -> String {
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
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):"
            + "\(pad(rest / 1000, 2)).\(pad(rest % 1000, 3))Z"
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
