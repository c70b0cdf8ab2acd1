import CarryonTestSupport
import HLS
import Testing

/// ISO 8601 dates and times of `EXT-X-PROGRAM-DATE-TIME` and `EXT-X-DATERANGE`.
@Suite("Dates and times")
struct DateTimeTests {
    @Test func utcDate() throws {
        let date = try #require(DateTime("2024-05-01T10:00:00Z"))
        #expect(date.secondsSince1970 == 1_714_557_600)
        #expect(date.text == "2024-05-01T10:00:00Z")
        #expect(date.description == "2024-05-01T10:00:00Z")
    }

    @Test(arguments: [
        ("2010-02-19T14:54:23.031+08:00", 1_266_562_463.031),
        ("2010-02-19T06:54:23.031Z", 1_266_562_463.031),
        ("2010-02-19T01:54:23.031-05:00", 1_266_562_463.031),
        ("2010-02-19T12:24:23.031+0530", 1_266_562_463.031),
        ("2010-02-19T08:54:23.031+02", 1_266_562_463.031),
        ("2010-02-19T06:54:23.031-00:00", 1_266_562_463.031),
        ("2010-02-19t06:54:23.031z", 1_266_562_463.031),
        ("2010-02-19 06:54:23.031Z", 1_266_562_463.031),
    ])
    func timeZoneOffsets(text: String, seconds: Double) throws {
        let date = try #require(DateTime(text))
        #expect(abs(date.secondsSince1970 - seconds) < 1e-6)
    }

    @Test(arguments: [
        ("2024-05-01T10:00:00.5Z", 0.5),
        ("2024-05-01T10:00:00,25Z", 0.25),
        ("2024-05-01T10:00:00.123456789Z", 0.123456789),
        ("2024-05-01T10:00:00.000Z", 0),
        ("2024-05-01T10:00:59.999Z", 59.999),
    ])
    func fractionalSeconds(text: String, fraction: Double) throws {
        let date = try #require(DateTime(text))
        #expect(abs(date.secondsSince1970 - 1_714_557_600 - fraction) < 1e-6)
    }

    @Test func secondsMayBeLeftOut() throws {
        #expect(DateTime("2024-05-01T10:00Z")?.secondsSince1970 == 1_714_557_600)
    }

    @Test func datesBeforeTheEpochAreNegative() {
        #expect(DateTime("1969-12-31T23:59:59Z")?.secondsSince1970 == -1)
        #expect(DateTime("1600-03-01T00:00:00Z")?.secondsSince1970 == -11_670_912_000)
    }

    @Test func leapDays() {
        #expect(DateTime("2024-02-29T00:00:00Z") != nil)
        #expect(DateTime("2000-02-29T12:00:00Z")?.secondsSince1970 == 951_825_600)
        #expect(DateTime("2023-02-29T00:00:00Z") == nil)
        #expect(DateTime("1900-02-29T00:00:00Z") == nil)
    }

    @Test func leapSecondIsAccepted() throws {
        let date = try #require(DateTime("2016-12-31T23:59:60Z"))
        #expect(date.secondsSince1970 == DateTime("2017-01-01T00:00:00Z")?.secondsSince1970)
    }

    @Test(arguments: [
        "", "2024-05-01", "2024-05-01T10:00:00", "2024-05-01T10:00:00+", "2024-05-01T10:00:00+5",
        "2024-13-01T00:00:00Z", "2024-00-01T00:00:00Z", "2024-04-31T00:00:00Z", "2024-05-00T00:00:00Z",
        "2024-05-01T25:00:00Z", "2024-05-01T10:60:00Z", "2024-05-01T10:00:61Z", "2024-05-01T10:00:00.Z",
        "2024-05-01T10:00:00.1.2Z", "2024-5-01T10:00:00Z", "24-05-01T10:00:00Z", "2024/05/01T10:00:00Z",
        "2024-05-01X10:00:00Z", "2024-05-01T10:00:00Z ", " 2024-05-01T10:00:00Z", "2024-05-01T10:00:00ZZ",
        "2024-05-01T10:00:00+01:00:00", "2024-05-01T1a:00:00Z", "yesterday",
        "2024-05-01T24:30:00Z", "2024-05-01T24:00:01Z", "2024-05-01T10:00:00+05:60", "2024-05-01T10:00:00+24:00",
        "2024-05-01T10:00:5Z", "2024-05-01T10:00:.5Z", "2024-05-01T10:00:123Z",
    ])
    func invalidDate(text: String) {
        #expect(DateTime(text) == nil)
    }

    @Test func midnightAtTheEndOfADayIsTheNextDay() {
        #expect(DateTime("2024-05-01T24:00:00Z")?.secondsSince1970 == DateTime("2024-05-02T00:00:00Z")?.secondsSince1970)
    }

    @Test func datesCompareByInstant() throws {
        let utc = try #require(DateTime("2024-05-01T10:00:00Z"))
        let paris = try #require(DateTime("2024-05-01T12:00:00+02:00"))
        let later = try #require(DateTime("2024-05-01T10:00:00.001Z"))
        #expect(!(utc < paris) && !(paris < utc))
        #expect(utc < later)
        #expect(paris < later)
    }

    @Test func dateMadeFromAnInstantIsWrittenInUTCWithMilliseconds() {
        #expect(DateTime(secondsSince1970: 1_714_557_600.25).text == "2024-05-01T10:00:00.250Z")
        #expect(DateTime(secondsSince1970: 0).text == "1970-01-01T00:00:00.000Z")
        #expect(DateTime(secondsSince1970: -0.5).text == "1969-12-31T23:59:59.500Z")
        #expect(DateTime(secondsSince1970: 951_825_600.0004).text == "2000-02-29T12:00:00.000Z")
    }

    @Test func dateMadeFromAnInstantReadsBackEqual() {
        var generator = SeededGenerator(seed: 8216)
        for _ in 0..<2000 {
            let milliseconds = Int64.random(in: -5_000_000_000_000...10_000_000_000_000, using: &generator)
            let date = DateTime(secondsSince1970: Double(milliseconds) / 1000)
            #expect(DateTime(date.text) == date, "\(date.text)")
        }
    }
}
