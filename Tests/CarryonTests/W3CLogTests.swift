import Foundation
import Testing
@testable import Carryon

/// 2024-03-05 07:08:09.123 UTC.
private let sampleDate = Date(timeIntervalSince1970: 1_709_622_489.123)

@Suite("W3CLogValue formatting")
struct W3CLogValueTests {
    @Test("bare tokens stay bare")
    func bareStrings() {
        #expect(W3CLogValue.string("abc").formatted == "abc")
        #expect(W3CLogValue.string("https://a.example/x.m3u8?a=1&b=2").formatted
            == "https://a.example/x.m3u8?a=1&b=2")
        #expect(W3CLogValue.string("héllo→🎬").formatted == "héllo→🎬")
        #expect(W3CLogValue.string("a-b").formatted == "a-b")
        #expect(W3CLogValue.string("--").formatted == "--")
        #expect(W3CLogValue.string("a#b").formatted == "a#b")
    }

    @Test("strings that need quoting are quoted", arguments: [
        ("", "\"\""),
        ("-", "\"-\""),
        ("a b", "\"a b\""),
        ("a\"b", "\"a\"\"b\""),
        ("\"", "\"\"\"\""),
        ("#Fields", "\"#Fields\""),
        (" lead", "\" lead\""),
    ])
    func quotedStrings(input: String, expected: String) {
        #expect(W3CLogValue.string(input).formatted == expected)
    }

    @Test("controls and line breaks become spaces", arguments: [
        ("a\nb", "\"a b\""),
        ("a\r\nb", "\"a  b\""),
        ("a\tb", "\"a b\""),
        ("a\u{0}b\u{7F}c", "\"a b c\""),
        ("a\u{2028}b\u{85}c", "\"a b c\""),
        ("\n", "\" \""),
    ])
    func controls(input: String, expected: String) {
        let formatted = W3CLogValue.string(input).formatted
        #expect(formatted == expected)
        #expect(!formatted.unicodeScalars.contains { $0.properties.generalCategory == .control })
    }

    @Test("integers")
    func integers() {
        #expect(W3CLogValue.integer(0).formatted == "0")
        #expect(W3CLogValue.integer(-42).formatted == "-42")
        #expect(W3CLogValue.integer(Int.max).formatted == "9223372036854775807")
    }

    @Test("decimals use fixed digits", arguments: [
        (1.5, 3, "1.500"),
        (2.0 / 3.0, 2, "0.67"),
        (-0.125, 1, "-0.1"),
        (12345.678, 0, "12346"),
        (3.14159, -2, "3"),
        (1_000_000.25, 2, "1000000.25"),
    ])
    func decimals(value: Double, digits: Int, expected: String) {
        #expect(W3CLogValue.decimal(value, digits: digits).formatted == expected)
    }

    @Test("non-finite decimals are missing", arguments: [Double.nan, .infinity, -.infinity])
    func nonFinite(value: Double) {
        #expect(W3CLogValue.decimal(value, digits: 3).formatted == "-")
    }

    @Test("dates and times are UTC")
    func datesAndTimes() {
        #expect(W3CLogValue.date(sampleDate).formatted == "2024-03-05")
        #expect(W3CLogValue.time(sampleDate).formatted == "07:08:09.123")
        let epoch = Date(timeIntervalSince1970: 0)
        #expect(W3CLogValue.date(epoch).formatted == "1970-01-01")
        #expect(W3CLogValue.time(epoch).formatted == "00:00:00.000")
        #expect(W3CLogValue.missing.formatted == "-")
    }

    @Test("milliseconds are truncated, never rolled into the next day")
    func truncation() {
        let almostMidnight = Date(timeIntervalSince1970: 86_400 - 0.0004)
        #expect(W3CLogValue.date(almostMidnight).formatted == "1970-01-01")
        #expect(W3CLogValue.time(almostMidnight).formatted == "23:59:59.999")
    }

    @Test("dates before 1970 and leap days")
    func calendarEdges() {
        let beforeEpoch = Date(timeIntervalSince1970: -0.5)
        #expect(W3CLogValue.date(beforeEpoch).formatted == "1969-12-31")
        #expect(W3CLogValue.time(beforeEpoch).formatted == "23:59:59.500")
        // 2000-02-29 12:00:00 UTC
        let leapDay = Date(timeIntervalSince1970: 951_825_600)
        #expect(W3CLogValue.date(leapDay).formatted == "2000-02-29")
        // 2100-03-01 00:00:00 UTC (2100 is not a leap year)
        let notLeap = Date(timeIntervalSince1970: 4_107_542_400)
        #expect(W3CLogValue.date(notLeap).formatted == "2100-03-01")
        // 1900-01-01 00:00:00 UTC
        let old = Date(timeIntervalSince1970: -2_208_988_800)
        #expect(W3CLogValue.date(old).formatted == "1900-01-01")
    }

    @Test("timestamp convenience gives date and time of one instant")
    func timestamp() {
        #expect(W3CLogValue.timestamp(sampleDate) == ["date": .date(sampleDate), "time": .time(sampleDate)])
        #expect(W3CLogValue.timestamp(sampleDate, dateField: "d", timeField: "t")
            == ["d": .date(sampleDate), "t": .time(sampleDate)])
    }
}

@Suite("W3CLogWriter")
struct W3CLogWriterTests {
    @Test("header has the four directives in UTC")
    func header() {
        let writer = W3CLogWriter(fields: ["date", "time", "c-ip"], startDate: sampleDate)
        #expect(writer.header() == """
            #Version: 1.0
            #Software: Carryon
            #Start-Date: 2024-03-05 07:08:09
            #Fields: date time c-ip

            """)
    }

    @Test("custom software, unsafe software text and field names are sanitized")
    func sanitizedHeader() {
        let writer = W3CLogWriter(
            fields: ["a b", "c\nd", ""], software: "Tool\n#Version: 9", startDate: sampleDate)
        let header = writer.header()
        #expect(header.contains("#Software: Tool #Version: 9\n"))
        #expect(header.hasSuffix("#Fields: a_b c_d _\n"))
        #expect(header.split(separator: "\n").count == 4)
    }

    @Test("line writes values in field order, missing as -")
    func line() {
        let writer = W3CLogWriter(fields: ["date", "time", "uri", "bytes", "rate"], startDate: sampleDate)
        var values = W3CLogValue.timestamp(sampleDate)
        values["uri"] = .string("a b")
        values["rate"] = .decimal(1.25, digits: 3)
        values["ignored"] = .integer(7)
        #expect(writer.line(values) == "2024-03-05 07:08:09.123 \"a b\" - 1.250\n")
        #expect(writer.line(["bytes": .missing]) == "- - - - -\n")
    }

    @Test("no fields gives an empty line")
    func noFields() {
        let writer = W3CLogWriter(fields: [], startDate: sampleDate)
        #expect(writer.line(["x": .integer(1)]) == "\n")
        #expect(writer.header().hasSuffix("#Fields: \n"))
    }
}

@Suite("W3CLog parsing")
struct W3CLogParserTests {
    static let trickyStrings = [
        "plain", "with space", "with \"quotes\"", "\"", "\"\"", "", "-", "--", " ", "  two  ",
        "tab\there", "new\nline", "crlf\r\nline", "unicode é 中文 🎬 \u{301}", "\"\u{301}",
        "#hash", "trailing\"", "é", "a,b;c=d",
    ]

    @Test("round trip of tricky strings", arguments: trickyStrings)
    func roundTrip(text: String) throws {
        let writer = W3CLogWriter(fields: ["before", "value", "after"], startDate: sampleDate)
        let log = try W3CLog(parsing: writer.header()
            + writer.line(["before": .integer(1), "value": .string(text), "after": .string("z")]))
        let expected = String(String.UnicodeScalarView(text.unicodeScalars.map {
            $0.properties.generalCategory == .control ? " " : $0
        }))
        #expect(log.entries == [["before": "1", "value": expected, "after": "z"]])
    }

    @Test("full round trip with every value kind")
    func fullRoundTrip() throws {
        let fields = ["date", "time", "s-uri", "c-bytes", "c-rate", "x-note", "x-missing"]
        let writer = W3CLogWriter(fields: fields, software: "Carryon 1.2", startDate: sampleDate)
        var text = writer.header()
        for index in 0..<3 {
            let instant = sampleDate.addingTimeInterval(Double(index) * 90.5)
            var values = W3CLogValue.timestamp(instant)
            values["s-uri"] = .string("https://cdn.example/seg\(index).ts")
            values["c-bytes"] = .integer(index * 1000)
            values["c-rate"] = .decimal(Double(index) / 3, digits: 3)
            values["x-note"] = .string(index == 1 ? "said \"hi\"\nthen left" : "")
            text += writer.line(values)
        }
        let log = try W3CLog(parsing: text)
        #expect(log.version == "1.0")
        #expect(log.software == "Carryon 1.2")
        #expect(log.startDate == "2024-03-05 07:08:09")
        #expect(log.fields == fields)
        #expect(log.entries.count == 3)
        #expect(log.entries[0] == [
            "date": "2024-03-05", "time": "07:08:09.123", "s-uri": "https://cdn.example/seg0.ts",
            "c-bytes": "0", "c-rate": "0.000", "x-note": "", "x-missing": "-",
        ])
        #expect(log.entries[1]["time"] == "07:09:39.623")
        #expect(log.entries[1]["x-note"] == "said \"hi\" then left")
        #expect(log.entries[2]["c-rate"] == "0.667")
        #expect(log.entries[2]["time"] == "07:11:10.123")
    }

    @Test("multiple #Fields directives: later entries use the newest")
    func multipleFields() throws {
        let log = try W3CLog(parsing: """
            #Version: 1.0
            #Fields: a b
            1 2
            #Remark: switching layout
            #Fields: c d e
            3 4 5
            6 "x y" -
            """)
        #expect(log.fields == ["c", "d", "e"])
        #expect(log.entries == [
            ["a": "1", "b": "2"],
            ["c": "3", "d": "4", "e": "5"],
            ["c": "6", "d": "x y", "e": "-"],
        ])
    }

    @Test("unknown directives, blank lines, CRLF, extra blanks are tolerated")
    func tolerance() throws {
        let text = "#Version: 1.0\r\n#Software: Other\r\n\r\n#Date: 2024-01-01 00:00:00\r\n"
            + "#Remark: anything \"goes\r\n#NoColon\r\n#fields:  a\tb \r\n"
            + "   \r\n1\t \"two\"  \r\n\t\r\n#End-Date: 2024-01-02 00:00:00\r\nx y"
        let log = try W3CLog(parsing: text)
        #expect(log.version == "1.0")
        #expect(log.software == "Other")
        #expect(log.startDate == nil)
        #expect(log.fields == ["a", "b"])
        #expect(log.entries == [["a": "1", "b": "two"], ["a": "x", "b": "y"]])
    }

    @Test("empty text and a header without entries")
    func emptyInputs() throws {
        let empty = try W3CLog(parsing: "")
        #expect(empty.version == nil && empty.software == nil && empty.startDate == nil)
        #expect(empty.fields.isEmpty && empty.entries.isEmpty)
        let headerOnly = try W3CLog(parsing: W3CLogWriter(fields: ["x"], startDate: sampleDate).header())
        #expect(headerOnly.fields == ["x"])
        #expect(headerOnly.entries.isEmpty)
    }

    @Test("quoted values: doubled quotes undone, adjacent quoted values, quoted dash")
    func quoting() throws {
        let log = try W3CLog(parsing: "#Fields: a b c d\n\"\"\"\" \"\" \"-\" \"a\"\"\"\"b\"\n")
        #expect(log.entries == [["a": "\"", "b": "", "c": "-", "d": "a\"\"b"]])
    }

    @Test("a quote inside a bare token is literal")
    func bareQuote() throws {
        let log = try W3CLog(parsing: "#Fields: a\nab\"c\n")
        #expect(log.entries == [["a": "ab\"c"]])
    }

    // MARK: Errors

    @Test("entry before any #Fields")
    func entryBeforeFields() {
        let text = "#Version: 1.0\n\n1 2\n#Fields: a b\n"
        #expect(throws: W3CLogError.entryBeforeFields(line: 3, text: "1 2")) {
            try W3CLog(parsing: text)
        }
    }

    @Test("too many and too few values")
    func countMismatch() {
        #expect(throws: W3CLogError.valueCountMismatch(line: 3, text: "1 2 3", expected: 2, found: 3)) {
            try W3CLog(parsing: "#Fields: a b\n1 2\n1 2 3\n")
        }
        #expect(throws: W3CLogError.valueCountMismatch(line: 4, text: "\"a b\"", expected: 2, found: 1)) {
            try W3CLog(parsing: "#Fields: a b\r\n1 2\r\n#Remark: x\r\n\"a b\"\r\n")
        }
    }

    @Test("mismatch is judged against the newest #Fields")
    func mismatchAfterNewFields() {
        #expect(throws: W3CLogError.valueCountMismatch(line: 4, text: "1 2", expected: 1, found: 2)) {
            try W3CLog(parsing: "#Fields: a b\n1 2\n#Fields: a\n1 2\n")
        }
    }

    @Test("unterminated quoted string")
    func unterminated() {
        #expect(throws: W3CLogError.unterminatedQuotedString(line: 2, text: "1 \"abc")) {
            try W3CLog(parsing: "#Fields: a b\n1 \"abc\n")
        }
        #expect(throws: W3CLogError.unterminatedQuotedString(line: 3, text: "\"ab\"\"")) {
            try W3CLog(parsing: "#Fields: a\n\"ok\"\n\"ab\"\"\n")
        }
    }

    @Test("text glued to a closing quote")
    func textAfterQuote() {
        #expect(throws: W3CLogError.textAfterQuotedString(line: 2, text: "\"ab\"c d")) {
            try W3CLog(parsing: "#Fields: a b\n\"ab\"c d\n")
        }
    }

    @Test("unsupported #Version", arguments: ["2.0", "1.1", ""])
    func badVersion(version: String) {
        let line = "#Version: \(version)"
        #expect(throws: W3CLogError.unsupportedVersion(line: 2, text: line, version: version)) {
            try W3CLog(parsing: "#Remark: first\n\(line)\n#Fields: a\n")
        }
    }

    @Test("error messages name the problem, the line number and the line")
    func messages() {
        let errors: [(W3CLogError, String)] = [
            (.entryBeforeFields(line: 3, text: "1 2"), "before any #Fields"),
            (.valueCountMismatch(line: 4, text: "1", expected: 2, found: 1), "1 value(s) but #Fields names 2"),
            (.unterminatedQuotedString(line: 5, text: "\"x"), "not terminated"),
            (.textAfterQuotedString(line: 6, text: "\"x\"y"), "closing quote"),
            (.unsupportedVersion(line: 7, text: "#Version: 2.0", version: "2.0"), "unsupported #Version \"2.0\""),
        ]
        for (error, fragment) in errors {
            #expect(error.description.contains("line \(error.line):"))
            #expect(error.description.contains(fragment))
            #expect(error.localizedDescription == error.description)
        }
        #expect(W3CLogError.entryBeforeFields(line: 3, text: "1 2").description.hasSuffix(": 1 2"))
    }
}
