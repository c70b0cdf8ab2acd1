import Foundation

// The reading side of the W3C Extended Log File Format; the writing side is in
// W3CLogWriter.swift, the UTC arithmetic both use in UTCComponents.swift.

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
