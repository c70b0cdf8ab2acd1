import Foundation

/// Recording a live stream: the run reloads the stream on its schedule, persists the plan of
/// what the recording holds (``LiveRecording``) and fetches what is new, until the stream ends,
/// the duration asked for is recorded, or the recording is stopped; then it finishes the
/// recording into a complete bundle.
extension DownloadSession {
    /// Records task `id`'s live stream: reading it again at once (a first reading, planned
    /// before the stream was known to be live, took a part of it for a range), then on the
    /// stream's schedule.
    ///
    /// Each round writes the recording into the bundle before the plan it leads to, so that a
    /// crash at any point resumes from what the recording had: segments still in the window are
    /// planned again under the same names, those gone are gaps.
    ///
    /// A run's first round plans the whole recording; each next one, when the recording only
    /// grew, plans and adds what it appended (``PlanContinuation``), so that a round costs what
    /// it adds, however long the recording.
    func record(_ id: String, asset: AssetRecord, recording: LiveRecording, fetcher: PlaylistFetcher, bundle: URL) async throws(CarryonError) {
        guard let run = tasks[id]?.run else { throw CarryonError(.cancelled, "stopped") }
        run.recording = recording
        // A long recording holds only its last segments; the others are read back from the
        // bundle's copy when needed.
        recording.readCopy { [library] () throws(CarryonError) in try LiveRecording.load(from: bundle, masterKey: library.masterKey) }
        var asset = asset
        if asset.options.live == nil {
            asset.options.live = LiveOptions()
            try await index.setOptions(asset.options, of: id)
        }
        var request = PlanRequest(assetID: id, options: asset.options, pinnedVariant: asset.selection?.variant.uri,
                                  additionalVariants: asset.selection?.additionalVariants ?? [], recording: recording)
        var planned: PlannedStream?
        // What the plan holds, for the next round to add to it.
        var continuation: PlanContinuation?
        // The selection and warnings are reported once a recording; the room made once a run.
        var reported = asset.planned
        var started = false
        let clock = ContinuousClock()
        var lastChange = clock.now
        do {
            while true {
                if planned == nil {
                    request.continuation = continuation
                    do {
                        planned = try await cancellable { [request] in try await self.planStream(asset, request, fetcher: fetcher) }
                    } catch where error.code != .cancelled && error.code != .busy {
                        // A reload that failed after its retries: the playlist did not change.
                        logger.warning("a reload of the live stream failed", metadata: ["asset": "\(id)", "error": "\(error.message)"])
                        try await wait(afterAdding: 0, recording, since: lastChange, asset: asset, error: error)
                        continue
                    }
                }
                guard var current = planned else { continue }
                request.pinnedVariant = request.pinnedVariant ?? current.selection?.variant.uri
                let round = recording.takeRound()
                try recording.save(to: bundle, masterKey: library.masterKey)
                do {
                    try await persist(current, for: asset, keeping: true, fence: run.fence)
                } catch where error.cause is AppendRefused {
                    // The plan has a resource the round named again: the round planned whole,
                    // from what the recording holds (nothing read again).
                    var whole = request
                    whole.continuation = nil
                    whole.replaysRecording = true
                    current = try await planStream(asset, whole, fetcher: fetcher)
                    try await persist(current, for: asset, keeping: true, fence: run.fence)
                }
                continuation = current.plan.continuation
                if configuration.prefetchKeys { try await obtainNewKeys(current.plan.keys, for: id, fetcher: fetcher) }
                if !reported {
                    if let selection = current.selection { emit(.mediaSelectionResolved(taskID: id, selection: selection)) }
                    reportPlaylistWarnings(current.plan.warnings, for: asset, format: current.format)
                    reported = true
                }
                if !started {
                    try await makeRoom(for: id)
                    emit(.willDownload(taskID: id, location: bundle))
                    started = true
                }
                if round.missed > 0 { try await countMissed(recording, in: &asset) }
                logRound(round, of: id, asset: asset)
                try await transfer(id, asset: asset, recording: recording, appendedAfter: current.plan.appendsTo)
                // Every segment planned is on disk or a gap now: those the copy holds can go.
                recording.spill(keeping: Self.segmentsHeld)
                if recording.isEnded { break }
                if round.added > 0 { lastChange = clock.now }
                try await wait(afterAdding: round.added, recording, since: lastChange, asset: asset, error: nil)
                planned = nil
            }
        } catch where error.code == .cancelled && run.stopsRecording {
            // Stopped by the user: the recording ends with what is on disk.
        }
        // In a task of its own: the run's is cancelled when the recording was stopped.
        let fence = run.fence
        request.continuation = nil
        let finished = await Task { () async -> Result<Void, CarryonError> in
            do throws(CarryonError) {
                try await self.finishRecording(id, asset: asset, recording: recording, request: request, fetcher: fetcher,
                                               bundle: bundle, fence: fence)
                return .success(())
            } catch {
                return .failure(error)
            }
        }.value
        try finished.get()
    }

    /// The segments of each recorded playlist a recording holds after a round's transfer,
    /// besides those the bundle's copy does not have yet. Those before are on disk or gaps
    /// already; one found gone (404) later, or a whole plan, reads them back from the copy.
    static let segmentsHeld = 8

    /// Waits for the next reload: a target duration after a round that added segments, half of
    /// one after one that did not. A stream that has shown nothing new for the session's stall
    /// timeout (at least three target durations) stops the recording as a stall stops any
    /// download: suspended, to be resumed.
    private func wait(afterAdding added: Int, _ recording: LiveRecording, since lastChange: ContinuousClock.Instant,
                      asset: AssetRecord, error: CarryonError?) async throws(CarryonError) {
        let limit = max(configuration.stallTimeout, .seconds(3 * min(60, recording.targetDuration)))
        if ContinuousClock.now - lastChange > limit {
            let why = error.map { "its reloads fail (\($0.message))" } ?? "its playlist has not changed"
            throw CarryonError(.stalled, "\(asset.url): the live stream has shown no new segment for \(limit): \(why); `resume` goes on recording, marking what the window no longer holds as a gap")
        }
        do {
            try await Task.sleep(for: .seconds(recording.reloadDelay(afterAdding: added)))
        } catch {
            throw CarryonError(.cancelled, "stopped")
        }
    }

    /// Ends a recording: each playlist keeps the segments on disk (those missing before the last
    /// one there become gaps), ends with `EXT-X-ENDLIST`, and is planned and persisted as a
    /// complete stream, without reading the network.
    private func finishRecording(_ id: String, asset: AssetRecord, recording: LiveRecording, request: PlanRequest,
                                 fetcher: PlaylistFetcher, bundle: URL, fence: Fence) async throws(CarryonError) {
        // What is on disk, by name only; the rows not done, whose partial files may go (few:
        // a recording fetches as it goes).
        let onDisk = try await index.onDiskKeys(of: id)
        let unfinished = try await pendingResources(of: id, after: nil)
        try recording.restore()
        let made = recording.finish { uri, offset in onDisk.contains(ResourceRecord.onDiskKey(uri, offset: offset)) }
        guard recording.duration > 0 else {
            throw CarryonError(.transfer, "\(asset.url): the recording stopped before any segment of it was on disk")
        }
        var asset = asset
        if recording.missed.count > 0 { try await countMissed(recording, in: &asset) }
        if made > 0 { logRound(.init(missed: made), of: id, asset: asset) }
        try recording.save(to: bundle, masterKey: library.masterKey)
        let planned = try await planStream(asset, request, fetcher: fetcher)
        try await persist(planned, for: asset, keeping: true, fence: fence)
        // The partial files of segments the recording left out.
        for resource in unfinished where try await index.resources(inFile: resource.fileName, of: id).isEmpty {
            try? FileManager.default.removeItem(at: BundleWriter.partialFile(of: resource, in: bundle))
        }
    }

    /// Records in the asset's options what the recording has missed so far, for `show` and
    /// listings.
    private func countMissed(_ recording: LiveRecording, in asset: inout AssetRecord) async throws(CarryonError) {
        let missed = recording.missed
        guard asset.options.live?.missedSegments != missed.count else { return }
        asset.options.live?.missedSegments = missed.count
        asset.options.live?.missedSeconds = missed.seconds
        try await index.setOptions(asset.options, of: asset.id)
    }

    /// Obtains the keys of `keys` the store does not hold yet: a live stream's rotated keys,
    /// as they appear.
    private func obtainNewKeys(_ keys: [DownloadPlan.PlannedKey], for id: String, fetcher: PlaylistFetcher) async throws(CarryonError) {
        guard !keys.isEmpty else { return }
        let held = Set(try await KeyStore(library: library).keys(of: id).filter { !$0.isInvalidated }.map(\.id))
        try await obtainKeys(keys.filter { !held.contains($0.id) }, for: id, fetcher: fetcher, alsoUsing: keys)
    }

    /// Writes what a round found wrong to the asset's error log: segments missed, a stream that
    /// started over.
    private func logRound(_ round: LiveRecording.Round, of id: String, asset: AssetRecord) {
        if round.missed > 0 {
            logRecording("gap", at: asset.url, "the recording missed \(round.missed) segment\(round.missed == 1 ? "" : "s") (about \(TimeRange.text(round.missedSeconds))): the stream's window had moved past them; marked EXT-X-GAP in the bundle", of: id)
            logger.warning("gap in a recording", metadata: ["asset": "\(id)", "missed": "\(round.missed)"])
        }
        for (playlist, jump) in round.jumps {
            logRecording("restart", at: playlist, "the stream's media sequence numbers jumped ahead by \(jump), too far to be segments missed: the recording goes on after a discontinuity", of: id)
        }
        for playlist in round.restarts {
            logRecording("restart", at: playlist, "the stream started over (its media sequence numbers went back): the recording goes on after a discontinuity", of: id)
        }
    }

    /// Writes `comment` to asset `id`'s error log: what the recording found at `uri`, `code`
    /// `gap` or `restart`.
    func logRecording(_ code: String, at uri: String, _ comment: String, of id: String) {
        AssetLogs(library: library).error(.init(date: Date(), event: "record", uri: uri, errorDomain: "carryon", errorCode: code, comment: comment),
                                          for: id)
    }
}
