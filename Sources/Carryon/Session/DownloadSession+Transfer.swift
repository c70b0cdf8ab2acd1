import Foundation
import NIOFileSystem

/// Fetching a task's resources: in playback order with bounded concurrency, out of turn for
/// playback, each into a partial file renamed when complete; progress and time-range events.
extension DownloadSession {
    func transfer(_ id: String, asset: AssetRecord) async throws(CarryonError) {
        let bundle = library.bundleURL(for: id)
        let resources = try await index.resources(of: id)
        trackers[id] = ProgressTracker(resources: resources)
        reportedRenditions[id] = []
        rangesLeft[id] = resources.reduce(into: [:]) { left, resource in
            if resource.rangeOffset != nil, resource.state != .done { left[resource.fileName, default: 0] += 1 }
        }
        renditionDurations[id] = try await index.renditions(of: id).reduce(into: [:]) { $0[$1.key] = $1.duration }
        try await finishSharedFiles(id, resources: resources)
        emitProgress(id, force: true)
        let pending = resources.filter { $0.state == .pending }
        // A stream read through a multivariant playlist declares its variants' bandwidth, which
        // bounds how large a segment may grow (see ResourceRecord.growthLimit); one read
        // leniently may leave it out.
        let bandwidthKnown = try await index.asset(id)?.selection?.variant.bandwidth != nil
        let fetcher = ResourceFetcher(client: client, headers: asset.headers, retry: configuration.retry,
                                      timeout: configuration.requestTimeout, logger: logger, rule: .stream(asset.url),
                                      stallTimeout: configuration.stallTimeout, budget: budget, bandwidthKnown: bandwidthKnown)
        let perTask = configuration.maximumRequestsPerTask
        transfers[id] = (fetcher, bundle)
        defer { transfers[id] = nil }
        try await cancellable {
            try await withThrowingTaskGroup(of: Void.self) { group in
                var iterator = pending.makeIterator()
                var inFlight = 0
                while let resource = iterator.next() {
                    if inFlight >= perTask {
                        try await group.next()
                        inFlight -= 1
                    }
                    group.addTask { try await self.fetchOnce(resource, with: fetcher, into: bundle, queued: true) }
                    inFlight += 1
                }
                try await group.waitForAll()
            }
        }
        let remaining = try await index.pendingCount(of: id, rendition: nil)
        guard remaining == 0 else {
            throw CarryonError(.transfer, "\(remaining) resources are still missing after the transfer")
        }
        emitProgress(id, force: true)
    }

    /// Fetches the resources of a task this session is running now, ahead of its order, and
    /// returns when they are on disk: how playback gets what the download has not reached yet.
    /// The download then does not fetch them again.
    ///
    /// - Throws: ``CarryonError/Code/invalidState`` if the task is not running in this session,
    ///   or the fetch's error.
    public func fetchNow(_ assetID: String, resources: [Int64]) async throws(CarryonError) {
        guard let transfer = transfers[assetID] else {
            throw CarryonError(.invalidState, "\(assetID) is not downloading in this process")
        }
        let records = try await index.resources(resources, of: assetID)
        try await cancellable {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for record in records where record.state == .pending {
                    group.addTask { try await self.fetchOnce(record, with: transfer.fetcher, into: transfer.bundle, queued: false) }
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
        lastErrors[id]
    }

    /// Whether this session is downloading `assetID` now.
    public func isTransferring(_ assetID: String) -> Bool {
        transfers[assetID] != nil
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
        let final = bundle.appendingPathComponent(resource.fileName)
        let part: URL
        if let offset = resource.rangeOffset {
            part = bundle.appendingPathComponent("\(resource.fileName).\(offset).part")
        } else {
            part = bundle.appendingPathComponent("\(resource.fileName).part")
        }
        try FileManager.default.createDirectory(at: part.deletingLastPathComponent(), withIntermediateDirectories: true)
        let id = resource.id!
        let assetId = resource.assetId
        let counter = ByteBatcher()
        let clock = ContinuousClock()
        let started = clock.now
        // Bytes are reported in batches (a message per body chunk would queue faster than the
        // session drains them on a fast link), in order, and all of them before the resource
        // is done: a late batch would count bytes twice.
        let (batches, reporter) = AsyncStream<Int>.makeStream()
        let result = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await batch in batches { await self.recordBytes(batch, resource: id, asset: assetId) }
            }
            defer { reporter.finish() }
            let result = try await fetcher.fetch(resource.uri, range: resource.byteRange, into: part.path,
                                                 validators: .init(etag: resource.etag, lastModified: resource.lastModified),
                                                 limit: resource.growthLimit(bandwidthKnown: fetcher.bandwidthKnown)) { delta in
                if let batch = counter.add(delta) { reporter.yield(batch) }
            }
            if let rest = counter.drain() { reporter.yield(rest) }
            reporter.finish()
            try await group.waitForAll()
            return result
        }
        let elapsed = clock.now - started
        let url = URL(string: resource.uri)
        AssetLogs(library: library).access(
            .init(date: Date(), event: "download", uri: resource.uri,
                  server: url?.host.map { host in url?.port.map { "\(host):\($0)" } ?? host }, status: result.status,
                  bytes: result.transferred,
                  duration: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18), for: assetId)
        if let offset = resource.rangeOffset {
            // Copy the range into the shared file at its offset; the shared file keeps its
            // temporary name until every range of it is in.
            let shared = FilePath(bundle.appendingPathComponent("\(resource.fileName).part").path)
            try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(part.path)) { reader in
                try await FileSystem.shared.withFileHandle(forWritingAt: shared, options: .modifyFile(createIfNecessary: true)) { writer in
                    var position: Int64 = 0
                    for try await chunk in reader.readChunks(chunkLength: .kibibytes(256)) {
                        try await writer.write(contentsOf: chunk, toAbsoluteOffset: Int64(offset) + position)
                        position += Int64(chunk.readableBytes)
                    }
                }
            }
            try FileManager.default.removeItem(at: part)
        } else {
            try BundleFiles.rename(part, to: final)
        }
        try await resourceDone(resource, bytes: result.bytes, validators: result.validators)
    }

    func recordBytes(_ delta: Int, resource: Int64, asset: String) {
        trackers[asset]?.add(delta, to: resource, at: Self.now())
        emitProgress(asset, force: false)
    }

    func resourceDone(_ resource: ResourceRecord, bytes: Int, validators: ResourceFetcher.Validators) async throws {
        try await index.markDone(resource.id!, bytes: bytes, etag: validators.etag, lastModified: validators.lastModified)
        trackers[resource.assetId]?.finish(resource.id!, bytes: bytes)
        if resource.kind == .segment, trackers[resource.assetId] != nil {
            let duration = renditionDurations[resource.assetId]?[resource.renditionKey] ?? 0
            if let snapshot = trackers[resource.assetId]?.snapshot(at: Self.now()) {
                emit(.timeRangeLoaded(taskID: resource.assetId, rendition: resource.renditionKey,
                                      range: .init(start: resource.startTime, end: resource.startTime + resource.duration),
                                      loaded: snapshot.loadedTimeRanges[resource.renditionKey] ?? [],
                                      expected: .init(start: 0, end: duration)))
            }
        }
        if resource.rangeOffset != nil, let left = rangesLeft[resource.assetId]?[resource.fileName] {
            rangesLeft[resource.assetId]?[resource.fileName] = left - 1
            if left == 1 { try finishSharedFile(resource.fileName, of: resource.assetId) }
        }
        var left = trackers[resource.assetId]?.unfinished(in: resource.renditionKey)
        if left == nil {
            left = try await index.pendingCount(of: resource.assetId, rendition: resource.renditionKey)
        }
        if left == 0, reportedRenditions[resource.assetId, default: []].insert(resource.renditionKey).inserted {
            emit(.renditionCompleted(taskID: resource.assetId, key: resource.renditionKey))
        }
        emitProgress(resource.assetId, force: true)
    }

    /// Renames each shared file whose ranges are all in to its final name.
    func finishSharedFiles(_ id: String, resources: [ResourceRecord]) async throws(CarryonError) {
        let byFile = Dictionary(grouping: resources.filter { $0.rangeOffset != nil }, by: \.fileName)
        for (fileName, ranges) in byFile where ranges.allSatisfy({ $0.state == .done }) {
            try finishSharedFile(fileName, of: id)
        }
    }

    /// Renames a shared file whose ranges are all in to its final name.
    func finishSharedFile(_ fileName: String, of id: String) throws(CarryonError) {
        let bundle = library.bundleURL(for: id)
        let part = bundle.appendingPathComponent("\(fileName).part")
        if FileManager.default.fileExists(atPath: part.path) {
            try BundleFiles.rename(part, to: bundle.appendingPathComponent(fileName))
        }
    }

    func emitProgress(_ id: String, force: Bool) {
        guard let tracker = trackers[id] else { return }
        let now = Self.now()
        if !force, let last = lastProgressEvent[id], now - last < 0.2 { return }
        lastProgressEvent[id] = now
        emit(.progress(taskID: id, progress: tracker.snapshot(at: now)))
    }

    /// Seconds on a monotonic clock, for rates.
    static func now() -> Double {
        let duration = ContinuousClock.now - start
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static let start = ContinuousClock.now
}
