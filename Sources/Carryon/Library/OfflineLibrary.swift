import Foundation

/// A folder of offline bundles with an index (SQLite, behind the `AssetIndex` protocol): the persistent store a ``DownloadSession``
/// works on. Tasks outlive the process because their state lives here.
///
/// The index (`index.sqlite`, WAL mode) is the source of truth for state; every state change is
/// one transaction. Each asset has a bundle folder under `bundles/`.
///
/// ```swift
/// let library = try OfflineLibrary(root: OfflineLibrary.defaultRoot())
/// for asset in try await library.assets() { print(asset.id, asset.name, asset.state) }
/// ```
public final class OfflineLibrary: Sendable {
    /// The library folder.
    public let root: URL
    /// The index of the library's assets, renditions, resources, keys and settings: the one
    /// place that knows how they are stored.
    let index: any AssetIndex

    /// Opens (creating if needed) the library at `root`.
    ///
    /// - Throws: ``CarryonError`` with code ``CarryonError/Code/library`` when the folder cannot
    ///   be created or the index cannot be opened or migrated.
    public init(root: URL) throws(CarryonError) {
        self.root = root.standardizedFileURL
        do {
            try FileManager.default.createDirectory(at: self.root.appendingPathComponent("bundles"), withIntermediateDirectories: true)
        } catch {
            throw CarryonError(.library, "cannot open the library at \(root.path): \(error)", cause: error)
        }
        index = try SQLiteAssetIndex(root: self.root)
    }

    /// Where the library lives unless told otherwise: `$CARRYON_HOME`, else
    /// `$XDG_DATA_HOME/carryon`, else `~/.local/share/carryon`. A relative `XDG_DATA_HOME` is
    /// ignored, as the XDG Base Directory specification asks.
    public static func defaultRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let home = environment["CARRYON_HOME"], !home.isEmpty { return URL(fileURLWithPath: home) }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data).appendingPathComponent("carryon")
        }
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        return URL(fileURLWithPath: home).appendingPathComponent(".local/share/carryon")
    }

    /// The bundle folder of an asset.
    public func bundleURL(for id: String) -> URL {
        root.appendingPathComponent("bundles").appendingPathComponent(id)
    }

}
