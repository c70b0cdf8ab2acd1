import DASH

/// MPEG-DASH (ISO/IEC 23009-1) behind the format seam: MPDs read leniently by the `DASH`
/// module (warnings naming the line, entity declarations refused), remote elements and segment
/// indexes read by ``DASHPlanner``, selection by ``MediaSelector`` on the MPD's
/// ``Presentation``, and bundles with both a local `main.mpd` and HLS playlists of the same
/// files (`DASHPlan.swift`).
struct DASHFormat: StreamFormat {
    var name: String { "dash" }
    var originExtension: String { "mpd" }

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
        let (plan, selection) = try await DASHPlanner(fetcher: fetcher, options: request.options)
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
