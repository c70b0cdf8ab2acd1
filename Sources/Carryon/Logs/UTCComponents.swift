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

    /// Splits `date` into UTC fields, truncating to whole milliseconds.
    init(_ date: Date) {
        let millisecondsPerDay: Int64 = 86_400_000
        let seconds = date.timeIntervalSince1970
        // Clamp so the conversion to Int64 can never trap (±~292 million years).
        let clamped = min(max(seconds, -9.0e15), 9.0e15)
        let milliseconds = Int64((clamped * 1000).rounded(.down))
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
}
