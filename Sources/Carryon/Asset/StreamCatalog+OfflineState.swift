/// Each catalog stream's offline state, as Apple's sample app shows it beside the stream.
extension StreamCatalog {
    /// One stream of the catalog and what the library has of it: `catalog --json`'s rows and
    /// the daemon's `GET /api/catalog`.
    public struct OfflineState: Sendable, Hashable, Codable {
        /// The stream's name in the catalog.
        public var name: String
        /// Its playlist's URL.
        public var url: String
        /// `not-downloaded`, or the state of the library's latest asset of that URL (`waiting`,
        /// `running`, `suspended`, `completed`, `failed`, `cancelled`).
        public var state: String
        /// That asset's id.
        public var id: String?
        /// How much of it is downloaded, 0 to 1.
        public var fraction: Double?
        /// Bytes its bundle takes.
        public var bytesOnDisk: Int?
        /// Whether it plays offline (its variant and main audio are complete).
        public var playableOffline: Bool
    }

    /// Each entry's state given the library's `assets` (oldest first, as
    /// `DownloadSession.tasks()` lists them): the latest asset of an entry's URL is its.
    public func offlineStates(given assets: [AssetSnapshot]) -> [OfflineState] {
        var latest: [String: AssetSnapshot] = [:]
        for asset in assets { latest[asset.url] = asset }
        return entries.map { entry in
            guard let asset = latest[entry.playlistURL] else {
                return OfflineState(name: entry.name, url: entry.playlistURL, state: "not-downloaded", playableOffline: false)
            }
            return OfflineState(name: entry.name, url: entry.playlistURL, state: asset.state.rawValue, id: asset.id,
                                fraction: asset.progress.fraction, bytesOnDisk: asset.bytesOnDisk,
                                playableOffline: asset.cache.isPlayableOffline)
        }
    }
}
