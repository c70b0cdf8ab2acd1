import Carryon
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// Plays a library's bundles back offline: an HTTP server, on the loopback interface unless told
/// otherwise, that serves
/// every asset as standard HLS — playlists, segments, init sections, subtitles, with the right
/// content types and byte ranges — to any player (ffmpeg, ffplay, mpv, VLC, Safari, hls.js).
///
/// Access is by capability. Each server run makes a random token that is part of every URL; a
/// request without it, or with a `Host` header other than the server's loopback address, is
/// refused with 403, so other local users and web pages (DNS rebinding) cannot read the
/// library through it:
///
/// ```swift
/// try await PlaybackServer(source: PlaybackSource(library: library)).withRunning { server in
///     print(server.playlistURL(for: assetID))   // http://127.0.0.1:41234/9f…c2/<id>/main.m3u8
/// }
/// ```
///
/// An asset still downloading plays as it arrives (see `PlaybackSource` in the `Carryon` module). Each request is
/// reported to ``onRequest`` with what the access and error logs need; each time a player
/// opens an asset's multivariant playlist a playback session begins, whose id the player's
/// further requests carry in their path (`/<token>/<id>/<session>/…`).
public struct PlaybackServer: Sendable {
    /// What is served.
    public var source: PlaybackSource
    /// The address to listen on: `127.0.0.1` (the default) or `::1`, loopback only; another
    /// address of this machine (`0.0.0.0` or `::` for all) makes the server reachable from other
    /// machines, for a daemon serving other devices. The token is required whatever the address.
    public var host: String
    /// Further names the server is reached by — a DNS name of the machine, or its address on the
    /// network — that requests may carry in their `Host` header: besides the loopback names and
    /// ``host`` itself, every other `Host` is refused (DNS rebinding). The first is the one the
    /// base URL shows.
    public var names: [String]
    /// The port; 0 lets the operating system pick a free one.
    public var port: Int
    /// The token every URL carries; random (128 bits) unless given.
    public var token: String
    /// Called after each request is answered.
    public var onRequest: @Sendable (PlaybackRequest) async -> Void
    /// Where the server logs (warnings and errors only by default).
    public var logger: Logger
    /// The daemon's JSON API, served under `<base URL>/api/` when set (`carryon serve`).
    public var api: DaemonAPI?
    /// How long a connection may take to send a request or wait idle, and how many are open
    /// at once (see ``ConnectionLimits``, whose defaults apply).
    public var limits = ConnectionLimits()
    /// The certificate and key to serve TLS with (``TLSIdentity``); nil: plain HTTP. With one,
    /// the base URL is `https://`.
    public var tls: TLSIdentity?

    /// - Throws: ``PlaybackServerError`` when `host` is not an IP address, a name in `names` is
    ///   not a host name, or `token` is too short to be a secret.
    public init(source: PlaybackSource, host: String = "127.0.0.1", names: [String] = [], port: Int = 0, token: String? = nil,
                logger: Logger? = nil, onRequest: @escaping @Sendable (PlaybackRequest) async -> Void = { _ in }) throws(PlaybackServerError) {
        guard Self.isIPAddress(host) else {
            throw PlaybackServerError("the playback server listens on an IP address (127.0.0.1, ::1, 0.0.0.0, …), not \(host)")
        }
        for name in names where !Self.isHostName(name) || Self.isUnspecified(name) {
            throw PlaybackServerError("\(name) is not a name clients can reach the server by (a DNS name or an address of this machine)")
        }
        self.names = names
        let token = token ?? Self.makeToken()
        guard Self.isValidToken(token) else {
            throw PlaybackServerError("a token is at least 16 letters and digits")
        }
        self.source = source
        self.host = host
        self.port = port
        self.token = token
        self.onRequest = onRequest
        self.logger = logger ?? {
            var logger = Logger(label: "carryon.playback")
            logger.logLevel = .warning
            return logger
        }()
    }

    /// Whether `text` is an IPv4 or IPv6 address.
    package static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    /// Whether `text` is an address that means every interface (`0.0.0.0`, `::`).
    package static func isUnspecified(_ text: String) -> Bool {
        text == "0.0.0.0" || text == "::" || text == "[::]"
    }

    /// Whether `text` can be a `Host` header's name: a DNS name, or an IP address.
    package static func isHostName(_ text: String) -> Bool {
        guard !text.isEmpty, text.count <= 253 else { return false }
        return isIPAddress(text) || text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
    }

    /// Whether `token` can be a server's token: at least 16 ASCII letters and digits.
    package static func isValidToken(_ token: String) -> Bool {
        token.count >= 16 && token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }

    /// 32 hexadecimal digits from the system's secure random source.
    package static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let value = generator.next() as UInt64
            let hex = String(value, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// Serves until the task is cancelled or the process receives SIGINT or SIGTERM; calls
    /// `onReady` once listening. When it stops, the assets it played are no longer leased.
    ///
    /// - Throws: ``ConnectionLimitsError`` before listening if ``limits`` cannot be applied.
    public func run(onReady: @escaping @Sendable (PlaybackServerHandle) async -> Void = { _ in }) async throws {
        try limits.validate()
        // Ended in a task of its own: the server stops by being cancelled, and a cancelled task's
        // writes to the index are refused.
        let leases = source.leases
        do {
            try await runServiceUntilSignalled(makeApplication(onReady: onReady), logger: logger)
        } catch {
            await Task { await leases.releaseAll() }.value
            throw error
        }
        await Task { await leases.releaseAll() }.value
    }

    /// Runs the server for as long as `body` runs. When it stops, the assets it played are no
    /// longer leased.
    ///
    /// - Throws: ``ConnectionLimitsError`` before listening if ``limits`` cannot be applied, or
    ///   what `body` throws.
    public func withRunning<T: Sendable>(_ body: @Sendable (PlaybackServerHandle) async throws -> T) async throws -> T {
        try limits.validate()
        let leases = source.leases
        do {
            let result = try await withRunningService(logger: logger, { onReady in makeApplication(onReady: onReady) }, body)
            await Task { await leases.releaseAll() }.value
            return result
        } catch {
            await Task { await leases.releaseAll() }.value
            throw error
        }
    }

    private func makeApplication(onReady: @escaping @Sendable (PlaybackServerHandle) async -> Void) -> some Service {
        let host = self.host
        let token = self.token
        let shownName = names.first ?? (Self.isUnspecified(host) ? "127.0.0.1" : host)
        let accepted = names + (Self.isUnspecified(host) ? [] : [host])
        let responder = PlaybackResponder(server: self, hosts: .init())
        let scheme = tls == nil ? "http" : "https"
        return Application(
            responder: responder,
            server: .http1Guarded(limits, tls: tls),
            configuration: .init(address: .hostname(host, port: port), serverName: "carryon"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let shown = shownName.contains(":") ? "[\(shownName)]" : shownName
                responder.hosts.set(port: port, names: accepted)
                await onReady(PlaybackServerHandle(baseURL: "\(scheme)://\(shown):\(port)/\(token)", port: port))
            },
            logger: logger
        )
    }
}

/// A running playback server.
public struct PlaybackServerHandle: Sendable {
    /// `http://127.0.0.1:<port>/<token>` (the first of ``PlaybackServer/names``, or the address
    /// listened on, in place of `127.0.0.1`): every URL of the server starts with it.
    public let baseURL: String
    /// The port the server listens on: the one the operating system picked when
    /// ``PlaybackServer/port`` was 0.
    public let port: Int

    /// The URL a player opens to play an asset.
    public func playlistURL(for assetID: String) -> String {
        url(of: .main, for: assetID)
    }

    /// The URL of a DASH asset's local MPD (`main.mpd`), for DASH players; its
    /// ``playlistURL(for:)`` plays the same files in HLS players.
    public func mpdURL(for assetID: String) -> String {
        url(of: .mpd, for: assetID)
    }

    /// The URL of an asset's local manifest `manifest` (see `LocalManifest.manifests(ofFormat:)` in Carryon).
    public func url(of manifest: LocalManifest, for assetID: String) -> String {
        "\(baseURL)/\(assetID)/\(manifest.path)"
    }
}

/// A request the playback server answered, for the access and error logs.
public struct PlaybackRequest: Sendable {
    /// When the request arrived.
    public var date: Date
    /// The asset the path names; nil when the request named none, or was refused before its asset
    /// was read (a wrong `Host` or token, a method other than `GET` or `HEAD`).
    public var assetID: String?
    /// The playback session the request belongs to, if it carried one.
    public var sessionID: String?
    /// The path inside the bundle.
    public var path: String
    /// The HTTP method, e.g. `GET` or `HEAD`.
    public var method: String
    /// The `Range` header as sent; nil when the request had none.
    public var range: String?
    /// The HTTP status code answered.
    public var status: Int
    /// Body bytes sent.
    public var bytes: Int
    /// Seconds from the request's arrival to its response being ready.
    public var duration: Double
    /// Why the request failed, for an error status.
    public var error: String?
    /// The error's code (`CarryonError.Code`), or `http` for a refusal.
    public var errorCode: String?
}

/// A playback server that cannot start as asked.
public struct PlaybackServerError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
