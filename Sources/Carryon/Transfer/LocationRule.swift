import HLS

/// The one rule for where a stream may lead: a stream read over http(s) may only name http(s)
/// resources — variant and rendition playlists, segments, init sections, keys, and the targets
/// of redirects — while `file:` is allowed only for a stream that was itself read from disk.
///
/// Without it, a playlist served by anyone could name `file:///etc/passwd` as a variant and make
/// Carryon read a local file (and quote it in an error). ``PlaylistFetcher`` and the transfer
/// check every location they read against their rule, so no caller can forget to.
///
/// ```swift
/// let rule = LocationRule.stream("https://example.com/main.m3u8")
/// try rule.check("file:///etc/passwd", namedBy: "https://example.com/main.m3u8, line 7")
/// // throws: "…, line 7: file:///etc/passwd uses the scheme file:, which Carryon does not
/// //          read for a stream fetched over HTTP; nothing was read from it"
/// ```
public struct LocationRule: Sendable, Hashable {
    /// Whether `file:` locations may be read.
    public var allowsFiles: Bool

    /// What a person may type: an http(s) URL or a local file.
    public static let anyLocation = LocationRule(allowsFiles: true)

    /// The rule for every location the stream read from `streamURL` names: http(s) only, and
    /// `file:` too when the stream itself is a local file.
    public static func stream(_ streamURL: String) -> LocationRule {
        LocationRule(allowsFiles: URIReference.scheme(of: streamURL)?.lowercased() == "file")
    }

    /// A rule that allows `file:` locations or not.
    public init(allowsFiles: Bool) {
        self.allowsFiles = allowsFiles
    }

    /// Refuses `location` unless its scheme is allowed.
    ///
    /// - Parameters:
    ///   - location: An absolute URL.
    ///   - namedBy: Where the location was written (a playlist and line), or what led to it (a
    ///     redirect), for the error.
    /// - Throws: ``CarryonError`` with code ``CarryonError/Code/refusedLocation``; its message
    ///   names the location and where it came from, and nothing read from it.
    public func check(_ location: String, namedBy: @autoclosure () -> String?) throws(CarryonError) {
        let scheme = URIReference.scheme(of: location)?.lowercased() ?? ""
        if scheme == "http" || scheme == "https" || (scheme == "file" && allowsFiles) { return }
        let place = namedBy().map { "\($0): " } ?? ""
        let why = scheme == "file"
            ? "which Carryon does not read for a stream fetched over HTTP"
            : "which Carryon does not fetch (only http, https, and file for a stream read from disk)"
        throw CarryonError(.refusedLocation, "\(place)\(location) uses the scheme \(scheme.isEmpty ? "(none)" : scheme):, \(why); nothing was read from it")
    }
}
