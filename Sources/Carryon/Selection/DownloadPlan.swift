import Foundation
import HLS

/// Everything a download will fetch and write, worked out from the manifests before any media is
/// fetched, whatever their format: the renditions with their local folders, every resource in
/// playback order with its local file name, the content keys, and the local playlists (HLS for
/// every format) that point at those files. A format builds it (HLS's in
/// `Formats/HLS/HLSPlan.swift`); the engine persists and fetches it.
struct DownloadPlan: Sendable {
    struct PlannedRendition: Sendable {
        var record: RenditionRecord
        /// The media playlist as fetched.
        var originText: [UInt8]
        /// The local media playlist, relative to the rendition's folder.
        var localText: String
    }

    var renditions: [PlannedRendition]
    /// Resources in the order they are fetched; each (URI, byte range) once.
    var resources: PlannedResources
    /// The local multivariant playlist (`main.m3u8` in the bundle).
    var localMain: String
    /// Other manifests of the same files, by bundle-relative path: a DASH stream's local
    /// `main.mpd`.
    var localManifests: [String: String] = [:]
    /// The multivariant playlist (or MPD) as fetched, when the asset has one.
    var originMain: [UInt8]?
    /// The presentation's duration: the longest rendition's.
    var duration: Double
    /// Other locations of the resources, tried when one fails (an MPD's several BaseURLs).
    var fallbacks: [Fallback] = []
    /// The content keys the renditions use, each once, named `k1`, `k2`… in order of use.
    var keys: [PlannedKey] = []
    /// The deviations from RFC 8216bis the stream's playlists were read past, for the asset's
    /// error log: the multivariant playlist's first, then each rendition's.
    var warnings: [PlaylistNotice] = []
    /// For a plan of what a recording's round appended only: the rows of the plan it adds to.
    /// Its resources are the new ones, its renditions' durations and local playlists
    /// (``PlannedRendition/localText``: the lines to append) what the round adds. Nil: a whole plan.
    var appendsTo: Int?
    /// What a recording's next round needs to plan only what it appends after this plan; nil
    /// when it plans the whole recording (not a recording, or one an earlier release numbered).
    var continuation: PlanContinuation?

    /// A deviation one of the stream's playlists was read past (see `Playlist.ParseOptions`).
    struct PlaylistNotice: Sendable {
        /// The playlist's absolute URL.
        var playlist: String
        var warning: PlaylistWarning
    }

    /// A content key to obtain before any media, whatever the format (see
    /// ``ContentKeyRequest`` for what each field holds in HLS and DASH): the local playlists
    /// name it `keys/<id>`, which the playback server answers from the key store.
    struct PlannedKey: Sendable, Hashable {
        var id: String
        /// The absolute key URI (http(s), `data:`, or an app's scheme such as `skd:`), or a
        /// licence server's URL.
        var uri: String
        var method: String
        var keyFormat: String
        var keyFormatVersions: String?
        /// The key id (KID), for formats that name keys by one.
        var keyID: String? = nil
        /// The key system's initialization data (a `pssh` box).
        var initData: [UInt8]? = nil
        /// What named the key, for errors: `Representation 1 (line 9)`, `the EXT-X-KEY on line 7 of URL`.
        var namedBy: String? = nil
        /// Named by a DASH `ContentProtection` (else by an HLS `EXT-X-KEY`): errors speak its terms.
        var isDASH = false
        /// Where the first samples it encrypts are, one probe a rendition (at most four): read
        /// for the KID of an HLS key that names none, and to check a key the user holds.
        var probes: [KeyProbe] = []
    }

    /// An init section and the first media segments after it that a key encrypts (see
    /// ``PlannedKey/probes``).
    struct KeyProbe: Sendable, Hashable {
        struct Location: Sendable, Hashable {
            var uri: String
            var range: ClosedRange<Int64>?
        }

        var initSection: Location
        var segments: [Location]
        /// The rendition's name, for errors.
        var rendition: String
    }
}

extension DownloadPlan {
    /// A plan whose resources are `resources`, in that order, named as they are (for a format
    /// that names its files itself).
    init(renditions: [PlannedRendition], resources: [ResourceRecord], localMain: String, originMain: [UInt8]?,
         duration: Double) {
        self.init(renditions: renditions, resources: PlannedResources(assetID: resources.first?.assetID ?? "", records: resources),
                  localMain: localMain, originMain: originMain, duration: duration)
    }
}
