import NIOCore
import NIOHTTP1

/// Sends a file as nginx does, with `sendfile(2)`: no copy through user space and no read of
/// the file into buffers. A responder that answers with a bundle file names it — its path and
/// the bytes of it — in the ``header`` of a response head with no body (see
/// ``FileResponder``); this handler, between NIO's HTTP/1 encoder and Hummingbird's codec,
/// takes the header off and writes the file as a `FileRegion` before the response's end.
///
/// Only on plain HTTP/1.1 connections: a TLS connection encrypts in user space, and its
/// responder sends the bytes itself. The file is opened when its body is due (a file deleted
/// between the lookup and then closes the connection, the length having been promised) and
/// closed once written.
final class FileRegionWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The response header a responder names the file in: `OFFSET COUNT PATH`.
    static let header = "carryon-sendfile"

    /// The value of ``header`` for bytes `offset..<offset + count` of the file at `path`.
    static func value(path: String, offset: Int, count: Int) -> String {
        "\(offset) \(count) \(path)"
    }

    private struct File {
        var path: String
        var offset: Int
        var count: Int
    }

    /// The file the response being written sends, between its head and its end.
    private var file: File?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head):
            guard let value = head.headers.first(name: Self.header) else { return context.write(data, promise: promise) }
            head.headers.remove(name: Self.header)
            file = Self.parse(value)
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .body:
            // A response that sends a file has no body of its own.
            if file == nil { context.write(data, promise: promise) } else { promise?.succeed(()) }
        case .end:
            guard let file else { return context.write(data, promise: promise) }
            self.file = nil
            guard file.count > 0 else { return context.write(data, promise: promise) }
            let handle: NIOFileHandle
            do {
                handle = try NIOFileHandle(_deprecatedPath: file.path)
            } catch {
                // The length was promised in the head: the connection cannot go on.
                promise?.fail(error)
                context.close(promise: nil)
                return
            }
            let region = FileRegion(fileHandle: handle, readerIndex: file.offset, endIndex: file.offset + file.count)
            context.write(wrapOutboundOut(.body(.fileRegion(region)))).whenComplete { _ in try? handle.close() }
            context.write(data, promise: promise)
        }
    }

    private static func parse(_ value: String) -> File? {
        let parts = value.split(separator: " ", maxSplits: 2)
        guard parts.count == 3, let offset = Int(parts[0]), let count = Int(parts[1]), offset >= 0, count >= 0 else { return nil }
        return File(path: String(parts[2]), offset: offset, count: count)
    }
}
