import DASH

/// MPEG-DASH (ISO/IEC 23009-1) behind the format seam: MPDs read leniently by the `DASH`
/// module (warnings naming the line, entity declarations refused), remote elements and segment
/// indexes read by ``DASHPlanner``, selection by ``MediaSelector`` on the MPD's
/// ``Presentation``, and bundles with both a local `main.mpd` and HLS playlists of the same
/// files (`DASHPlan.swift`).
struct DASHFormat: StreamFormat {
    var name: String { "dash" }
    var displayName: String { "MPEG-DASH" }
    var originExtension: String { "mpd" }

    /// The bundle's own MPD of the files it holds, for DASH players.
    static let localMPD = LocalManifest.mpd
    var localManifests: [LocalManifest] { [Self.localMPD] }

    /// The local MPD cut to what is on disk (see ``MPDCut``).
    func cut(_ text: String, of manifest: LocalManifest, onDisk: Set<String>) throws(CarryonError) -> String {
        try MPDCut.cut(text, onDisk: onDisk)
    }

    /// The local MPD with each Clear Key `ContentProtection` pointing at `licenseURL`: the
    /// playback server answers the player's licence requests from the key store. (The bundle
    /// keeps the MPD without one: the server's port and token change each run.)
    func served(_ text: String, of manifest: LocalManifest, licenseURL: String) -> String {
        guard var mpd = try? MPD.read(Array(text.utf8)) else { return text }
        var changed = false
        func point(_ protections: inout [ContentProtection]) {
            for index in protections.indices where protections[index].schemeIdUri == ContentProtection.clearKey {
                protections[index].licenseURL = licenseURL
                changed = true
            }
        }
        for period in mpd.periods.indices {
            for set in mpd.periods[period].adaptationSets.indices {
                point(&mpd.periods[period].adaptationSets[set].common.contentProtections)
                for representation in mpd.periods[period].adaptationSets[set].representations.indices {
                    point(&mpd.periods[period].adaptationSets[set].representations[representation].common.contentProtections)
                }
            }
        }
        return changed ? mpd.written() : text
    }

    /// An MPD is XML whose root element is `MPD` (with or without a prefix): its first element
    /// after the XML declaration, comments and a DOCTYPE.
    func recognizes(_ manifest: FetchedManifest) -> Bool {
        var text = Substring(decoding: manifest.bytes.prefix(4096), as: UTF8.self)
        while let open = text.firstIndex(of: "<") {
            let rest = text[text.index(after: open)...]
            if rest.hasPrefix("?") || rest.hasPrefix("!") {
                guard let close = rest.firstIndex(of: ">") else { return false }
                text = rest[rest.index(after: close)...]
                continue
            }
            let name = rest.prefix { !$0.isWhitespace && $0 != ">" && $0 != "/" }
            return name == "MPD" || name.hasSuffix(":MPD")
        }
        return false
    }

    func plan(_ manifest: FetchedManifest, for request: PlanRequest, fetcher: PlaylistFetcher) async throws(CarryonError) -> PlannedStream {
        let (plan, selection) = try await DASHPlanner(fetcher: fetcher, options: request.options, recording: request.recording)
            .plan(assetID: request.assetID, manifest: manifest, pinnedVariant: request.pinnedVariant,
                  additionalVariants: request.additionalVariants)
        return PlannedStream(plan: plan, selection: selection, format: name)
    }

    func presentation(of manifest: FetchedManifest, fetcher: PlaylistFetcher) async throws(CarryonError) -> Presentation {
        let mpd = try await DASHPlanner(fetcher: fetcher, options: DownloadOptions()).read(manifest)
        return DASHPresentation.presentation(of: mpd, url: manifest.url)
    }

    /// MPDs carry no key material (keys come from licence servers): kept as fetched.
    func redacted(origin: [UInt8]) -> [UInt8] {
        origin
    }
}
