import Foundation
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
    /// The folders local files must lie in, as canonical paths (see ``canonicalPath(_:)``);
    /// nil: anywhere. A daemon's API sets them (`carryon serve --allow-files DIR`): every
    /// location a local stream names, at every level, is checked against them.
    public var fileFolders: [String]?
    /// Whether http(s) locations whose host reaches only this machine or its link — loopback,
    /// link-local (`169.254.169.254`), the unspecified address, this machine's own addresses —
    /// are refused: for a daemon that serves a network, which must not fetch them for whoever
    /// reaches its API (`carryon serve --bind` beyond loopback, unless
    /// `--allow-private-origins`). False by default. This checks a location's host as it
    /// resolves now; set ``NetworkSettings/refusesPrivateAddresses`` with it, so that the address
    /// each connection reaches is checked too (a name that resolves elsewhere by then).
    public var refusesPrivateHosts = false

    /// What a person may type: an http(s) URL or a local file.
    public static let anyLocation = LocationRule(allowsFiles: true)

    /// The rule for every location the stream read from `streamURL` names: http(s) only, and
    /// `file:` too when the stream itself is a local file.
    public static func stream(_ streamURL: String) -> LocationRule {
        LocationRule.anyLocation.forStream(streamURL)
    }

    /// A rule that allows `file:` locations or not, anywhere.
    public init(allowsFiles: Bool) {
        self.allowsFiles = allowsFiles
    }

    /// A rule that allows http(s) locations, and `file:` locations only inside `folders`
    /// (after resolving `..`, percent-encoding and symbolic links).
    public init(filesWithin folders: [String]) {
        self.allowsFiles = true
        self.fileFolders = folders.map(Self.canonicalPath)
    }

    /// The rule for what the stream read from `streamURL` may name: `file:` only when the
    /// stream itself is a local file, and then only in this rule's folders (``fileFolders``
    /// carry over; whether files are allowed is the stream's to say).
    public func forStream(_ streamURL: String) -> LocationRule {
        var rule = self
        rule.allowsFiles = URIReference.scheme(of: streamURL)?.lowercased() == "file"
        return rule
    }

    /// Refuses `location` unless its scheme is allowed and, for a local file, it lies in
    /// ``fileFolders``.
    ///
    /// - Parameters:
    ///   - location: An absolute URL.
    ///   - namedBy: Where the location was written (a playlist and line), or what led to it (a
    ///     redirect), for the error.
    /// - Throws: ``CarryonError`` with code ``CarryonError/Code/refusedLocation``; its message
    ///   names the location and where it came from, and nothing read from it.
    public func check(_ location: String, namedBy: @autoclosure () -> String?) throws(CarryonError) {
        let scheme = URIReference.scheme(of: location)?.lowercased() ?? ""
        let place = namedBy().map { "\($0): " } ?? ""
        if scheme == "http" || scheme == "https" {
            if refusesPrivateHosts, let host = URL(string: location)?.host(percentEncoded: false), let reason = PrivateHosts.reason(for: host) {
                throw CarryonError(.refusedLocation, "\(place)\(location): its host \(host) is \(reason), which a daemon serving a network or a fleet's worker does not fetch (--allow-private-origins allows it); nothing was requested from it")
            }
            return
        }
        if scheme == "file" && allowsFiles {
            guard fileFolders != nil else { return }
            _ = try filePath(location, namedBy: namedBy())
            return
        }
        let why = scheme == "file"
            ? "which Carryon does not read for a stream fetched over HTTP"
            : "which Carryon does not fetch (only http, https, and file for a stream read from disk)"
        throw CarryonError(.refusedLocation, "\(place)\(location) uses the scheme \(scheme.isEmpty ? "(none)" : scheme):, \(why); nothing was read from it")
    }

    /// The path to open for the `file:` URL `location`: with ``fileFolders``, its canonical
    /// path (`..`, percent-encoding and symbolic links resolved, now), checked to lie in one;
    /// else the URL's path. Opening what this returns, not the URL's own path, leaves no
    /// symbolic link to swap between the check and the read.
    ///
    /// - Throws: ``CarryonError/Code/refusedLocation`` when the file lies outside every folder;
    ///   ``CarryonError/Code/invalidLocation`` when `location` is not a file URL.
    public func filePath(_ location: String, namedBy: @autoclosure () -> String? = nil) throws(CarryonError) -> String {
        guard let url = URL(string: location), url.isFileURL else {
            throw CarryonError(.invalidLocation, "\(location) is not a valid file URL")
        }
        guard let fileFolders else { return url.path }
        let path = Self.canonicalPath(url.path)
        guard fileFolders.contains(where: { path == $0 || path.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }) else {
            let place = namedBy().map { "\($0): " } ?? ""
            throw CarryonError(.refusedLocation, "\(place)\(location) is a local file outside the folders allowed (\(fileFolders.joined(separator: ", "))); nothing was read from it")
        }
        return path
    }

    /// `path` absolute, without `.` and `..`, its symbolic links resolved (as they are now):
    /// what a check compares with the allowed folders.
    ///
    /// Foundation's `resolvingSymlinksInPath()` leaves a path alone when its file does not
    /// exist, links in its folders included; here the deepest folder that exists is resolved
    /// (`realpath`) and the rest appended, so a link to a folder outside is seen before the
    /// file in it is made.
    public static func canonicalPath(_ path: String) -> String {
        let standardized = URL(fileURLWithPath: path).standardizedFileURL.path
        var head = standardized
        var tail: [String] = []
        while true {
            if let resolved = realpath(head, nil) {
                defer { free(resolved) }
                let base = String(cString: resolved)
                return tail.isEmpty ? base : (base == "/" ? "" : base) + "/" + tail.reversed().joined(separator: "/")
            }
            guard head != "/", let slash = head.lastIndex(of: "/") else { return standardized }
            tail.append(String(head[head.index(after: slash)...]))
            head = slash == head.startIndex ? "/" : String(head[..<slash])
        }
    }
}
