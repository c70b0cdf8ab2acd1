import AsyncHTTPClient
import HLS

/// Reads a playlist and resolves it, for `carryon inspect` and for apps that want to show a
/// stream's variants and renditions before downloading it.
///
/// ```swift
/// let inspection = try await Inspector().inspect("https://example.com/main.m3u8")
/// if case .multivariant(let main) = inspection.resolved {
///     for variant in main.variants { print(variant.bandwidth ?? 0, variant.resolution ?? "audio only") }
/// }
/// ```
public struct Inspector: Sendable {
    /// How playlists are fetched.
    public var fetcher: PlaylistFetcher
    /// The formats ``report(_:_:)`` reads: Carryon's, unless given others.
    var formats: [any StreamFormat] = StreamFormats.standard

    /// An inspector using a process-wide network with the environment's trust and proxies,
    /// sending `headers` with every request and ending a request that stalls for `stallTimeout`
    /// (see ``PlaylistFetcher/stallTimeout``).
    public init(headers: [HTTPHeader] = [], stallTimeout: Duration = .seconds(30)) {
        self.fetcher = PlaylistFetcher(network: PlaylistFetcher.sharedNetwork, headers: headers, stallTimeout: stallTimeout)
    }

    /// An inspector using a process-wide network as `network` says (its trust and proxies: the
    /// `--cacert`, `--insecure` and `--proxy` of `carryon inspect`), sending `headers` with every
    /// request and ending a request that stalls for `stallTimeout`.
    ///
    /// - Throws: ``CarryonError`` with code ``CarryonError/Code/invalidValue``: a proxy URL that
    ///   is not one, a certificate file that does not exist or holds no certificate.
    public init(network: NetworkSettings, headers: [HTTPHeader] = [], stallTimeout: Duration = .seconds(30)) throws(CarryonError) {
        self.fetcher = PlaylistFetcher(network: try Network.shared(network), headers: headers, stallTimeout: stallTimeout)
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

    /// What `inspect` found: where the playlist was read and its resolved view. (A media
    /// playlist is resolved as it is read, without keeping its lines: parse the text with
    /// `Playlist.parse` (module `HLS`) for them.)
    public struct Inspection: Sendable {
        /// The URL read, after redirects.
        public var url: String
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
        switch try fetcher.read(manifest) {
        case .media(let media):
            return Inspection(url: manifest.url, resolved: .media(media))
        case .multivariant(let parsed):
            do {
                let resolved = try MultivariantPlaylist(parsed.playlist, url: manifest.url, warnings: parsed.warnings,
                                                        options: parsed.options)
                return Inspection(url: manifest.url, resolved: .multivariant(resolved))
            } catch {
                throw CarryonError(.playlist, "\(manifest.url): \(error)", cause: error)
            }
        }
    }
}
