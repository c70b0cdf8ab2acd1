import HLS

/// HTTP Live Streaming (RFC 8216bis) behind the format seam: playlists read leniently (see
/// `Playlist.ParseOptions`) into a ``Presentation`` (see `HLSPresentation.swift`), selection by
/// ``MediaSelector``, plans by ``HLSPlanner``, and
/// local playlists that keep the origin's lines wherever they were read without a warning.
struct HLSFormat: StreamFormat {
    /// The name HLS assets record.
    static let formatName = "hls"
    var name: String { Self.formatName }
    var displayName: String { "HLS" }
    var originExtension: String { "m3u8" }

    /// A playlist starts with `#EXTM3U`, after an optional BOM, blank lines and comments. HLS is
    /// also the format of last resort: what nothing recognises is read as HLS, whose parser
    /// then names what is wrong.
    func recognizes(_ manifest: FetchedManifest) -> Bool {
        var text = Substring(decoding: manifest.bytes.prefix(4096), as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text = text.dropFirst() }
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            if trimmed.hasPrefix("#EXTM3U") { return true }
            if !trimmed.hasPrefix("#") { return false }
        }
        return false
    }

    func plan(_ manifest: FetchedManifest, for request: PlanRequest, fetcher: PlaylistFetcher) async throws(CarryonError) -> PlannedStream {
        let (plan, selection) = try await HLSPlanner(fetcher: fetcher, options: request.options, recording: request.recording,
                                                continuation: request.continuation, replaying: request.replaysRecording)
            .plan(assetID: request.assetID, manifest: manifest, pinnedVariant: request.pinnedVariant,
                  additionalVariants: request.additionalVariants)
        return PlannedStream(plan: plan, selection: selection, format: name)
    }

    func presentation(of manifest: FetchedManifest, fetcher: PlaylistFetcher) async throws(CarryonError) -> Presentation {
        let main = try fetcher.parse(manifest)
        let multivariant: MultivariantPlaylist
        do {
            multivariant = try MultivariantPlaylist(main.parsed.playlist, url: main.url, warnings: main.parsed.warnings)
        } catch {
            throw CarryonError(.playlist, "\(main.url): \(error)", cause: error)
        }
        return Presentation(multivariant)
    }

    func redacted(origin: [UInt8]) -> [UInt8] {
        Self.redactingDataKeys(in: origin)
    }
}
