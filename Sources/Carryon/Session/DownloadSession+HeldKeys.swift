import Foundation
import HLS

/// Keys the user holds (``HeldKeys``): given for an asset, matched to its keys by KID, and
/// checked against the first samples they decrypt before any media is downloaded.
extension DownloadSession {
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
