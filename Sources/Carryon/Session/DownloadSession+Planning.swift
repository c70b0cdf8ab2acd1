import Foundation
import HLS

/// Reading a task's playlists into a plan (its keys obtained by `DownloadSession+Keys.swift`), checking the storage rules before
/// the media, and adding media selections to a bundle.
extension DownloadSession {
    // MARK: Downloading

    func perform(_ id: String) async throws(CarryonError) {
        let bundle = try makeBundleFolder(id)
        guard let asset = try await index.asset(id) else {
            throw CarryonError(.unknownAsset, "no asset has the id \(id)")
        }
        let fetcher = playlistFetcher(for: asset)
        if asset.options.live != nil && asset.planned {
            // A recording that goes on, from what the bundle kept of it.
            let recording = try LiveRecording.load(from: bundle, masterKey: library.masterKey) ?? LiveRecording(fromStart: asset.options.live?.fromStart ?? false,
                                                                                 offset: asset.options.timeRange?.recordingOffset,
                                                                                 limit: asset.options.timeRange?.recordingLimit)
            return try await record(id, asset: asset, recording: recording, fetcher: fetcher, bundle: bundle)
        }
        if !asset.planned {
            // The stream's first manifest is asked for once a run: a stream that does not
            // answer waits for its next try in the queue, its slot given to the next task.
            let deferring = (tasks[id]?.startAttempts ?? 0) + 1 < configuration.retry.maximumAttempts
            // Should the stream be live, it is recorded into this.
            let recording = LiveRecording(fromStart: asset.options.live?.fromStart ?? false,
                                          offset: asset.options.timeRange?.recordingOffset,
                                          limit: asset.options.timeRange?.recordingLimit)
            let planned = try await cancellable {
                try await self.planStream(asset, PlanRequest(assetID: id, options: asset.options, recording: recording),
                                          fetcher: fetcher, deferring: deferring)
            }
            if recording.isLive {
                return try await record(id, asset: asset, recording: recording, fetcher: fetcher, bundle: bundle)
            }
            if asset.options.live != nil {
                // Live options asked of a complete stream: it has no live edge; it is not a recording.
                var options = asset.options
                options.live = nil
                try await index.setOptions(options, of: id)
            }
            // Keys before any media: a key Carryon cannot obtain fails the task here.
            if configuration.prefetchKeys { try await obtainKeys(planned.plan.keys, for: id, fetcher: fetcher) }
            try await persist(planned, for: asset, fence: tasks[id]?.run?.fence)
            if let selection = planned.selection { emit(.mediaSelectionResolved(taskID: id, selection: selection)) }
            reportPlaylistWarnings(planned.plan.warnings, for: asset, format: planned.format)
        }
        try await makeRoom(for: id)
        emit(.willDownload(taskID: id, location: bundle))
        try await transfer(id, asset: asset)
    }

    /// Reads a task's playlists, chooses what it will download and obtains its keys (unless
    /// ``Configuration/prefetchKeys`` is off) — everything but the media, which a later
    /// ``DownloadTask/resume()`` fetches. For `carryon keys prefetch URL`: keys in hand before
    /// anything is downloaded.
    public func prepare(_ id: String) async throws(CarryonError) {
        let id = try await resolveID(id)
        guard tasks[id]?.isIdle ?? true else {
            throw CarryonError(.invalidState, "\(id) is downloading")
        }
        if let ownership = try await scheduler.ownership(of: id), ownership.holder != nil {
            throw TaskScheduler.busy(id, ownership, "its playlists are read by that process")
        }
        _ = try makeBundleFolder(id)
        guard let asset = try await index.asset(id) else {
            throw CarryonError(.unknownAsset, "no asset has the id \(id)")
        }
        guard !asset.planned else { return }
        let fetcher = playlistFetcher(for: asset)
        let planned = try await planStream(asset, PlanRequest(assetID: id, options: asset.options), fetcher: fetcher)
        if configuration.prefetchKeys { try await obtainKeys(planned.plan.keys, for: id, fetcher: fetcher) }
        try await persist(planned, for: asset)
        if let selection = planned.selection { emit(.mediaSelectionResolved(taskID: id, selection: selection)) }
        reportPlaylistWarnings(planned.plan.warnings, for: asset, format: planned.format)
    }

    /// Reads an asset's stream and plans it through its format: the one it recorded once
    /// planned, else the one that recognises its first manifest.
    /// With `deferring`, the manifest is asked for once: a failure another attempt may mend
    /// ends the planning with a ``PlaylistFetcher/RetryLater`` cause, for the session to try
    /// again later without holding a slot; with `deferring` false (the task's last attempt),
    /// once too, its failure final; nil: with every retry here (reading the stream again).
    func planStream(_ asset: AssetRecord, _ request: PlanRequest, fetcher: PlaylistFetcher,
                    deferring: Bool? = nil) async throws(CarryonError) -> PlannedStream {
        var manifestFetcher = fetcher
        if let deferring {
            manifestFetcher.retry.maximumAttempts = 1
            manifestFetcher.defersRetries = deferring
        }
        let manifest: FetchedManifest
        if let recording = request.recording, recording.isFinished || request.replaysRecording, let first = recording.firstManifest {
            // A finished recording is planned from what it holds, without the network; so is
            // one replayed.
            manifest = FetchedManifest(url: first.url, bytes: first.bytes)
        } else {
            manifest = try await manifestFetcher.fetchManifest(asset.url)
        }
        let format = asset.planned ? try configuration.formats.format(named: asset.format) : configuration.formats.format(of: manifest)
        return try await format.plan(manifest, for: request, fetcher: fetcher)
    }

    /// Writes the deviations the stream's playlists were read past to the asset's error log
    /// (`x-error-domain` the format that read them — `format`, else the asset's: `hls` or `dash`;
    /// `x-error-code` `playlist-warning`, `cs-uri` the playlist, the
    /// line and what was assumed in `x-comment`) and reports them in one event.
    func reportPlaylistWarnings(_ notices: [DownloadPlan.PlaylistNotice], for asset: AssetRecord, format: String? = nil) {
        guard !notices.isEmpty else { return }
        let logs = AssetLogs(library: library)
        let now = Date()
        var described: [String] = []
        for notice in notices {
            let warning = notice.warning
            // Line 0: about the stream, not a line of it (a key that could not be checked).
            let comment = (warning.line > 0 ? "line \(warning.line): " : "") + warning.message + (warning.lineText.map { " [\($0)]" } ?? "")
            logs.error(.init(date: now, event: "download", uri: notice.playlist, errorDomain: format ?? asset.format, errorCode: "playlist-warning", comment: comment), for: asset.id)
            described.append("\(notice.playlist), \(comment)")
        }
        emit(.playlistWarnings(taskID: asset.id, warnings: described))
    }

    /// The fetcher for an asset's playlists (and keys): its headers, the session's limits, and
    /// only the locations its stream may lead to.
    func playlistFetcher(for asset: AssetRecord) -> PlaylistFetcher {
        var fetcher = PlaylistFetcher(network: network, headers: asset.headers,
                                      maximumPlaylistBytes: configuration.maximumPlaylistBytes, timeout: configuration.requestTimeout,
                                      retry: configuration.retry, stallTimeout: configuration.stallTimeout)
        fetcher.rule = configuration.locationRule
        return fetcher.forStream(asset.url)
    }

    /// Creates an asset's bundle folder, and returns it.
    func makeBundleFolder(_ id: String) throws(CarryonError) -> URL {
        let bundle = library.bundleURL(for: id)
        do {
            try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        } catch {
            throw CarryonError(.disk, "cannot create \(bundle.path): \(error.localizedDescription)", cause: error)
        }
        return bundle
    }

    /// Admits a transfer by the library's storage rules (see `StorageManager.admit`): purges
    /// what they say to make room, or stops with the sizes involved. Then sets the session's
    /// ``ByteBudget``, which holds the same rules against the bytes as they arrive.
    func makeRoom(for id: String) async throws(CarryonError) {
        let disk = configuration.diskSpace ?? .fileSystem(at: library.root.path)
        let admission = try await StorageManager(library: library, freeBytes: disk.free)
            .admit(id, incomingBytes: try await index.pendingBytes(of: id), on: disk)
        for removal in admission.removals {
            logger.info("purging to make room", metadata: ["asset": "\(removal.id)", "reason": "\(removal.reason.rawValue)"])
            do {
                try await delete(removal.id, unlessHeldElsewhere: true)
            } catch where error.code == .busy {
                // Another process started it since the plan: kept; the budget holds the rules.
                logger.info("kept: another process downloads it", metadata: ["asset": "\(removal.id)"])
            }
        }
        budget.measure(admission.rules, libraryBytes: admission.libraryBytes)
    }

    /// Runs `body`, turning cancellation into ``CarryonError/Code/cancelled``.
    func cancellable<T: Sendable>(_ body: () async throws -> T) async throws(CarryonError) -> T {
        do {
            return try await body()
        } catch let error as CarryonError {
            if Task.isCancelled { throw CarryonError(.cancelled, "stopped") }
            throw error
        } catch {
            if Task.isCancelled || error is CancellationError { throw CarryonError(.cancelled, "stopped") }
            throw CarryonError(.transfer, "\(error)", cause: error)
        }
    }

    /// Plans more media selections into an existing bundle — more audio languages, more
    /// subtitles — keeping everything already downloaded: the counterpart of downloading
    /// additional media selections with AVAggregateAssetDownloadTask. Returns the keys of the
    /// renditions added; the task is then suspended, and ``DownloadTask/resume()`` fetches only
    /// what they need. The local playlists offer them from then on.
    ///
    /// - Throws: ``CarryonError/Code/invalidState`` when the task is downloading (suspend it
    ///   first) or was cancelled, or has not read its playlists yet;
    ///   ``CarryonError/Code/selection`` when the choice adds nothing the stream offers.
    ///
    /// With `variant`, the variant its bitrate and resolution bounds choose (by the rules of
    /// ``MediaSelector``, e.g. `minimumBitrate` for a better one) is added too, and the local
    /// multivariant playlist offers both.
    ///
    /// With `timeRange`, a download of part of the stream (``DownloadOptions/timeRange``) is
    /// extended to the smallest range that holds both (``TimeRange/extended(to:)``): the
    /// segments it adds are fetched, in every rendition, and those the bundle has are kept.
    /// It throws ``CarryonError/Code/invalidState`` for a download of the whole stream, and
    /// ``CarryonError/Code/selection`` when the range adds nothing.
    public func addMediaSelections(_ id: String, audio: DownloadOptions.RenditionChoice = .none,
                                   subtitles: DownloadOptions.RenditionChoice = .none,
                                   variant: DownloadOptions? = nil, timeRange: TimeRange? = nil) async throws(CarryonError) -> [String] {
        try variant?.check()
        try timeRange?.check()
        let id = try await resolveID(id)
        var machine = try await machine(id)
        let action: DownloadTaskStateMachine.Action
        do { action = try machine.addMedia() } catch { throw CarryonError(.invalidState, "\(id): \(error)") }
        if let ownership = try await scheduler.ownership(of: id), let holder = ownership.holder, holder.instance != scheduler.instance.id {
            throw TaskScheduler.busy(id, ownership, "it must stop before renditions are added")
        }
        guard let asset = try await index.asset(id), asset.planned else {
            throw CarryonError(.invalidState, "\(id) has not read its playlists yet: resume it first")
        }
        if asset.options.live != nil {
            throw CarryonError(.invalidState, "\(id) is a recording of a live stream: what it holds was chosen as it was recorded; record the stream again for other renditions or another part")
        }
        // What it has: nil for a single media playlist, to which only a wider part can be added.
        let current = asset.selection
        guard current != nil || (audio == .none && subtitles == .none && variant == nil) else {
            throw CarryonError(.selection, "\(id) is a single media playlist: it has no renditions or variants to add")
        }
        func merged(_ choice: DownloadOptions.RenditionChoice, type: TrackType) -> DownloadOptions.RenditionChoice {
            let have = (current?.renditions ?? []).filter { $0.type == type.rawValue }.map(\.name)
            switch choice {
            case .all: return .all
            case .none, .automatic: return have.isEmpty ? .none : .languages(have)
            case .languages(let wanted): return .languages(have + wanted)
            }
        }
        var options = asset.options
        options.audio = merged(audio, type: .audio)
        options.subtitles = merged(subtitles, type: .subtitles)
        if let timeRange {
            guard let held = asset.options.timeRange else {
                throw CarryonError(.invalidState, "\(id) holds the whole stream: there is no part of it to extend")
            }
            let extended = held.extended(to: timeRange)
            if extended == held, audio == .none, subtitles == .none, variant == nil {
                throw CarryonError(.selection, "\(id) already holds \(held) of the stream, which has \(timeRange) in it")
            }
            options.timeRange = extended
        }
        let fetcher = playlistFetcher(for: asset)
        var additionalVariants = current?.additionalVariants ?? []
        if let variant {
            let manifest = try await fetcher.fetchManifest(asset.url)
            let presentation = try await configuration.formats.format(named: asset.format).presentation(of: manifest, fetcher: fetcher)
            let chosen = MediaSelector.selected(try MediaSelector(options: variant).chooseVariant(presentation.periods.first?.variants ?? []))
            if current?.variants.contains(where: { $0.uri == chosen.uri }) == true {
                throw CarryonError(.selection, "\(id) already has the variant those bounds choose (\(chosen.resolution ?? chosen.uri), \(chosen.bandwidth.map { "\($0) bit/s" } ?? "bandwidth unknown"))")
            }
            additionalVariants.append(chosen)
        }
        let planned = try await planStream(asset, PlanRequest(assetID: id, options: options, pinnedVariant: current?.variant.uri,
                                                             additionalVariants: additionalVariants), fetcher: fetcher)
        let plan = planned.plan
        let currentRenditions = current?.renditions ?? []
        let addedURIs = (planned.selection?.renditions ?? []).map(\.uri).filter { uri in !currentRenditions.contains { $0.uri == uri } }
            + additionalVariants.map(\.uri).filter { uri in !(current?.additionalVariants ?? []).contains { $0.uri == uri } }
        guard !addedURIs.isEmpty || options.timeRange != asset.options.timeRange else {
            throw CarryonError(.selection, "\(id) already has every rendition asked for (\(currentRenditions.map { "\($0.type.lowercased()) \($0.name)" }.joined(separator: ", ")))")
        }
        if configuration.prefetchKeys {
            // The keys the added renditions bring (a language's own KID), before any media.
            let stored = Set(try await KeyStore(library: library).keys(of: id).filter { !$0.isInvalidated }.map(\.id))
            try await obtainKeys(plan.keys.filter { !stored.contains($0.id) }, for: id, fetcher: fetcher, alsoUsing: plan.keys)
        }
        var saved = asset
        saved.options = options
        try await persist(planned, for: saved, keeping: true)
        try await index.setOptions(options, of: id)
        if let holder = try await scheduler.setStateUnlessHeld(machine.state, of: id) {
            throw TaskScheduler.busy(id, holder, "it must stop before renditions are added")
        }
        record(id, machine)
        try await perform(action, for: id)
        if let selection = planned.selection { emit(.mediaSelectionResolved(taskID: id, selection: selection)) }
        // The playlists the added renditions bring; the others were reported when first read.
        let addedPlaylists = Set(plan.renditions.filter { addedURIs.contains($0.record.uri) }.map(\.record.uri))
        reportPlaylistWarnings(plan.warnings.filter { addedPlaylists.contains($0.playlist) }, for: saved)
        return plan.renditions.filter { addedURIs.contains($0.record.uri) }.map(\.record.key)
    }

    /// Writes a plan's playlists and rows, and the format that planned it; of a plan of what a
    /// recording's round appended, adds them (``AssetIndex/appendPlan(_:of:at:fence:)``). With `keeping`,
    /// resources the bundle already has (the same URI and byte range, at the same file) keep
    /// their state, size and validators. With `fence` (a run's), nothing is written to the
    /// index once another process has claimed the task.
    func persist(_ planned: PlannedStream, for asset: AssetRecord, keeping: Bool = false, fence: Fence? = nil) async throws(CarryonError) {
        let format = try configuration.formats.format(named: planned.format)
        // Without a run's claim, never over another process's download (it may have started
        // while the playlists were read): checked before its playlists are touched, and again
        // by the index as the plan is written.
        if fence == nil, let ownership = try await scheduler.ownership(of: asset.id), let holder = ownership.holder,
           holder.instance != scheduler.instance.id {
            throw TaskScheduler.busy(asset.id, ownership, "its plan is that process's")
        }
        if planned.plan.appendsTo != nil {
            // A recording's round: its rows first, so that a refusal leaves the playlists as they are.
            try await index.appendPlan(planned, of: asset.id, at: Date(), fence: fence)
            try await BundleWriter(library: library).appendManifests(of: planned, for: asset.id, inRun: fence != nil)
        } else {
            try await BundleWriter(library: library).writeManifests(of: planned, format: format, for: asset.id, inRun: fence != nil)
            try await index.savePlan(planned, of: asset.id, keeping: keeping, at: Date(), fence: fence)
        }
        try await writeManifest(asset.id)
    }
}
