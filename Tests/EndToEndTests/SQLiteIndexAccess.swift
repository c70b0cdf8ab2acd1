@testable import Carryon

extension OfflineLibrary {
    /// The SQLite index behind the library, for tests that set up or read rows directly.
    var sqlite: SQLiteAssetIndex { index as! SQLiteAssetIndex }
}
