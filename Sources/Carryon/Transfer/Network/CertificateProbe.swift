import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// Why an origin's certificate did not verify, found by a handshake of its own: NIOSSL reports
/// an untrusted, an expired and a not-yet-valid certificate alike (BoringSSL's
/// `CERTIFICATE_VERIFY_FAILED`), so the probe connects again (through the same proxy, if the
/// request went through one), records the chain the server presents without judging it, and
/// reads the leaf's dates and names and the issuer.
struct CertificateProbe {
    /// What the probe found.
    enum Finding: Equatable {
        case expired(notAfter: Date)
        case notYetValid(notBefore: Date)
        case otherName(names: [String])
        case untrusted(issuer: String)
    }

    let tls: TLSConfiguration
    /// Whether a connection made without a proxy to an address of this machine or its link is
    /// given up before the handshake (``NetworkSettings/refusesPrivateAddresses``): the probe
    /// resolves the name again, and must not tell a daemon's caller what answers there.
    var refusesPrivateAddresses = false

    /// Why `host`:`port`'s certificate did not verify, or nil when the probe could not tell
    /// (the server no longer answers, it presented no certificate, the proxy refused the
    /// tunnel). Through `proxy` when the request that failed went through it.
    func diagnose(host: String, port: Int, through proxy: ProxyAddress? = nil, now: Date = Date()) async -> Finding? {
        guard let chain = try? await chain(host: host, port: port, proxy: proxy), let leaf = chain.first else { return nil }
        let notAfter = Date(timeIntervalSince1970: TimeInterval(leaf.notValidAfter))
        let notBefore = Date(timeIntervalSince1970: TimeInterval(leaf.notValidBefore))
        if now > notAfter { return .expired(notAfter: notAfter) }
        if now < notBefore { return .notYetValid(notBefore: notBefore) }
        let names = Self.names(of: leaf)
        if !names.contains(where: { Self.name($0, matches: host) }) { return .otherName(names: names) }
        let issuer = (chain.last ?? leaf).issuerName.first { $0.type == .commonName }?.value
            ?? (chain.last ?? leaf).issuerName.map(\.value).joined(separator: ", ")
        return .untrusted(issuer: issuer)
    }

    /// The DNS names and IP addresses a certificate is for (its subject alternative names, or
    /// its common name when it has none).
    static func names(of certificate: NIOSSLCertificate) -> [String] {
        let alternatives: [String] = certificate._subjectAlternativeNames().compactMap { name in
            switch name.nameType {
            case .dnsName:
                return String(decoding: name.contents, as: UTF8.self)
            case .ipAddress:
                let bytes = Array(name.contents)
                var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                let family = bytes.count == 4 ? AF_INET : AF_INET6
                guard bytes.count == 4 || bytes.count == 16, inet_ntop(family, bytes, &text, socklen_t(text.count)) != nil else { return nil }
                return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            default:
                return nil
            }
        }
        if !alternatives.isEmpty { return alternatives }
        return certificate.subjectName.filter { $0.type == .commonName }.map(\.value)
    }

    /// Whether certificate name `name` (`*.example.com` matching one label) covers `host`.
    static func name(_ name: String, matches host: String) -> Bool {
        let name = name.lowercased()
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if name == host { return true }
        if let address = NoProxy.address(host) { return NoProxy.address(name) == address }
        guard name.hasPrefix("*."), let dot = host.firstIndex(of: ".") else { return false }
        return host[dot...] == name.dropFirst()
    }

    /// The chain `host`:`port` presents, leaf first, accepted without judgement; through
    /// `proxy`'s tunnel when given.
    private func chain(host: String, port: Int, proxy: ProxyAddress?) async throws -> [NIOSSLCertificate] {
        var tls = tls
        // The callback runs only when verification is on; it then replaces it.
        tls.certificateVerification = .noHostnameVerification
        let context = try NIOSSLContext(configuration: tls)
        let presented = Locked<[NIOSSLCertificate]>([])
        let group = MultiThreadedEventLoopGroup.singleton
        let loop = group.next()
        let opened = loop.makePromise(of: Void.self)
        let done = loop.makePromise(of: Void.self)
        let serverName = NoProxy.address(host) == nil ? host : nil
        let origin = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: loop)
                .connectTimeout(.seconds(10))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let proxy {
                            try ProxyTunnel.install(on: channel, proxy: proxy, host: origin, port: port, opened: opened)
                        } else {
                            opened.succeed(())
                        }
                    }
                }
                .connect(host: proxy?.host ?? origin, port: proxy?.port ?? port).get()
        } catch {
            opened.fail(error)
            done.fail(error)
            throw error
        }
        defer { channel.close(promise: nil) }
        if refusesPrivateAddresses, proxy == nil {
            if let reason = PrivateHosts.reason(forPeer: channel.remoteAddress) {
                // Every promise ends (NIO traps a leaked one in debug builds): the probe finds
                // nothing, and the request's own failure says why.
                let error = PrivateAddressError(reason: reason)
                done.fail(error)
                throw error
            }
        }
        // However the proxy or the server behaves, the probe ends: a message waits on it.
        let deadline = loop.scheduleTask(in: .seconds(15)) {
            opened.fail(ChannelError.connectTimeout(.seconds(15)))
            done.fail(ChannelError.connectTimeout(.seconds(15)))
        }
        defer { deadline.cancel() }
        do {
            try await opened.futureResult.get()
        } catch {
            done.fail(error)
            throw error
        }
        // TLS starts once the tunnel is open (at once without a proxy). A server that closed the
        // connection by now fails the handlers' adding, and `done` with it.
        do {
            try await loop.submit {
                let handler = try NIOSSLClientHandler(context: context, serverHostname: serverName) { certificates, promise in
                    presented.withLock { $0 = certificates }
                    promise.succeed(.certificateVerified)
                }
                try channel.pipeline.syncOperations.addHandler(handler)
                try channel.pipeline.syncOperations.addHandler(HandshakeWaiter(done: done))
            }.get()
        } catch {
            done.fail(error)
            throw error
        }
        try await done.futureResult.get()
        return presented.withLock { $0 }
    }

    /// Completes `done` when the handshake completes or fails.
    private final class HandshakeWaiter: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        let done: EventLoopPromise<Void>

        init(done: EventLoopPromise<Void>) { self.done = done }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case TLSUserEvent.handshakeCompleted = event { done.succeed(()) }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            done.fail(error)
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            done.fail(ChannelError.eof)
            context.fireChannelInactive()
        }
    }
}
