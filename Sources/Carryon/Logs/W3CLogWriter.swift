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
            // C's own formatting into a buffer on the stack: what `String(format:)` writes, without
            // its Foundation string (a line a request in a busy server's access log).
            return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 350) { buffer in
                let count = withVaList([number]) { vsnprintf(buffer.baseAddress!, 350, "%.\(clampedDigits)f", $0) }
                guard count > 0, count < 350 else { return String(format: "%.\(clampedDigits)f", locale: nil, number) }
                return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress!, count: Int(count)), as: UTF8.self)
            }
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
        // The common case, a token of printable ASCII with no quote in it (a URL, a host), is
        // written as it is, without looking up each character's category.
        if let first = text.utf8.first, first != UInt8(ascii: "#"), text != "-",
           text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") }) {
            return text
        }
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
