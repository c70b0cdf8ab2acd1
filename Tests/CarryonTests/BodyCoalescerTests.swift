@testable import Carryon
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

/// HTTP/2 DATA frames gathered per read of the connection, in order, nothing held past the read.
@Suite("Body parts gathered per read")
struct BodyCoalescerTests {
    static func part(_ byte: UInt8, _ count: Int) -> HTTPClientResponsePart {
        .body(ByteBuffer(repeating: byte, count: count))
    }

    /// One part read, the read not yet complete (`writeInbound` completes it each time).
    static func read(_ part: HTTPClientResponsePart, _ channel: EmbeddedChannel) {
        channel.pipeline.fireChannelRead(NIOAny(part))
    }

    static func drain(_ channel: EmbeddedChannel) throws -> [HTTPClientResponsePart] {
        var parts: [HTTPClientResponsePart] = []
        while let part = try channel.readInbound(as: HTTPClientResponsePart.self) { parts.append(part) }
        return parts
    }

    static func bodySizes(_ parts: [HTTPClientResponsePart]) -> [Int] {
        parts.compactMap { if case .body(let buffer) = $0 { buffer.readableBytes } else { nil } }
    }

    @Test("small parts become one at the end of the read, the head and the end pass in order, a large part passes as it is, and no part is held past the read")
    func gathers() throws {
        let channel = EmbeddedChannel(handler: BodyCoalescer())
        Self.read(.head(HTTPResponseHead(version: .http1_1, status: .ok)), channel)
        for index in 0..<5 { Self.read(Self.part(UInt8(index), 8 << 10), channel) }
        var parts = try Self.drain(channel)
        #expect(parts.count == 1, "only the head before the read ends: \(parts)")
        channel.pipeline.fireChannelReadComplete()
        parts = try Self.drain(channel)
        #expect(Self.bodySizes(parts) == [40 << 10])
        if case .body(let buffer)? = parts.first {
            #expect(Array(buffer.readableBytesView.prefix(1)) == [0] && Array(buffer.readableBytesView.suffix(1)) == [4], "the bytes in order")
        }
        // Past the largest, passed at once.
        for _ in 0..<20 { Self.read(Self.part(9, 8 << 10), channel) }
        Self.read(Self.part(7, BodyCoalescer.largest), channel)
        Self.read(Self.part(8, 100), channel)
        Self.read(.end(nil), channel)
        parts = try Self.drain(channel)
        // 16 parts make 128 KiB, passed; 4 stay (32 KiB), passed before the large one, which does
        // not fit beside them and passes as it is; 100 bytes wait for the end.
        #expect(Self.bodySizes(parts) == [128 << 10, 32 << 10, BodyCoalescer.largest, 100], "\(Self.bodySizes(parts))")
        if case .end? = parts.last {} else { Issue.record("the end comes last: \(parts)") }
        // A part that does not fit beside what is gathered sends that first: no buffer grows
        // past the largest (growing doubled it and copied every byte).
        for _ in 0..<15 { Self.read(Self.part(5, 8 << 10), channel) }
        Self.read(Self.part(4, 12 << 10), channel)
        channel.pipeline.fireChannelReadComplete()
        parts = try Self.drain(channel)
        #expect(Self.bodySizes(parts) == [120 << 10, 12 << 10])
        for case .body(let buffer) in parts { #expect(buffer.capacity <= BodyCoalescer.largest, "capacity \(buffer.capacity)") }
        // Nothing gathered, a part as large as the most passes at once, before the read ends.
        Self.read(Self.part(6, BodyCoalescer.largest), channel)
        #expect(Self.bodySizes(try Self.drain(channel)) == [BodyCoalescer.largest])
        #expect(try channel.finish().isClean)
    }
}
