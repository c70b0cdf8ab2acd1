import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Holds one connection to its ``ConnectionLimits``, and refuses a request head with two `Host`
/// lines (RFC 9112 §3.2: `400`). It sits right after the HTTP/1 decoder, where a head arrives
/// whole with its header lines as sent, and sees each answer on its way out; ``FirstByteWatch``,
/// in front of the decoder, tells it when a later request's first byte arrives.
///
/// Everything runs on the connection's event loop.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// What the connection is waiting for.
    private enum Phase {
        /// The head of a request: the first (since `since`, the accept), or a later one (idle
        /// since `since`, its first byte at `firstByte`).
        case head(first: Bool, since: NIODeadline, firstByte: NIODeadline?)
        /// The body of the request whose head came at `since`, `bytes` of it so far.
        case body(since: NIODeadline, bytes: Int)
        /// The answer: nothing is timed out.
        case answer
    }

    private let limits: ConnectionLimits
    private let open: OpenConnections
    private var phase = Phase.head(first: true, since: .now(), firstByte: nil)
    /// Requests whose head came in and whose answer has not ended.
    private var requestsOpen = 0
    /// An answer's head went out and its end has not.
    private var answering = false
    private var counted = false
    /// The connection was refused or timed out: what else arrives is dropped.
    private var ended = false
    private var timer: Scheduled<Void>?
    private var context: ChannelHandlerContext?
    /// The next check that an answer's client takes what is sent (see ``checkSending()``).
    private var sendCheck: Scheduled<Void>?
    /// The bytes waiting to go out at the last check, and when they last moved.
    private var pending = 0
    private var pendingMoved = NIODeadline.now()

    init(limits: ConnectionLimits, open: OpenConnections) {
        self.limits = limits
        self.open = open
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { activate(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        sendCheck?.cancel()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        activate(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        sendCheck?.cancel()
        if counted {
            counted = false
            open.leave()
        }
        context.fireChannelInactive()
    }

    /// Counts the connection, or refuses it when the server has its most; starts the head's clock.
    private func activate(_ context: ChannelHandlerContext) {
        guard !counted, !ended else { return }
        guard open.enter(maximum: limits.maximumConnections) else {
            refuse(context, .serviceUnavailable, "the server has its most connections open (\(limits.maximumConnections)); try again shortly",
                   extra: [("Retry-After", "1")])
            return
        }
        counted = true
        let now = NIODeadline.now()
        phase = .head(first: true, since: now, firstByte: nil)
        arm(context, at: now + .init(limits.headTimeout))
    }

    /// A later request's first byte arrived: its head has ``ConnectionLimits/headTimeout`` from now.
    func firstByteArrived() {
        guard let context, case .head(first: false, let since, .none) = phase, requestsOpen == 0 else { return }
        let now = NIODeadline.now()
        phase = .head(first: false, since: since, firstByte: now)
        arm(context, at: now + .init(limits.headTimeout))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !ended else { return }
        let part = unwrapInboundIn(data)
        switch part {
        case .head(let head):
            if head.headers["host"].count > 1 {
                refuse(context, .badRequest, "the request has \(head.headers["host"].count) Host header lines; HTTP/1.1 allows one")
                return
            }
            requestsOpen += 1
            let now = NIODeadline.now()
            phase = .body(since: now, bytes: 0)
            arm(context, at: bodyDeadline(since: now, bytes: 0))
        case .body(let buffer):
            if case .body(let since, let bytes) = phase {
                phase = .body(since: since, bytes: bytes + buffer.readableBytes)
                arm(context, at: bodyDeadline(since: since, bytes: bytes + buffer.readableBytes))
            }
        case .end:
            phase = .answer
            timer?.cancel()
            timer = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head:
            answering = true
            watchSending(context)
        case .body: break
        case .end:
            answering = false
            requestsOpen = max(0, requestsOpen - 1)
            if requestsOpen == 0, case .answer = phase {
                let now = NIODeadline.now()
                phase = .head(first: false, since: now, firstByte: nil)
                arm(context, at: now + .init(limits.idleTimeout))
            }
        }
        context.write(data, promise: promise)
    }

    /// When a body that began at `since` and has `bytes` so far is too slow: the grace, then a
    /// second for each ``ConnectionLimits/minimumBodyRate`` bytes.
    private func bodyDeadline(since: NIODeadline, bytes: Int) -> NIODeadline {
        let rate = max(1, limits.minimumBodyRate)
        return since + .init(limits.headTimeout) + .nanoseconds(Int64(min(Double(bytes) / Double(rate), 1e9) * 1e9))
    }

    private func arm(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        timer?.cancel()
        timer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(deadline: deadline) { [weak self] in
            self?.expire()
        }
    }

    /// Starts checking, every quarter of ``ConnectionLimits/sendTimeout``, that the client takes
    /// what is sent, unless the checks run already.
    private func watchSending(_ context: ChannelHandlerContext) {
        guard sendCheck == nil, !ended else { return }
        pending = 0
        pendingMoved = .now()
        scheduleSendCheck(context)
    }

    private func scheduleSendCheck(_ context: ChannelHandlerContext) {
        let interval = max(limits.sendTimeout / 4, .milliseconds(10))
        sendCheck = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: .init(interval)) { [weak self] in
            self?.checkSending()
        }
    }

    /// Closes the connection when the bytes waiting to go out (NIO's, past what the kernel took)
    /// have not moved for ``ConnectionLimits/sendTimeout``: the client takes nothing. The checks
    /// go on while an answer is written and until nothing waits; then the idle limit applies.
    private func checkSending() {
        sendCheck = nil
        guard let context, !ended else { return }
        let now = NIODeadline.now()
        let waiting = (try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
        if waiting == 0 || waiting != pending {
            pending = waiting
            pendingMoved = now
        } else if now - pendingMoved >= .init(limits.sendTimeout) {
            ended = true
            timer?.cancel()
            timer = nil
            context.close(promise: nil)
            return
        }
        guard answering || waiting > 0 else { return }
        scheduleSendCheck(context)
    }

    /// The deadline passed: a head or body too slow gets 408, an idle connection is closed.
    private func expire() {
        timer = nil
        guard let context, !ended else { return }
        let seconds = limits.headTimeout.components.seconds
        switch phase {
        case .head(let first, _, let firstByte):
            if first || firstByte != nil {
                refuse(context, .requestTimeout, "the request's head did not arrive within \(seconds) s")
            } else {
                ended = true
                context.close(promise: nil)
            }
        case .body(_, let bytes):
            // Answered already (405 before the body was read): no second answer.
            guard requestsOpen > 0 else {
                ended = true
                context.close(promise: nil)
                return
            }
            refuse(context, .requestTimeout,
                   "the request's body arrived slower than \(max(1, limits.minimumBodyRate)) bytes a second (\(bytes) bytes in all)")
        case .answer:
            break
        }
    }

    /// Answers `status` with `message` (unless an answer is already under way), then closes.
    private func refuse(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ message: String, extra: [(String, String)] = []) {
        ended = true
        timer?.cancel()
        timer = nil
        guard !answering else {
            context.close(promise: nil)
            return
        }
        let body = context.channel.allocator.buffer(string: message + "\n")
        var headers = HTTPHeaders([("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", String(body.readableBytes)),
                                   ("Connection", "close"), ("X-Content-Type-Options", "nosniff"), ("Cache-Control", "no-store")])
        headers.add(contentsOf: extra)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}

/// In front of the HTTP/1 decoder: tells the ``ConnectionGuard`` when bytes arrive, so that a
/// later request's head is timed from its first byte.
final class FirstByteWatch: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let connectionGuard: ConnectionGuard

    init(_ connectionGuard: ConnectionGuard) {
        self.connectionGuard = connectionGuard
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        connectionGuard.firstByteArrived()
        context.fireChannelRead(data)
    }
}
