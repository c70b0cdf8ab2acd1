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
        /// Whether the task must run to fetch them: false when nothing is to be fetched (only
        /// manifests were damaged, and are written already), the task left as it was.
        public let fetches: Bool
        /// The damage it set out to mend.
        public let damage: [Damage]
        /// The resources as they were recorded before the repair, and the task's state then.
        let before: [ResourceRecord]
        let stateBefore: DownloadState
        let errorBefore: String?
        /// The manifests written again as the repair began (``ManifestDamage/file``), and those
        /// that could not be, each with why.
        let manifests: [String]
        let manifestsLeft: [ManifestDamage]
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
        /// stream's, read again (a live recording's from the recording the bundle keeps),
        /// `manifest.json` from the index.
        public var manifests: [String] = []
        /// The damaged manifests not written again, each with why (the stream changed at the
        /// origin or could not be read, a recording's record is gone), left as they were.
        public var manifestsLeft: [ManifestDamage] = []
    }

    /// Checks asset `id`'s bundle (``VerificationReport``): every resource on disk read once,
    /// against the SHA-256 recorded as it was downloaded and for its structure. With `record`,
    /// records the digest of each resource downloaded before digests were (one that passes).
    public func verify(_ id: String, record: Bool = false) async throws(CarryonError) -> VerificationReport {
        let id = try await resolveID(id)
        return try await BundleVerifier(library: library).verify(id, record: record)
    }

    /// Prepares to mend `damage` and `manifests` (a ``verify(_:record:)`` report's) of asset
    /// `id`: damaged manifests are written again at once, the damaged resources are marked to be
    /// fetched again and the task is suspended. `manifest.json` is written from the index; a
    /// damaged playlist from the stream's, read again with the asset's selection and range, only
    /// when the stream is the one downloaded (its playlists at the origin, secrets left out, are
    /// byte for byte the copies the bundle keeps in `origin/`, and plan the files the index holds)
    /// — the index is not changed, and no other manifest is written. A stream changed at the
    /// origin or one that cannot be read leaves the playlists as they are, said in
    /// ``RepairOutcome/manifestsLeft``. A live recording's are planned again from the recording
    /// the bundle keeps, not from the stream, which has moved on. With nothing to fetch
    /// (``Repair/fetches`` false) the task is left as it was. Otherwise resume the task
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
        let before = try await index.resources(damage.map(\.resource), of: id).filter { $0.state == .done }
        let (rewritten, left) = await rewriteManifests(id, damaged: manifests)
        guard !before.isEmpty else {
            return Repair(task: DownloadTask(id: id, session: self), fetches: false, damage: [], before: [], stateBefore: stateBefore,
                          errorBefore: nil, manifests: rewritten, manifestsLeft: left)
        }
        let bundle = library.bundleURL(for: id)
        for resource in before { try? FileManager.default.removeItem(at: BundleWriter.partialFile(of: resource, in: bundle)) }
        try await index.markPending(before.map { $0.id! }, of: id)
        if let holder = try await scheduler.setStateUnlessHeld(machine.state, of: id) {
            try await restore(before, of: id)
            throw TaskScheduler.busy(id, holder, "it must stop before it is repaired")
        }
        record(id, machine)
        return Repair(task: DownloadTask(id: id, session: self), fetches: true, damage: damage.filter { damaged in before.contains { $0.id == damaged.resource } },
                      before: before, stateBefore: stateBefore, errorBefore: try await index.asset(id)?.errorMessage, manifests: rewritten, manifestsLeft: left)
    }

    /// Writes asset `id`'s damaged manifests again: those written, and those left with why.
    private func rewriteManifests(_ id: String, damaged: [ManifestDamage]) async -> (written: [String], left: [ManifestDamage]) {
        var written: [String] = []
        var left: [ManifestDamage] = []
        let playlists = damaged.filter { $0.file != BundleManifest.fileName }
        if !playlists.isEmpty {
            do throws(CarryonError) {
                try await rewritePlaylists(id, only: Set(playlists.map(\.file)))
                written += playlists.map(\.file)
            } catch {
                left += playlists.map { ManifestDamage(file: $0.file, message: "not written again: \(error.message)") }
            }
        }
        if damaged.contains(where: { $0.file == BundleManifest.fileName }) {
            do throws(CarryonError) {
                try await BundleWriter(library: library).writeManifest(of: id)
                written.append(BundleManifest.fileName)
            } catch {
                left.append(ManifestDamage(file: BundleManifest.fileName, message: "not written again: \(error.message)"))
            }
        }
        return (written, left)
    }

    /// Writes asset `id`'s manifests `damaged` again from the stream's playlists, read again with
    /// its selection and range, when the stream is the one downloaded; nothing else is written.
    ///
    /// A live recording's are planned again from the recording the bundle keeps
    /// (`origin/recording.json` and its journal), the network not read: the stream has moved on,
    /// and the recording is the record of what the playlists held.
    private func rewritePlaylists(_ id: String, only damaged: Set<String>) async throws(CarryonError) {
        guard let asset = try await index.asset(id) else { throw CarryonError(.unknownAsset, "no asset has the id \(id)") }
        let selection = asset.selection
        var request = PlanRequest(assetID: id, options: asset.options, pinnedVariant: selection?.variant.uri,
                                  additionalVariants: selection?.additionalVariants ?? [])
        let bundle = library.bundleURL(for: id)
        if asset.options.live != nil {
            let recording = try LiveRecording.load(from: bundle, masterKey: library.masterKey)
            guard let recording, recording.firstManifest != nil else {
                throw CarryonError(.invalidState, "the recording's record (\(LiveRecording.file(in: bundle).path)) is gone or holds no playlist, and the stream has moved on")
            }
            request.recording = recording
            request.replaysRecording = true
        }
        let planned = try await planStream(asset, request, fetcher: playlistFetcher(for: asset))
        // The files a plan puts where: the same as the index's, or the playlists would name
        // others than the bundle holds (signed URLs may differ from read to read; files do not).
        func places(_ resources: some Sequence<ResourceRecord>) -> Set<String> {
            Set(resources.map { "\($0.renditionKey) \($0.kind.rawValue) \(ResourceRecord.onDiskKey($0.fileName, offset: $0.rangeOffset)) \($0.rangeLength ?? -1)" })
        }
        let held = places(try await index.resources(of: id))
        let now = places(planned.plan.resources)
        guard held == now else {
            let changed = now.symmetricDifference(held).count
            if request.recording != nil {
                // Not the origin: the recording's record and the index went apart (a process
                // stopped between a round's record and its plan), and resuming plans it again.
                throw CarryonError(.invalidState, "the recording's record plans \(changed) file\(changed == 1 ? "" : "s") otherwise than the index holds (a process stopped between a round's record and its plan): resume the recording, which plans it again, or it stays as it is")
            }
            throw CarryonError(.invalidState, "the stream has changed at the origin since it was downloaded (\(changed) file\(changed == 1 ? "" : "s") planned otherwise): download it again for playlists of what it is now")
        }
        // File names are places in the plan, not the media's: the stream is the one downloaded
        // only if its playlists are, which the bundle keeps copies of (secrets left out).
        let files = BundleWriter.manifestFiles(of: planned, format: try configuration.formats.format(named: planned.format))
        // A recording's are its own record's, not the stream's: no copy to hold them to.
        let copies = request.recording != nil ? [] : files.keys.filter { $0.hasPrefix("origin/") }.sorted()
        guard !copies.isEmpty || request.recording != nil else { throw CarryonError(.invalidState, "the bundle keeps no copy of the stream's playlists to tell the stream unchanged") }
        for path in copies {
            guard let kept = FileManager.default.contents(atPath: bundle.appending(path: path, directoryHint: .notDirectory).path) else {
                throw CarryonError(.invalidState, "its copy of the stream's playlist (\(path)) is gone, so the stream cannot be told unchanged")
            }
            guard kept.elementsEqual(files[path]!) else {
                throw CarryonError(.invalidState, "the stream has changed at the origin since it was downloaded (\(path) is not the copy the bundle keeps): download it again for playlists of what it is now")
            }
        }
        // Planned while another process may have begun the download: not over its manifests.
        if let ownership = try await scheduler.ownership(of: id), let holder = ownership.holder, holder.instance != scheduler.instance.id {
            throw TaskScheduler.busy(id, ownership, "its manifests are that process's")
        }
        for path in damaged.sorted() {
            guard let bytes = files[path] else { throw CarryonError(.invalidState, "\(path) is not one of the manifests the stream's plan writes") }
            try BundleFiles.write(bytes: bytes, to: bundle.appending(path: path, directoryHint: .notDirectory))
        }
        try await index.bundleChanged(id)
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
                                    manifests: repair.manifests, manifestsLeft: repair.manifestsLeft)
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
