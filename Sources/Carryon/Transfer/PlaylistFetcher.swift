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

    /// A failed attempt: the error to report, and whether another attempt may succeed.
    private struct Failure: Error {
        var error: CarryonError
        var retryable: Bool
        var retryAfter: Duration?
    }

    /// A playlist's bytes as received, and the URL they came from after redirects.
    private struct Body: Sendable {
        var url: String
        var bytes: [UInt8]
        /// The size of the whole resource, when the answer tells it.
        var size: Int64?
    }

    /// One request, ended as a stalled attempt when the server stops sending (``stallTimeout``).
    private func watchedRequest(_ url: String, range: ClosedRange<Int64>?, post: Post?) async throws(Failure) -> Body {
        do {
            return try await withStallDetection(stallTimeout) { meter in
                try await self.requestBytes(url, range: range, post: post, meter: meter)
            }
        } catch let failure as Failure {
            throw failure
        } catch let stall as StallError {
            throw Failure(error: CarryonError(.stalled, "\(url): \(stall)"), retryable: true)
        } catch {
            throw Failure(error: CarryonError(.cancelled, "stopped"), retryable: false)
        }
    }

    private func requestBytes(_ url: String, range: ClosedRange<Int64>?, post: Post?, meter: StallMeter) async throws(Failure) -> Body {
        var headers = HTTPHeaders()
        for header in self.headers { headers.add(name: header.name, value: header.value) }
        if let post { headers.replaceOrAdd(name: "Content-Type", value: post.contentType) }
        if let range { headers.replaceOrAdd(name: "Range", value: "bytes=\(range.lowerBound)-\(range.upperBound)") }
        // As browsers and players ask: a long playlist is a tenth of its size gzip'ed.
        if range == nil, !headers.contains(name: "accept-encoding") {
            headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        }
        var post = post
        var redirects = RedirectChain(from: url, maximum: network.maximumRedirects, rule: rule)
        // One timeout for the whole chain: a chain of redirects is one request's time.
        let deadline = ContinuousClock.now + timeout
        var response: HTTPClientResponse
        while true {
            let target = redirects.current
            var request = HTTPClientRequest(url: URIReference.encodingSpaces(target))
            request.headers = redirects.headers(headers)
            if let post {
                request.method = .POST
                request.body = .bytes(ByteBuffer(bytes: post.body))
            }
            do {
                let left = max(deadline - ContinuousClock.now, .milliseconds(1))
                response = try await network.client(for: target).execute(request, timeout: .init(left))
            } catch {
                if error is CancellationError {
                    throw Failure(error: CarryonError(.http, "\(target): the request failed: \(Self.describe(error))", cause: error), retryable: false)
                }
                let failure = await network.failure(error, url: target)
                throw Failure(error: CarryonError(failure.code, failure.message(target), cause: error), retryable: !failure.isPermanent)
            }
            // Where a redirect leads is checked before it is asked for anything.
            do throws(CarryonError) {
                guard try redirects.follow(response.status, response.headers) != nil else { break }
            } catch {
                throw Failure(error: error, retryable: false)
            }
            if post != nil, RedirectChain.asksAgainAsGet(response.status) {
                post = nil
                headers.remove(name: "Content-Type")
            }
            await Self.drain(response)
        }
        let status = response.status.code
        guard (200..<300).contains(status) else {
            let retryable = status == 408 || status == 425 || status == 429 || status >= 500
            throw Failure(error: CarryonError(.http, "\(url): the server answered \(status) \(response.status.reasonPhrase)"),
                          retryable: retryable,
                          retryAfter: RetryPolicy.retryAfter(response.headers.first(name: "retry-after"), now: Date().timeIntervalSince1970))
        }
        if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > maximumPlaylistBytes {
            throw Failure(error: CarryonError(.tooLarge, "\(url): the playlist is \(length) bytes, more than the limit of \(maximumPlaylistBytes)"),
                          retryable: false)
        }
        // The limit applies to the decoded bytes: a gzip bomb stops there.
        let tooLarge = Failure(error: CarryonError(.tooLarge, "\(url): the playlist is larger than the limit of \(maximumPlaylistBytes) bytes"),
                               retryable: false)
        let inflater = try Self.inflater(for: response.headers.first(name: "content-encoding"), url: url)
        do {
            var bytes: [UInt8] = []
            var received = 0
            for try await chunk in response.body {
                meter.received(chunk.readableBytes)
                received += chunk.readableBytes
                if let inflater {
                    try inflater.decode(chunk) { piece in
                        guard bytes.count + piece.count <= maximumPlaylistBytes else { throw tooLarge }
                        bytes.append(contentsOf: piece)
                    }
                } else {
                    guard bytes.count + chunk.readableBytes <= maximumPlaylistBytes else { throw tooLarge }
                    bytes.append(contentsOf: chunk.readableBytesView)
                }
            }
            if let length = response.headers.first(name: "content-length").flatMap(Int.init), received != length {
                throw Failure(error: CarryonError(.http, "\(url): the body ended after \(received) of \(length) bytes"),
                              retryable: true)
            }
            try inflater?.finish()
            let finalURL = response.history.last?.request.url ?? redirects.current
            if let range, status != 206 {
                // The whole resource: the range cut from it.
                guard range.upperBound < Int64(bytes.count) else {
                    throw Failure(error: CarryonError(.http, "\(url): bytes \(range.lowerBound)-\(range.upperBound) asked for, but the resource has \(bytes.count)"),
                                  retryable: false)
                }
                return Body(url: finalURL, bytes: Array(bytes[Int(range.lowerBound)...Int(range.upperBound)]), size: Int64(bytes.count))
            }
            let total = status == 206 ? response.headers.first(name: "content-range").flatMap(ContentRange.init)?.total : bytes.count
            return Body(url: finalURL, bytes: bytes, size: inflater == nil ? total.map(Int64.init) : nil)
        } catch let failure as Inflater.Failure {
            throw Failure(error: CarryonError(.http, "\(url): sent with Content-Encoding \(response.headers.first(name: "content-encoding") ?? ""), but \(failure)"),
                          retryable: true)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(error: CarryonError(.http, "\(url): reading the response failed: \(Self.describe(error))", cause: error),
                          retryable: true)
        }
    }

    /// The decoder for a response's `Content-Encoding`: nil for none (or `identity`), zlib's
    /// inflate for `gzip`, `x-gzip` and `deflate`; any other coding is an error that names it.
    private static func inflater(for encoding: String?, url: String) throws(Failure) -> Inflater? {
        let codings = (encoding ?? "").lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && $0 != "identity" }
        guard !codings.isEmpty else { return nil }
        guard codings.count == 1, ["gzip", "x-gzip", "deflate"].contains(codings[0]) else {
            throw Failure(error: CarryonError(.http, "\(url): sent with Content-Encoding \(encoding ?? ""), which Carryon cannot decode (it asks for gzip or deflate)"),
                          retryable: false)
        }
        do { return try Inflater() } catch { throw Failure(error: CarryonError(.http, "\(url): \(error)"), retryable: false) }
    }

    /// Reads and drops a redirect's body when its `Content-Length` says it is at most
    /// ``RedirectChain/drainedBody`` bytes, so that its connection can serve the next request.
    /// Any other (longer, or of no stated length, which could dribble for as long as it likes)
    /// is not read: the response dropped, its request is cancelled.
    private static func drain(_ response: HTTPClientResponse) async {
        guard let length = response.headers.first(name: "content-length").flatMap(Int.init),
              length <= RedirectChain.drainedBody else { return }
        do {
            for try await _ in response.body {}
        } catch {}
    }

    /// A process-wide client like `HTTPClient.shared`, set up as every Carryon client is (see
    /// `HTTPClient.Configuration.carryon`).
    static let sharedClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .carryon())

    /// The process-wide network with the environment's settings (``Network/shared(_:)``), or,
    /// should those be unusable (a proxy variable that is not a URL), ``sharedClient`` alone.
    static var sharedNetwork: Network { (try? Network.shared()) ?? Network(client: sharedClient) }
}
