import Foundation

/// The UTC calendar fields of an instant, computed arithmetically so the
/// result never depends on the process's time zone, locale or calendar.
struct UTCComponents: Sendable, Hashable {
    let year: Int
    let month: Int
    let day: Int
    let hour: Int
    let minute: Int
    let second: Int
    let millisecond: Int

    /// Splits `date` into UTC fields, truncated to whole milliseconds.
    init(_ date: Date) {
        // Clamp so the conversion to Int64 can never trap (±~292 million years).
        let seconds = min(max(date.timeIntervalSince1970, -9.0e15), 9.0e15)
        self.init(millisecondsSince1970: Int64((seconds * 1000).rounded(.down)))
    }

    /// Splits a count of milliseconds since 1970-01-01 00:00:00 UTC into UTC fields.
    init(millisecondsSince1970 milliseconds: Int64) {
        let millisecondsPerDay: Int64 = 86_400_000
        var days = milliseconds / millisecondsPerDay
        var remainder = milliseconds % millisecondsPerDay
        if remainder < 0 {
            remainder += millisecondsPerDay
            days -= 1
        }
        let (year, month, day) = UTCComponents.civilDate(daysSince1970: days)
        self.year = year
        self.month = month
        self.day = day
        self.hour = Int(remainder / 3_600_000)
        self.minute = Int(remainder / 60_000 % 60)
        self.second = Int(remainder / 1000 % 60)
        self.millisecond = Int(remainder % 1000)
    }

    /// `yyyy-mm-dd`.
    var dateText: String {
        "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    /// `hh:mm:ss`.
    var timeText: String {
        "\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
    }

    /// `hh:mm:ss.sss`.
    var timeWithMillisecondsText: String {
        "\(timeText).\(pad(millisecond, 3))"
    }

    /// `yyyy-mm-ddThh:mm:ssZ` (RFC 3339's date-time in UTC, whole seconds): the text
    /// `JSONEncoder`'s `.iso8601` strategy writes.
    var internetDateTimeText: String {
        "\(dateText)T\(timeText)Z"
    }

    /// Zero-pads a non-negative number; negative years keep their sign.
    private func pad(_ number: Int, _ width: Int) -> String {
        let digits = String(abs(number))
        let padded = String(repeating: "0", count: max(0, width - digits.count)) + digits
        return number < 0 ? "-" + padded : padded
    }

    /// Proleptic Gregorian date of a day count since 1970-01-01
    /// (Howard Hinnant's `civil_from_days`).
    static func civilDate(daysSince1970: Int64) -> (year: Int, month: Int, day: Int) {
        let shifted = daysSince1970 + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date, the inverse of ``civilDate(daysSince1970:)``
    /// (Howard Hinnant's `days_from_civil`); a day past the month's end counts on into the next.
    static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
