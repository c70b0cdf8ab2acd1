import DASH
import Foundation
import HLS

/// Reads an MPD and what it names (remote Periods and AdaptationSets, SegmentBase's segment
/// indexes), chooses what to download (``MediaSelector`` on its ``Presentation``), and plans it:
/// the I/O half of DASH's ``DownloadPlan`` (the pure half is `DASHPlan.swift`).
///
/// Records a dynamic (live) MPD into the request's recording, and plans what it holds; without
/// one, refuses it, before any media is fetched. Refuses too:
/// locations the stream's `LocationRule` refuses. A Representation with several BaseURLs is
/// fetched from the first; the others are its ``Fallback``s. The MPD URL's query goes on media
/// requests when a URL query parameter descriptor says so, and otherwise is a ``Fallback`` too:
/// added to a request that fails without it. Encrypted Representations are planned with
/// their keys (`DASHKeys`), which the session obtains before any media.
struct DASHPlanner: Sendable {
    let fetcher: PlaylistFetcher
    let options: DownloadOptions
    /// Where a dynamic MPD is recorded (``RecordedMPD``): what it holds is planned as a static
    /// MPD. Nil: a dynamic MPD is refused.
    var recording: LiveRecording? = nil

    /// Remote elements (`xlink:href`) read per MPD at most: a hostile MPD cannot make Carryon
    /// fetch without end.
    static let maximumRemoteElements = 64

    /// The MPD of `manifest`, with its remote elements read in.
    func read(_ manifest: FetchedManifest) async throws(CarryonError) -> MPD {
        try await readRecording(manifest).mpd
    }

    /// The MPD of `manifest` with its remote elements read in, and its text: with a recording,
    /// a dynamic MPD (or one recorded before) merged into it, and the recording as a static MPD.
    func readRecording(_ manifest: FetchedManifest) async throws(CarryonError) -> (mpd: MPD, bytes: [UInt8]) {
        func parse(_ bytes: [UInt8]) throws(CarryonError) -> MPD {
            do {
                return try MPD.read(bytes)
            } catch {
                throw CarryonError(.playlist, "\(manifest.url): \(error)", cause: error)
            }
        }
        var mpd = try parse(manifest.bytes)
        var bytes = manifest.bytes
        if let recording, mpd.type == .dynamic || recording.recordsMPD(manifest.url) {
            var clock: DASHClock.Reading?
            if recording.isFinished {
                bytes = recording.manifest(at: manifest.url) ?? bytes
            } else {
                clock = recording.clockReading
                if clock == nil, mpd.type == .dynamic {
                    clock = await DASHClock.read(mpd, url: manifest.url, fetcher: fetcher.forStream(manifest.url))
                    recording.clockReading = clock
                }
                bytes = try recording.record(mpd, url: manifest.url, bytes: manifest.bytes,
                                             now: Date().timeIntervalSince1970 + (clock?.offset ?? 0))
            }
            mpd = try parse(bytes)
            if let warning = clock?.warning { mpd.warnings.append(MPDWarning(line: nil, warning)) }
        }
        if mpd.type == .dynamic {
            throw CarryonError(.unsupported, "\(manifest.url) is a dynamic (live) MPD; Carryon downloads complete (static) presentations only, as it does HLS")
        }
        try await resolveRemoteElements(&mpd, url: manifest.url)
        return (mpd, bytes)
    }

    /// Plans the stream whose MPD, already fetched, is `manifest`.
    func plan(assetID: String, manifest: FetchedManifest, pinnedVariant: String?,
              additionalVariants: [MediaSelection.Variant]) async throws(CarryonError) -> (DownloadPlan, MediaSelection) {
        let (mpd, bytes) = try await readRecording(manifest)
        let rule = fetcher.rule.forStream(manifest.url)
        let streamFetcher = fetcher.forStream(manifest.url)
        var selection = try MediaSelector(options: options)
            .select(from: DASHPresentation.presentation(of: mpd, url: manifest.url), pinnedVariant: pinnedVariant)
        selection.additionalVariants = additionalVariants
        let chosen = try DASHChoice(mpd: mpd, url: manifest.url, selection: selection)
        var tracks: [DASHPlan.Track] = []
        var keys: [DownloadPlan.PlannedKey] = []
        var warnings = mpd.warnings
        var fallbacks: [Fallback] = []
        var declaresQuery = false
        for choice in chosen.tracks {
            var parts: [DASHPlan.Part] = []
            for part in choice.parts {
                var addressing: SegmentAddressing
                do {
                    addressing = try SegmentAddressing(part.representation, in: part.set, of: part.period, timing: part.timing,
                                                       mpd: mpd, mpdURL: manifest.url)
                } catch {
                    throw CarryonError(.playlist, "\(manifest.url), \(error)", cause: error)
                }
                let common = mpd.effective(part.representation, in: part.set)
                declaresQuery = declaresQuery || (common.urlQuery ?? part.period.urlQuery ?? mpd.urlQuery) != nil
                var partKey: DownloadPlan.PlannedKey?
                if var key = try DASHKeys.key(for: common.contentProtections, mpdURL: manifest.url, line: part.representation.line,
                                              representation: part.representation.id) {
                    let probe = addressing.initialization.map { initialization in
                        DownloadPlan.KeyProbe(initSection: .init(uri: initialization.url, range: initialization.range.flatMap(Self.closed)),
                                              segments: addressing.segments.prefix(3).map { .init(uri: $0.location.url, range: $0.location.range.flatMap(Self.closed)) },
                                              rendition: "Representation \(part.representation.id)")
                    }
                    if let index = keys.firstIndex(where: { $0.keyID == key.keyID && $0.keyFormat == key.keyFormat }) {
                        if let probe, keys[index].probes.count < 4, !keys[index].probes.contains(where: { $0.rendition == probe.rendition }) {
                            keys[index].probes.append(probe)
                        }
                        key = keys[index]
                    } else {
                        // Named by the KID, so the playback server answers a licence request for it.
                        key.id = key.keyID.flatMap(ClearKeyLicense.keyID).map(ClearKeyLicense.storeID) ?? "k\(keys.count + 1)"
                        key.probes = probe.map { [$0] } ?? []
                        keys.append(key)
                    }
                    partKey = key
                }
                var fileSize: Int64?
                if addressing.mode == .base {
                    fileSize = try await Self.readIndex(of: &addressing, fetcher: streamFetcher, namedBy: "\(manifest.url), line \(part.representation.line)")
                }
                warnings += addressing.warnings
                let namedBy = "\(manifest.url), line \(part.representation.line) (Representation \(part.representation.id))"
                for location in [addressing.initialization, addressing.index].compactMap({ $0 }) + addressing.segments.map(\.location) {
                    try rule.check(location.url, namedBy: namedBy)
                }
                // Several BaseURLs: the others are where the same files are fetched when the first fails.
                let bases = mpd.baseURLs(of: part.representation, in: part.set, of: part.period, mpdURL: manifest.url)
                for base in bases.dropFirst() { try rule.check(base, namedBy: namedBy) }
                for fallback in Fallback.forBase(bases[0], alternatives: Array(bases.dropFirst()))
                where !fallbacks.contains(where: { $0.prefix == fallback.prefix }) {
                    fallbacks.append(fallback)
                }
                parts.append(DASHPlan.Part(periodIndex: part.periodIndex, timing: part.timing, period: part.period, set: part.set,
                                           representation: part.representation, common: common, addressing: addressing, key: partKey,
                                           fileSize: fileSize))
            }
            tracks.append(DASHPlan.Track(chosen: choice, parts: parts))
        }
        // The MPD URL's query (a CDN's token) when the MPD does not say whether media wants it
        // too: added to a resource's request when it fails without it, and kept from then on.
        if !declaresQuery, let query = URLQueryInfo(queryTemplate: "", useMPDURLQuery: true).query(mpdURL: manifest.url) {
            fallbacks.append(.carrying(query))
        }
        let notices = warnings.map {
            DownloadPlan.PlaylistNotice(playlist: manifest.url, warning: PlaylistWarning(line: $0.line ?? 0, $0.message))
        }
        // A recording's limit is its own (see LiveRecording), not a part of the stream.
        var plan = try DASHPlan.make(assetID: assetID, mpd: mpd, tracks: tracks, origin: bytes, warnings: notices,
                                     range: recording?.isLive == true ? nil : options.timeRange)
        plan.keys = keys
        plan.fallbacks = fallbacks
        return (plan, selection)
    }

    /// `range` as a closed range of bytes, nil when it is backwards.
    static func closed(_ range: DASH.ByteRange) -> ClosedRange<Int64>? {
        range.first <= range.last ? range.first...range.last : nil
    }

    /// Reads a SegmentBase's `sidx` (and, for a hierarchical index, the ones it points at, in
    /// order) into its segments.
    ///
    /// - Returns: The size of the file the index is in, when the server said it.
    @discardableResult
    static func readIndex(of addressing: inout SegmentAddressing, fetcher: PlaylistFetcher, namedBy: String) async throws(CarryonError) -> Int64? {
        guard let index = addressing.index else { return nil }
        var size: Int64?
        var pending = [index]
        var reads = 0
        while !pending.isEmpty {
            let location = pending.removeFirst()
            reads += 1
            guard reads <= 256 else {
                throw CarryonError(.playlist, "\(location.url): the segment index points at more than 256 indexes")
            }
            let range = location.range.map { $0.first...$0.last }
            let (_, bytes, total) = try await fetcher.fetchSized(location.url, range: range, namedBy: namedBy)
            if location.url == index.url, size == nil { size = total }
            do {
                let reading = try addressing.reading(index: bytes, at: location.range?.first ?? 0)
                addressing.segments += reading.segments
                pending = reading.subindexes + pending
            } catch {
                throw CarryonError(.playlist, "\(location.url), bytes \(location.range?.description ?? "all"): \(error)", cause: error)
            }
        }
        guard !addressing.segments.isEmpty else {
            throw CarryonError(.playlist, "\(index.url): the segment index names no segment")
        }
        return size
    }

    /// Replaces each Period and AdaptationSet with `xlink:actuate="onLoad"` by the remote
    /// elements its `xlink:href` names (none for `urn:mpeg:dash:resolve-to-zero:2013`).
    private func resolveRemoteElements(_ mpd: inout MPD, url: String) async throws(CarryonError) {
        var loaded = 0
        func fetch(_ href: String, line: Int) async throws(CarryonError) -> FetchedManifest {
            loaded += 1
            guard loaded <= Self.maximumRemoteElements else {
                throw CarryonError(.playlist, "\(url): the MPD names more than \(Self.maximumRemoteElements) remote elements")
            }
            return try await fetcher.forStream(url).fetchManifest(URIReference.resolve(href, against: url), namedBy: "\(url), line \(line)")
        }
        var periods: [Period] = []
        for period in mpd.periods {
            guard let link = period.xlink, link.actuate == "onLoad" else {
                periods.append(period)
                continue
            }
            if link.href == "urn:mpeg:dash:resolve-to-zero:2013" { continue }
            let remote = try await fetch(link.href, line: period.line)
            do {
                let (read, warnings) = try MPD.readPeriods(remote.bytes)
                periods += read.filter { $0.xlink == nil }
                mpd.warnings += warnings.map { MPDWarning(line: $0.line, "\(remote.url): \($0.message)") }
            } catch {
                throw CarryonError(.playlist, "\(remote.url) (the remote Period of \(url), line \(period.line)): \(error)", cause: error)
            }
        }
        mpd.periods = periods
        for index in mpd.periods.indices {
            var sets: [AdaptationSet] = []
            for set in mpd.periods[index].adaptationSets {
                guard let link = set.xlink, link.actuate == "onLoad" else {
                    sets.append(set)
                    continue
                }
                if link.href == "urn:mpeg:dash:resolve-to-zero:2013" { continue }
                let remote = try await fetch(link.href, line: set.line)
                do {
                    let (read, warnings) = try MPD.readAdaptationSets(remote.bytes)
                    sets += read.filter { $0.xlink == nil }
                    mpd.warnings += warnings.map { MPDWarning(line: $0.line, "\(remote.url): \($0.message)") }
                } catch {
                    throw CarryonError(.playlist, "\(remote.url) (the remote AdaptationSet of \(url), line \(set.line)): \(error)", cause: error)
                }
            }
            mpd.periods[index].adaptationSets = sets
        }
    }
}
