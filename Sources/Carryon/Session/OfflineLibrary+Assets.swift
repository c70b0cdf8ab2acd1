import Foundation

/// Reading a library's assets without a session: what `list` and `show` print, with no HTTP
/// client made and nothing written — so they work while other processes download, and on a
/// full disk.
extension OfflineLibrary {
    /// Every asset in the library, oldest first, as it is now.
    ///
    /// An asset recorded as running or waiting that no live process holds (its process died,
    /// or its lease ran out) is shown suspended: any process may resume it. A download another
    /// process runs shows the progress its owner wrote to the index, at most half a second old.
    public func assets() async throws(CarryonError) -> [AssetSnapshot] {
        try await assets(AssetQuery()).assets
    }

    /// A page of the library's assets, as ``assets()`` shows them: those `query` filters, in
    /// its order, after its cursor. One read of the index for the page, whatever the library's
    /// size; an asset's resources are read and its bundle walked only when it changed since it
    /// was last listed (see ``AssetQuery`` for how pages follow each other).
    ///
    /// - Throws: ``CarryonError/Code/invalidValue`` when the query's limit or cursor is not one
    ///   a listing can take.
    public func assets(_ query: AssetQuery) async throws(CarryonError) -> AssetPage<AssetSnapshot> {
        try await page(query, ownerships: try await index.holdings(ownershipContext()), live: [:]) { record, live, ownership, kept in
            await snapshot(of: record, live: live, ownership: ownership, keeping: &kept)
        }
    }

    /// A page of the library as a table shows it (see ``assets(_:)``): an asset that did not
    /// change since it was last listed is its row alone, its figures not even decoded.
    ///
    /// - Throws: ``CarryonError/Code/invalidValue`` when the query's limit or cursor is not one
    ///   a listing can take.
    public func summaries(_ query: AssetQuery) async throws(CarryonError) -> AssetPage<AssetSummary> {
        try await page(query, columns: .table, ownerships: try await index.holdings(ownershipContext()), live: [:]) { record, live, ownership, kept in
            let held = ownership?.holder != nil
            if !held, record.figuresAreCurrent, let bytes = record.bytesOnDisk, let fraction = record.fraction {
                return AssetSummary(id: record.id, name: record.name, url: record.url, state: ownership?.effectiveState ?? record.state,
                                    fraction: fraction, bytesOnDisk: bytes, duration: record.duration, createdAt: record.createdAt,
                                    problems: record.problems.isEmpty ? nil : record.problems)
            }
            // Changed since it was last listed, or being downloaded: its whole row, as a snapshot.
            // Deleted since the page was read: not listed.
            guard let whole = try? await index.asset(record.id) else { return nil }
            return AssetSummary(await snapshot(of: whole, live: live, ownership: ownership, keeping: &kept))
        }
    }

    /// A page of `query`, each asset as `make` makes it from its row (nil: it is not listed), what `live` (a session)
    /// knows of it, and `ownerships`' entry — read before the page (those a process may hold,
    /// at least: an asset without one shows its recorded state); `make` adds the figures it
    /// computed to its last argument, and they are kept in one write. `columns` says what the
    /// rows hold (see ``ListingColumns``).
    func page<Item: Sendable>(_ query: AssetQuery, columns: ListingColumns = .snapshot, ownerships: [String: TaskOwnership], live: [String: LiveState],
                              make: (AssetRecord, LiveState?, TaskOwnership?, inout [FiguresUpdate]) async -> Item?) async throws(CarryonError) -> AssetPage<Item> {
        let (limit, after) = try query.validated()
        var recorded = query.states
        // A running or waiting row no live process holds shows as suspended: asked for any of
        // the three, the page reads all three and keeps the states asked for.
        if !recorded.isDisjoint(with: [.suspended, .running, .waiting]) { recorded.formUnion([.suspended, .running, .waiting]) }
        var place = after
        var items: [Item] = []
        var kept: [FiguresUpdate] = []
        var next: String?
        // Rows are read a batch at a time, the next batch while this one is made (reading is
        // a third of a listing's time, making the rest, on another core). Batches follow each
        // other as pages do: none repeats or skips an asset, whatever changes between them.
        let index = index
        let order = query.order
        let text = query.text
        let states = recorded
        func read(after place: AssetCursor?, _ count: Int) -> Task<[(record: AssetRecord, cursor: AssetCursor)], any Error> {
            Task { try await index.assets(order, after: place, recordedStates: states, text: text, limit: count, columns: columns) }
        }
        var wanted = min(limit.map { $0 + 1 } ?? Self.listingBatch, Self.listingBatch)
        var reading = read(after: place, wanted)
        defer { reading.cancel() }
        listing: while true {
            let rows: [(record: AssetRecord, cursor: AssetCursor)]
            do {
                rows = try await reading.value
            } catch {
                throw error as? CarryonError ?? CarryonError(.library, "reading the library's index failed: \(error)")
            }
            let more = rows.count == wanted
            // A whole listing reads ahead; a page reads on only when its rows were filtered
            // out (most pages end within their first read).
            if more, limit == nil, let last = rows.last { reading = read(after: last.cursor, wanted) }
            for (record, cursor) in rows {
                let live = live[record.id]
                let ownership = ownerships[record.id]
                if !query.states.isEmpty, !query.states.contains(live?.state ?? ownership?.effectiveState ?? record.state) {
                    place = cursor
                    continue
                }
                if let limit, items.count == limit {
                    next = place?.encoded
                    break listing
                }
                if let item = await make(record, live, ownership, &kept) { items.append(item) }
                place = cursor
            }
            if !more { break }
            if let limit {
                wanted = min(limit - items.count + 1, Self.listingBatch)
                reading = read(after: place, wanted)
            }
        }
        // Kept for the next listing; one that cannot be kept now (the index busy, the disk
        // full) is computed again then.
        try? await index.keepFigures(kept)
        return AssetPage(assets: items, next: next)
    }

    /// The rows a listing reads at a time (see ``page(_:columns:ownerships:live:make:)``).
    static let listingBatch = 1_000

    /// The ids of the assets in one of `states` now, oldest first, as ``assets()`` shows their
    /// states (an asset no live process holds is suspended, not running): two reads of the
    /// index whatever the library's size, no asset's resources or bundle read — what a start-up
    /// needs (`serve` finding the suspended downloads).
    public func assetIDs(in states: Set<DownloadState>) async throws(CarryonError) -> [String] {
        let ownerships = try await index.holdings(ownershipContext())
        return try await index.assetStates().filter { states.contains(ownerships[$0.id]?.effectiveState ?? $0.state) }.map(\.id)
    }

    /// The asset with `id` (the whole id, or a unique prefix of it), as ``assets()`` shows it.
    ///
    /// - Throws: ``CarryonError/Code/unknownAsset`` when no asset, or several, match.
    public func asset(_ id: String) async throws(CarryonError) -> AssetSnapshot {
        let id = try await resolveID(id)
        return try await snapshot(of: id, live: nil, ownership: try await index.ownership(of: id, ownershipContext()))
    }

    /// Resolves a full id or a unique prefix.
    func resolveID(_ text: String) async throws(CarryonError) -> String {
        // A whole id is one look-up by key; only a prefix scans the ids (every snapshot resolves
        // its id: a scan each made listing 10,000 assets take a minute).
        if try await index.state(of: text) != nil { return text }
        let matches = try await index.assetIDs(startingWith: text)
        if matches.contains(text) { return text }
        guard !matches.isEmpty, !text.isEmpty else {
            throw CarryonError(.unknownAsset, "no asset has the id \(text)")
        }
        guard matches.count == 1 else {
            throw CarryonError(.unknownAsset, "\(text) is the start of several ids (\(matches.joined(separator: ", "))); give more of it")
        }
        return matches[0]
    }

    /// What a session running an asset knows that the index does not say yet.
    struct LiveState {
        var state: DownloadState?
        var tracker: ProgressTracker?
        var lastError: CarryonError?
    }

    /// Who runs a task, as ``AssetSnapshot/worker`` shows it: the process whose claim holds, if any.
    static func worker(of ownership: TaskOwnership?) -> String? {
        guard case .running? = ownership?.holder else { return nil }
        return ownership?.holderInstance?.workerDescription ?? ownership?.holderDescription
    }

    /// Asset `id` as it is now: the index's record and figures, what `live` knows of a task
    /// this process runs, and who holds it (`ownership`).
    func snapshot(of id: String, live: LiveState?, ownership: TaskOwnership?) async throws(CarryonError) -> AssetSnapshot {
        guard let asset = try await index.asset(id) else {
            throw CarryonError(.unknownAsset, "no asset has the id \(id)")
        }
        var kept: [FiguresUpdate] = []
        let snapshot = await snapshot(of: asset, live: live, ownership: ownership, keeping: &kept)
        try? await index.keepFigures(kept)
        return snapshot
    }

    /// Asset `asset` as it is now. Its figures are the row's while they are current and no live
    /// process holds it; otherwise they are computed (its resources read, its bundle walked)
    /// and, when no live process holds it, added to `kept` for the index to keep.
    func snapshot(of asset: AssetRecord, live: LiveState?, ownership: TaskOwnership?,
                  keeping kept: inout [FiguresUpdate]) async -> AssetSnapshot {
        let id = asset.id
        let bundle = bundleURL(for: id)
        // A download running or queued here or in another live process changes its bundle
        // between the changes the index counts: its figures are computed, never kept.
        let held = ownership?.holder != nil || live?.state == .running || live?.state == .waiting
        var problems = asset.problems
        let rowFigures = asset.figures.flatMap(AssetFigures.decoded)
        // A fleet's index names bundles in a folder every machine is meant to mount. A planned
        // bundle the row says holds bytes, out of sight here with every other (see
        // bundleIsOutOfSight), means this machine does not see that folder: walking it would say
        // 0 bytes and keep that for every machine, the storage rules included. The row's figures
        // stand, unkept. (A cancelled asset's plan is dropped with its bundle: not one of these.)
        let unseen = !held && asset.planned && (rowFigures.map { $0.bytesOnDisk > 0 } ?? false) && bundleIsOutOfSight(id)
        if unseen {
            problems.append("its bundle is not at \(bundle.path) on this machine (is the library's folder mounted here?); its sizes are the index's")
        }
        var figures = unseen ? rowFigures : held || !asset.figuresAreCurrent ? nil : rowFigures
        let fromRow = figures != nil
        var keep = !fromRow && !held
        if figures == nil {
            // A row of this asset that cannot be read is one of its problems, not the
            // library's: every other asset still lists (and its figures are not kept).
            func readOrNote<T>(_ what: String, _ empty: T, _ body: () async throws(CarryonError) -> T) async -> T {
                do { return try await body() } catch {
                    problems.append("its \(what) cannot be read (\(error.message)); it shows none")
                    keep = false
                    return empty
                }
            }
            // A task running here has its progress in its tracker: its resources are not read
            // (the asset cache needs counts only).
            let progress: DownloadProgress
            if held, let tracker = live?.tracker {
                progress = tracker.snapshot(at: DownloadSession.now())
            } else {
                progress = ProgressTracker(resources: await readOrNote("resources", []) { () async throws(CarryonError) in
                    try await index.resources(of: id)
                }).snapshot(at: 0)
            }
            let renditions = await readOrNote("renditions", []) { () async throws(CarryonError) in try await index.renditions(of: id) }
            let counts = await readOrNote("resource counts", [:]) { () async throws(CarryonError) in try await index.resourceCounts(of: id) }
            figures = AssetFigures(progress: progress, bytesByRendition: BundleFiles.usage(of: bundle).filter { !$0.key.hasPrefix(".") },
                                   cache: AssetCache(renditions: renditions, counts: counts, planned: asset.planned))
        }
        var current = figures!
        var progress = current.progress
        if let tracker = live?.tracker {
            // What this session counted of its last run: its speed, partial files included.
            progress = tracker.snapshot(at: DownloadSession.now())
        } else if let owned = ownership?.progress {
            // Another process's download: the bytes its owner counted, partial files included.
            let ranges = progress.loadedTimeRanges
            progress = owned
            progress.loadedTimeRanges = ranges
        }
        // The playback summary, read again when the access log grew since (playback servers
        // append to it without counting a change).
        let logs = AssetLogs(library: self)
        let logBytes = BundleFiles.size(of: logs.accessLogURL(for: id))
        if logBytes != current.accessLogBytes, !unseen {
            current.playback = logs.playbackSummary(for: id)
            current.accessLogBytes = logBytes
            if fromRow { keep = true }
        }
        if keep, let update = current.update(of: id, at: asset.changes) { kept.append(update) }
        let state = live?.state ?? ownership?.effectiveState ?? asset.state
        let error = state == .failed ? (live?.lastError?.message ?? asset.errorMessage) : asset.errorMessage
        return AssetSnapshot(
            id: id, name: asset.name, url: asset.url, state: state, error: error, progress: progress,
            selection: asset.selection, duration: asset.duration, bundlePath: bundle.path,
            format: asset.format, playlist: asset.planned ? bundle.appending(path: LocalManifest.main.path, directoryHint: .notDirectory).path : nil,
            mpd: asset.planned && LocalManifest.manifests(ofFormat: asset.format).contains(DASHFormat.localMPD)
                ? bundle.appending(path: DASHFormat.localMPD.path, directoryHint: .notDirectory).path : nil,
            bytesOnDisk: current.bytesOnDisk, bytesByRendition: current.bytesByRendition, createdAt: asset.createdAt,
            completedAt: asset.completedAt, policy: StoragePolicy(expiresAt: asset.expiresAt, priority: asset.priority),
            lastPlayedAt: asset.lastPlayedAt, playback: current.playback,
            cache: current.cache, problems: problems.isEmpty ? nil : problems,
            worker: Self.worker(of: ownership), timeRange: asset.options.timeRange, live: asset.options.live)
    }
}
