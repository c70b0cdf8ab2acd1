import HLS

/// Reads an HLS stream's playlists, chooses what to download (``MediaSelector`` on the
/// ``Presentation`` of its multivariant playlist), and plans it: the I/O half of HLS's
/// ``DownloadPlan`` (the pure half is `HLSPlan.swift`).
///
/// A live playlist (no `EXT-X-ENDLIST`, not `VOD`) is recorded into `recording`, a reload at a
/// time (``RecordedPlaylist``), and what the recording holds is planned; without a recording
/// it is refused, as AVFoundation refuses it. Once the recording is finished, its playlists are
/// planned as recorded, without reading the network. Encrypted streams are planned with their
/// keys (``DownloadPlan/keys``), which the session obtains before any media.
struct HLSPlanner: Sendable {
    let fetcher: PlaylistFetcher
    let options: DownloadOptions
    var recording: LiveRecording? = nil
    /// What the recording's plan so far holds: when it only grew since, the plan is of what it
    /// appended (``PlanContinuation``).
    var continuation: PlanContinuation? = nil
    /// Whether the recording is planned as it holds, nothing read or merged (``PlanRequest/replaysRecording``).
    var replaying = false

    /// Plans the stream at `url`. With `pinnedVariant`, that variant is taken instead of
    /// choosing one; `additionalVariants` are planned too, as extra selections.
    func plan(assetID: String, url: String, pinnedVariant: String? = nil,
              additionalVariants: [MediaSelection.Variant] = []) async throws(CarryonError) -> (DownloadPlan, MediaSelection?) {
        let manifest = try await fetcher.fetchManifest(url)
        return try await plan(assetID: assetID, manifest: manifest, pinnedVariant: pinnedVariant, additionalVariants: additionalVariants)
    }

    /// Plans the stream whose first playlist, already fetched, is `manifest`.
    ///
    /// Each media playlist is read in one pass, each segment checked and planned as it is
    /// resolved, so that neither the playlist's lines nor its segments are held. Where the
    /// one-pass reader hands a playlist over whole instead (one it cannot read line by line, or
    /// that holds an error), the stream is planned again from its playlists read whole, which
    /// gives the same plan, or the error as a whole read says it.
    func plan(assetID: String, manifest: FetchedManifest, pinnedVariant: String? = nil,
              additionalVariants: [MediaSelection.Variant] = []) async throws(CarryonError) -> (DownloadPlan, MediaSelection?) {
        // A recording's playlists are small, and each is read whole to be merged (a stream
        // first found live in one pass is planned again so).
        if recording?.isLive != true, let planned = try await plan(assetID: assetID, manifest: manifest, pinnedVariant: pinnedVariant,
                                                          additionalVariants: additionalVariants, oneTextPass: true) {
            return planned
        }
        do {
            return try await plan(assetID: assetID, manifest: manifest, pinnedVariant: pinnedVariant,
                                  additionalVariants: additionalVariants, oneTextPass: false, continuing: continuation)!
        } catch where error.cause is WholePlanNeeded {
            // Planned whole from what the recording holds: the reading just merged is not read again.
            var whole = self
            whole.replaying = true
            return try await whole.plan(assetID: assetID, manifest: manifest, pinnedVariant: pinnedVariant,
                                        additionalVariants: additionalVariants, oneTextPass: false, continuing: nil)!
        }
    }

    /// Why a round of a recording cannot plan only what it appended: the whole recording is
    /// planned instead.
    struct WholePlanNeeded: Error {
        var reason: String

        static func error(_ reason: String) -> CarryonError {
            CarryonError(.playlist, "the recording is planned whole: \(reason)", cause: WholePlanNeeded(reason: reason))
        }
    }

    /// The plan, or nil when a playlist read in one pass turned out to need a whole reading.
    private func plan(assetID: String, manifest: FetchedManifest, pinnedVariant: String?,
                      additionalVariants: [MediaSelection.Variant], oneTextPass: Bool,
                      continuing: PlanContinuation? = nil) async throws(CarryonError) -> (DownloadPlan, MediaSelection?)? {
        // Everything the stream names is read under its rule, whoever made this planner's fetcher.
        let rule = fetcher.rule.forStream(manifest.url)
        let streamFetcher = fetcher.forStream(manifest.url)
        // A recording's limit is its own (see LiveRecording), not a part of the stream. (The
        // first plan of a stream found live is not used: see DownloadSession.perform.)
        let range = recording?.isLive == true ? nil : options.timeRange
        recording?.remember(manifest.bytes, at: manifest.url)
        // What the plan holds of each recorded playlist, for the next round.
        var recorded = Recorded(continuing: continuing)
        var builder = HLSPlanBuilder(assetID: assetID, range: range)
        let alone = DownloadPlan.Rendition(type: "MEDIA", name: "media", language: nil, channels: nil, isMain: true,
                                           uri: manifest.url, estimatedBitrate: Self.unknownBitrate)
        let parsed: Playlist.Parsed
        if let continuing, continuing.edits == recording?.edits, continuing.renditions == [manifest.url] { builder.continue(continuing) }
        switch try read(manifest, imports: nil, as: alone, into: &builder, rule: rule, oneTextPass: oneTextPass, recorded: &recorded) {
        case .restart:
            return nil
        case .planned:
            return (recorded.finish(try builder.finish(main: nil, selection: nil), renditions: [manifest.url], edits: recording?.edits), nil)
        case .multivariant(let multivariant):
            parsed = multivariant
        }
        builder = HLSPlanBuilder(assetID: assetID, range: range)
        let playlist = parsed.playlist
        let main: MultivariantPlaylist
        do {
            main = try MultivariantPlaylist(playlist, url: manifest.url, warnings: parsed.warnings)
        } catch {
            throw CarryonError(.playlist, "\(manifest.url): \(error)", cause: error)
        }
        // Every location the multivariant playlist names, refused before any is read.
        for named in Self.locations(in: main, playlist: playlist) where named.isFetched {
            try rule.check(named.uri, namedBy: "\(main.url), line \(named.line)")
        }
        var selection = try MediaSelector(options: options).select(from: Presentation(main), pinnedVariant: pinnedVariant)
        // Each variant added before, at the location the playlist names now: a CDN that
        // signs its URLs renews the query, and the one stored has expired.
        var additionalVariants = additionalVariants
        for index in additionalVariants.indices {
            additionalVariants[index].uri = try Self.currentURI(of: additionalVariants[index].uri, in: main)
        }
        selection.additionalVariants = additionalVariants
        let audioEstimate = selection.renditions.first { $0.type == "AUDIO" }
            .map { DownloadPlan.audioBitrate(channels: $0.channels) } ?? 0
        // A variant without BANDWIDTH (read leniently) is estimated as a media playlist alone is.
        let variantBitrate = selection.variant.averageBandwidth ?? selection.variant.bandwidth ?? Self.unknownBitrate
        // Video first, then the extra variants, then the renditions (the main audio first).
        var renditions = [DownloadPlan.Rendition(type: "VIDEO", name: selection.variant.resolution ?? "video", language: nil,
                                                 channels: nil, isMain: true, uri: selection.variant.uri,
                                                 estimatedBitrate: max(variantBitrate / 2, variantBitrate - audioEstimate))]
        for variant in additionalVariants {
            let bitrate = variant.averageBandwidth ?? variant.bandwidth ?? Self.unknownBitrate
            renditions.append(.init(type: "VIDEO", name: variant.resolution ?? "video", language: nil, channels: nil,
                                    isMain: false, uri: variant.uri, estimatedBitrate: max(bitrate / 2, bitrate - audioEstimate)))
        }
        for rendition in selection.renditions {
            let bitrate = rendition.type == "AUDIO" ? DownloadPlan.audioBitrate(channels: rendition.channels) : DownloadPlan.subtitleBitrate
            renditions.append(.init(type: rendition.type, name: rendition.name, language: rendition.language,
                                    channels: rendition.channels, isMain: rendition.isMain, uri: rendition.uri,
                                    estimatedBitrate: bitrate))
        }
        if let continuing, continuing.edits == recording?.edits, continuing.renditions == renditions.map(\.uri) { builder.continue(continuing) }
        for rendition in renditions {
            let media: FetchedManifest
            if let recording, recording.isFinished || replaying, let recorded = recording.manifest(at: rendition.uri) {
                media = FetchedManifest(url: rendition.uri, bytes: recorded)
            } else {
                media = try await streamFetcher.fetchManifest(rendition.uri, namedBy: main.url)
            }
            switch try read(media, imports: main.variables, as: rendition, into: &builder, rule: rule, oneTextPass: oneTextPass,
                            recorded: &recorded) {
            case .restart: return nil
            case .planned: continue
            case .multivariant:
                throw CarryonError(.playlist, "\(media.url) is a multivariant playlist where a media playlist was expected")
            }
        }
        let plan = try builder.finish(main: (playlist, main, manifest.bytes), selection: selection)
        return (recorded.finish(plan, renditions: renditions.map(\.uri), edits: recording?.edits), selection)
    }

    /// What reading a playlist as a rendition came to.
    private enum Reading {
        /// A media playlist, checked and planned as `builder`'s next rendition.
        case planned
        /// A multivariant playlist, parsed; nothing planned.
        case multivariant(Playlist.Parsed)
        /// Read in one pass, it needed a whole reading: `builder` holds part of it.
        case restart
    }

    /// Reads `manifest` as the rendition `rendition` describes and, when it is a media
    /// playlist, checks it and plans it into `builder`: in one pass, each segment as it is
    /// resolved, with `oneTextPass`; else read whole and then planned.
    private func read(_ manifest: FetchedManifest, imports: [String: String]?, as rendition: DownloadPlan.Rendition,
                      into builder: inout HLSPlanBuilder, rule: LocationRule, oneTextPass: Bool,
                      recorded: inout Recorded) throws(CarryonError) -> Reading {
        var check = SegmentCheck(url: manifest.url, rule: rule)
        let media: MediaPlaylist
        var place: HLSPlanBuilder.Place?
        // The playlist's text, from which its local copy is written: a recording's, when it is recorded.
        var text = manifest.bytes
        if oneTextPass {
            builder.begin(rendition, expectedSegments: PlaylistReading.estimatedSegmentCount(manifest.bytes))
            var refused = false
            let streamed: PlaylistReading.Streamed
            do {
                streamed = try PlaylistReading.read(bytes: manifest.bytes, url: manifest.url, imports: imports,
                                                    options: fetcher.parseOptions) { (segment: Segment) throws(PlaylistError) in
                    do throws(CarryonError) {
                        try check.check(segment)
                    } catch {
                        // Read whole, the playlist is refused with this error then.
                        refused = true
                        throw PlaylistError(.structure, "\(error)")
                    }
                    builder.add(segment)
                }
            } catch {
                throw CarryonError(.playlist, "\(manifest.url): \(error)", cause: error)
            }
            switch streamed {
            case .streamed(let resolved):
                if let recording, recording.records(rendition.uri) || (!resolved.hasEndList && resolved.playlistType != .vod) {
                    return .restart
                }
                media = resolved
            case .media: return .restart
            case .multivariant(let parsed): return refused ? .restart : .multivariant(parsed)
            }
        } else {
            switch try fetcher.read(manifest, imports: imports) {
            case .multivariant(let parsed): return .multivariant(parsed)
            case .media(let resolved):
                if let read = try record(resolved, as: rendition.uri, imports: imports, appending: builder.isAppending) {
                    (media, text, place) = (read.media, read.text, read.place)
                    recorded.playlists[rendition.uri] = read.after
                    // A live stream's range is where its recording starts and how long it is
                    // (see LiveRecording), not a part of what it recorded.
                    builder.range = nil
                } else {
                    media = resolved
                }
                for segment in media.segments { try check.check(segment) }
                builder.begin(rendition, expectedSegments: media.segments.count, place: place)
                for segment in media.segments { builder.add(segment) }
            }
        }
        try check.finish(media, recorded: recording?.records(rendition.uri) == true)
        // A media playlist alone that gives no duration is estimated at 1 bit per second.
        if rendition.type == "MEDIA", builder.duration <= 0 { builder.reestimate(bitrate: 1) }
        try builder.end(media: media, fetched: text)
        return .planned
    }

    /// A recorded playlist read for planning: the whole recording, or (``HLSPlanBuilder/Place``)
    /// the segments a round appended; and what the plan then holds of it.
    private struct RecordedRead {
        var media: MediaPlaylist
        var text: [UInt8]
        var place: HLSPlanBuilder.Place?
        var after: PlanContinuation.Playlist?
    }

    /// With a recording, a live playlist at `uri` (or one recorded before, which may have
    /// ended since) merged into it: the recording's playlist so far, read, and its text; with
    /// `appending`, only what it has after what the plan holds, when it only grew since
    /// (else ``WholePlanNeeded``). Nil for a complete playlist not recorded, or without a recording.
    private func record(_ media: MediaPlaylist, as uri: String, imports: [String: String]?, appending: Bool) throws(CarryonError) -> RecordedRead? {
        guard let recording, recording.records(uri) || (!media.hasEndList && media.playlistType != .vod) else { return nil }
        let byPlace = recording.numbersByPlace
        let planned = appending ? continuation?.playlists[uri] : nil
        let text: String
        var place: HLSPlanBuilder.Place? = byPlace ? HLSPlanBuilder.Place(first: 0, seconds: 0, header: nil) : nil
        var after: PlanContinuation.Playlist?
        var whole: String?
        // The whole recording is read: with the segments it let go.
        if !appending { try recording.restore() }
        if recording.isFinished || replaying {
            guard let recorded = recording.playlist(uri) else { return nil }
            do {
                text = try recorded.text()
                if byPlace { after = PlanContinuation.Playlist(segments: recorded.count, seconds: recorded.duration, header: try recorded.header()) }
            } catch {
                throw CarryonError(.playlist, "the recording of \(uri) cannot be written: \(error)", cause: error)
            }
        } else {
            let merge: LiveRecording.Merge
            (merge, text) = try recording.update(uri) { (playlist: inout RecordedPlaylist, start, limit, anchor, offset) throws(CarryonError) in
                // A --start past the window: the user's value, not the playlist, is wrong.
                if playlist.isEmpty, anchor == nil, let offset, case .failure(let past) = LiveRecording.index(at: offset, of: media.segments.map(\.duration)) {
                    throw CarryonError(.invalidValue, "\(media.url): \(past.message)")
                }
                do {
                    let merge = try playlist.merge(media, start: start, limit: limit, anchor: anchor, offset: offset)
                    guard byPlace else { return (merge, try playlist.text()) }
                    let header = try playlist.header()
                    after = PlanContinuation.Playlist(segments: playlist.count, seconds: playlist.duration, header: header)
                    if appending {
                        if let planned, planned.header == header, planned.segments <= playlist.count, planned.segments >= playlist.spilled.count {
                            let tail = try playlist.tailText(from: planned.segments)
                            place = HLSPlanBuilder.Place(first: planned.segments, seconds: planned.seconds, header: tail.header)
                            return (merge, tail.text)
                        }
                        whole = planned == nil ? "\(uri) was not planned" : "the header of \(uri) changed"
                    }
                    return (merge, try playlist.text())
                } catch {
                    throw CarryonError(.playlist, "\(media.url): the recording cannot take this reload: \(error)", cause: error)
                }
            }
            recording.count(merge, in: uri)
        }
        if let whole { throw WholePlanNeeded.error(whole) }
        let bytes = Array(text.utf8)
        switch try fetcher.read(FetchedManifest(url: media.url, bytes: bytes), imports: imports) {
        case .media(let recorded): return RecordedRead(media: recorded, text: bytes, place: place, after: after)
        case .multivariant: throw CarryonError(.playlist, "the recording of \(uri) reads as a multivariant playlist")
        }
    }

    /// What a recording's plan holds of each playlist, gathered as they are read, for the
    /// continuation of the plan (``DownloadPlan/continuation``).
    private struct Recorded {
        var continuing: PlanContinuation?
        var playlists: [String: PlanContinuation.Playlist] = [:]

        /// `plan`, of `renditions`, with its continuation: when every rendition is a
        /// recorded playlist numbered by place.
        func finish(_ plan: DownloadPlan, renditions: [String], edits: Int?) -> DownloadPlan {
            var plan = plan
            guard let edits, renditions.allSatisfy({ playlists[$0] != nil }) else { return plan }
            plan.continuation = PlanContinuation(playlists: playlists, renditions: renditions, keys: plan.keys,
                                                 rows: (plan.appendsTo ?? 0) + plan.resources.count, edits: edits)
            return plan
        }
    }

    /// The URI `main` gives now for the variant planned before at `uri`: the same, or the one
    /// that differs only in its query.
    static func currentURI(of uri: String, in main: MultivariantPlaylist) throws(CarryonError) -> String {
        if main.variants.contains(where: { $0.uri == uri }) { return uri }
        let withoutQuery = { (uri: String) in uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? uri }
        guard let current = main.variants.first(where: { withoutQuery($0.uri) == withoutQuery(uri) }) else {
            throw CarryonError(.selection, "the stream no longer offers the variant \(uri)")
        }
        return current.uri
    }

    /// The bitrate assumed for the estimate of a stream that declares none: 1 Mbit/s.
    static let unknownBitrate = 1_000_000

    /// A location a multivariant playlist names, with the line that names it.
    struct NamedLocation {
        var uri: String
        var line: Int
        /// Whether Carryon would read it itself (keys of other schemes go to a provider).
        var isFetched: Bool
    }

    /// Every location `main` names — variants, renditions, I-frame variants, session keys —
    /// with its line. The resolver keeps renditions and session keys in the order of their
    /// tags, so the n-th of each is the n-th such tag of `playlist`.
    static func locations(in main: MultivariantPlaylist, playlist: Playlist) -> [NamedLocation] {
        var mediaLines: [Int] = [], keyLines: [Int] = []
        for (index, line) in playlist.lines.enumerated() {
            switch line.content {
            case .tag(.media): mediaLines.append(index + 1)
            case .tag(.sessionKey): keyLines.append(index + 1)
            default: break
            }
        }
        var named = main.variants.map { NamedLocation(uri: $0.uri, line: $0.line, isFetched: true) }
        named += main.iFrameVariants.filter { !$0.uri.isEmpty }.map { NamedLocation(uri: $0.uri, line: $0.line, isFetched: true) }
        for (rendition, line) in zip(main.renditions, mediaLines) {
            if let uri = rendition.uri { named.append(NamedLocation(uri: uri, line: line, isFetched: true)) }
        }
        for (key, line) in zip(main.sessionKeys, keyLines) where key.method != .none {
            guard let uri = key.uri else { continue }
            let scheme = URIReference.scheme(of: uri)?.lowercased() ?? ""
            named.append(NamedLocation(uri: uri, line: line, isFetched: ["http", "https", "file"].contains(scheme)))
        }
        return named
    }
}
