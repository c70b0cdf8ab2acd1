@testable import Carryon
import Foundation
// The subject of this test is the SQLite backend itself (how it words GRDB's errors), so it
// speaks GRDB and names SQLiteAssetIndex; the rest of the suite goes through AssetIndex.
import GRDB
import Testing

extension UnreadableValuesTests {
    @Test("an error reading the index names what failed without the row it was reading")
    func errorsDoNotDumpRows() throws {
        struct Probe: FetchableRecord, Decodable { var when: Date; var url: String; var headers: String }
        let database = try DatabaseQueue()
        let error = try #require(throws: RowDecodingError.self) {
            try database.read { db in
                try Probe.fetchAll(db, sql: "SELECT 'soon' AS \"when\", 'https://user:secret@cdn.example/x.m3u8' AS url, 'Authorization' AS headers")
            }
        }
        #expect("\(error)".contains("secret"), "GRDB's own description quotes the row")
        let text = SQLiteAssetIndex.describe(error)
        #expect(!text.contains("secret") && !text.contains("Authorization"), "\(text)")
        #expect(SQLiteAssetIndex.describe(CarryonError(.library, String(repeating: "y", count: 10_000))).count <= 301)
    }
}
