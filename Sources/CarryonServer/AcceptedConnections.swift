import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL

extension HTTPServerBuilder {
    /// HTTP/1.1 as Hummingbird serves it, except that a connection accepted while the server
    /// stops is closed rather than crashing the process.
    ///
    /// Hummingbird hands each accepted connection from the event loop to its accept loop through
    /// an asynchronous sequence. When the task running the server is cancelled — a stop that
    /// outlasts the grace period, a test's time limit, the end of `withRunning` — connections
    /// accepted but not yet taken from that sequence are dropped, and a dropped
    /// `NIOAsyncChannel` traps: `NIOAsyncWriter.swift:177: Fatal error: Deinited NIOAsyncWriter
    /// without calling finish()`, on an event loop thread, in `NIOAsyncChannelHandler.channelActive`
    /// (swift-nio#2813; Vapor and the AWS Lambda runtime met the same). It took down the test
    /// process when a time limit cancelled servers that players kept connecting to, and could take
    /// down `carryon serve` when SIGTERM met a burst of connections. Here each connection is
    /// wrapped, and a wrapper dropped before it was served closes its connection in order.
    package static var http1ClosingDropped: HTTPServerBuilder {
        HTTPServerBuilder { responder in
            ClosingDroppedConnections(http1: HTTP1Channel(responder: responder), limits: nil)
        }
    }

    /// ``http1ClosingDropped``, each connection held to `limits` (``ConnectionLimits``) and a
    /// head with two `Host` lines refused with 400: what ``PlaybackServer`` and ``Origin`` serve.
    package static func http1Guarded(_ limits: ConnectionLimits, tls: TLSIdentity? = nil) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            ClosingDroppedConnections(http1: HTTP1Channel(responder: responder), limits: limits, tls: tls)
        }
    }
}

/// Hummingbird's ``HTTP1Channel``, each connection wrapped in an ``AcceptedConnection`` and,
/// with `limits`, guarded by a ``ConnectionGuard``; a plain HTTP connection sends the files
/// responders name with `sendfile(2)` (``FileRegionWriter``).
struct ClosingDroppedConnections: ServerChildChannel {
    let http1: HTTP1Channel
    let limits: ConnectionLimits?
    /// TLS for every connection, with the identity current when it is accepted; nil: plain HTTP.
    var tls: TLSIdentity? = nil
    /// The server's open connections, counted against the limit.
    let open = OpenConnections()

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<AcceptedConnection> {
        let limits = self.limits
        let open = self.open
        if let tls {
            do {
                try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls.context))
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
        let plain = tls == nil
        return http1.setup(channel: channel, logger: logger).flatMapThrowing { connection in
            let pipeline = channel.pipeline.syncOperations
            if plain {
                // Below Hummingbird's codec, where a body may be a file region.
                let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
                try pipeline.addHandler(FileRegionWriter(), position: .after(decoder))
            }
            if let limits {
                // Right after the decoder: heads arrive whole, with their header lines as sent.
                let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
                let connectionGuard = ConnectionGuard(limits: limits, open: open)
                try pipeline.addHandler(connectionGuard, position: .after(decoder))
                try pipeline.addHandler(FirstByteWatch(connectionGuard), position: .first)
            }
            return AcceptedConnection(connection)
        }
    }

    func handle(value: AcceptedConnection, logger: Logger) async {
        await http1.handle(value: value.take(), logger: logger)
    }
}

/// A connection the server accepted, until its accept loop takes it. Dropped untaken, it closes
/// the connection through `executeThenClose` (which finishes the channel's writer) instead of
/// letting the writer trap.
final class AcceptedConnection: ServerChildChannelValue, @unchecked Sendable {
    let channel: any Channel
    private let connection: HTTP1Channel.Value
    private let lock = NSLock()
    private var taken = false

    init(_ connection: HTTP1Channel.Value) {
        self.connection = connection
        channel = connection.channel
    }

    /// The connection, for the accept loop to serve.
    func take() -> HTTP1Channel.Value {
        lock.withLock { taken = true }
        return connection
    }

    deinit {
        guard !lock.withLock({ taken }) else { return }
        let connection = self.connection
        Task { try? await connection.executeThenClose { _, _ in } }
    }
}
