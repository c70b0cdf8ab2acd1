import Foundation

/// A proxy, read from `--proxy` or a proxy variable: `http://[user:password@]host[:port]` (HTTP
/// CONNECT; the scheme may be left out, as curl allows) or `socks5://host[:port]` and
/// `socks5h://host[:port]` (SOCKS5; the proxy resolves the origin's name either way). The port
/// is 1080 when none is given, as curl's. Its ``description`` never shows the password.
public struct ProxyAddress: Sendable, Hashable, CustomStringConvertible {
    /// How requests reach the proxy.
    public enum Kind: String, Sendable, Hashable {
        /// HTTP CONNECT, to http and https origins alike.
        case http
        /// SOCKS5, without authentication.
        case socks5
    }

    /// How requests reach the proxy.
    public var kind: Kind
    /// The proxy's host name or address (an IPv6 address without brackets).
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// The user name for basic authentication, percent-decoded.
    public var user: String?
    /// The password for basic authentication, percent-decoded: never printed.
    var password: String?

    /// Reads `text` as a proxy URL; `origin` names where it came from (`--proxy`, `HTTPS_PROXY`)
    /// in the error.
    ///
    /// - Throws: ``CarryonError`` with code ``CarryonError/Code/invalidValue``: not a URL with a
    ///   host, a scheme other than http, socks5 and socks5h (an https proxy, socks4), a port out
    ///   of range, or credentials for a SOCKS5 proxy (which Carryon cannot send). The message
    ///   shows the URL with its password hidden.
    public init(_ text: String, origin: String) throws(CarryonError) {
        let given = text.contains("://") ? text : "http://" + text
        let shown = Self.hidingPassword(given)
        guard let components = URLComponents(string: given), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty else {
            throw CarryonError(.invalidValue, "\(origin) \(shown) is not a proxy URL: write http://HOST:PORT or socks5://HOST:PORT")
        }
        switch scheme {
        case "http": kind = .http
        case "socks5", "socks5h": kind = .socks5
        case "https":
            throw CarryonError(.invalidValue, "\(origin) \(shown): a proxy reached over HTTPS is not supported; give it as http://\(host)… (requests to https origins are still encrypted end to end, through CONNECT)")
        default:
            throw CarryonError(.invalidValue, "\(origin) \(shown): the proxy scheme \(scheme) is not supported; use http:// (CONNECT) or socks5://")
        }
        let port = components.port ?? 1080
        guard (1...65535).contains(port) else {
            throw CarryonError(.invalidValue, "\(origin) \(shown): the port \(port) is not between 1 and 65535")
        }
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = port
        user = components.percentEncodedUser.flatMap { $0.removingPercentEncoding ?? $0 }
        password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding ?? $0 }
        if kind == .socks5, user != nil {
            throw CarryonError(.invalidValue, "\(origin) \(shown): Carryon cannot authenticate to a SOCKS5 proxy; give one that needs no password, or an HTTP proxy")
        }
    }

    /// `http://user:***@host:port`: the proxy as it may be shown, its password hidden.
    public var description: String {
        let name = host.contains(":") ? "[\(host)]" : host
        let credentials = user.map { "\($0)\(password == nil ? "" : ":***")@" } ?? ""
        return "\(kind.rawValue)://\(credentials)\(name):\(port)"
    }

    /// `text` with whatever stands between `user:` and `@` replaced by `***`.
    static func hidingPassword(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].lastIndex(of: "@") else { return text }
        let userinfo = text[scheme.upperBound..<at]
        guard let colon = userinfo.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":***" + String(text[at...])
    }
}
