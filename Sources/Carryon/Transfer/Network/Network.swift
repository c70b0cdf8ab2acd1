import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL

/// The HTTP clients one session's (or one process's inspections') requests go through, as
/// ``NetworkSettings`` say: each request to an origin the environment's or `--proxy`'s proxy
/// serves goes through that proxy's client, any other (`NO_PROXY`) through the direct client;
/// all of them trust the same certificate authorities.
///
/// AsyncHTTPClient sets a proxy per client, so a network holds one client per proxy it may use
/// (at most three: https's, http's and the direct one), each made when the network is.
public final class Network: Sendable {
    /// What the network was made from.
    public let settings: NetworkSettings
    /// The TLS configuration every client uses.
    let tls: TLSConfiguration
    /// The most redirects one request follows (see ``RedirectChain``).
    let maximumRedirects: Int
    /// The client for requests that go to origins directly.
    let direct: HTTPClient
    private let proxied: [ProxyAddress: HTTPClient]
    private let httpsProxy: ProxyAddress?
    private let httpProxy: ProxyAddress?
    private let bypass: NoProxy?
    private let ownsClients: Bool

    /// A network as `settings` say, its clients on `eventLoopGroup` (NIO's shared loops when
    /// nil), following up to `maximumRedirects` redirects with up to `connectionsPerHost`
    /// HTTP/1.1 connections to one host. Call ``shutdown()`` when done.
    ///
    /// - Throws: ``CarryonError`` with code ``CarryonError/Code/invalidValue``: a proxy URL that
    ///   is not one, a `--cacert` file that does not exist or holds no certificate.
    public init(settings: NetworkSettings = NetworkSettings(), maximumRedirects: Int = 5, connectionsPerHost: Int = 8,
                eventLoopGroup: (any EventLoopGroup)? = nil) throws(CarryonError) {
        self.settings = settings
        self.maximumRedirects = maximumRedirects
        let tls = try TrustStore.configuration(settings)
        self.tls = tls
        let (https, http) = try settings.proxies()
        httpsProxy = https
        httpProxy = http
        let exceptions = settings.noProxy ?? settings.variable("no_proxy", "NO_PROXY")?.value
        bypass = exceptions.map(NoProxy.init)
        let provider: HTTPClient.EventLoopGroupProvider = eventLoopGroup.map { .shared($0) } ?? .singleton
        func client(_ proxy: ProxyAddress?) -> HTTPClient {
            var configuration = HTTPClient.Configuration.carryon(connectionsPerHost: connectionsPerHost,
                                                                 refusingPrivateAddresses: proxy == nil && settings.refusesPrivateAddresses)
            configuration.tlsConfiguration = tls
            if let proxy {
                switch proxy.kind {
                case .http:
                    let authorization = proxy.user.map { HTTPClient.Authorization.basic(username: $0, password: proxy.password ?? "") }
                    configuration.proxy = .server(host: proxy.host, port: proxy.port, authorization: authorization)
                case .socks5:
                    configuration.proxy = .socksServer(host: proxy.host, port: proxy.port)
                }
            }
            return HTTPClient(eventLoopGroupProvider: provider, configuration: configuration)
        }
        direct = client(nil)
        var proxied: [ProxyAddress: HTTPClient] = [:]
        for proxy in [https, http].compactMap({ $0 }) where proxied[proxy] == nil {
            proxied[proxy] = client(proxy)
        }
        self.proxied = proxied
        ownsClients = true
    }

    /// A network of one client, `client`, which it does not shut down: what
    /// ``PlaylistFetcher/init(client:headers:maximumPlaylistBytes:timeout:retry:stallTimeout:)`` is given.
    init(client: HTTPClient) {
        settings = NetworkSettings(environment: [:])
        maximumRedirects = 5
        tls = .makeClientConfiguration()
        direct = client
        proxied = [:]
        httpsProxy = nil
        httpProxy = nil
        bypass = nil
        ownsClients = false
    }

    deinit {
        // A network released without `shutdown()` must not take the process down:
        // AsyncHTTPClient traps when a client that is still running is released.
        if ownsClients {
            for client in [direct] + proxied.values { client.shutdown { _ in } }
        }
    }

    /// The proxy a request to `url` goes through, if any.
    public func proxy(for url: String) -> ProxyAddress? {
        guard let components = URLComponents(string: url), let host = components.host else { return nil }
        let proxy: ProxyAddress?
        switch components.scheme?.lowercased() {
        case "https": proxy = httpsProxy
        case "http": proxy = httpProxy
        default: return nil
        }
        guard let proxy else { return nil }
        if let bypass, bypass.matches(host) { return nil }
        return proxy
    }

    /// The client a request to `url` goes through.
    func client(for url: String) -> HTTPClient {
        proxy(for: url).flatMap { proxied[$0] } ?? direct
    }

    /// Shuts every client down (a network made with a client of its own leaves it running).
    public func shutdown() async {
        guard ownsClients else { return }
        for client in [direct] + proxied.values { try? await client.shutdown() }
    }

    /// The networks ``Network/shared(_:)`` made, by settings.
    private static let made = Locked<[NetworkSettings: Network]>([:])

    /// A process-wide network for `settings`, made on first use and never shut down (as
    /// `HTTPClient.shared`): what inspections use.
    public static func shared(_ settings: NetworkSettings = NetworkSettings()) throws(CarryonError) -> Network {
        if let network = made.withLock({ $0[settings] }) { return network }
        let network = try Network(settings: settings)
        return made.withLock { made in
            if let existing = made[settings] { return existing }
            made[settings] = network
            return network
        }
    }
}
