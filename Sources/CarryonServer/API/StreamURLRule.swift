import Carryon
import Foundation

/// Which stream URLs the daemon's API takes: `http` and `https` always; a local file (`file:`
/// URL or absolute path) only inside a folder the daemon was started with (`carryon serve
/// --allow-files DIR`), so whoever reaches the API cannot make Carryon read the machine's files.
public struct StreamURLRule: Sendable {
    /// Folders whose files may be streams, as absolute paths with symbolic links resolved.
    public let allowedFolders: [String]
    /// Whether http(s) streams must be on this machine's loopback interface (`127.0.0.1`,
    /// `localhost`, `::1`): for a daemon that only serves a local origin, and for a test daemon
    /// a fuzzer drives, which must reach nothing else.
    public let loopbackOnly: Bool
    /// Whether streams whose host reaches only this machine or its link (loopback,
    /// link-local such as `169.254.169.254`, this machine's own addresses) are refused — and
    /// with them, through ``locationRule``, every such location a stream names: for a daemon
    /// that serves a network (`carryon serve --bind` beyond loopback), which must not make
    /// requests for whoever reaches its API to services that trust this machine.
    public let refusesPrivateOrigins: Bool

    /// A rule allowing local streams under `allowedFolders` (none by default), and http(s)
    /// streams anywhere unless `loopbackOnly`, or anywhere but this machine and its link with
    /// `refusesPrivateOrigins`.
    ///
    ///     let rule = StreamURLRule(allowedFolders: ["/srv/media"])
    public init(allowedFolders: [String] = [], loopbackOnly: Bool = false, refusesPrivateOrigins: Bool = false) {
        self.allowedFolders = allowedFolders.map { LocationRule.canonicalPath($0) }
        self.loopbackOnly = loopbackOnly
        self.refusesPrivateOrigins = refusesPrivateOrigins
    }

    /// `url` if the API may download or inspect it.
    ///
    /// - Throws: ``APIError`` `url-refused` (400), naming the URL and why, for any other scheme,
    ///   a URL without a host (or, ``loopbackOnly``, another host), or a local file outside the
    ///   allowed folders; nothing of the file is read.
    public func check(_ url: String) throws(APIError) -> String {
        let trimmed = url.trimmingCharacters(in: .whitespaces)
        let scheme = trimmed.range(of: ":").map { String(trimmed[..<$0.lowerBound]).lowercased() }
        if scheme == "http" || scheme == "https" {
            guard let host = URL(string: trimmed)?.host, !host.isEmpty else {
                throw APIError(400, "url-refused", "\(url) has no host")
            }
            if loopbackOnly, !["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased()) {
                throw APIError(400, "url-refused", "\(url) is not on this machine's loopback interface, the only streams this daemon takes")
            }
            do { try locationRule.check(trimmed, namedBy: nil) } catch {
                throw APIError(400, "url-refused", error.message,
                               hint: "A daemon that serves a network fetches no stream from this machine or its link; start it with --allow-private-origins if it should.")
            }
            return trimmed
        }
        let path: String
        if scheme == "file", let parsed = URL(string: trimmed), parsed.isFileURL {
            path = parsed.path
        } else if trimmed.hasPrefix("/") {
            path = trimmed
        } else {
            throw APIError(400, "url-refused", "\(url): the API downloads http and https URLs only",
                           hint: "Local streams are served only from folders the daemon allows: carryon serve --allow-files DIR.")
        }
        let canonical = LocationRule.canonicalPath(path)
        guard allowedFolders.contains(where: { canonical.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }) else {
            throw APIError(400, "url-refused", "\(url) is a local file outside the folders the daemon allows",
                           hint: "Start the daemon with --allow-files naming the folder, or serve the stream over http.")
        }
        return URL(fileURLWithPath: canonical).absoluteString
    }

    /// The rule for every location a stream the API took may name: http(s), and local files
    /// only inside ``allowedFolders`` — at every level (variants, renditions, segments, init
    /// sections, keys, XLink), not only the stream's own URL.
    public var locationRule: LocationRule {
        var rule = LocationRule(filesWithin: allowedFolders)
        rule.refusesPrivateHosts = refusesPrivateOrigins
        return rule
    }
}
