import Foundation

/// Fetching a task's resources: in playback order with bounded concurrency, out of turn for
/// playback, each into a partial file renamed when complete; progress and time-range events.
extension DownloadSession {
    /// How many pending resources the transfer reads from the index at a time.
    static let queuePage = 256

    /// Fetches task `id`'s pending resources. For a `recording`, a segment the origin no longer
    /// has (404, 410: gone from the window before the recording reached it) is a gap in the
    /// recording, not a failure, and a location the origin refuses is not read as expired.
    /// `appendedAfter`: the plan only added rows after that many (a recording's round): the
    /// run's progress counts them to what it had, instead of reading every row again.
    func transfer(_ id: String, asset: AssetRecord, recording: LiveRecording? = nil, appendedAfter: Int? = nil) async throws(CarryonError) {
        guard let run = tasks[id]?.run else { throw CarryonError(.cancelled, "stopped") }
        // A stream read through a multivariant playlist declares its variants' bandwidth, which
        // bounds how large a segment may grow (see ResourceRecord.growthLimit); one read
        // leniently may leave it out. Read from the index: `asset` may be from before the plan.
        let bandwidthKnown = try await index.asset(id)?.selection?.variant.bandwidth != nil
        let fallbacks = try await index.fallbacks(of: id)
        // One limit for the whole task, the lower of its own and the session's.
        let rate = [asset.options.maximumBytesPerSecond, configuration.maximumBytesPerSecond].compactMap { $0 }.min()
        var configured = ResourceFetcher(network: network, headers: asset.headers, retry: configuration.retry,
                                      timeout: configuration.requestTimeout, logger: logger, rule: configuration.locationRule.forStream(asset.url),
                                      stallTimeout: configuration.stallTimeout, budget: budget, bandwidthKnown: bandwidthKnown,
                                      routes: fallbacks.isEmpty ? nil : FallbackRoutes(fallbacks),
                                      expiredStatuses: recording == nil ? configuration.expiredStatuses : [], rateLimit: rate.map { RateLimit(bytesPerSecond: $0) })
        run.requestLimit = configuration.maximumRequestsPerTask
        if configuration.adaptsConcurrency {
            run.concurrency = ConcurrencyController(start: configuration.maximumRequestsPerTask, maximum: configuration.maximumConnections,
                                                    window: configuration.concurrencyWindow, now: ContinuousClock.now)
            configured.pushedBack = { Task { await self.pushedBack(id) } }
        }
        let fetcher = configured
        // Every resource, for the progress totals and the shared files; released before the
        // transfer, which reads the pending ones from the index a page at a time, so a long
        // asset's thousands of records are not held while its bytes arrive.
        if let appendedAfter, run.isTransferring {
            // The new rows, all pending.
            let added = try await pendingResources(of: id, after: ResourcePlace(ordinal: appendedAfter - 1, id: .max))
            run.continueTransfer(adding: added, renditions: try await index.renditions(of: id), fetcher: fetcher)
        } else {
            let resources = try await index.resources(of: id)
            run.beginTransfer(resources: resources, renditions: try await index.renditions(of: id), fetcher: fetcher)
            try await BundleWriter(library: library).finishSharedFiles(of: id, resources: resources)
        }
        emitProgress(id, force: true)
        let bundle = run.bundle
        try await cancellable {
            try await withThrowingTaskGroup(of: Void.self) { group in
                var inFlight = 0
                var after: ResourcePlace?
                while true {
                    let page = try await self.index.pendingResources(of: id, after: after, limit: Self.queuePage)
                    guard let last = page.last else { break }
                    after = ResourcePlace(last)
                    for resource in page {
                        // The limit can change while requests are in flight (adaptive concurrency).
                        while inFlight >= self.requestsInFlight(id) {
                            try await group.next()
                            inFlight -= 1
                        }
                        group.addTask {
                            do {
                                try await self.fetchOnce(resource, with: fetcher, into: bundle, queued: true)
                            } catch let error as CarryonError where recording != nil && (error.cause as? ResponseStatus)?.isGone == true {
                                await self.missed(resource, by: recording!, error)
                            }
                        }
                        inFlight += 1
                    }
                }
                try await group.waitForAll()
            }
        }
        let remaining = try await index.pendingCount(of: id, rendition: nil)
        // A recording's missed segments stay pending until its next round makes them gaps.
        guard remaining == 0 || recording != nil else {
            throw CarryonError(.transfer, "\(remaining) resources are still missing after the transfer")
        }
        emitProgress(id, force: true)
    }

    /// Task `id`'s pending resources after `place` (nil: all), read a page at a time.
    func pendingResources(of id: String, after place: ResourcePlace?) async throws(CarryonError) -> [ResourceRecord] {
        var resources: [ResourceRecord] = []
        var after = place
        while true {
            let page = try await index.pendingResources(of: id, after: after, limit: Self.queuePage)
            guard let last = page.last else { return resources }
            after = ResourcePlace(last)
            resources += page
        }
    }

    /// A segment the origin no longer had, for a recording: a gap in it, in the error log.
    private func missed(_ resource: ResourceRecord, by recording: LiveRecording, _ error: CarryonError) {
        let marked = recording.markMissing(resource.uri, offset: resource.rangeOffset)
        logRecording("gap", at: resource.uri, "\(error.message): gone from the live stream's window before the recording reached it; marked EXT-X-GAP (\(marked) segment\(marked == 1 ? "" : "s"))",
                     of: resource.assetID)
    }

    /// Fetches the resources of a task this session is running now, ahead of its order, and
    /// returns when they are on disk: how playback gets what the download has not reached yet.
    /// The download then does not fetch them again.
    ///
    /// - Throws: ``CarryonError/Code/invalidState`` if the task is not running in this session,
    ///   or the fetch's error.
    public func fetchNow(_ assetID: String, resources: [Int64]) async throws(CarryonError) {
        guard let run = tasks[assetID]?.run, let fetcher = run.fetcher else {
            throw CarryonError(.invalidState, "\(assetID) is not downloading in this process")
        }
        let bundle = run.bundle
        let records = try await index.resources(resources, of: assetID)
        try await cancellable {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for record in records where record.state == .pending {
                    group.addTask { try await self.fetchOnce(record, with: fetcher, into: bundle, queued: false) }
                }
                try await group.waitForAll()
            }
        }
    }

    /// The error that last stopped task `id` in this session: why it failed, or why the
    /// session suspended it (``CarryonError/Code/stalled`` when the server stopped sending,
    /// ``CarryonError/Code/storage`` when a storage rule would break); nil when it was not
    /// stopped by an error, or not in this session.
    public func lastError(of id: String) -> CarryonError? {
        tasks[id]?.lastError
    }

    /// Whether this session is downloading `assetID` now.
    public func isTransferring(_ assetID: String) -> Bool {
        tasks[assetID]?.run?.fetcher != nil
    }

    /// Fetches `resource` into the bundle; a queued fetch (the transfer's) first waits for a
    /// request slot, and gives it back before it returns.
    nonisolated func fetch(_ resource: ResourceRecord, with fetcher: ResourceFetcher, into bundle: URL, queued: Bool) async throws {
        guard queued else { return try await fetchIntoBundle(resource, with: fetcher, into: bundle) }
        try await requests.acquire()
        do {
            try await fetchIntoBundle(resource, with: fetcher, into: bundle)
        } catch {
            await requests.release()
            throw error
        }
        await requests.release()
    }

    private nonisolated func fetchIntoBundle(_ resource: ResourceRecord, with fetcher: ResourceFetcher, into bundle: URL) async throws {
        let part = BundleWriter.partialFile(of: resource, in: bundle)
        try FileManager.default.createDirectory(at: part.deletingLastPathComponent(), withIntermediateDirectories: true)
        let id = resource.id!
        let assetID = resource.assetID
        let counter = ByteBatcher()
        let clock = ContinuousClock()
        let started = clock.now
        // Bytes are reported in batches (a message per body chunk would queue faster than the
        // session drains them on a fast link), in order, and all of them before the resource
        // is done: a late batch would count bytes twice.
        let (batches, reporter) = AsyncStream<Int>.makeStream()
        let result = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await batch in batches { await self.recordBytes(batch, resource: id, asset: assetID) }
            }
            defer { reporter.finish() }
            var refreshed = 0
            var result: ResourceFetcher.Result
            while true {
                // An expired location makes the task read its manifest again; the fetch goes on from
                // the bytes on disk at the fresh location (If-Range keeps them when they are the same).
                let (uri, seen) = await self.location(of: resource)
                do {
                    result = try await fetcher.fetch(uri, range: resource.byteRange, into: part.path,
                                                     validators: .init(etag: resource.etag, lastModified: resource.lastModified),
                                                     limit: resource.growthLimit(bandwidthKnown: fetcher.bandwidthKnown)) { delta in
                        if let batch = counter.add(delta) { reporter.yield(batch) }
                    }
                    break
                } catch let error as CarryonError where error.code == .expired {
                    guard refreshed < Self.refreshesPerResource else {
                        throw CarryonError(.expired, "\(error.message), even at the location the manifest gave when read again", cause: error)
                    }
                    refreshed += 1
                    try await self.refreshLocations(assetID, seen: seen, uri: uri, expired: error)
                }
            }
            if let rest = counter.drain() { reporter.yield(rest) }
            reporter.finish()
            try await group.waitForAll()
            return result
        }
        let elapsed = clock.now - started
        let logs = AssetLogs(library: library)
        for failure in result.failures {
            logs.error(.init(date: Date(), event: "download", uri: failure.uri, errorDomain: "carryon", errorCode: failure.error.code.rawValue,
                             comment: "\(failure.error.message); fetched from \(result.uri) instead"), for: assetID)
        }
        let url = URL(string: result.uri)
        logs.access(
            .init(date: Date(), event: "download", uri: result.uri,
                  server: url?.host.map { host in url?.port.map { "\(host):\($0)" } ?? host }, status: result.status,
                  bytes: result.transferred,
                  duration: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18), for: assetID)
        // A run whose task another process has claimed puts nothing in place.
        try await checkClaim(assetID)
        try await BundleWriter(library: library).place(resource, in: bundle)
        try await resourceDone(resource, bytes: result.bytes, validators: result.validators, sha256: result.sha256)
    }

    /// Refuses to go on once another process has claimed task `assetID` from this session's
    /// run (its lease ran out while this process was paused or cut off).
    func checkClaim(_ assetID: String) async throws(CarryonError) {
        guard let run = tasks[assetID]?.run, !(try await index.holds(run.fence)) else { return }
        run.lost = true
        throw CarryonError(.busy, "\(assetID) was claimed by another process after this one's lease ran out; this run stops and writes nothing more",
                           cause: LostClaim())
    }

    func recordBytes(_ delta: Int, resource: Int64, asset: String) {
        if let run = tasks[asset]?.run { run.add(delta, to: resource, at: Self.now()) } else {
            // A fetch a player waits for goes on after the run: the progress shown still counts it.
            tasks[asset]?.lastProgress?.add(delta, to: resource, at: Self.now())
        }
        emitProgress(asset, force: false)
    }

    /// The requests task `id` keeps in flight now.
    func requestsInFlight(_ id: String) -> Int {
        tasks[id]?.run?.requestsInFlight ?? configuration.maximumRequestsPerTask
    }

    /// The server pushed back on task `id` (429, 503, a reset): fewer requests in flight.
    func pushedBack(_ id: String) {
        tasks[id]?.run?.concurrency?.throttled(at: ContinuousClock.now)
    }

    func resourceDone(_ resource: ResourceRecord, bytes: Int, validators: ResourceFetcher.Validators, sha256: String?) async throws {
        let id = resource.assetID
        tasks[id]?.run?.concurrency?.completed(bytes, at: ContinuousClock.now)
        try await index.markDone(resource.id!, bytes: bytes, etag: validators.etag, lastModified: validators.lastModified,
                                 sha256: sha256, fence: tasks[id]?.run?.fence)
        // A fetch that playback still waited for can end after the run: the index then says
        // whether the rendition is complete.
        let run = tasks[id]?.run
        let finished = run?.finish(resource, bytes: bytes)
        if run == nil { tasks[id]?.lastProgress?.finish(resource.id!, bytes: bytes) }
        if resource.kind == .segment, let run, let snapshot = run.tracker?.snapshot(at: Self.now()) {
            emit(.timeRangeLoaded(taskID: id, rendition: resource.renditionKey,
                                  range: .init(start: resource.startTime, end: resource.startTime + resource.duration),
                                  loaded: snapshot.loadedTimeRanges[resource.renditionKey] ?? [],
                                  expected: .init(start: 0, end: run.renditionDurations[resource.renditionKey] ?? 0)))
        }
        if let sharedFile = finished?.sharedFile { try BundleWriter(library: library).finishSharedFile(sharedFile, of: id) }
        var renditionCompleted = finished?.renditionCompleted
        if renditionCompleted == nil, let run {
            renditionCompleted = try await index.pendingCount(of: id, rendition: resource.renditionKey) == 0
                && run.reportRendition(resource.renditionKey)
        }
        if renditionCompleted == true { emit(.renditionCompleted(taskID: id, key: resource.renditionKey)) }
        emitProgress(id, force: true)
    }

    func emitProgress(_ id: String, force: Bool) {
        guard let progress = tasks[id]?.run?.progressToReport(at: Self.now(), force: force) else { return }
        emit(.progress(taskID: id, progress: progress))
    }

    /// Seconds on a monotonic clock, for rates.
    static func now() -> Double {
        let duration = ContinuousClock.now - start
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static let start = ContinuousClock.now
}
