import NIOCore
import NIOHTTP1

/// Gathers the body parts one read of a connection brings into one, before AsyncHTTPClient
/// hands them to ``ResponseWriter``: a part is passed on when ``largest`` bytes are gathered
/// (or the next part would not fit),
/// when the read ends (`channelReadComplete`), or before the response's end, so nothing waits
/// for more than the turn of the event loop that brought it.
///
/// Over HTTP/2 a body arrives in DATA frames of 8-16 KiB (nginx sends 8 KiB): each went through
/// the client's request state machine, a delegate call, a `pwrite(2)` and a progress report.
/// Measured on the 20-minute benchmark asset from nginx over HTTPS and HTTP/2 (`perf record`),
/// that per-frame path was most of Carryon's CPU beyond curl's. Installed on each HTTP/2 stream
/// (``HTTPClient/Configuration/carryon(connectionsPerHost:)``).
final class BodyCoalescer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart

    /// The most bytes gathered into one part.
    static let largest = 128 << 10

    private var gathered: ByteBuffer?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .body(var part):
            // Never grown: a part that does not fit sends what is gathered first. (Growing
            // doubled the buffer, 256 KiB, and copied it: more memory and a copy of every byte.)
            if let full = gathered, full.writableBytes < part.readableBytes {
                gathered = nil
                context.fireChannelRead(wrapInboundOut(.body(full)))
            }
            if gathered == nil, part.readableBytes >= Self.largest {
                context.fireChannelRead(data)
                return
            }
            // Taken out while written to: a second reference would make each write copy it whole.
            var buffer = gathered ?? context.channel.allocator.buffer(capacity: Self.largest)
            gathered = nil
            buffer.writeBuffer(&part)
            if buffer.writableBytes == 0 {
                context.fireChannelRead(wrapInboundOut(.body(buffer)))
            } else {
                gathered = buffer
            }
        case .head, .end:
            pass(context)
            context.fireChannelRead(data)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        pass(context)
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        pass(context)
        context.fireChannelInactive()
    }

    /// Passes on what is gathered.
    private func pass(_ context: ChannelHandlerContext) {
        guard let pending = gathered else { return }
        gathered = nil
        context.fireChannelRead(wrapInboundOut(.body(pending)))
    }
}
