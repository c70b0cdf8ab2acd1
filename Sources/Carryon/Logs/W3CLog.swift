import Foundation

// MARK: - Values

/// One value in a W3C Extended Log File Format entry.
///
/// Each case knows how to write itself in the textual form the format uses
/// (the same form `AVPlayerItemAccessLog.extendedLogData` produces).
public enum W3CLogValue: Sendable, Hashable {
    /// Free text.
    ///
    /// Written bare when it is a simple token, otherwise as a quoted string
    /// (`"..."`, with every `"` inside doubled). It is quoted when it is empty,
    /// is exactly `-`, starts with `#`, or contains a space, tab or quote.
    /// Line breaks, tabs and other control characters are replaced with a
    /// space so that a value can never break an entry line.
    case string(String)
    /// A whole number, written in decimal.
    case integer(Int)
    /// A decimal number written with exactly `digits` digits after the point.
    ///
    /// `digits` is clamped to `0...17`. NaN and infinities are written as `-`.
    case decimal(Double, digits: Int)
    /// The calendar date of an instant, written as `yyyy-mm-dd` in UTC.
    case date(Date)
    /// The time of day of an instant, written as `hh:mm:ss.sss` in UTC
    /// (milliseconds, truncated).
    case time(Date)
    /// No value; written as `-`.
    case missing

    /// The text this value occupies in an entry line.
    public var formatted: String {
        switch self {
        case .string(let text):
            return W3CLogValue.formatString(text)
        case .integer(let number):
            return String(number)
        case .decimal(let number, let digits):
            guard number.isFinite else { return "-" }
            let clampedDigits = min(max(digits, 0), 17)
            return String(format: "%.\(clampedDigits)f", locale: nil, number)
        case .date(let date):
            return UTCComponents(date).dateText
        case .time(let date):
            return UTCComponents(date).timeWithMillisecondsText
        case .missing:
            return "-"
        }
    }

    /// The `date` and `time` values of one instant, keyed by field name, ready
    /// to merge into the dictionary passed to ``W3CLogWriter/line(_:)``.
    ///
    /// - Parameters:
    ///   - date: The instant to describe.
    ///   - dateField: The field name for the date part (default `date`).
    ///   - timeField: The field name for the time part (default `time`).
    /// - Returns: `[dateField: .date(date), timeField: .time(date)]`.
    public static func timestamp(
        _ date: Date,
        dateField: String = "date",
        timeField: String = "time"
    ) -> [String: W3CLogValue] {
        [dateField: .date(date), timeField: .time(date)]
    }

    /// Writes free text as a bare token or a quoted string.
    static func formatString(_ text: String) -> String {
        var cleaned = String.UnicodeScalarView()
        var needsQuotes = text.isEmpty || text == "-" || text.unicodeScalars.first == "#"
        for scalar in text.unicodeScalars {
            if W3CLogValue.breaksLine(scalar) {
                cleaned.append(" ")
                needsQuotes = true
            } else if scalar == " " {
                cleaned.append(scalar)
                needsQuotes = true
            } else if scalar == "\"" {
                cleaned.append(scalar)
                cleaned.append(scalar)
                needsQuotes = true
            } else {
                cleaned.append(scalar)
            }
        }
        let body = String(cleaned)
        return needsQuotes ? "\"" + body + "\"" : body
    }

    /// Whether a scalar is a control character or line/paragraph separator,
    /// which must never appear verbatim inside an entry line.
    static func breaksLine(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator:
            return true
        default:
            return false
        }
    }
}

// MARK: - Writer

/// Writes logs in the W3C Extended Log File Format
/// (<https://www.w3.org/TR/WD-logfile.html>).
///
/// ```swift
/// let writer = W3CLogWriter(fields: ["date", "time", "uri"], startDate: now)
/// var text = writer.header()
/// text += writer.line(W3CLogValue.timestamp(now).merging(["uri": .string(url)]) { $1 })
/// ```
public struct W3CLogWriter: Sendable, Hashable {
    /// The field names, in the order values are written.
    ///
    /// Spaces, tabs and control characters inside a name would corrupt the
    /// `#Fields` directive, so the header writes them as `_`.
    public let fields: [String]
    /// The text of the `#Software` directive.
    public let software: String
    /// The instant written in the `#Start-Date` directive.
    public let startDate: Date

    /// Creates a writer.
    ///
    /// - Parameters:
    ///   - fields: The field names, in column order.
    ///   - software: The text of the `#Software` directive.
    ///   - startDate: The instant written in `#Start-Date` (UTC).
    public init(fields: [String], software: String = "Carryon", startDate: Date) {
        self.fields = fields
        self.software = software
        self.startDate = startDate
    }

    /// The four directive lines that start a log, each ending in `\n`:
    /// `#Version`, `#Software`, `#Start-Date` (`yyyy-mm-dd hh:mm:ss`, UTC)
    /// and `#Fields`.
    public func header() -> String {
        let start = UTCComponents(startDate)
        let safeSoftware = String(String.UnicodeScalarView(software.unicodeScalars.map {
            W3CLogValue.breaksLine($0) ? " " : $0
        }))
        let fieldList = fields.map(W3CLogWriter.safeFieldName).joined(separator: " ")
        return "#Version: 1.0\n"
            + "#Software: \(safeSoftware)\n"
            + "#Start-Date: \(start.dateText) \(start.timeText)\n"
            + "#Fields: \(fieldList)\n"
    }

    /// One entry line, ending in `\n`.
    ///
    /// Values are written in ``fields`` order, separated by single spaces; a
    /// field without a value is written as `-`. Values whose key is not one
    /// of ``fields`` are ignored.
    ///
    /// - Parameter values: The values of this entry, keyed by field name.
    public func line(_ values: [String: W3CLogValue]) -> String {
        fields.map { (values[$0] ?? .missing).formatted }.joined(separator: " ") + "\n"
    }

    /// A field name with whitespace and control characters replaced by `_`.
    static func safeFieldName(_ name: String) -> String {
        let scalars = name.unicodeScalars.map { scalar -> Unicode.Scalar in
            W3CLogValue.breaksLine(scalar) || scalar.properties.isWhitespace ? "_" : scalar
        }
        let safe = String(String.UnicodeScalarView(scalars))
        return safe.isEmpty ? "_" : safe
    }
}

// MARK: - Parser

/// Why a W3C extended log could not be parsed. Every case carries the 1-based
/// line number and the text of the offending line.
public enum W3CLogError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// An entry line appeared before any `#Fields` directive.
    case entryBeforeFields(line: Int, text: String)
    /// An entry line had a different number of values than the current fields.
    case valueCountMismatch(line: Int, text: String, expected: Int, found: Int)
    /// A quoted string was not closed before the end of the line.
    case unterminatedQuotedString(line: Int, text: String)
    /// A quoted string was followed by something other than a space or tab.
    case textAfterQuotedString(line: Int, text: String)
    /// A `#Version` directive named a version other than `1.0`.
    case unsupportedVersion(line: Int, text: String, version: String)

    /// The 1-based number of the offending line.
    public var line: Int {
        switch self {
        case .entryBeforeFields(let line, _),
             .valueCountMismatch(let line, _, _, _),
             .unterminatedQuotedString(let line, _),
             .textAfterQuotedString(let line, _),
             .unsupportedVersion(let line, _, _):
            return line
        }
    }

    /// A message naming what was wrong, where, and the line's text.
    public var description: String {
        switch self {
        case .entryBeforeFields(let line, let text):
            return "W3C log line \(line): entry appears before any #Fields directive: \(text)"
        case .valueCountMismatch(let line, let text, let expected, let found):
            return "W3C log line \(line): entry has \(found) value(s) but #Fields names \(expected): \(text)"
        case .unterminatedQuotedString(let line, let text):
            return "W3C log line \(line): quoted string is not terminated: \(text)"
        case .textAfterQuotedString(let line, let text):
            return "W3C log line \(line): a closing quote must be followed by a space or the end of the line: \(text)"
        case .unsupportedVersion(let line, let text, let version):
            return "W3C log line \(line): unsupported #Version \"\(version)\" (only 1.0 is supported): \(text)"
        }
    }

    /// The same text as ``description``.
    public var errorDescription: String? { description }
}

/// A parsed W3C Extended Log File Format document
/// (<https://www.w3.org/TR/WD-logfile.html>).
///
/// Directives may appear anywhere; a later `#Fields` applies to the entries
/// after it. Unknown directives (`#Remark:`, `#Date:`, `#End-Date:`, …) and
/// blank lines are ignored, and CRLF line endings are accepted. Directive
/// names are matched case-insensitively.
public struct W3CLog: Sendable, Hashable {
    /// The value of the most recent `#Version` directive, if any (always `1.0`).
    public let version: String?
    /// The value of the most recent `#Software` directive, if any.
    public let software: String?
    /// The value of the most recent `#Start-Date` directive, if any, unparsed.
    public let startDate: String?
    /// The field names of the last `#Fields` directive (empty when there is none).
    public let fields: [String]
    /// One dictionary per entry line, keyed by the field names in force for
    /// that line. Values are raw text: a missing value stays `-`, and quoted
    /// strings are unquoted with doubled quotes undone.
    public let entries: [[String: String]]

    /// Parses the text of a log.
    ///
    /// - Parameter text: The whole log.
    /// - Throws: ``W3CLogError`` naming the first malformed line.
    public init(parsing text: String) throws(W3CLogError) {
        var version: String?
        var software: String?
        var startDate: String?
        var currentFields: [String]?
        var entries: [[String: String]] = []

        for (index, line) in W3CLog.lines(of: text).enumerated() {
            let lineNumber = index + 1
            if line.unicodeScalars.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }

            if line.unicodeScalars.first == "#" {
                guard let (name, value) = W3CLog.directive(line) else { continue }
                switch name.lowercased() {
                case "version":
                    guard value == "1.0" else {
                        throw .unsupportedVersion(line: lineNumber, text: line, version: value)
                    }
                    version = value
                case "software":
                    software = value
                case "start-date":
                    startDate = value
                case "fields":
                    currentFields = W3CLog.splitOnBlanks(value)
                default:
                    break
                }
                continue
            }

            guard let fields = currentFields else {
                throw .entryBeforeFields(line: lineNumber, text: line)
            }
            let values = try W3CLog.values(of: line, lineNumber: lineNumber)
            guard values.count == fields.count else {
                throw .valueCountMismatch(
                    line: lineNumber, text: line, expected: fields.count, found: values.count)
            }
            var entry: [String: String] = [:]
            for (field, value) in zip(fields, values) {
                entry[field] = value
            }
            entries.append(entry)
        }

        self.version = version
        self.software = software
        self.startDate = startDate
        self.fields = currentFields ?? []
        self.entries = entries
    }

    /// Splits text into lines on LF, dropping one trailing CR from each line.
    static func lines(of text: String) -> [String] {
        var lines: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                lines.append(finish(current))
                current = String.UnicodeScalarView()
            } else {
                current.append(scalar)
            }
        }
        if !current.isEmpty { lines.append(finish(current)) }
        return lines

        func finish(_ scalars: String.UnicodeScalarView) -> String {
            var scalars = scalars
            if scalars.last == "\r" { scalars.removeLast() }
            return String(scalars)
        }
    }

    /// Splits a `#Name: value` directive into its name and trimmed value.
    /// Returns `nil` for a `#` line without a colon.
    static func directive(_ line: String) -> (name: String, value: String)? {
        let body = line.unicodeScalars.dropFirst()
        guard let colon = body.firstIndex(of: ":") else { return nil }
        let name = String(String.UnicodeScalarView(body[body.startIndex..<colon]))
        let value = String(String.UnicodeScalarView(body[body.index(after: colon)...]))
        return (trimBlanks(name), trimBlanks(value))
    }

    /// Removes leading and trailing spaces and tabs.
    static func trimBlanks(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })
        else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }

    /// Splits text on runs of spaces and tabs.
    static func splitOnBlanks(_ text: String) -> [String] {
        text.unicodeScalars
            .split(whereSeparator: { $0 == " " || $0 == "\t" })
            .map { String(String.UnicodeScalarView($0)) }
    }

    /// Splits an entry line into its values, unquoting quoted strings.
    static func values(of line: String, lineNumber: Int) throws(W3CLogError) -> [String] {
        let scalars = Array(line.unicodeScalars)
        var values: [String] = []
        var position = 0

        while position < scalars.count {
            let scalar = scalars[position]
            if scalar == " " || scalar == "\t" {
                position += 1
                continue
            }
            var value = String.UnicodeScalarView()
            if scalar == "\"" {
                position += 1
                var closed = false
                while position < scalars.count {
                    let inner = scalars[position]
                    if inner == "\"" {
                        if position + 1 < scalars.count, scalars[position + 1] == "\"" {
                            value.append("\"")
                            position += 2
                        } else {
                            position += 1
                            closed = true
                            break
                        }
                    } else {
                        value.append(inner)
                        position += 1
                    }
                }
                guard closed else {
                    throw .unterminatedQuotedString(line: lineNumber, text: line)
                }
                if position < scalars.count, scalars[position] != " ", scalars[position] != "\t" {
                    throw .textAfterQuotedString(line: lineNumber, text: line)
                }
            } else {
                while position < scalars.count, scalars[position] != " ", scalars[position] != "\t" {
                    value.append(scalars[position])
                    position += 1
                }
            }
            values.append(String(value))
        }
        return values
    }
}

// MARK: - UTC calendar arithmetic

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
