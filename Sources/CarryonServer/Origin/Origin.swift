import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// An HTTP origin that serves a folder of HLS media on loopback, the way a CDN would — correct
/// byte ranges (suffix ranges included), `If-Range`, `HEAD`, validators and content types — over
/// a link it can make slow and unreliable on purpose: a ``LinkProfile`` of latency, bandwidth per
/// connection and seeded faults (503s, resets mid-body, truncated bodies). It is the Network
/// Link Conditioner of Carryon's tests, and of users testing their own streams with
/// `carryon origin`. Nothing outside `root` can be read through it.
///
/// Every request is logged, so a test can check what a client fetched, and how often:
///
/// ```swift
/// try await Origin(root: "/srv/hls", profile: .lossy).withRunning { origin in
///     // origin.baseURL is e.g. "http://127.0.0.1:49152"
///     let inspection = try await Inspector().inspect(origin.baseURL + "/main.m3u8")
///     for request in await origin.requests() {
///         print(request.method, request.path, request.status, request.fault as Any)
///     }
/// }
/// ```
public struct Origin: Sendable {
    /// The folder served.
    public var root: String
    /// The address to listen on: `127.0.0.1` unless told otherwise.
    public var host: String
    /// The port; 0 lets the operating system pick a free one.
    public var port: Int
    /// How the link misbehaves; ``LinkProfile/perfect`` (the default) serves every request
    /// at once, whole.
    public var profile: LinkProfile
    /// Where the server logs (warnings and errors only by default).
    public var logger: Logger
    /// How long a connection may take to send a request or wait idle, and how many are open
    /// at once (see ``ConnectionLimits``, whose defaults apply).
    public var limits = ConnectionLimits()

    /// Creates an origin that serves a folder; it listens only once run.
    ///
    /// - Parameters:
    ///   - root: The folder to serve. It is made absolute, with symbolic links resolved.
    ///   - host: The address to listen on.
    ///   - port: The port; 0 lets the operating system pick a free one.
    ///   - profile: How the link misbehaves; it is checked when the origin runs.
    ///   - logger: Where the server logs; nil for a `carryon.origin` logger at the `warning` level.
    public init(
        root: String, host: String = "127.0.0.1", port: Int = 0, profile: LinkProfile = .perfect,
        logger: Logger? = nil
    ) {
        self.root = URL(fileURLWithPath: root).standardizedFileURL.resolvingSymlinksInPath().path
        self.host = host
        self.port = port
        self.profile = profile
        self.logger = logger ?? {
            var logger = Logger(label: "carryon.origin")
            logger.logLevel = .warning
            return logger
        }()
    }

    /// Serves until the task is cancelled or the process receives SIGINT or SIGTERM; calls
    /// `onReady` with the running origin once the socket is listening.
    ///
    /// - Throws: ``LinkProfileError`` before listening if ``profile`` cannot be used,
    ///   ``ConnectionLimitsError`` if ``limits`` cannot.
    public func run(onReady: @escaping @Sendable (OriginHandle) async -> Void = { _ in }) async throws {
        try profile.validate()
        try limits.validate()
        try await runServiceUntilSignalled(makeApplication(onReady: onReady), logger: logger)
    }

    /// Runs the origin for as long as `body` runs, and stops it after. Each run numbers its
    /// requests from 0 and starts its fault generator from the profile's seed afresh.
    ///
    /// - Throws: ``LinkProfileError`` if ``profile`` cannot be used, ``ConnectionLimitsError``
    ///   if ``limits`` cannot, the server's error if it cannot listen, or what `body` throws.
    public func withRunning<T: Sendable>(_ body: @Sendable (OriginHandle) async throws -> T) async throws -> T {
        try profile.validate()
        try limits.validate()
        return try await withRunningService(logger: logger, { onReady in makeApplication(onReady: onReady) }, body)
    }

    private func makeApplication(onReady: @escaping @Sendable (OriginHandle) async -> Void) -> some Service {
        let log = RequestLog()
        let responder = ConditionedResponder(files: FileResponder(root: root), profile: profile, log: log)
        let host = self.host
        let profile = self.profile
        return Application(
            responder: responder,
            server: .http1Guarded(limits),
            configuration: .init(address: .hostname(host, port: port), serverName: "carryon-origin"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let shownHost = host.contains(":") ? "[\(host)]" : host
                await onReady(OriginHandle(baseURL: "http://\(shownHost):\(port)", profile: profile, log: log))
            },
            logger: logger
        )
    }
}
