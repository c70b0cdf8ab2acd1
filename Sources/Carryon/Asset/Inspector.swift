import AsyncHTTPClient
import HLS

/// Reads a playlist and resolves it, for `carryon inspect` and for apps that want to show a
/// stream's variants and renditions before downloading it.
///
/// ```swift
/// let inspection = try await Inspector().inspect("https://example.com/main.m3u8")
/// if case .multivariant(let main) = inspection.playlist {
///     for variant in main.variants { print(variant.bandwidth ?? 0, variant.resolution ?? "audio only") }
/// }
/// ```
public struct Inspector: Sendable {
    /// How playlists are fetched.
    public var fetcher: PlaylistFetcher

    /// An inspector using a process-wide client, sending `headers` with every request and
    /// ending a request that stalls for `stallTimeout` (see ``PlaylistFetcher/stallTimeout``).
    public init(headers: [HTTPHeader] = [], stallTimeout: Duration = .seconds(30)) {
        self.fetcher = PlaylistFetcher(client: PlaylistFetcher.sharedClient, headers: headers, stallTimeout: stallTimeout)
    }

    /// An inspector that reads playlists with `fetcher`: its client, headers, size limit and
    /// retries.
    public init(fetcher: PlaylistFetcher) {
        self.fetcher = fetcher
    }

    /// A resolved playlist of either kind.
    public enum ResolvedPlaylist: Sendable {
        /// A multivariant playlist: its variants, renditions and session data.
        case multivariant(MultivariantPlaylist)
        /// A media playlist: its segments, keys and init sections.
        case media(MediaPlaylist)

        /// What the parser and resolver recovered from.
        public var warnings: [PlaylistWarning] {
            switch self {
            case .multivariant(let playlist): playlist.warnings
            case .media(let playlist): playlist.warnings
            }
        }
    }

    /// What `inspect` found: the playlist as fetched and its resolved view.
    public struct Inspection: Sendable {
        /// The URL read, after redirects.
        public var url: String
        /// The playlist line by line.
        public var playlist: Playlist
        /// The resolved view.
        public var resolved: ResolvedPlaylist
    }

    /// Fetches, parses and resolves the playlist at `location` (a URL or a local path), as
    /// leniently or strictly as the fetcher's ``PlaylistFetcher/parseOptions`` say.
    ///
    /// - Throws: ``CarryonError``; a playlist that cannot be parsed or resolved has code
    ///   ``CarryonError/Code/playlist`` with the `PlaylistError` (module `HLS`) as cause.
    public func inspect(_ location: String) async throws(CarryonError) -> Inspection {
        try inspect(try await fetcher.fetchManifest(location))
    }

    /// The playlist `manifest`, already fetched, parsed and resolved.
    func inspect(_ manifest: FetchedManifest) throws(CarryonError) -> Inspection {
        let fetched = try fetcher.parse(manifest)
        let playlist = fetched.parsed.playlist
        do {
            switch playlist.kind {
            case .multivariant:
                let resolved = try MultivariantPlaylist(playlist, url: fetched.url, warnings: fetched.parsed.warnings,
                                                        options: fetched.parsed.options)
                return Inspection(url: fetched.url, playlist: playlist, resolved: .multivariant(resolved))
            case .media:
                let resolved = try MediaPlaylist(playlist, url: fetched.url, warnings: fetched.parsed.warnings,
                                                 options: fetched.parsed.options)
                return Inspection(url: fetched.url, playlist: playlist, resolved: .media(resolved))
            }
        } catch {
            throw CarryonError(.playlist, "\(fetched.url): \(error)", cause: error)
        }
    }
}
