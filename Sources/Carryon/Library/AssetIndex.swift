import Foundation

/// The library's index: every asset, its renditions and its resources, and their states — the
/// source of truth a session, the playback source and the reading commands share.
///
/// Everything above this protocol speaks of assets, renditions and resources, never of SQL:
/// SQLite is behind it on one machine (``SQLiteAssetIndex``), PostgreSQL where several machines
/// share a library (``PostgresAssetIndex``), with no change above it (see ``IndexLocation``).
/// Every method is one transaction; a failure is a ``CarryonError`` (``CarryonError/Code/disk``
/// when the disk is full, ``CarryonError/Code/library`` otherwise).
protocol AssetIndex: Sendable {
    /// A signal each time another process changes who holds a task or how far it has come
    /// (a claim, a queueing, progress written, a run's end), for a follower to read the index
    /// then rather than on a timer; nil when the index cannot tell (SQLite: followers read it
    /// on a timer).
    func changes() -> AsyncStream<Void>?

    // MARK: Assets

    /// Records a new asset.
    func insert(_ asset: AssetRecord) async throws(CarryonError)
    /// The asset `id`, or nil.
    func asset(_ id: String) async throws(CarryonError) -> AssetRecord?
    /// Every asset's id, oldest first (in the order they were made).
    func assetIDs() async throws(CarryonError) -> [String]
    /// The ids that begin with `prefix`, ignoring case, in id order.
    func assetIDs(startingWith prefix: String) async throws(CarryonError) -> [String]
    /// For each of `urls` that has assets, the id of its latest (the last made; the last
    /// recorded of those made in the same millisecond): one look-up by an index per URL.
    func latestAssetIDs(of urls: [String]) async throws(CarryonError) -> [String: String]
    /// The state recorded for asset `id`, or nil when there is no such asset.
    func state(of id: String) async throws(CarryonError) -> DownloadState?
    /// Every asset's id and recorded state, oldest first, in one read (a state that cannot be
    /// read counts as suspended, as the asset's row does).
    func assetStates() async throws(CarryonError) -> [(id: String, state: DownloadState)]
    /// Records asset `id`'s state at `date`, and `error` as its error message when given (a
    /// task set waiting clears its message); completion records `completedAt`.
    func setState(_ state: DownloadState, of id: String, error: String?, at date: Date) async throws(CarryonError)
    /// Records a new choice of options for asset `id`.
    func setOptions(_ options: DownloadOptions, of id: String) async throws(CarryonError)
    /// Removes asset `id` with its renditions, resources and keys.
    func deleteAsset(_ id: String) async throws(CarryonError)

    /// Up to `limit` assets (every one when nil) in `order` after `after`, recorded in one of
    /// `recordedStates` (any when empty), whose name contains `text` or whose id starts with
    /// it (ignoring case), each with its place in the order: one read, of `columns` (the
    /// records' problems are all named, whatever it leaves out).
    func assets(_ order: AssetQuery.Order, after: AssetCursor?, recordedStates: Set<DownloadState>, text: String?,
                limit: Int?, columns: ListingColumns) async throws(CarryonError) -> [(record: AssetRecord, cursor: AssetCursor)]
    /// Counts one more change to asset `id`'s bundle (see ``AssetFigures``): called after the
    /// change is on disk.
    func bundleChanged(_ id: String) async throws(CarryonError)
    /// Keeps each asset's figures, unless its count of changes moved on since they were
    /// computed; waits at most a moment for the index (figures are computed again when they
    /// cannot be kept).
    func keepFigures(_ updates: [FiguresUpdate]) async throws(CarryonError)

    // MARK: Plans

    /// Records asset `id`'s plan: its renditions, resources and fallbacks (replacing any), its selection,
    /// duration and format. With `keeping`, a resource already recorded with the same URI,
    /// byte range and file keeps its state, size and validators.
    /// With `fence`, refused (``CarryonError/Code/busy``) unless the run still holds the asset;
    /// without, refused while a run holds it.
    func savePlan(_ planned: PlannedStream, of id: String, keeping: Bool, at date: Date, fence: Fence?) async throws(CarryonError)
    /// Adds to asset `id`'s plan what a recording's round appended (``DownloadPlan/appendsTo``):
    /// its resources as new rows after the others, each rendition's duration added to its
    /// own, the asset's duration the longest rendition's. Refused (``AppendRefused``, nothing
    /// written) when the plan has a resource at one of the new URIs already (a segment the
    /// stream names twice, an init section it goes back to): the round is planned whole. The
    /// same claim as ``savePlan(_:of:keeping:at:fence:)`` is required.
    func appendPlan(_ planned: PlannedStream, of id: String, at date: Date, fence: Fence?) async throws(CarryonError)
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
    /// What names each of asset `id`'s resources on disk: ``ResourceRecord/onDiskKey(_:offset:)``
    /// of its URI and byte range offset (a finished recording's check, without a record a row).
    func onDiskKeys(of id: String) async throws(CarryonError) -> Set<String>
    /// How many of asset `id`'s resources (of one rendition, when given) are not on disk.
    func pendingCount(of id: String, rendition: String?) async throws(CarryonError) -> Int
    /// How many of `resourceIDs` are not on disk.
    func pendingCount(of resourceIDs: [Int64]) async throws(CarryonError) -> Int
    /// The bytes asset `id`'s resources not on disk are expected to take.
    func pendingBytes(of id: String) async throws(CarryonError) -> Int
    /// Records resource `resourceID` on disk with `bytes` bytes, the response's validators and
    /// the bytes' SHA-256 (lowercase hex); with `fence`, refused (``CarryonError/Code/busy``)
    /// unless the run still holds the asset.
    func markDone(_ resourceID: Int64, bytes: Int, etag: String?, lastModified: String?, sha256: String?, fence: Fence?) async throws(CarryonError)
    /// Records resources `resourceIDs` of asset `id` as not on disk, to be fetched again (a
    /// repair): their size, validators and digest are forgotten; what is in their files stays
    /// until the fetch puts new bytes in place.
    func markPending(_ resourceIDs: [Int64], of id: String) async throws(CarryonError)
    /// Moves resources of asset `id` to fresh locations (their signed URLs expired); with
    /// `fence`, refused unless the run still holds the asset.
    func relocate(_ moves: [(id: Int64, uri: String)], of id: String, fence: Fence?) async throws(CarryonError)
    /// For each of asset `id`'s renditions, how many resources it has and how many are done.
    func resourceCounts(of id: String) async throws(CarryonError) -> [String: (done: Int, total: Int)]
    /// Asset `id`'s bundle files with the URI each came from, each once, in fetch order.
    func files(of id: String) async throws(CarryonError) -> [(fileName: String, uri: String)]

    // MARK: Ownership (see Ownership: each decision is one transaction)

    /// Records `instance` alive until `until` (a session that queues or runs tasks), at `now`;
    /// `fleetWorker`: it claims the fleet's tasks.
    func register(_ instance: Instance, label: String, fleetWorker: Bool, until: Date, at now: Date) async throws(CarryonError)
    /// Removes instance `instanceID`: its process stops; what it queued is no one's.
    func unregister(_ instanceID: String) async throws(CarryonError)
    /// The live instances that claim the fleet's tasks, the longest-running first.
    func fleetWorkers(_ context: OwnershipContext) async throws(CarryonError) -> [FleetWorker]
    /// Who holds asset `id`, or nil when there is no such asset.
    func ownership(of id: String, _ context: OwnershipContext) async throws(CarryonError) -> TaskOwnership?
    /// Who holds each asset.
    func ownerships(_ context: OwnershipContext) async throws(CarryonError) -> [String: TaskOwnership]
    /// Who holds each asset a process may hold (its row names an owner or a queue, or says
    /// running or waiting): every other asset is held by no one and shows its recorded state.
    /// What a listing needs, in time proportional to the downloads, not to the library.
    func holdings(_ context: OwnershipContext) async throws(CarryonError) -> [String: TaskOwnership]
    /// Queues asset `id` for instance `instance` (to start no sooner than `start`) when the rules
    /// allow it, and returns what they decided and who held it before.
    func enqueue(_ id: String, by instance: String, startingAt start: Date?,
                 _ context: OwnershipContext) async throws(CarryonError) -> (Ownership.EnqueueDecision, TaskOwnership?)
    /// Claims the first task `instance` queued whose time has come (priority, then time
    /// queued): running, owned by it under a new epoch until the lease ends; with `fromFleet`,
    /// the fleet's tasks too (see ``Ownership/claim(_:by:fromFleet:now:lease:isAlive:)``). Nil: none.
    func claimNext(by instance: String, fromFleet: Bool, lease: Double, _ context: OwnershipContext) async throws(CarryonError) -> Fence?
    /// Renews `instance`'s heartbeat and the leases of its runs; returns the runs whose claim is lost.
    func renew(_ instance: Instance, label: String, fleetWorker: Bool, aliveUntil: Date, fences: [Fence], lease: Double,
               _ context: OwnershipContext) async throws(CarryonError) -> [Fence]
    /// Ends the run `fence` names: records `state` (and `error`) and releases the asset; with
    /// `requeueAt`, it waits in its owner's queue until then. Refused when the claim is lost.
    func endRun(_ fence: Fence, state: DownloadState, error: String?, requeueAt: Date?, at date: Date) async throws(CarryonError)
    /// Records `state` for asset `id` unless another live instance holds it; returns that
    /// holder (nothing written) or nil (written). `error` replaces the error message when given
    /// (an empty one clears it).
    func setStateUnlessHeld(_ state: DownloadState, of id: String, by instance: String, error: String?,
                            _ context: OwnershipContext) async throws(CarryonError) -> TaskOwnership?
    /// Leaves `request` for the live instance holding asset `id` (with `onlyIfUnheld`, leaves
    /// nothing and says who holds it).
    func request(_ request: Ownership.Request, of id: String, by instance: String, onlyIfUnheld: Bool,
                 _ context: OwnershipContext) async throws(CarryonError) -> RequestOutcome
    /// Takes `request` off asset `id`'s row before its holder applies it: false when it is no
    /// longer there (taken already).
    func takeRequest(_ request: Ownership.Request, of id: String) async throws(CarryonError) -> Bool
    /// The requests left for the tasks `instance` runs or has queued.
    func requests(for instance: String) async throws(CarryonError) -> [(id: String, request: Ownership.Request)]
    /// Whether the run `fence` names still holds its asset (no one claimed it since).
    func holds(_ fence: Fence) async throws(CarryonError) -> Bool
    /// Records the progress of the run `fence` names, for other processes to show.
    func writeProgress(_ progress: DownloadProgress, fence: Fence) async throws(CarryonError)
    /// Records a player's lease on asset `assetID` held by `instance` until `until`.
    func holdPlayback(_ assetID: String, by instance: Instance, until: Date) async throws(CarryonError)
    /// Ends holder `holder`'s leases on `assetIDs` (all of them when nil).
    func releasePlayback(_ assetIDs: [String]?, by holder: String) async throws(CarryonError)
    /// The live players' leases, by asset.
    func playbackHolders(_ context: OwnershipContext) async throws(CarryonError) -> [String: [Instance]]

    // MARK: Content keys (sealed: the index never holds a key in clear)

    /// Keeps a sealed key as `info` describes it, replacing one of the same id; its first
    /// playback is forgotten.
    /// With `fence` (a run's), refused unless the run still holds the asset.
    func storeKey(_ info: ContentKeyInfo, sealed: Data, fence: Fence?) async throws(CarryonError)
    /// The keys of asset `assetID` (of every asset when nil), without their sealed bytes.
    func keys(of assetID: String?) async throws(CarryonError) -> [ContentKeyInfo]
    /// Key `keyID` of asset `assetID` with its sealed bytes (nil once invalidated), or nil.
    func sealedKey(_ keyID: String, of assetID: String) async throws(CarryonError) -> SealedKey?
    /// Records key `keyID`'s first playback at `date`, unless one is recorded.
    func recordFirstPlayback(ofKey keyID: String, of assetID: String, at date: Date) async throws(CarryonError)
    /// Deletes the sealed bytes of every key of asset `assetID`; the keys stay listed.
    func invalidateKeys(of assetID: String) async throws(CarryonError)
    /// Forgets every key of asset `assetID`.
    func removeKeys(of assetID: String) async throws(CarryonError)

    // MARK: Storage

    /// Every asset's record, lean: without its selection and figures (but their size and
    /// fraction), what a purge plan and the storage report need.
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

/// What a listing reads of each asset's row: never its options and headers (no listing shows
/// them; they are only checked to be readable), and its JSON only when what it makes shows it.
enum ListingColumns: Sendable {
    /// What a snapshot shows: the selection and the figures too.
    case snapshot
    /// What a table shows: no JSON at all (the records' selection and figures are nil).
    case table
}

/// Why an index refused to append a round's resources to a plan (see
/// ``AssetIndex/appendPlan(_:of:at:fence:)``): the cause of the error it throws.
struct AppendRefused: Error {
    static func error(_ id: String, uri: String) -> CarryonError {
        CarryonError(.invalidState, "\(id): its plan has \(uri) already; the round is planned whole", cause: AppendRefused())
    }
}
