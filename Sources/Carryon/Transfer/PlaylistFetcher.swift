import AsyncHTTPClient
import Foundation
import HLS
import NIOCore
import NIOPosix
import NIOHTTP1

/// Reads playlists from `http(s)://` URLs, `file://` URLs and local paths.
///
/// Playlists are read whole (they are small text), up to ``maximumPlaylistBytes``; redirects are
/// followed by the fetcher, up to a bound, each location checked against ``rule`` before it is
/// asked; any status other than 2xx is an error naming the URL and status.
///
/// ```swift
/// let network = try Network()   // the system's trust store, the environment's proxies
/// let fetcher = PlaylistFetcher(network: network)
/// let fetched = try await fetcher.fetch("https://example.com/main.m3u8")
/// print(fetched.url, fetched.parsed.playlist.kind)
/// await network.shutdown()
/// ```
public struct PlaylistFetcher: Sendable {
    /// The clients `http` and `https` URLs are fetched with: the trust and the proxies of
    /// ``NetworkSettings``.
    public var network: Network
    /// Headers sent with every request (authorization, cookies…).
    public var headers: [HTTPHeader]
    /// The largest playlist accepted, in bytes (default 64 MiB: some 10-hour VOD playlists
    /// with byte ranges reach tens of megabytes).
    public var maximumPlaylistBytes: Int
    /// How long one request may take.
    public var timeout: Duration
    /// How failed requests (5xx, 429, resets, short bodies, timeouts) are retried.
    public var retry: RetryPolicy
    /// How long a request may receive nothing, or less than 1 KB/s on average, before it is a
    /// failed attempt (30 s by default); when every attempt stalls the error's code is
    /// ``CarryonError/Code/stalled``.
    public var stallTimeout: Duration
    /// Which locations this fetcher reads (``LocationRule/anyLocation`` by default: what a
    /// person types). A fetcher for what a stream names is made with ``forStream(_:)``.
    public var rule: LocationRule = .anyLocation
    /// Whether a failed attempt that another might mend ends the fetch at once, its error's
    /// cause a ``RetryLater`` (with any `Retry-After`), instead of waiting to retry here: for
    /// a task's first manifest, so that a stream that does not answer waits for its next try
    /// without holding a task slot.
    var defersRetries = false
    /// How playlists are read: leniently by default, recovering with a warning from what players
    /// survive; `Playlist.ParseOptions.strict` (module `HLS`) refuses every deviation.
    public var parseOptions: Playlist.ParseOptions = []

    /// A fetcher that reads over `client` (directly: no proxy but the client's own), sending
    /// `headers` with every request. The defaults accept playlists up to 64 MiB, give a request
    /// 30 seconds, try a failed request up to 4 times in all, and end a request that stalls for
    /// 30 seconds.
    ///
    /// The fetcher follows up to five redirects itself, checking each location before it is
    /// asked, when `client` does not (`redirectConfiguration = .disallow`). A client that
    /// follows them has where they led checked only once it has answered.
    public init(client: HTTPClient, headers: [HTTPHeader] = [], maximumPlaylistBytes: Int = 64 << 20,
                timeout: Duration = .seconds(30), retry: RetryPolicy = RetryPolicy(maximumAttempts: 4),
                stallTimeout: Duration = .seconds(30)) {
        self.init(network: Network(client: client), headers: headers, maximumPlaylistBytes: maximumPlaylistBytes, timeout: timeout,
                  retry: retry, stallTimeout: stallTimeout)
    }

    /// A fetcher that reads over `network` (its trust and proxies), sending `headers` with every
    /// request; the defaults as ``init(client:headers:maximumPlaylistBytes:timeout:retry:stallTimeout:)``'s.
    public init(network: Network, headers: [HTTPHeader] = [], maximumPlaylistBytes: Int = 64 << 20,
                timeout: Duration = .seconds(30), retry: RetryPolicy = RetryPolicy(maximumAttempts: 4),
                stallTimeout: Duration = .seconds(30)) {
        self.network = network
        self.stallTimeout = stallTimeout
        self.headers = headers
        self.maximumPlaylistBytes = maximumPlaylistBytes
        self.timeout = timeout
        self.retry = retry
    }

    /// This fetcher, reading only what the stream at `streamURL` may lead to: http(s), and local
    /// files only when the stream is one, in the folders this fetcher's rule allows (see
    /// ``LocationRule/forStream(_:)``).
    public func forStream(_ streamURL: String) -> PlaylistFetcher {
        var fetcher = self
        fetcher.rule = rule.forStream(streamURL)
        return fetcher
    }

    /// A playlist as read: where it came from (after redirects), its text parsed.
    public struct Fetched: Sendable {
        /// The absolute URL the playlist was read from, after redirects. Relative URIs in the
        /// playlist resolve against it.
        public var url: String
        /// The bytes as received (decoded, when the server sent them compressed).
        public var bytes: [UInt8]
        /// The parsed playlist and its warnings.
        public var parsed: Playlist.Parsed
    }

    /// Turns what a user typed — a URL or a local path — into an absolute URL.
    ///
    /// - Throws: ``CarryonError`` with code ``CarryonError/Code/invalidLocation`` for a scheme
    ///   other than `http`, `https` and `file`.
    public static func absoluteURL(for location: String) throws(CarryonError) -> String {
        if let scheme = URIReference.scheme(of: location), scheme.count > 1 {
            guard ["http", "https", "file"].contains(scheme) else {
                throw CarryonError(.invalidLocation, "\(location): the scheme \(scheme): is not supported; use http, https, file or a local path")
            }
            if scheme != "file", URL(string: location)?.host == nil {
                throw CarryonError(.invalidLocation, "\(location) is not a valid URL: it has no host")
            }
            return location
        }
        let path = location.hasPrefix("/")
            ? location : FileManager.default.currentDirectoryPath + "/" + location
        let standardized = URL(fileURLWithPath: path).standardizedFileURL
        return standardized.absoluteString
    }

    /// Fetches and parses the playlist at `location` (a URL or a local path).
    ///
    /// - Parameters:
    ///   - location: A URL or a local path.
    ///   - namedBy: Where `location` was written (a playlist and line), for the error when
    ///     ``rule`` refuses it.
    /// - Throws: ``CarryonError``: ``CarryonError/Code/http`` for a failed request or an error
    ///   status, ``CarryonError/Code/file`` for an unreadable file,
    ///   ``CarryonError/Code/tooLarge`` past ``maximumPlaylistBytes``, and
    ///   ``CarryonError/Code/playlist`` (with the `PlaylistError` (module `HLS`) as cause) for text that is not
    ///   a playlist; ``CarryonError/Code/refusedLocation`` for a location ``rule`` refuses, or a
    ///   redirect away from http(s).
    public func fetch(_ location: String, namedBy: String? = nil) async throws(CarryonError) -> Fetched {
        try parse(try await fetchManifest(location, namedBy: namedBy))
    }

    /// The manifest at `location` (a URL or a local path), unparsed: what a ``StreamFormat``
    /// recognises and reads. The same headers, retries, limits and rule as ``fetch(_:namedBy:)``.
    func fetchManifest(_ location: String, namedBy: String? = nil) async throws(CarryonError) -> FetchedManifest {
        let url = try Self.absoluteURL(for: location)
        let (finalURL, bytes) = try await fetchBytes(url, namedBy: namedBy)
        return FetchedManifest(url: finalURL, bytes: bytes)
    }

    /// `manifest` parsed as an HLS playlist, with ``parseOptions``.
    func parse(_ manifest: FetchedManifest) throws(CarryonError) -> Fetched {
        do {
            return Fetched(url: manifest.url, bytes: manifest.bytes, parsed: try Playlist.parse(bytes: manifest.bytes, options: parseOptions))
        } catch {
            throw CarryonError(.playlist, "\(manifest.url): \(error)", cause: error)
        }
    }

    /// `manifest` read as an HLS playlist with ``parseOptions``: a media playlist resolved in
    /// one pass without keeping its lines (see `PlaylistReading` in module `HLS`), a
    /// multivariant playlist parsed.
    ///
    /// - Parameter imports: For a media playlist, the variables of the multivariant playlist
    ///   that named it.
    func read(_ manifest: FetchedManifest, imports: [String: String]? = nil) throws(CarryonError) -> PlaylistReading {
        do {
            return try PlaylistReading(bytes: manifest.bytes, url: manifest.url, imports: imports, options: parseOptions)
        } catch {
            throw CarryonError(.playlist, "\(manifest.url): \(error)", cause: error)
        }
    }

    /// The bytes at `url` (http, https or file), with the same headers, retries and size limit as
    /// playlists; returns the URL read after redirects. ``rule`` is checked first.
    ///
    /// With `range` (first and last byte, inclusive), only those bytes: asked for with a `Range`
    /// request, cut from the whole body when the server ignores it (a DASH segment index).
    ///
    /// With `post`, the request is a POST of that body (a licence request), retried as a GET is.
    func fetchBytes(_ url: String, range: ClosedRange<Int64>? = nil, post: Post? = nil,
                    namedBy: String? = nil) async throws(CarryonError) -> (String, [UInt8]) {
        let fetched = try await fetchSized(url, range: range, post: post, namedBy: namedBy)
        return (fetched.url, fetched.bytes)
    }

    /// What ``fetchBytes(_:range:post:namedBy:)`` reads, with the size of the whole resource
    /// when the answer tells it (a `Content-Range`'s total, a whole body, a file's size).
    func fetchSized(_ url: String, range: ClosedRange<Int64>? = nil, post: Post? = nil,
                    namedBy: String? = nil) async throws(CarryonError) -> (url: String, bytes: [UInt8], size: Int64?) {
        try rule.check(url, namedBy: namedBy)
        if URIReference.scheme(of: url)?.lowercased() == "file" {
            if let range { return (url, try readFile(url, range: range), try fileSize(url)) }
            let bytes = try readFile(url)
            return (url, bytes, Int64(bytes.count))
        }
        var attempt = 0
        while true {
            attempt += 1
            let failure: Failure
            do throws(Failure) {
                let body = try await watchedRequest(url, range: range, post: post)
                // Carryon follows redirects itself, checking each location before it is asked
                // (``RedirectChain``); a client given by a program may have followed them
                // instead, and then where it led is checked before a byte of what came back is
                // read or shown.
                if body.url != url {
                    do { try rule.check(body.url, namedBy: "a redirect from \(url)") } catch { throw Failure(error: error, retryable: false) }
                }
                return (body.url, body.bytes, body.size)
            } catch {
                failure = error
            }
            guard failure.retryable, !Task.isCancelled else { throw failure.error }
            if defersRetries {
                throw CarryonError(failure.error.code, failure.error.message,
                                   cause: RetryLater(retryAfter: failure.retryAfter, underlying: failure.error.cause))
            }
            switch retry.decision(afterAttempt: attempt, retryAfter: failure.retryAfter, randomUnit: Double.random(in: 0...1)) {
            case .retry(let delay):
                do { try await Task.sleep(for: delay) } catch { throw CarryonError(.cancelled, "stopped") }
            case .attemptsUsed:
                throw failure.error
            case .retryAfterTooLong(let wait):
                throw CarryonError(failure.error.code, "\(failure.error.message), \(retry.tooLong(wait))", cause: failure.error.cause)
            }
        }
    }

    /// The cause of an attempt's error that another attempt may mend, when the fetcher
    /// ``defersRetries``.
    struct RetryLater: Error, Sendable {
        /// The wait the server asked for (`Retry-After`), if it did.
        var retryAfter: Duration?
        /// What the error's cause would have been.
        var underlying: (any Error & Sendable)?
    }

    /// A request body to POST, and its content type.
    struct Post: Sendable {
        var body: [UInt8]
        var contentType: String
    }

    /// A process-wide client like `HTTPClient.shared`, set up as every Carryon client is (see
    /// `HTTPClient.Configuration.carryon`).
    static let sharedClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .carryon())

    /// The process-wide network with the environment's settings (``Network/shared(_:)``), or,
    /// should those be unusable (a proxy variable that is not a URL), ``sharedClient`` alone.
    static var sharedNetwork: Network { (try? Network.shared()) ?? Network(client: sharedClient) }
}
