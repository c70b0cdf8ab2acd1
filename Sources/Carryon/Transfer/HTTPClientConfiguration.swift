import AsyncHTTPClient

extension HTTPClient.Configuration {
    /// How every HTTP client of Carryon's is set up — a session's and the one `inspect` shares:
    ///
    /// - redirects followed up to `maximumRedirects`, never in a cycle (and never to `file:` or
    ///   a Unix socket, which the client refuses and ``LocationRule`` names);
    /// - a refused or failed connection fails the request, for ``RetryPolicy`` to back off from
    ///   and report: left to the client, it retried silently until each request's timeout
    ///   (about 100 s before a download to a closed port said anything);
    /// - no decompression by the client: ``PlaylistFetcher`` decodes gzip playlists itself,
    ///   counting its size limit after decoding, and media is stored as it was sent;
    /// - `connectionsPerHost` connections to one host at once.
    static func carryon(maximumRedirects: Int = 5, connectionsPerHost: Int = 8) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .follow(max: maximumRedirects, allowCycles: false)
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerHost)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.decompression = .disabled
        return configuration
    }
}
