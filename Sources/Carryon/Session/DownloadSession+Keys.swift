import Foundation
import HLS

/// Content keys: obtained before any media (from the origin, a licence server, an app's
/// ``ContentKeyProvider``, or keys the user holds) and sealed; obtained again on renewal. Keys
/// the user holds (``HeldKeys``) are matched to the stream's by KID and checked against the
/// first samples they decrypt.
extension DownloadSession {
    /// Obtains an asset's content keys again — from the origin, a `data:` URI or the app's
    /// provider, as at download time — without fetching any media: after they were
    /// invalidated, or to give them a new lifetime (`lifetime`, else the session's
    /// ``Configuration/keyLifetime``; a provider's own answer wins). Returns the keys' ids.
    ///
    /// - Throws: ``CarryonError/Code/invalidState`` while the asset is downloading elsewhere or
    ///   has not read its playlists; ``CarryonError/Code/keys`` when a key cannot be obtained
    ///   (the keys kept so far stay as they were).
    ///
    /// With `onlyMissing`, only keys the store does not have or that were invalidated are
    /// obtained (keys left for after the download, with ``Configuration/prefetchKeys`` off).
    public func renewKeys(_ id: String, lifetime: KeyLifetime? = nil, onlyMissing: Bool = false) async throws(CarryonError) -> [String] {
        let id = try await resolveID(id)
        guard let asset = try await index.asset(id), asset.planned else {
            throw CarryonError(.invalidState, "\(id) has not read its playlists yet: resume it first")
        }
        let fetcher = playlistFetcher(for: asset)
        // The playlists are read again for the keys they name; nothing is written but the keys.
        // A recording's are the ones it recorded (a finished one is read without the network).
        let recording = asset.options.live == nil ? nil : try LiveRecording.load(from: library.bundleURL(for: id), masterKey: library.masterKey)
        let planned = try await planStream(asset, PlanRequest(assetID: id, options: asset.options, pinnedVariant: asset.selection?.variant.uri,
                                                             additionalVariants: asset.selection?.additionalVariants ?? [],
                                                             recording: recording), fetcher: fetcher)
        var keys = planned.plan.keys
        if onlyMissing {
            let valid = Set(try await KeyStore(library: library).keys(of: id)
                .filter { !$0.isInvalidated }.map(\.id))
            keys.removeAll { valid.contains($0.id) }
        }
        try await obtainKeys(keys, for: id, fetcher: fetcher, lifetime: lifetime, alsoUsing: planned.plan.keys)
        return keys.map(\.id)
    }

    /// Obtains and seals the content keys of a plan: those whose KID the user holds (given with
    /// ``hold(_:for:requiringUse:)`` or kept in the key store), checked against their first samples; the
    /// others as ``ContentKeyFetcher`` obtains them. All are obtained before any is stored, so a
    /// failure leaves the key store as it was.
    ///
    /// - Throws: ``CarryonError/Code/keys`` when a key cannot be obtained or a held key is wrong,
    ///   or a key given one by one for the asset is for a KID it does not use (`keys` and
    ///   `alsoUsing`: the stream's keys stored already); ``CarryonError/Code/keySystem`` when
    ///   nothing given opens the system a key needs.
    func obtainKeys(_ keys: [DownloadPlan.PlannedKey], for id: String, fetcher: PlaylistFetcher,
                    lifetime: KeyLifetime? = nil, alsoUsing stored: [DownloadPlan.PlannedKey] = []) async throws(CarryonError) {
        let given = givenKeys[id] ?? (HeldKeys(), [])
        let asset = try await index.asset(id)
        // A recording's keys may change as it goes: keys given for it are kept for its later rounds.
        let isRecording = asset?.options.live != nil
        guard !keys.isEmpty || (!given.required.isEmpty && !isRecording) else {
            if !isRecording { givenKeys[id] = nil }
            return
        }
        let store = KeyStore(library: library)
        let kept = try await store.heldKeys(of: id)
        // Keys given now over keys kept (a wrong one sealed for a worker is replaced).
        let held = kept.overridden(by: given.keys)
        let keyFetcher = ContentKeyFetcher(fetcher: fetcher, providers: configuration.keyProviders, licenseURL: asset?.options.licenseURL)
        var obtained: [(key: DownloadPlan.PlannedKey, response: ContentKeyResponse, isHeld: Bool)] = []
        var used: [String: String] = [:]
        var notices: [DownloadPlan.PlaylistNotice] = []
        for key in keys {
            if !held.isEmpty, let keyID = try await heldKeyID(of: key, fetcher: fetcher), let bytes = held.keys[keyID] {
                do {
                    if let notice = try await checkHeldKey(bytes, keyID: keyID, key: key, fetcher: fetcher, source: held.source(of: keyID)) {
                        notices.append(notice)
                    }
                } catch {
                    // A wrong key is not tried again by the next planning.
                    if error.code == .keys { givenKeys[id] = nil }
                    throw error
                }
                used[keyID] = key.id
                obtained.append((key, ContentKeyResponse(key: bytes), true))
                continue
            }
            // Awaited before the tuple is built: see SizeEstimator for the miscompile that a
            // tuple built around an `await` meets in release builds.
            let response = try await cancellable { try await keyFetcher.key(key, assetID: id) }
            obtained.append((key, response, false))
        }
        if !isRecording {
            try refuseUnused(given, used: used, kept: kept, keys: keys, stored: stored, for: id)
        }
        let keyLifetime = lifetime ?? configuration.keyLifetime
        for (key, response, isHeld) in obtained {
            try await store.store(response.key, id: key.id, assetID: id, uri: isHeld ? KeyStore.heldURI : response.source ?? key.uri, method: key.method,
                                  keyFormat: key.keyFormat, lifetime: response.lifetime ?? keyLifetime, fence: tasks[id]?.run?.fence)
        }
        // Kept under their KIDs too, for the renditions an added selection brings; a
        // recording's every key given, for the KIDs it meets later.
        let keeping = isRecording ? Set(given.keys.keyIDs) : Set(used.filter { $0.value != "kid-" + $0.key }.keys)
        for keyID in keeping.sorted() where used[keyID] != "kid-" + keyID {
            guard let bytes = held.keys[keyID] else { continue }
            try await store.store(bytes, id: "kid-" + keyID, assetID: id, uri: KeyStore.heldURI, method: "common encryption",
                                  keyFormat: "held", lifetime: keyLifetime, fence: tasks[id]?.run?.fence)
        }
        givenKeys[id] = nil
        if !notices.isEmpty, let asset { reportPlaylistWarnings(notices, for: asset) }
    }

    /// Gives the keys `keys` for asset `id`'s next planning (its download, a renewal, an added
    /// media selection): each used for the stream's key with its KID instead of asking a
    /// licence server or ``ContentKeyProvider``, checked against the first samples it decrypts,
    /// then sealed in the ``KeyStore`` with the others. Until then they are held in memory only.
    ///
    /// The planning fails, nothing stored or downloaded, when a key decrypts its first samples
    /// to what their codec cannot be (``CarryonError/Code/keys``, naming the KID), or — with
    /// `requiringUse`, for keys given one by one (`--key`) — is for a KID the stream does not
    /// use. Without it the keys are a key ring (`--keys-file`): those the stream does not use
    /// are left out, never stored.
    public func hold(_ keys: HeldKeys, for id: String, requiringUse: Bool = true) throws(CarryonError) {
        guard !keys.isEmpty else { return }
        let given = givenKeys[id] ?? (HeldKeys(), [])
        givenKeys[id] = (try given.keys.merging(keys), requiringUse ? given.required.union(keys.keyIDs) : given.required)
    }

    /// Sets the Clear Key licence server asset `id`'s DASH keys are asked of when its MPD names
    /// none (``DownloadOptions/licenseURL``), for its next planning: a resume, a renewal, an
    /// added media selection.
    ///
    /// - Throws: ``CarryonError/Code/invalidValue`` when `url` is not http(s);
    ///   ``CarryonError/Code/unknownAsset``.
    public func setLicenseURL(_ url: String, for id: String) async throws(CarryonError) {
        let id = try await resolveID(id)
        guard let asset = try await index.asset(id) else { throw CarryonError(.unknownAsset, "no asset has the id \(id)") }
        var options = asset.options
        options.licenseURL = url
        try options.check()
        try await index.setOptions(options, of: id)
    }

    /// Refuses keys given one by one (`--key`) for KIDs the stream does not use — among `keys`
    /// (obtained now), `stored` (obtained before) and the keys `kept` in the store — naming
    /// each by where it was given, never by its KID (an entry typed `KEY:KID` would make that the key).
    func refuseUnused(_ given: (keys: HeldKeys, required: Set<String>), used: [String: String], kept: HeldKeys,
                      keys: [DownloadPlan.PlannedKey], stored: [DownloadPlan.PlannedKey], for id: String) throws(CarryonError) {
        let known = Set(stored.compactMap { $0.keyID.flatMap(HeldKeys.keyID) }).union(kept.keyIDs)
        let unused = given.required.sorted().filter { used[$0] == nil && !known.contains($0) }
        guard !unused.isEmpty else { return }
        givenKeys[id] = nil
        let kids = Set((keys + stored).compactMap { $0.keyID.flatMap(HeldKeys.keyID) }).union(used.keys).sorted()
        let uses = keys.isEmpty && stored.isEmpty ? "it is not encrypted"
            : kids.isEmpty ? "its keys are named by URI, not by KID" : "it uses KID \(kids.joined(separator: ", "))"
        let entries = unused.map { given.keys.source(of: $0) }.joined(separator: ", ")
        throw CarryonError(.keys, "the stream does not use the KID of \(entries) (\(uses)); nothing was downloaded. Is each given as KID:KEY, in that order?")
    }

    /// The KID of `key`: its own (DASH's `cenc:default_KID`), else — for an HLS key of fMP4
    /// samples — the one the `tenc` box of its first init section names.
    func heldKeyID(of key: DownloadPlan.PlannedKey, fetcher: PlaylistFetcher) async throws(CarryonError) -> String? {
        if let keyID = key.keyID { return HeldKeys.keyID(keyID) }
        guard let probe = key.probes.first else { return nil }
        let initSection = try await fetch(probe.initSection, fetcher: fetcher)
        do {
            return try KeyCheck.keyIDs(inInit: initSection).first
        } catch {
            throw CarryonError(.keys, "the init section \(probe.initSection.uri) of \(key.namedBy ?? key.id) cannot be read for its KID: \(error)")
        }
    }

    /// Checks the held `bytes` for `keyID` against the first samples `key` encrypts: nil when
    /// they fit, a warning when nothing could tell.
    ///
    /// - Throws: ``CarryonError/Code/keys`` naming the KID when the key is wrong.
    func checkHeldKey(_ bytes: [UInt8], keyID: String, key: DownloadPlan.PlannedKey,
                      fetcher: PlaylistFetcher, source: String) async throws(CarryonError) -> DownloadPlan.PlaylistNotice? {
        var renditions: [KeyCheck.Track] = []
        var named: [String] = []
        for probe in key.probes {
            var track = KeyCheck.Track(initSection: try await fetch(probe.initSection, fetcher: fetcher), segments: [])
            // Segment by segment until one holds samples under the key (a clear lead holds none).
            for segment in probe.segments {
                track.segments.append(try await fetch(segment, fetcher: fetcher))
                if KeyCheck.holdsSamples(of: keyID, track) { break }
            }
            renditions.append(track)
            named.append(probe.rendition)
        }
        let place = named.joined(separator: ", ")
        switch KeyCheck.check(key: bytes, keyID: keyID, renditions: renditions) {
        case .fits:
            return nil
        case let .wrong(why):
            throw CarryonError(.keys, "the key given for KID \(keyID) (\(source)) is wrong: \(why) (\(place)); nothing was downloaded")
        case let .unchecked(why):
            let where_ = key.probes.first?.initSection.uri ?? key.namedBy ?? key.uri
            return DownloadPlan.PlaylistNotice(playlist: where_, warning: PlaylistWarning(
                line: 0, "the key given for KID \(keyID) (\(source)) could not be checked before the download (\(place.isEmpty ? "no media to read" : place)): \(why)"))
        }
    }

    private func fetch(_ location: DownloadPlan.KeyProbe.Location, fetcher: PlaylistFetcher) async throws(CarryonError) -> [UInt8] {
        try await cancellable { try await fetcher.fetchBytes(location.uri, range: location.range).1 }
    }
}
