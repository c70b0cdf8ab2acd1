import Foundation
// The subject of these tests is the SQLite backend itself (the dates it stores, against GRDB's
// own), so they speak GRDB; tests of the index's behaviour go through AssetIndex.
import GRDB
import Testing
@testable import Carryon

/// The index's dates are written and read without ICU, and exactly as GRDB wrote and read them,
/// so every library an earlier release wrote reads the same.
@Suite("IndexDate")
struct IndexDateTests {
    /// Instants from 1900 to 2200, at random milliseconds and fractions of them.
    private static func randomDates(count: Int) -> [Date] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in
            Date(timeIntervalSince1970: Double.random(in: -2_208_988_800...7_258_118_400, using: &generator))
        }
    }

    @Test("writes the text GRDB's formatter writes, to the millisecond")
    func writesGRDBsText() {
        for date in Self.randomDates(count: 2_000) + [Date(timeIntervalSince1970: 0),
                                                     Date(timeIntervalSince1970: 1_709_622_489.123),
                                                     Date(timeIntervalSince1970: -0.0005),
                                                     Date(timeIntervalSince1970: 951_782_400)] { // 2000-02-29
            #expect(IndexDate(date).databaseValue == date.databaseValue, "\(date.timeIntervalSince1970)")
        }
        #expect(IndexDate.text(of: Date(timeIntervalSince1970: 1_709_622_489.123_4)) == "2024-03-05 07:08:09.123")
        #expect(IndexDate.text(of: Date(timeIntervalSince1970: 1_709_622_489.123_9)) == "2024-03-05 07:08:09.124")
    }

    @Test("reads its own text as GRDB reads it")
    func readsAsGRDBReads() throws {
        for date in Self.randomDates(count: 2_000) {
            let stored = date.databaseValue
            let text = try #require(String.fromDatabaseValue(stored))
            let ours = try #require(IndexDate.date(fromStoredText: text))
            let grdbs = try #require(Date.fromDatabaseValue(stored))
            #expect(abs(ours.timeIntervalSince(grdbs)) < 1e-6, "\(stored)")
            #expect(IndexDate.text(of: ours) == IndexDate.text(of: date))
        }
    }

    @Test("hands every other form SQLite dates take to GRDB's reading", arguments: [
        "2024-03-05", "2024-03-05 07:08", "2024-03-05 07:08:09", "2024-03-05T07:08:09.123",
        "2024-03-05 07:08:09.123456", "2024-03-05 07:08:09.123+02:00", "2024-03-05 07:08:09.123Z",
    ])
    func otherForms(text: String) throws {
        #expect(IndexDate.date(fromStoredText: text) == nil)
        let expected = try #require(Date.fromDatabaseValue(text.databaseValue))
        #expect(IndexDate.date(from: text.databaseValue) == expected)
    }

    @Test("reads numbers as seconds since 1970, odd text as GRDB does, and refuses what names no instant")
    func numbersAndNonsense() {
        #expect(IndexDate.date(from: 1_709_622_489.5.databaseValue) == Date(timeIntervalSince1970: 1_709_622_489.5))
        // GRDB's calendar is lenient: the thirteenth month is next year's first.
        let odd = "2024-13-05 07:08:09.123".databaseValue
        #expect(IndexDate.date(fromStoredText: "2024-13-05 07:08:09.123") == nil)
        #expect(IndexDate.date(from: odd) != nil)
        #expect(IndexDate.date(from: odd) == Date.fromDatabaseValue(odd))
        #expect(IndexDate.date(from: "yesterday".databaseValue) == nil)
        #expect(IndexDate.date(from: .null) == nil)
    }

    @Test("an asset's dates go through the index and come back")
    func assetDatesRoundTrip() async throws {
        let dbQueue = try DatabaseQueue()
        let created = Date(timeIntervalSince1970: 1_709_622_489.123)
        try await dbQueue.write { db in
            try db.execute(sql: "CREATE TABLE t (d TEXT)")
            try db.execute(sql: "INSERT INTO t (d) VALUES (?)", arguments: [IndexDate(created)])
        }
        let text = try await dbQueue.read { db in try String.fetchOne(db, sql: "SELECT d FROM t") }
        #expect(text == "2024-03-05 07:08:09.123")
        let back = try await dbQueue.read { db in try IndexDate.fetchOne(db, sql: "SELECT d FROM t") }
        #expect(back?.date == created)
    }
}
