import Foundation
import NIOCore
import NIOSOCKS

/// A tunnel to an origin through a proxy, opened as AsyncHTTPClient opens its own: HTTP
/// `CONNECT` (with basic authentication when the proxy URL carries it) or SOCKS5 (NIOSOCKS's
/// handler, AsyncHTTPClient's too). What ``CertificateProbe`` reads a certificate through when
/// the request that failed went through a proxy: the origin may be reachable only that way,
/// and the proxy is what the user is behind.
enum ProxyTunnel {
    /// Why the tunnel did not open.
    struct Refused: Error, CustomStringConvertible {
        var description: String
    }

    /// Adds to `channel` (connected to `proxy`, not yet active) what opens a tunnel to
    /// `host`:`port`; `opened` completes once bytes written next reach the origin.
    static func install(on channel: any Channel, proxy: ProxyAddress, host: String, port: Int,
                        opened: EventLoopPromise<Void>) throws {
        switch proxy.kind {
        case .http:
            try channel.pipeline.syncOperations.addHandler(HTTPConnect(proxy: proxy, host: host, port: port, opened: opened))
        case .socks5:
            let target: SOCKSAddress
            if let bytes = NoProxy.address(host), bytes.count == 4 || bytes.count == 16 {
                target = .address(try SocketAddress(ipAddress: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port))
            } else {
                target = .domain(host, port: port)
            }
            let socks = SOCKSClientHandler(targetAddress: target)
            try channel.pipeline.syncOperations.addHandler(socks)
            try channel.pipeline.syncOperations.addHandler(SOCKSWaiter(socks: socks, opened: opened))
        }
    }

    /// `CONNECT host:port` and the proxy's answer: a 2xx opens the tunnel, anything else is
    /// refused with its status line.
    private final class HTTPConnect: TunnelOpening, RemovableChannelHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        let proxy: ProxyAddress
        let authority: String
        let opened: EventLoopPromise<Void>
        private var head: [UInt8] = []

        init(proxy: ProxyAddress, host: String, port: Int, opened: EventLoopPromise<Void>) {
            self.proxy = proxy
            let name = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            authority = "\(name):\(port)"
            self.opened = opened
        }

        func channelActive(context: ChannelHandlerContext) {
            var request = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n"
            if let user = proxy.user {
                let credentials = Data("\(user):\(proxy.password ?? "")".utf8).base64EncodedString()
                request += "Proxy-Authorization: Basic \(credentials)\r\n"
            }
            request += "\r\n"
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: request)), promise: nil)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            head += buffer.readBytes(length: buffer.readableBytes) ?? []
            guard let end = head.indices.dropLast(3).first(where: { head[$0...].starts(with: [13, 10, 13, 10]) }) else {
                if head.count > 16 << 10 { fail(context, "the proxy's answer to CONNECT has no end") }
                return
            }
            let statusLine = String(decoding: head[..<end], as: UTF8.self).split(separator: "\r\n").first.map(String.init) ?? ""
            let parts = statusLine.split(separator: " ")
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]), (200..<300).contains(status) else {
                fail(context, "the proxy answered CONNECT with \(statusLine)")
                return
            }
            // Nothing may follow the head: the origin speaks only once TLS starts.
            context.pipeline.syncOperations.removeHandler(self, promise: nil)
            opened.succeed(())
        }

        private func fail(_ context: ChannelHandlerContext, _ reason: String) {
            opened.fail(Refused(description: reason))
            context.close(promise: nil)
        }
    }

    /// Completes `opened` when NIOSOCKS reports the tunnel open, then takes both handlers away.
    private final class SOCKSWaiter: TunnelOpening, RemovableChannelHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer

        let socks: SOCKSClientHandler
        let opened: EventLoopPromise<Void>

        init(socks: SOCKSClientHandler, opened: EventLoopPromise<Void>) {
            self.socks = socks
            self.opened = opened
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            guard event is SOCKSProxyEstablishedEvent else {
                context.fireUserInboundEventTriggered(event)
                return
            }
            context.pipeline.syncOperations.removeHandler(socks, promise: nil)
            context.pipeline.syncOperations.removeHandler(self, promise: nil)
            opened.succeed(())
        }
    }
}

/// A handler that opens a tunnel: a connection that fails or closes before it opens fails it.
private protocol TunnelOpening: ChannelInboundHandler {
    var opened: EventLoopPromise<Void> { get }
}

extension TunnelOpening {
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        opened.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        opened.fail(ChannelError.eof)
        context.fireChannelInactive()
    }
}
