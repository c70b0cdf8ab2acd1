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
        var snapshots: [AssetSnapshot] = []
        let ownerships = try await index.ownerships(ownershipContext())
        for id in try await index.assetIDs() { snapshots.append(try await snapshot(of: id, live: nil, ownership: ownerships[id])) }
        return snapshots
    }

    /// The ids of the assets in one of `states` now, oldest first, as ``assets()`` shows their
    /// states (an asset no live process holds is suspended, not running): two reads of the
    /// index whatever the library's size, no asset's resources or bundle read — what a start-up
    /// needs (`serve` finding the suspended downloads).
    public func assetIDs(in states: Set<DownloadState>) async throws(CarryonError) -> [String] {
        let ownerships = try await index.ownerships(ownershipContext())
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

    /// Asset `id` as it is now: the index's record and counts, the bundle's bytes on disk, what
    /// `live` knows of a task this process runs, and who holds it (`ownership`).
    func snapshot(of id: String, live: LiveState?, ownership: TaskOwnership?) async throws(CarryonError) -> AssetSnapshot {
        guard let asset = try await index.asset(id) else {
            throw CarryonError(.unknownAsset, "no asset has the id \(id)")
        }
        let bundle = bundleURL(for: id)
        // A running task's progress comes from its tracker; the resources are read only
        // without one, and the asset cache needs counts only.
        // A row of this asset that cannot be read is one of its problems, not the library's:
        // every other asset still lists.
        var problems = asset.problems
        func readOrNote<T>(_ what: String, _ empty: T, _ body: () async throws(CarryonError) -> T) async -> T {
            do { return try await body() } catch {
                problems.append("its \(what) cannot be read (\(error.message)); it shows none")
                return empty
            }
        }
        var progress: DownloadProgress
        if let tracker = live?.tracker {
            progress = tracker.snapshot(at: DownloadSession.now())
        } else {
            progress = ProgressTracker(resources: await readOrNote("resources", []) { () async throws(CarryonError) in
                try await index.resources(of: id)
            }).snapshot(at: 0)
            // Another process's download: the bytes its owner counted, partial files included.
            if let owned = ownership?.progress {
                let ranges = progress.loadedTimeRanges
                progress = owned
                progress.loadedTimeRanges = ranges
            }
        }
        let renditions = await readOrNote("renditions", []) { () async throws(CarryonError) in try await index.renditions(of: id) }
        let counts = await readOrNote("resource counts", [:]) { () async throws(CarryonError) in try await index.resourceCounts(of: id) }
        let state = live?.state ?? ownership?.effectiveState ?? asset.state
        let error = state == .failed ? (live?.lastError?.message ?? asset.errorMessage) : asset.errorMessage
        let usage = BundleFiles.usage(of: bundle).filter { !$0.key.hasPrefix(".") }
        return AssetSnapshot(
            id: id, name: asset.name, url: asset.url, state: state, error: error, progress: progress,
            selection: asset.selection, duration: asset.duration, bundlePath: bundle.path,
            format: asset.format, playlist: asset.planned ? bundle.appending(path: LocalManifest.main.path, directoryHint: .notDirectory).path : nil,
            mpd: asset.planned && LocalManifest.manifests(ofFormat: asset.format).contains(DASHFormat.localMPD)
                ? bundle.appending(path: DASHFormat.localMPD.path, directoryHint: .notDirectory).path : nil,
            bytesOnDisk: usage.values.reduce(0, +), bytesByRendition: usage, createdAt: asset.createdAt,
            completedAt: asset.completedAt, policy: StoragePolicy(expiresAt: asset.expiresAt, priority: asset.priority),
            lastPlayedAt: asset.lastPlayedAt, playback: AssetLogs(library: self).playbackSummary(for: id),
            cache: AssetCache(renditions: renditions, counts: counts, planned: asset.planned),
            problems: problems.isEmpty ? nil : problems)
    }
}
