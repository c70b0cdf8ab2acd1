import Foundation

/// A manifest format Carryon downloads: HLS today (`HLSFormat`), MPEG-DASH next. The engine —
/// persistence of a plan, transfer, resume, progress, the library, purge, keys and logs — works
/// on what a format returns and never reads manifest text itself: adding a format is one
/// conformance, given in `DownloadSession.Configuration.formats`.
///
/// A format recognises its manifests; reads a stream (the manifest, and whatever it names,
/// through the fetcher it is given, under the stream's `LocationRule`) into a format-neutral
/// ``Presentation``, from which ``MediaSelector`` chooses what the options ask for; and plans
/// the choice: a `DownloadPlan` of renditions, the resources to fetch in
/// playback order with their local files and byte ranges, the content keys, the bundle's local
/// playlists, and the warnings its lenient reading raised. It also strips secrets from the
/// copies of the origin's manifests a bundle keeps.
///
/// A bundle's local playlists are HLS whatever the source's format, so that every player plays
/// every bundle; playback (`PlaybackSource`) serves and cuts them the same way for all. A format
/// may write manifests of its own beside them (``localManifests``, DASH's `main.mpd`), and then
/// answers for them too: cut to what is on disk, and as served (a licence server named).
///
/// Each asset records its format's ``name`` in the index and in `manifest.json`
/// (`streamFormat`); an asset a library recorded before formats were is HLS.
protocol StreamFormat: Sendable {
    /// The name recorded with each asset (`hls`).
    var name: String { get }
    /// The name people know it by (`HLS`, `MPEG-DASH`).
    var displayName: String { get }
    /// The file extension of the origin's manifests as the bundle keeps them (`m3u8`).
    var originExtension: String { get }
    /// Whether `manifest` — the first the stream's URL gave — is of this format.
    func recognizes(_ manifest: FetchedManifest) -> Bool
    /// Reads the stream whose first manifest is `manifest`, chooses what `request` asks for
    /// and plans it. Everything refused is refused here, before any media is fetched.
    func plan(_ manifest: FetchedManifest, for request: PlanRequest, fetcher: PlaylistFetcher) async throws(CarryonError) -> PlannedStream
    /// The tracks the stream whose first manifest is `manifest` offers, for choosing among them
    /// with ``MediaSelector`` (a variant to add to a bundle, say).
    func presentation(of manifest: FetchedManifest, fetcher: PlaylistFetcher) async throws(CarryonError) -> Presentation
    /// A copy of an origin manifest without the secrets it may carry (keys written inline).
    func redacted(origin: [UInt8]) -> [UInt8]

    // MARK: Playback

    /// The manifests its bundles have beside `main.m3u8`, each written into the plan's
    /// `localManifests` under its path; none by default.
    var localManifests: [LocalManifest] { get }
    /// `text`, the local manifest `manifest` of an asset neither complete nor downloading, cut
    /// to what is on disk: `onDisk` holds `ResourceRecord.onDiskKey(_:offset:)` of each
    /// resource there.
    func cut(_ text: String, of manifest: LocalManifest, onDisk: Set<String>) throws(CarryonError) -> String
    /// `text`, the local manifest `manifest`, as a playback server answering Clear Key licence
    /// requests at `licenseURL` serves it.
    func served(_ text: String, of manifest: LocalManifest, licenseURL: String) -> String
    /// `text`, the local manifest `manifest` of a live recording in progress, as a player is
    /// served it at `now`: a live presentation of what the recording holds, which the player
    /// reloads as it grows. Unchanged by default (an HLS recording's playlists are `EVENT`
    /// playlists until it ends).
    func growing(_ text: String, of manifest: LocalManifest, now: Date) -> String
}

extension StreamFormat {
    var displayName: String { name.uppercased() }
    var localManifests: [LocalManifest] { [] }
    func cut(_ text: String, of manifest: LocalManifest, onDisk: Set<String>) throws(CarryonError) -> String { text }
    func served(_ text: String, of manifest: LocalManifest, licenseURL: String) -> String { text }
    func growing(_ text: String, of manifest: LocalManifest, now: Date) -> String { text }
}

/// What a plan is for: the asset, the options, and what an earlier plan of it fixed.
struct PlanRequest: Sendable {
    var assetID: String
    var options: DownloadOptions
    /// The variant to take instead of choosing one: the one an earlier plan chose.
    var pinnedVariant: String? = nil
    /// Variants planned as extra selections beside the main one.
    var additionalVariants: [MediaSelection.Variant] = []
    /// Where a live stream's manifests are recorded, reload after reload: the format plans what
    /// the recording holds. Nil: a live stream is refused.
    var recording: LiveRecording? = nil
    /// What the recording's plan so far holds, for a round to plan only what it appended (a
    /// format that cannot plans the whole recording, as with nil).
    var continuation: PlanContinuation? = nil
    /// Plans the recording as it holds, reading and merging nothing: a round's whole plan,
    /// after the index refused to append the plan of what it appended.
    var replaysRecording = false
}

/// A stream planned: what to fetch and write, and what was chosen (nil when the stream offered
/// no choice: a single media playlist).
struct PlannedStream: Sendable {
    var plan: DownloadPlan
    var selection: MediaSelection?
    /// The ``StreamFormat/name`` of the format that planned it.
    var format: String
}

extension [any StreamFormat] {
    /// The format of `manifest`: the first that recognises it, else the first of all, whose
    /// reading then says what is wrong with it.
    func format(of manifest: FetchedManifest) -> any StreamFormat {
        first { $0.recognizes(manifest) } ?? self[0]
    }

    /// The format an asset recorded; an unknown name is refused.
    func format(named name: String) throws(CarryonError) -> any StreamFormat {
        guard let format = first(where: { $0.name == name }) else {
            throw CarryonError(.unsupported, "the asset's stream is \(name), a format this session does not read (it reads \(map(\.name).joined(separator: ", ")))")
        }
        return format
    }
}
