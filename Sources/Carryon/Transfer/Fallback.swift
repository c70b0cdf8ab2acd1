import Foundation

/// Other locations that serve the same files as one location: an MPD's several `BaseURL`s at a
/// level (ISO/IEC 23009-1 5.6.4), a CDN and its mirror. A resource whose URI begins with
/// ``prefix`` that cannot be fetched there (after its retries) is fetched from each alternative
/// in turn, the rest of its URI unchanged; or, for a fallback with a ``query``, again with that
/// query added.
struct Fallback: Sendable, Hashable, Codable {
    /// The beginning of the URIs this fallback covers.
    var prefix: String
    /// Prefixes of the other locations, in the order they are tried.
    var alternatives: [String]
    /// A query to add to a URI that fails as it is: the manifest URL's own (a CDN's token), for a
    /// service that wants it on media too without saying so.
    var query: String? = nil

    /// A fallback that adds the manifest URL's `query` to any URI that fails without it.
    static func carrying(_ query: String) -> Fallback {
        Fallback(prefix: "", alternatives: [], query: query)
    }

    /// Where to fetch `uri` (which begins with ``prefix``) from, in the stream's order.
    func locations(of uri: String) -> [String] {
        if let query { return [uri, uri + (uri.contains("?") ? "&" : "?") + query] }
        let rest = uri.dropFirst(prefix.count)
        return ([prefix] + alternatives).map { $0 + rest }
    }

    /// The fallbacks of a base URL that has `alternatives`: one for the base itself (a resource
    /// that is the base, as a bare `BaseURL` names it) and one for its folder (the resources
    /// relative references name under it). None when there is no alternative.
    static func forBase(_ base: String, alternatives: [String]) -> [Fallback] {
        let others = alternatives.filter { $0 != base }
        guard !others.isEmpty else { return [] }
        var fallbacks = [Fallback(prefix: base, alternatives: others)]
        let folder = Self.folder(of: base)
        if folder != base {
            fallbacks.append(Fallback(prefix: folder, alternatives: others.map(Self.folder)))
        }
        return fallbacks
    }

    /// `url` up to the last `/` of its path: the URL a relative reference is resolved in.
    static func folder(of url: String) -> String {
        let path = url.prefix { $0 != "?" && $0 != "#" }
        guard let slash = path.lastIndex(of: "/") else { return String(path) }
        return String(path[...slash])
    }
}

/// The fallbacks of one transfer, and the location of each that last worked: once a location
/// fails, the resources after it go first to the one that served it.
final class FallbackRoutes: Sendable {
    /// Longest prefix first, so that the most precise one answers.
    private let fallbacks: [Fallback]
    /// For each fallback's prefix, the index (into the prefix and its alternatives) that
    /// last worked.
    private let preferred = Locked<[String: Int]>([:])

    init(_ fallbacks: [Fallback]) {
        self.fallbacks = fallbacks.sorted { $0.prefix.count > $1.prefix.count }
    }

    /// The URIs to try for `uri`, in order: the location that last worked first, then the
    /// others as the stream lists them. Just `uri` when no fallback covers it.
    func candidates(for uri: String) -> [String] {
        guard let fallback = fallbacks.first(where: { uri.hasPrefix($0.prefix) }) else { return [uri] }
        let all = fallback.locations(of: uri)
        let first = preferred.withLock { $0[fallback.prefix] } ?? 0
        return [all[first]] + all.enumerated().filter { $0.offset != first }.map(\.element)
    }

    /// Records that `candidate`, one of ``candidates(for:)`` for `uri`, served it.
    func worked(_ candidate: String, for uri: String) {
        guard let fallback = fallbacks.first(where: { uri.hasPrefix($0.prefix) }),
              let index = fallback.locations(of: uri).firstIndex(of: candidate) else { return }
        preferred.withLock { $0[fallback.prefix] = index }
    }
}
