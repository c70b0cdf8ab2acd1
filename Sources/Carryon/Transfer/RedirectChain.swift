import Foundation
import HLS
import NIOHTTP1

/// The redirects one request follows. Carryon follows them itself, not the HTTP client, so that
/// each location is checked against the stream's ``LocationRule`` before anything is asked of
/// it: a daemon serving a network must not request its own loopback, its link or a cloud's
/// metadata address (`169.254.169.254`) for whoever reaches its API, even when a public origin
/// redirects there. Each hop also goes through the client its own URL's proxy rules choose
/// (``Network/client(for:)``).
///
/// The rules are a browser's (AsyncHTTPClient's were a little looser: it also followed 304 and
/// 305, and told origins apart hop by hop):
/// - 301, 302, 303, 307 and 308 with a `Location` are followed, resolved against the URL that
///   answered; any other answer ends the chain;
/// - at most ``maximum`` redirects ("too many redirects"), never to a URL already visited
///   ("a redirect loop");
/// - from http(s) only to http(s);
/// - once the chain leaves the first URL's origin, `Authorization`, `Cookie`, `Origin` and
///   `Proxy-Authorization` are sent no more (``headers(_:)``);
/// - a POST answered 301, 302 or 303 is asked again as a GET without its body
///   (``asksAgainAsGet(_:)``).
///
/// ```swift
/// var chain = RedirectChain(from: "https://cdn.example/a.ts", maximum: 5, rule: rule)
/// if let next = try chain.follow(.found, ["Location": "/b.ts"]) {
///     // next == "https://cdn.example/b.ts", checked; chain.current == next
/// }
/// ```
struct RedirectChain: Sendable {
    /// The most redirects followed.
    let maximum: Int
    /// What every location must pass before it is requested.
    let rule: LocationRule
    /// The URLs asked so far, the first one first.
    private(set) var visited: [String]
    /// Whether a hop has left the first URL's origin.
    private(set) var leftOrigin = false

    /// The statuses whose `Location` is followed.
    static let redirecting: Set<UInt> = [301, 302, 303, 307, 308]
    /// The most of a redirect's body read (and dropped) so that its connection can be used
    /// again, as AsyncHTTPClient reads: a longer one is cut off with its connection.
    static let drainedBody = 3 << 10
    /// How long such a body is read before its connection is given up instead: a redirect's
    /// body comes with its head, and one that dribbles must not hold the chain up until the
    /// stall watch or the request's timeout ends it.
    static let drainTime: Duration = .seconds(2)

    /// A chain that starts at `url`, which the caller has checked.
    init(from url: String, maximum: Int, rule: LocationRule) {
        self.maximum = maximum
        self.rule = rule
        visited = [url]
    }

    /// The URL to ask now: the first, or where the last redirect led.
    var current: String { visited[visited.count - 1] }

    /// The first URL, which error messages name.
    var first: String { visited[0] }

    /// Whether an answer with `status` and `headers` is a redirect to follow.
    static func isRedirect(_ status: HTTPResponseStatus, _ headers: HTTPHeaders) -> Bool {
        redirecting.contains(status.code) && headers.contains(name: "location")
    }

    /// Where the answer `status`, `headers` to ``current`` redirects, checked and made
    /// ``current``; nil when it is no redirect.
    ///
    /// - Throws: ``CarryonError`` before anything is requested from the location: code
    ///   ``CarryonError/Code/refusedLocation`` for a scheme other than http(s) or a location
    ///   the rule refuses; ``CarryonError/Code/http`` for one redirect too many, a loop, or a
    ///   `Location` that is not a URL. None is worth another attempt.
    @discardableResult
    mutating func follow(_ status: HTTPResponseStatus, _ headers: HTTPHeaders) throws(CarryonError) -> String? {
        guard Self.isRedirect(status, headers), let location = headers.first(name: "location") else { return nil }
        let from = current
        var target = URIReference.resolve(location.trimmingCharacters(in: .whitespaces), against: from)
        if let hash = target.firstIndex(of: "#") { target = String(target[..<hash]) }
        let scheme = URIReference.scheme(of: target)?.lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw CarryonError(.refusedLocation, "\(from) redirects (\(status.code)) to \(location), which Carryon does not follow: a stream fetched over HTTP is redirected only to http or https; nothing was read from it")
        }
        guard let host = URL(string: URIReference.encodingSpaces(target))?.host, !host.isEmpty else {
            throw CarryonError(.http, "\(first): the request failed: \(from) redirects (\(status.code)) to \(location), which is not a URL")
        }
        guard visited.count <= maximum else {
            throw CarryonError(.http, "\(first): the request failed: too many redirects (more than \(maximum); the last from \(from) to \(target))")
        }
        guard !visited.contains(target) else {
            throw CarryonError(.http, "\(first): the request failed: a redirect loop (\(from) redirects to \(target), asked before)")
        }
        try rule.check(target, namedBy: "a redirect (\(status.code)) from \(from)")
        if Self.origin(of: target) != Self.origin(of: first) { leftOrigin = true }
        visited.append(target)
        return target
    }

    /// `headers` as they go to ``current``: without credentials once the chain has left the
    /// first URL's origin (a CDN redirected to must not see the origin's password or cookies).
    func headers(_ headers: HTTPHeaders) -> HTTPHeaders {
        guard leftOrigin else { return headers }
        var kept = headers
        for name in ["Authorization", "Cookie", "Origin", "Proxy-Authorization"] { kept.remove(name: name) }
        return kept
    }

    /// Whether a POST answered `status` is asked again as a GET without its body (the fetch
    /// standard's rule, which browsers and AsyncHTTPClient follow): after 301, 302 and 303.
    static func asksAgainAsGet(_ status: HTTPResponseStatus) -> Bool {
        [301, 302, 303].contains(status.code)
    }

    /// `url`'s scheme, host and port, lower case, the port spelled out: what "the same origin"
    /// compares.
    /// Read as the client reads a URL (`URL(string:)`, lenient with characters a stricter
    /// parser refuses), so that such a character in a path or query does not make one origin
    /// look like two.
    static func origin(of url: String) -> String {
        guard let parsed = URL(string: URIReference.encodingSpaces(url)) else { return url }
        let scheme = parsed.scheme?.lowercased() ?? ""
        let port = parsed.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(parsed.host(percentEncoded: false)?.lowercased() ?? ""):\(port)"
    }
}
