import Foundation

/// A folder of offline bundles with an index: the persistent store a ``DownloadSession`` works
/// on. Tasks outlive the process because their state lives here.
///
/// The index is the source of truth for state; every state change is one transaction. It is
/// `index.sqlite` (WAL mode) in the folder, or a PostgreSQL database that several machines
/// share, the folder then on a shared file system (``IndexLocation``). Each asset has a bundle
/// folder under `bundles/`.
///
/// ```swift
/// let library = try OfflineLibrary(root: OfflineLibrary.defaultRoot())
/// for asset in try await library.assets() { print(asset.id, asset.name, asset.state) }
/// ```
public final class OfflineLibrary: Sendable {
    /// The library folder.
    public let root: URL
    /// ``root``'s path, without a trailing slash.
    let rootPath: String
    /// Where the index is: SQLite in the library folder, or a PostgreSQL database a fleet shares.
    public let indexLocation: IndexLocation
    /// The index of the library's assets, renditions, resources, keys and settings: the one
    /// place that knows how they are stored.
    let index: any AssetIndex

    /// The app's own master key, when it gave one; else the library's (see ``masterKey()``).
    private let appMasterKey: MasterKey?

    /// Opens (creating if needed) the library at `root`.
    ///
    /// - Parameters:
    ///   - root: The library folder.
    ///   - masterKey: The app's own master key for the library's content keys (kept in a
    ///     platform keystore, say); nil: the library's own (see
    ///     ``MasterKey/forLibrary(at:environment:)``). Every key store, session and playback
    ///     server over this library uses it.
    ///   - index: Where the library's index is: `index.sqlite` in the folder (the default), or
    ///     a PostgreSQL database that a fleet's machines share, whose bundles are in `root` on a
    ///     shared file system (see ``IndexLocation``). A PostgreSQL index is connected to, and its
    ///     schema created or migrated, by the first call that reads or writes it.
    /// - Throws: ``CarryonError`` with code ``CarryonError/Code/library`` when the folder cannot
    ///   be created or the index cannot be opened or migrated.
    public init(root: URL, masterKey: MasterKey? = nil, index: IndexLocation = .sqlite) throws(CarryonError) {
        self.root = root.standardizedFileURL
        var rootPath = self.root.path
        while rootPath.count > 1, rootPath.hasSuffix("/") { rootPath.removeLast() }
        self.rootPath = rootPath
        self.appMasterKey = masterKey
        self.indexLocation = index
        do {
            try FileManager.default.createDirectory(at: self.root.appending(path: "bundles", directoryHint: .isDirectory), withIntermediateDirectories: true)
        } catch {
            throw CarryonError(.library, "cannot open the library at \(root.path): \(error)", cause: error)
        }
        switch indexLocation {
        case .sqlite: self.index = try SQLiteAssetIndex(root: self.root)
        case .postgres(let url): self.index = try PostgresAssetIndex(url: url)
        }
    }

    /// Where the library lives unless told otherwise: `$CARRYON_HOME`, else
    /// `$XDG_DATA_HOME/carryon`, else `~/.local/share/carryon`. A relative `XDG_DATA_HOME` is
    /// ignored, as the XDG Base Directory specification asks.
    public static func defaultRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let home = environment["CARRYON_HOME"], !home.isEmpty { return URL(fileURLWithPath: home) }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data).appending(path: "carryon", directoryHint: .isDirectory)
        }
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        return URL(fileURLWithPath: home).appending(path: ".local/share/carryon", directoryHint: .isDirectory)
    }

    /// The master key the library's content keys are sealed under: the app's, given when the
    /// library was opened, else the library's own, read (or made) now — so that listing and
    /// invalidating keys, which need none, work on a full disk.
    ///
    /// - Throws: ``CarryonError/Code/keys`` when the library's master key cannot be read or made.
    public func masterKey() throws(CarryonError) -> MasterKey {
        if let appMasterKey { return appMasterKey }
        return try MasterKey.forLibrary(at: root)
    }

    /// The bundle folder of an asset.
    public func bundleURL(for id: String) -> URL {
        root.appending(path: "bundles", directoryHint: .isDirectory).appending(path: id, directoryHint: .isDirectory)
    }

    /// Whether asset `id`'s bundle is missing because this machine does not see the library's
    /// folder: a shared index (PostgreSQL) names bundles in the folder a fleet's machines mount,
    /// and here the bundle is absent and `bundles/` holds nothing at all (not mounted, or
    /// another `--library`). A bundle missing beside others is missing: damage, as with SQLite,
    /// whose index lives in the folder it names.
    func bundleIsOutOfSight(_ id: String) -> Bool {
        guard indexLocation != .sqlite, !FileManager.default.fileExists(atPath: bundlePath(for: id)) else { return false }
        guard let folder = opendir(rootPath + "/bundles") else { return true }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { return false }
        }
        return true
    }

    /// The path of the bundle folder of an asset, as ``bundleURL(for:)`` gives it, without a
    /// trailing slash: for the playback server's requests, each of which a `URL` built per path
    /// component cost a tenth of the time spent on.
    public func bundlePath(for id: String) -> String {
        rootPath + "/bundles/" + id
    }

}
