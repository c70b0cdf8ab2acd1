import Foundation

/// Dates as people type them (`carryon policy --expires`, `PUT /api/assets/ID/policy`), read
/// strictly, and the range of dates the library keeps.
///
/// A date that does not exist (`2026-02-30`) is refused, not carried into the next month as
/// Foundation's formatters do, and so is one outside ``earliest``…``latest``: the index writes
/// a date as text with a four-digit year, and a year past 9999 could not be read back.
///
/// ```swift
/// let expiry = try DateText.expiry("30d", naming: "--expires")          // 30 days from now
/// let day = try DateText.expiry("2026-12-31", naming: "expiresAt")       // midnight UTC
/// try DateText.expiry("2026-02-30", naming: "expiresAt")                 // throws: no such day
/// ```
public enum DateText {
    /// The latest instant the library keeps: 9999-12-31T23:59:59Z.
    public static let latest = Date(timeIntervalSince1970: 253_402_300_799)
    /// The earliest instant the library keeps: 1970-01-01T00:00:00Z.
    public static let earliest = Date(timeIntervalSince1970: 0)

    /// Reads an expiry: `never` (nil), a time from `now` (`30d`, `48h`, `90m`, `3600s`), a day
    /// (`2026-12-31`, midnight UTC) or an ISO 8601 date and time with its zone
    /// (`2026-12-31T18:00:00Z`, `2026-12-31T18:00:00.5+02:00`).
    ///
    /// - Parameters:
    ///   - text: What was typed.
    ///   - now: The instant a time from now counts from.
    ///   - what: The option or field the text came from, named in the error.
    /// - Throws: ``CarryonError/Code/invalidValue`` naming `what` and the text when it is none of
    ///   these, names a day that does not exist, or lies outside ``earliest``…``latest``.
    public static func expiry(_ text: String, now: Date = Date(), naming what: String) throws(CarryonError) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased() == "never" { return nil }
        if let last = trimmed.last, "dhms".contains(last), let amount = Double(trimmed.dropLast()) {
            guard amount.isFinite, amount >= 0 else {
                throw CarryonError(.invalidValue, "\(what) \(excerpt(text)) is not a time from now: give a number of days, hours, minutes or seconds (30d, 48h)")
            }
            let unit: Double = switch last { case "d": 86_400; case "h": 3_600; case "m": 60; default: 1 }
            let seconds = amount * unit
            guard seconds <= latest.timeIntervalSince(now) else {
                throw CarryonError(.invalidValue, "\(what) \(excerpt(text)) ends after \(describe(latest)), the latest date the library keeps")
            }
            return now.addingTimeInterval(seconds)
        }
        return try date(trimmed, naming: what)
    }

    /// Reads a day (`2026-12-31`, midnight UTC) or an ISO 8601 date and time with its zone
    /// (`2026-12-31T18:00:00Z`, `2026-12-31 18:00:00.250+02:00`, `…+0200`).
    ///
    /// - Throws: ``CarryonError/Code/invalidValue`` naming `what` when `text` is not one, names
    ///   a day or time that does not exist, or lies outside ``earliest``…``latest``.
    public static func date(_ text: String, naming what: String) throws(CarryonError) -> Date {
        let shape = "a date like 2026-12-31 or 2026-12-31T18:00:00Z"
        var scanner = Digits(text.utf8)
        guard let year = scanner.number(4), scanner.take("-"), let month = scanner.number(2), scanner.take("-"),
              let day = scanner.number(2) else {
            throw CarryonError(.invalidValue, "\(what) \(excerpt(text)) is not \(shape)")
        }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day) else {
            throw CarryonError(.invalidValue, "\(what) \(excerpt(text)) names a day that does not exist")
        }
        var seconds = Double(UTCComponents.daysSince1970(year: Int64(year), month: Int64(month), day: Int64(day))) * 86_400
        if !scanner.atEnd {
            guard scanner.take("T") || scanner.take("t") || scanner.take(" "),
                  let hour = scanner.number(2), scanner.take(":"), let minute = scanner.number(2) else {
                throw CarryonError(.invalidValue, "\(what) \(excerpt(text)) is not \(shape)")
            }
            var second = 0.0
            if scanner.take(":") {
                guard let whole = scanner.number(2) else { throw CarryonError(.invalidValue, "\(what) \(excerpt(text)) is not \(shape)") }
                second = Double(whole)
                if scanner.take(".") || scanner.take(",") {
                    guard let (fraction, count) = scanner.fraction() else {
                        throw CarryonError(.invalidValue, "\(what) \(excerpt(text)) is not \(shape)")
                    }
                    second += Double(fraction) / pow(10, Double(count))
                }
            }
            guard hour < 24, minute < 60, second < 60 else {
                throw CarryonError(.invalidValue, "\(what) \(excerpt(text)) names a time that does not exist")
            }
            guard let offset = scanner.zone() else {
                throw CarryonError(.invalidValue, "\(what) \(excerpt(text)) has no time zone or a malformed one: end it with Z (UTC) or an offset like +02:00")
            }
            seconds += Double(hour * 3600 + minute * 60) + second - Double(offset)
        }
        guard scanner.atEnd else { throw CarryonError(.invalidValue, "\(what) \(excerpt(text)) is not \(shape)") }
        let date = Date(timeIntervalSince1970: seconds)
        try check(date, naming: what)
        return date
    }

    /// Checks that the library can keep `date`: that it lies within ``earliest``…``latest``.
    ///
    /// - Throws: ``CarryonError/Code/invalidValue`` naming `what` when it does not.
    public static func check(_ date: Date, naming what: String) throws(CarryonError) {
        guard date.timeIntervalSince1970.isFinite else { throw CarryonError(.invalidValue, "\(what) is not a date") }
        if date > latest {
            throw CarryonError(.invalidValue, "\(what) \(describe(date)) is after \(describe(latest)), the latest date the library keeps")
        }
        if date < earliest {
            throw CarryonError(.invalidValue, "\(what) \(describe(date)) is before \(describe(earliest)), the earliest date the library keeps")
        }
    }

    /// `date` as RFC 3339 text in UTC (`2026-12-31T18:00:00Z`), whatever its year.
    static func describe(_ date: Date) -> String {
        UTCComponents(date).internetDateTimeText
    }

    /// At most 40 characters of `text`, quoted, with anything unprintable shown as `?`: what an
    /// error quotes of what it was given.
    public static func excerpt(_ text: String, limit: Int = 40) -> String {
        var shown = String(text.unicodeScalars.prefix(limit).map { scalar -> Character in
            scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format ? "?" : Character(scalar)
        })
        if text.unicodeScalars.count > limit { shown += "…" }
        return "\"\(shown)\""
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// A cursor over the text's bytes that reads fixed-width numbers, fractions and zones.
    private struct Digits {
        let bytes: [UInt8]
        var position = 0

        init(_ text: String.UTF8View) { bytes = Array(text) }

        var atEnd: Bool { position == bytes.count }

        mutating func take(_ character: Character) -> Bool {
            guard position < bytes.count, bytes[position] == character.asciiValue else { return false }
            position += 1
            return true
        }

        mutating func number(_ width: Int) -> Int? {
            guard position + width <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[position..<position + width] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            position += width
            return value
        }

        /// Up to nine digits of a fraction (more are read and dropped), and how many were kept.
        mutating func fraction() -> (Int, Int)? {
            var value = 0
            var count = 0
            while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                if count < 9 { value = value * 10 + Int(bytes[position] - UInt8(ascii: "0")); count += 1 }
                position += 1
            }
            return count == 0 ? nil : (value, count)
        }

        /// `Z`, or `±hh:mm` / `±hhmm` / `±hh`, in seconds east of UTC; nil for none or a malformed one.
        mutating func zone() -> Int? {
            if take("Z") || take("z") { return 0 }
            let sign: Int
            if take("+") { sign = 1 } else if take("-") { sign = -1 } else { return nil }
            guard let hours = number(2), hours < 24 else { return nil }
            var minutes = 0
            if !atEnd {
                _ = take(":")
                guard let value = number(2), value < 60 else { return nil }
                minutes = value
            }
            return sign * (hours * 3600 + minutes * 60)
        }
    }
}
