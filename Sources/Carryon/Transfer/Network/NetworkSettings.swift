import Foundation

/// How Carryon reaches origins: which certificate authorities it trusts, and which proxy each
/// request goes through. The defaults are the system's trust store and the proxy the
/// environment names, as curl reads them.
///
/// - Trust: the system store (`/etc/ssl/certs`), or what `SSL_CERT_FILE` and `SSL_CERT_DIR`
///   name instead, as OpenSSL reads them; plus every certificate authority in
///   ``certificateAuthorities`` (`--cacert`). ``verifiesCertificates`` off (`--insecure`) is for
///   testing only: anyone between Carryon and the origin could change what is downloaded.
/// - Proxies: ``proxy`` (`--proxy`) for every request; else `https_proxy`/`HTTPS_PROXY` for
///   https URLs, `http_proxy`/`HTTP_PROXY` for http URLs, `all_proxy`/`ALL_PROXY` for either,
///   and `no_proxy`/`NO_PROXY` (or ``noProxy``, `--noproxy`) for the hosts reached directly
///   (see ``NoProxy``). A proxy is `http://[user:password@]host[:port]` (HTTP CONNECT, with
///   basic authentication) or `socks5://host[:port]` (`socks5h://` alike: the proxy resolves
///   the name). Its password is never logged or printed (see ``ProxyAddress``).
///
/// Settings are the session's (``DownloadSession/Configuration/network``) or the inspector's,
/// never an asset's: nothing of them is stored in the library.
public struct NetworkSettings: Sendable, Hashable {
    /// PEM files of certificate authorities trusted besides the system's (`--cacert`), each
    /// holding one certificate or more.
    public var certificateAuthorities: [String]
    /// Whether origins' certificates are verified; off (`--insecure`) only for testing.
    public var verifiesCertificates: Bool
    /// The proxy every request goes through (`--proxy URL`), instead of the environment's;
    /// an empty string: none, whatever the environment says.
    public var proxy: String?
    /// The hosts reached without a proxy (`--noproxy LIST`), instead of the environment's
    /// `NO_PROXY`: a comma-separated list of host names (each with its subdomains), IP
    /// addresses and CIDR ranges, or `*` for every host.
    public var noProxy: String?
    /// The environment the proxy variables, `SSL_CERT_FILE` and `SSL_CERT_DIR` are read from:
    /// the process's, by default (only those variables are kept).
    public var environment: [String: String]
    /// Whether a connection made without a proxy is closed before any request is sent on it
    /// when the address it reached is this machine's or its link's (loopback, link-local such
    /// as `169.254.169.254`, the unspecified address, an address of an interface): what a daemon
    /// serving a network sets beside its ``LocationRule/refusesPrivateHosts``, which checks a
    /// location's host before the request. This checks the address the client connected to, so
    /// a name that resolves elsewhere by then (DNS rebinding) reaches nothing. A proxy resolves
    /// the names it is given; its own address is the operator's choice. False by default.
    public var refusesPrivateAddresses = false

    /// The variables read from the environment.
    static let variables = ["https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY",
                            "no_proxy", "NO_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR"]

    /// Settings trusting the system's store and `certificateAuthorities`, with the environment's
    /// proxies unless `proxy` and `noProxy` say otherwise.
    public init(certificateAuthorities: [String] = [], verifiesCertificates: Bool = true, proxy: String? = nil,
                noProxy: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.certificateAuthorities = certificateAuthorities
        self.verifiesCertificates = verifiesCertificates
        self.proxy = proxy
        self.noProxy = noProxy
        self.environment = environment.filter { Self.variables.contains($0.key) }
    }

    /// Checks the settings without making a client: the proxy URLs, the certificate files.
    ///
    /// - Throws: ``CarryonError`` with code ``CarryonError/Code/invalidValue``, naming what is wrong.
    public func check() throws(CarryonError) {
        _ = try TrustStore.configuration(self)
        _ = try proxies()
    }

    /// The proxies for https and for http origins: `--proxy` (`""`: none), else the environment's.
    func proxies() throws(CarryonError) -> (https: ProxyAddress?, http: ProxyAddress?) {
        if let given = proxy {
            guard !given.trimmingCharacters(in: .whitespaces).isEmpty else { return (nil, nil) }
            let address = try ProxyAddress(given, origin: "--proxy")
            return (address, address)
        }
        var https: ProxyAddress?
        var http: ProxyAddress?
        if let (name, value) = variable("https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY") {
            https = try ProxyAddress(value, origin: name)
        }
        if let (name, value) = variable("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY") {
            http = try ProxyAddress(value, origin: name)
        }
        return (https, http)
    }

    /// The first of `names` set (and not empty) in the environment.
    func variable(_ names: String...) -> (name: String, value: String)? {
        for name in names {
            if let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty { return (name, value) }
        }
        return nil
    }
}
