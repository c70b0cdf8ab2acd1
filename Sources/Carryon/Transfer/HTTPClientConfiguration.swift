import AsyncHTTPClient
import NIOCore
import NIOHTTP2

extension HTTPClient.Configuration {
    /// Buffers an HTTP/1.1 connection reads each time its socket is readable
    /// (`ChannelOptions.maxMessagesPerRead`; NIO's default is 4).
    static let readsPerEvent: UInt = 1

    /// The most an HTTP/1.1 connection reads at once: the maximum of its
    /// `AdaptiveRecvByteBufferAllocator` (NIO's default is 64 KiB). Each chunk is written to
    /// disk as it is read (see ``ResponseWriter``), so larger reads are fewer reads and writes
    /// for the same bytes: about 5 % less CPU and wall time than 64 KiB against nginx on
    /// loopback, for under 1 MiB more peak memory. The buffer grows only while reads fill it,
    /// on a fast link.
    static let largestRead = 128 << 10

    /// How every HTTP client of Carryon's is set up — a session's and the one `inspect` shares:
    ///
    /// - no redirect followed by the client: ``PlaylistFetcher`` and ``ResourceFetcher`` follow
    ///   them (``RedirectChain``), so that each location is checked before it is requested;
    /// - a refused or failed connection fails the request, for ``RetryPolicy`` to back off from
    ///   and report: left to the client, it retried silently until each request's timeout
    ///   (about 100 s before a download to a closed port said anything);
    /// - no decompression by the client: ``PlaylistFetcher`` decodes gzip playlists itself,
    ///   counting its size limit after decoding, and media is stored as it was sent;
    /// - `connectionsPerHost` connections to one host at once;
    /// - each HTTP/2 stream's body parts gathered per read of the connection (``BodyCoalescer``);
    /// - each HTTP/1.1 connection reads one buffer (up to ``largestRead``) each time its socket is
    ///   readable, not NIO's default of four: a body arrives faster than it is written to disk,
    ///   so every connection's socket was always readable, and each held four buffers for a
    ///   writer that takes one at a time. At 32 connections that was 5-8 MiB of a download's
    ///   peak memory (Benchmarks/README.md); the connections still share the event loops fairly.
    ///
    /// With `refusingPrivateAddresses` (a daemon serving a network, on its direct client), each
    /// connection is closed before a request is sent on it when the address it reached is this
    /// machine's or its link's (``PrivateAddressError``): the name may have resolved elsewhere
    /// when its location was checked (DNS rebinding).
    static func carryon(connectionsPerHost: Int = 8, refusingPrivateAddresses: Bool = false) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerHost)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.decompression = .disabled
        configuration.http1_1ConnectionDebugInitializer = { channel in
            checkPeer(of: channel, refusingPrivateAddresses).flatMap {
                channel.setOption(ChannelOptions.maxMessagesPerRead, value: readsPerEvent)
            }.flatMap {
                channel.setOption(ChannelOptions.recvAllocator,
                                  value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: largestRead))
            }
        }
        if refusingPrivateAddresses {
            configuration.http2ConnectionDebugInitializer = { channel in checkPeer(of: channel, true) }
        }
        // Each HTTP/2 stream's DATA frames gathered per read (see BodyCoalescer), right after
        // the codec that turns them into response parts.
        configuration.http2StreamChannelDebugInitializer = { channel in
            channel.eventLoop.makeCompletedFuture {
                let codec = try channel.pipeline.syncOperations.handler(type: HTTP2FramePayloadToHTTP1ClientCodec.self)
                try channel.pipeline.syncOperations.addHandler(BodyCoalescer(), position: .after(codec))
            }
        }
        return configuration
    }

    /// Succeeds unless `refusing` and the address `channel` is connected to is private (or
    /// cannot be told); then fails with ``PrivateAddressError`` and closes the connection, no
    /// request sent. The client only gives the connection up; left open, a service that never
    /// hangs up would hold a descriptor for each refusal. It is closed once the client has
    /// taken the failure (a turn of the loop later), so the pool has forgotten it by then.
    private static func checkPeer(of channel: any Channel, _ refusing: Bool) -> EventLoopFuture<Void> {
        guard refusing else { return channel.eventLoop.makeSucceededVoidFuture() }
        guard let reason = PrivateHosts.reason(forPeer: channel.remoteAddress) else { return channel.eventLoop.makeSucceededVoidFuture() }
        channel.eventLoop.execute { channel.close(promise: nil) }
        return channel.eventLoop.makeFailedFuture(PrivateAddressError(reason: reason))
    }
}

/// A connection that reached an address of this machine or its link, where a daemon serving a
/// network fetches nothing: closed before any request was sent on it. The location's host had
/// resolved to a public address when it was checked (see ``LocationRule``), and to this one
/// when the client connected.
struct PrivateAddressError: Error, CustomStringConvertible {
    /// The address and what it is.
    var reason: String

    var description: String {
        "the connection reached \(reason), which a daemon serving a network or a fleet's worker does not fetch (the name resolved to another address when it was checked; --allow-private-origins allows it); nothing was requested from it"
    }
}
