import Foundation
import Testing
@testable import Carryon

/// UTC calendar arithmetic, done without Foundation's Calendar (which loads ICU's data), must
/// give what Foundation gives.
@Suite("UTCComponents")
struct UTCComponentsTests {
    @Test("a day count and its date are each other's inverse, leap days and centuries included")
    func daysAndDatesInvert() {
        for days in stride(from: Int64(-800_000), through: 800_000, by: 7) {
            let (year, month, day) = UTCComponents.civilDate(daysSince1970: days)
            #expect(UTCComponents.daysSince1970(year: Int64(year), month: Int64(month), day: Int64(day)) == days)
        }
        #expect(UTCComponents.daysSince1970(year: 1970, month: 1, day: 1) == 0)
        #expect(UTCComponents.daysSince1970(year: 2000, month: 2, day: 29) == 11_016)
        #expect(UTCComponents.daysSince1970(year: 1900, month: 3, day: 1) == -25_508)
        // A day past the month's end counts on: 2023-02-31 is 2023-03-03.
        #expect(UTCComponents.daysSince1970(year: 2023, month: 2, day: 31) == UTCComponents.daysSince1970(year: 2023, month: 3, day: 3))
    }

    @Test("the internet date-time is the text JSONEncoder's .iso8601 writes")
    func internetDateTimeMatchesJSONEncoder() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        var generator = SystemRandomNumberGenerator()
        let dates = (0..<1_000).map { _ in Date(timeIntervalSince1970: Double.random(in: 0...7_258_118_400, using: &generator)) }
        for date in dates + [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 951_782_399.999)] {
            let expected = try JSONDecoder().decode(String.self, from: try encoder.encode(date))
            #expect(UTCComponents(date).internetDateTimeText == expected, "\(date.timeIntervalSince1970)")
        }
        #expect(UTCComponents(Date(timeIntervalSince1970: 1_709_622_489.9)).internetDateTimeText == "2024-03-05T07:08:09Z")
    }
}
