@testable import Carryon
import HLS
import Testing

/// Builds what ``DownloadPlan/make(assetID:inputs:main:selection:)`` takes from hand-written
/// playlists, parsed and resolved as ``HLSPlanner`` does after fetching them.
enum PlanFixture {
    static let base = "https://cdn.example/"

    /// A rendition's input: `text` as the media playlist fetched from `base + path`.
    static func input(_ path: String, _ text: String, type: String = "VIDEO", name: String = "video",
                      language: String? = nil, isMain: Bool = true, imports: [String: String]? = nil,
                      bitrate: Int = 800_000) throws -> DownloadPlan.Input {
        let url = base + path
        let fetched = Array(text.utf8)
        guard case .media(let media) = try PlaylistReading(bytes: fetched, url: url, imports: imports) else {
            throw PlaylistError(.structure, "\(path) is not a media playlist")
        }
        return DownloadPlan.Input(type: type, name: name, language: language, channels: nil, isMain: isMain, uri: url,
                                  fetched: fetched, media: media, estimatedBitrate: bitrate)
    }

    /// A multivariant playlist fetched from `base + path`.
    static func main(_ path: String, _ text: String) throws -> (playlist: Playlist, resolved: MultivariantPlaylist, fetched: [UInt8]) {
        let parsed = try Playlist.parse(text)
        return (parsed.playlist, try MultivariantPlaylist(parsed.playlist, url: base + path, warnings: parsed.warnings),
                Array(text.utf8))
    }

    /// A selection of the variant at `variant` and the renditions at `renditions` (paths below
    /// ``base``), the first rendition main.
    static func selection(in main: MultivariantPlaylist, variant: String, renditions: [String]) throws -> MediaSelection {
        let chosen = try #require(main.variants.first { $0.uri == base + variant })
        return MediaSelection(
            variant: .init(uri: chosen.uri, bandwidth: chosen.bandwidth, averageBandwidth: chosen.averageBandwidth,
                           resolution: chosen.resolution?.description, codecs: chosen.codecs, videoRange: nil, frameRate: nil),
            renditions: try renditions.enumerated().map { index, path in
                let rendition = try #require(main.renditions.first { $0.uri == base + path })
                return MediaSelection.Rendition(type: rendition.type.rawValue, groupID: rendition.groupID, name: rendition.name,
                                                language: rendition.language, channels: rendition.channels,
                                                isDefault: rendition.isDefault, forced: rendition.forced,
                                                uri: base + path, isMain: index == 0)
            })
    }

    /// A plan of one media playlist, as for a stream given by its media playlist.
    static func plan(_ inputs: DownloadPlan.Input...) throws -> DownloadPlan {
        try DownloadPlan.make(assetID: "asset", inputs: inputs, main: nil, selection: nil)
    }
}

extension DownloadPlan {
    /// The local media playlist of the rendition `key`.
    func localText(_ key: String) throws -> String {
        try #require(renditions.first { $0.record.key == key }).localText
    }

    /// The URI lines of the local media playlist of `key`.
    func localURIs(_ key: String) throws -> [String] {
        try localText(key).split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty }
    }
}
