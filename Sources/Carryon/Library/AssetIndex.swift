import Foundation

/// The library's index: every asset, its renditions and its resources, and their states — the
/// source of truth a session, the playback source and the reading commands share.
///
/// Everything above this protocol speaks of assets, renditions and resources, never of SQL:
/// SQLite is behind it today (``SQLiteAssetIndex``), and a backend shared by several machines
/// (PostgreSQL, tasks claimed with leases) can implement it later without a change above it.
/// Every method is one transaction; a failure is a ``CarryonError`` (``CarryonError/Code/disk``
/// when the disk is full, ``CarryonError/Code/library`` otherwise).
protocol AssetIndex: Sendable {
    // MARK: Assets

    /// Records a new asset.
    func insert(_ asset: AssetRecord) async throws(CarryonError)
    /// The asset `id`, or nil.
    func asset(_ id: String) async throws(CarryonError) -> AssetRecord?
    /// Every asset's id, oldest first (in the order they were made).
    func assetIDs() async throws(CarryonError) -> [String]
    /// The ids that begin with `prefix`, ignoring case, in id order.
    func assetIDs(startingWith prefix: String) async throws(CarryonError) -> [String]
    /// The state recorded for asset `id`, or nil when there is no such asset.
    func state(of id: String) async throws(CarryonError) -> DownloadState?
    /// Records asset `id`'s state at `date`, and `error` as its error message when given (a
    /// task set waiting clears its message); completion records `completedAt`.
    func setState(_ state: DownloadState, of id: String, error: String?, at date: Date) async throws(CarryonError)
    /// The assets recorded as running or waiting: after a crash, those whose process is gone.
    func interruptedAssetIDs() async throws(CarryonError) -> [String]
    /// Records asset `id` suspended, if it is still recorded as running or waiting.
    func suspendIfInterrupted(_ id: String) async throws(CarryonError)
    /// Records a new choice of options for asset `id`.
    func setOptions(_ options: DownloadOptions, of id: String) async throws(CarryonError)
    /// Removes asset `id` with its renditions, resources and keys.
    func deleteAsset(_ id: String) async throws(CarryonError)

    // MARK: Plans

    /// Records asset `id`'s plan: its renditions, resources and fallbacks (replacing any), its selection,
    /// duration and format. With `keeping`, a resource already recorded with the same URI,
    /// byte range and file keeps its state, size and validators.
    func savePlan(_ planned: PlannedStream, of id: String, keeping: Bool, at date: Date) async throws(CarryonError)
    /// Forgets asset `id`'s plan: its renditions, resources and fallbacks; the asset is unplanned.
    func forgetPlan(of id: String) async throws(CarryonError)
    /// Other locations of asset `id`'s files, as its plan recorded them.
    func fallbacks(of id: String) async throws(CarryonError) -> [Fallback]
    /// Asset `id`'s renditions, in selection order.
    func renditions(of id: String) async throws(CarryonError) -> [RenditionRecord]

    // MARK: Resources

    /// Asset `id`'s resources, in the order they are fetched.
    func resources(of id: String) async throws(CarryonError) -> [ResourceRecord]
    /// Up to `limit` of asset `id`'s resources not on disk, in playback order (ordinal, then
    /// id), after `place` (from the first when nil): the transfer's queue, read a page at a time.
    func pendingResources(of id: String, after place: ResourcePlace?, limit: Int) async throws(CarryonError) -> [ResourceRecord]
    /// The resources of asset `id` among `resourceIDs`.
    func resources(_ resourceIDs: [Int64], of id: String) async throws(CarryonError) -> [ResourceRecord]
    /// The resources of asset `id` stored in bundle file `fileName`, by offset.
    func resources(inFile fileName: String, of id: String) async throws(CarryonError) -> [ResourceRecord]
    /// Asset `id`'s resources on disk.
    func doneResources(of id: String) async throws(CarryonError) -> [ResourceRecord]
    /// How many of asset `id`'s resources (of one rendition, when given) are not on disk.
    func pendingCount(of id: String, rendition: String?) async throws(CarryonError) -> Int
    /// How many of `resourceIDs` are not on disk.
    func pendingCount(of resourceIDs: [Int64]) async throws(CarryonError) -> Int
    /// The bytes asset `id`'s resources not on disk are expected to take.
    func pendingBytes(of id: String) async throws(CarryonError) -> Int
    /// Records resource `resourceID` on disk with `bytes` bytes and the response's validators.
    func markDone(_ resourceID: Int64, bytes: Int, etag: String?, lastModified: String?) async throws(CarryonError)
    /// Moves resources of asset `id` to fresh locations (their signed URLs expired).
    func relocate(_ moves: [(id: Int64, uri: String)], of id: String) async throws(CarryonError)
    /// For each of asset `id`'s renditions, how many resources it has and how many are done.
    func resourceCounts(of id: String) async throws(CarryonError) -> [String: (done: Int, total: Int)]
    /// Asset `id`'s bundle files with the URI each came from, each once, in fetch order.
    func files(of id: String) async throws(CarryonError) -> [(fileName: String, uri: String)]

    // MARK: Content keys (sealed: the index never holds a key in clear)

    /// Keeps a sealed key as `info` describes it, replacing one of the same id; its first
    /// playback is forgotten.
    func storeKey(_ info: ContentKeyInfo, sealed: Data) async throws(CarryonError)
    /// The keys of asset `assetID` (of every asset when nil), without their sealed bytes.
    func keys(of assetID: String?) async throws(CarryonError) -> [ContentKeyInfo]
    /// Key `keyID` of asset `assetID` with its sealed bytes (nil once invalidated), or nil.
    func sealedKey(_ keyID: String, of assetID: String) async throws(CarryonError) -> SealedKey?
    /// Records key `keyID`'s first playback at `date`, unless one is recorded.
    func recordFirstPlayback(ofKey keyID: String, of assetID: String, at date: Date) async throws(CarryonError)
    /// Gives every key of asset `assetID` a new lifetime.
    func setKeyLifetime(_ lifetime: KeyLifetime, of assetID: String) async throws(CarryonError)
    /// Deletes the sealed bytes of every key of asset `assetID`; the keys stay listed.
    func invalidateKeys(of assetID: String) async throws(CarryonError)
    /// Forgets every key of asset `assetID`.
    func removeKeys(of assetID: String) async throws(CarryonError)

    // MARK: Storage

    /// Every asset's record.
    func allAssets() async throws(CarryonError) -> [AssetRecord]
    /// Sets asset `id`'s storage policy; false when there is no such asset.
    func setPolicy(_ policy: StoragePolicy, of id: String) async throws(CarryonError) -> Bool
    /// Records that a player asked for asset `id` at `date`.
    func markPlayed(_ id: String, at date: Date) async throws(CarryonError)
    /// The library's storage settings.
    func storageSettings() async throws(CarryonError) -> LibraryStorageSettings
    /// Replaces the library's storage settings.
    func setStorageSettings(_ settings: LibraryStorageSettings) async throws(CarryonError)
}

/// A content key as the index keeps it: its description, and its bytes sealed under the
/// library's master key (nil once invalidated).
struct SealedKey: Sendable {
    var info: ContentKeyInfo
    var sealed: Data?
}
