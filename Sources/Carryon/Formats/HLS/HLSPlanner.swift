import HLS

/// Reads an HLS stream's playlists, chooses what to download (``MediaSelector`` on the
/// ``Presentation`` of its multivariant playlist), and plans it: the I/O half of HLS's
/// ``DownloadPlan`` (the pure half is `HLSPlan.swift`).
///
/// Refuses, before any media is fetched, what Carryon does not download yet: live playlists
/// (no `EXT-X-ENDLIST`, as AVFoundation refuses them). Encrypted streams are planned with their
/// keys (``DownloadPlan/keys``), which the session obtains before any media.
struct HLSPlanner: Sendable {
    let fetcher: PlaylistFetcher
    let options: DownloadOptions

    /// Plans the stream at `url`. With `pinnedVariant`, that variant is taken instead of
    /// choosing one; `additionalVariants` are planned too, as extra selections.
    func plan(assetID: String, url: String, pinnedVariant: String? = nil,
              additionalVariants: [MediaSelection.Variant] = []) async throws(CarryonError) -> (DownloadPlan, MediaSelection?) {
        let manifest = try await fetcher.fetchManifest(url)
        return try await plan(assetID: assetID, manifest: manifest, pinnedVariant: pinnedVariant, additionalVariants: additionalVariants)
    }

    /// Plans the stream whose first playlist, already fetched, is `manifest`.
    func plan(assetID: String, manifest: FetchedManifest, pinnedVariant: String? = nil,
              additionalVariants: [MediaSelection.Variant] = []) async throws(CarryonError) -> (DownloadPlan, MediaSelection?) {
        // Everything the stream names is read under its rule, whoever made this planner's fetcher.
        let rule = LocationRule.stream(manifest.url)
        let streamFetcher = fetcher.forStream(manifest.url)
        switch try fetcher.read(manifest) {
        case .media(let media):
            try check(media, rule: rule)
            let bitrate = media.duration > 0 ? Self.unknownBitrate : 1
            let input = DownloadPlan.Input(type: "MEDIA", name: "media", language: nil, channels: nil, isMain: true,
                                           uri: manifest.url, fetched: manifest.bytes, media: media,
                                           estimatedBitrate: bitrate)
            return (try DownloadPlan.make(assetID: assetID, inputs: [input], main: nil, selection: nil), nil)
        case .multivariant(let parsed):
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
            var inputs: [DownloadPlan.Input] = []
            let (videoBytes, video) = try await media(selection.variant.uri, of: main, fetcher: streamFetcher, rule: rule)
            inputs.append(.init(type: "VIDEO", name: selection.variant.resolution ?? "video", language: nil, channels: nil,
                                isMain: true, uri: selection.variant.uri, fetched: videoBytes, media: video,
                                estimatedBitrate: max(variantBitrate / 2, variantBitrate - audioEstimate)))
            for variant in additionalVariants {
                let (bytes, media) = try await media(variant.uri, of: main, fetcher: streamFetcher, rule: rule)
                let bitrate = variant.averageBandwidth ?? variant.bandwidth ?? Self.unknownBitrate
                inputs.append(.init(type: "VIDEO", name: variant.resolution ?? "video", language: nil, channels: nil,
                                    isMain: false, uri: variant.uri, fetched: bytes, media: media,
                                    estimatedBitrate: max(bitrate / 2, bitrate - audioEstimate)))
            }
            for rendition in selection.renditions {
                let (bytes, media) = try await media(rendition.uri, of: main, fetcher: streamFetcher, rule: rule)
                let bitrate = rendition.type == "AUDIO" ? DownloadPlan.audioBitrate(channels: rendition.channels) : DownloadPlan.subtitleBitrate
                inputs.append(.init(type: rendition.type, name: rendition.name, language: rendition.language,
                                    channels: rendition.channels, isMain: rendition.isMain, uri: rendition.uri,
                                    fetched: bytes, media: media, estimatedBitrate: bitrate))
            }
            // Video first, then the main audio, then extras: the order `inputs` has.
            return (try DownloadPlan.make(assetID: assetID, inputs: inputs, main: (playlist, main, manifest.bytes),
                                          selection: selection), selection)
        }
    }

    /// The media playlist at `uri`, which `main` names: its bytes as fetched, and resolved
    /// (with `main`'s variables) and checked.
    private func media(_ uri: String, of main: MultivariantPlaylist, fetcher: PlaylistFetcher,
                       rule: LocationRule) async throws(CarryonError) -> ([UInt8], MediaPlaylist) {
        let manifest = try await fetcher.fetchManifest(uri, namedBy: main.url)
        guard case .media(let media) = try fetcher.read(manifest, imports: main.variables) else {
            throw CarryonError(.playlist, "\(manifest.url) is a multivariant playlist where a media playlist was expected")
        }
        try check(media, rule: rule)
        return (manifest.bytes, media)
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

    /// Refuses live playlists, playlists with nothing to download, unknown encryption, and resource URIs with a scheme Carryon does not
    /// fetch, with a message that says why. A stream read over HTTP may only name http(s)
    /// resources: a remote playlist must not make Carryon read local files.
    private func check(_ media: MediaPlaylist, rule: LocationRule) throws(CarryonError) {
        // A method of encryption no specification defines is never guessed: the bundle could
        // not say how its segments are encrypted.
        let methods: [KeyMethod] = [.aes128, .sampleAES, .sampleAESCTR]
        var checkedKeyLines = Set<Int>()
        var keyByLine: [Int: SegmentKey] = [:]
        for segment in media.segments where !segment.keys.isEmpty || segment.initSection.map({ !$0.keys.isEmpty }) == true {
            for key in segment.keys + (segment.initSection?.keys ?? []) {
                // The keys of segments that are fetched, each once, for the rule below.
                if !segment.isGap, keyByLine[key.line] == nil { keyByLine[key.line] = key }
                guard checkedKeyLines.insert(key.line).inserted else { continue }
                guard methods.contains(key.method) else {
                    throw CarryonError(.unsupported, "\(media.url), line \(key.line): EXT-X-KEY METHOD=\(key.method.rawValue) is not a method RFC 8216bis defines (AES-128, SAMPLE-AES, SAMPLE-AES-CTR); Carryon does not guess how the segments are encrypted")
                }
            }
        }
        // Each segment's URI, and each init section's once.
        var checkedMapLines = Set<Int>()
        for segment in media.segments where !segment.isGap {
            try rule.check(segment.uri, namedBy: "\(media.url), line \(segment.line)")
            if let map = segment.initSection, checkedMapLines.insert(map.line).inserted {
                try rule.check(map.uri, namedBy: "\(media.url), line \(map.line)")
            }
        }
        // Keys of other schemes (data:, an app's own) are not fetched: ContentKeyFetcher
        // decodes them or asks the app's provider.
        for line in keyByLine.keys.sorted() {
            guard let key = keyByLine[line],
                  ["http", "https", "file"].contains(URIReference.scheme(of: key.uri)?.lowercased() ?? "") else { continue }
            try rule.check(key.uri, namedBy: "\(media.url), line \(key.line)")
        }
        if !media.hasEndList && media.playlistType != .vod {
            throw CarryonError(.unsupported, "\(media.url) is a live playlist (no EXT-X-ENDLIST); Carryon downloads complete (VOD) streams only, as AVFoundation does")
        }
        if media.segments.allSatisfy(\.isGap) {
            let what = media.segments.isEmpty ? "no segment" : "only gaps (EXT-X-GAP)"
            throw CarryonError(.playlist, "\(media.url) has \(what): there is nothing to download")
        }
    }

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
