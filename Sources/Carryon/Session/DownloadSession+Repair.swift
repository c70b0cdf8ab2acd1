import Foundation

/// Verifying a bundle against what was downloaded, and mending what is damaged from the origin.
///
/// A repair is a run of the task over the damaged resources alone: they are marked to be fetched
/// again, and the task resumes as `resume` resumes it — signed URLs refreshed when they have
/// expired, keys renewed — each resource fetched into its partial file and put in place only
/// once whole. A resource the run could not fetch is recorded again as it was (its file was not
/// touched), and the task goes back to its state before the repair: a repair that cannot reach
/// the origin changes nothing.
extension DownloadSession {
    /// What a repair set out to mend, for ``endRepair(_:)``.
    public struct Repair: Sendable {
        /// The task that fetches the damaged resources.
        public let task: DownloadTask
        /// The damage it set out to mend.
        public let damage: [Damage]
        /// The resources as they were recorded before the repair, and the task's state then.
        let before: [ResourceRecord]
        let stateBefore: DownloadState
        let errorBefore: String?
        /// The manifests written again as the repair began (``ManifestDamage/file``).
        let manifests: [String]
    }

    /// What a repair mended, and what it could not.
    public struct RepairOutcome: Sendable, Codable, Hashable {
        /// The damage mended: its resource fetched again and in place.
        public var mended: [Damage]
        /// The damage not mended, left as it was.
        public var unmended: [Damage]
        /// Why the rest could not be mended: the run's error.
        public var error: String?
        /// Files mended whose bytes are not the ones first downloaded: the origin serves other
        /// bytes at that location now.
        public var changedAtOrigin: [String]
        /// The damaged manifests written again (``ManifestDamage/file``): the playlists from the
        /// stream's, read again, `manifest.json` from the index.
        public var manifests: [String] = []
    }

    /// Checks asset `id`'s bundle (``VerificationReport``): every resource on disk read once,
    /// against the SHA-256 recorded as it was downloaded and for its structure. With `record`,
    /// records the digest of each resource downloaded before digests were (one that passes).
    public func verify(_ id: String, record: Bool = false) async throws(CarryonError) -> VerificationReport {
        let id = try await resolveID(id)
        return try await BundleVerifier(library: library).verify(id, record: record)
    }

    /// Prepares to mend `damage` and `manifests` (a ``verify(_:record:)`` report's) of asset
    /// `id`: damaged manifests are written again at once (the playlists from the stream's, read
    /// again with the selection the asset has, every file it holds kept; `manifest.json` from the
    /// index), the damaged resources are marked to be fetched again and the task is suspended.
    /// A recording's playlists are not read again: the stream has moved on. Then resume the task
    /// (``DownloadTask/resume()``), which fetches them, wait for it
    /// (``DownloadTask/waitUntilFinished()``) and call ``endRepair(_:)``: it records again what
    /// was not mended, as it was. A process stopped in between leaves the task suspended, the
    /// damaged resources pending: `resume` mends them.
    ///
    /// - Throws: ``CarryonError/Code/busy`` while another process runs the task,
    ///   ``CarryonError/Code/invalidState`` while it runs here or is cancelled.
    public func beginRepair(_ id: String, damage: [Damage], manifests: [ManifestDamage] = []) async throws(CarryonError) -> Repair {
        let id = try await resolveID(id)
        var machine = try await machine(id)
        let stateBefore = machine.state
        do { _ = try machine.repair() } catch { throw CarryonError(.invalidState, "\(id): \(error)") }
        if let ownership = try await scheduler.ownership(of: id), let holder = ownership.holder, holder.instance != scheduler.instance.id {
            throw TaskScheduler.busy(id, ownership, "it must stop before it is repaired")
        }
        let rewritten = manifests.isEmpty ? [] : try await rewriteManifests(id, damaged: manifests)
        let before = try await index.resources(damage.map(\.resource), of: id).filter { $0.state == .done }
        let bundle = library.bundleURL(for: id)
        for resource in before { try? FileManager.default.removeItem(at: BundleWriter.partialFile(of: resource, in: bundle)) }
        try await index.markPending(before.map { $0.id! }, of: id)
        if let holder = try await scheduler.setStateUnlessHeld(machine.state, of: id) {
            try await restore(before, of: id)
            throw TaskScheduler.busy(id, holder, "it must stop before it is repaired")
        }
        record(id, machine)
        return Repair(task: DownloadTask(id: id, session: self), damage: damage.filter { damaged in before.contains { $0.id == damaged.resource } },
                      before: before, stateBefore: stateBefore, errorBefore: try await index.asset(id)?.errorMessage, manifests: rewritten)
    }

    /// Writes asset `id`'s damaged manifests again; returns their files.
    private func rewriteManifests(_ id: String, damaged: [ManifestDamage]) async throws(CarryonError) -> [String] {
        guard let asset = try await index.asset(id) else { throw CarryonError(.unknownAsset, "no asset has the id \(id)") }
        if damaged.contains(where: { $0.file != BundleManifest.fileName }) {
            guard asset.options.live == nil else {
                throw CarryonError(.invalidState, "\(id) is a recording of a live stream: its playlists (\(damaged.map(\.file).joined(separator: ", "))) cannot be read again from the stream, which has moved on")
            }
            let selection = asset.selection
            let planned = try await planStream(asset, PlanRequest(assetID: id, options: asset.options, pinnedVariant: selection?.variant.uri,
                                                                 additionalVariants: selection?.additionalVariants ?? []),
                                               fetcher: playlistFetcher(for: asset))
            try await persist(planned, for: asset, keeping: true)
        }
        try await BundleWriter(library: library).writeManifest(of: id)
        return damaged.map(\.file)
    }

    /// Ends `repair` once its task has stopped: each damaged resource the run did not fetch is
    /// recorded again as it was before (its file untouched, any partial fetch of it removed),
    /// and the task, unless every resource was mended, goes back to its state before.
    public func endRepair(_ repair: Repair) async throws(CarryonError) -> RepairOutcome {
        let id = repair.task.id
        let now = Dictionary(uniqueKeysWithValues: try await index.resources(repair.before.map { $0.id! }, of: id).map { ($0.id!, $0) })
        let unfetched = repair.before.filter { now[$0.id!]?.state != .done }
        let error = lastError(of: id)?.message
        var outcome = RepairOutcome(mended: [], unmended: [], error: unfetched.isEmpty ? nil : error ?? "the repair stopped", changedAtOrigin: [],
                                    manifests: repair.manifests)
        for damage in repair.damage {
            if unfetched.contains(where: { $0.id == damage.resource }) {
                outcome.unmended.append(damage)
            } else {
                outcome.mended.append(damage)
                let old = repair.before.first { $0.id == damage.resource }?.sha256
                if let old, let new = now[damage.resource]?.sha256, old != new { outcome.changedAtOrigin.append(damage.file) }
            }
        }
        guard !unfetched.isEmpty else { return outcome }
        try await restore(unfetched, of: id)
        if let holder = try await scheduler.setStateUnlessHeld(repair.stateBefore, of: id, error: repair.errorBefore ?? "") {
            throw TaskScheduler.busy(id, holder, "it was claimed while its repair ended")
        }
        record(id, DownloadTaskStateMachine(state: repair.stateBefore))
        return outcome
    }

    /// Records `resources` again as they were (on disk, with their size, validators and
    /// digest), removing any partial fetch of them.
    private func restore(_ resources: [ResourceRecord], of id: String) async throws(CarryonError) {
        let bundle = library.bundleURL(for: id)
        for resource in resources {
            try? FileManager.default.removeItem(at: BundleWriter.partialFile(of: resource, in: bundle))
            try await index.markDone(resource.id!, bytes: resource.bytes ?? 0, etag: resource.etag, lastModified: resource.lastModified,
                                     sha256: resource.sha256, fence: nil)
        }
    }
}
