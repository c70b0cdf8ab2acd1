@testable import Carryon
import CarryonTestSupport
import Foundation
import NIOCore
import NIOEmbedded
import Testing

/// The pieces `verify` stands on: the structure a player reads, checked as bytes stream past
/// in chunks of any size, and the digest of a partial file kept across resumed fetches.
@Suite("Integrity checks")
struct IntegrityCheckTests {
    /// `bytes` checked as `container`, fed in chunks of `chunk` bytes.
    static func check(_ bytes: [UInt8], as container: StructureCheck.Container, chunk: Int) -> String? {
        var check = StructureCheck(container)
        var start = 0
        while start < bytes.count {
            let end = min(start + chunk, bytes.count)
            bytes[start..<end].withUnsafeBytes { check.consume($0) }
            start = end
        }
        return check.finish()
    }

    static func box(_ type: String, _ payload: Int) -> [UInt8] {
        let size = UInt32(8 + payload)
        return withUnsafeBytes(of: size.bigEndian, Array.init) + Array(type.utf8) + Array(repeating: 0, count: payload)
    }

    @Test("MP4: boxes that add up pass; a box past the end, a header too small, bytes that are no box are named", arguments: [1, 3, 7, 64, 4096])
    func boxes(chunk: Int) {
        let whole = Self.box("styp", 16) + Self.box("moof", 100) + Self.box("mdat", 1000)
        #expect(Self.check(whole, as: .isoMedia, chunk: chunk) == nil)
        #expect(Self.check(Array(whole.dropLast(10)), as: .isoMedia, chunk: chunk)
                == "the MP4 box at byte 132 declares 1008 bytes, but the file ends 10 bytes before it does")
        var small = whole
        small[27] = 4   // moof's size: 4
        small[26] = 0
        #expect(Self.check(small, as: .isoMedia, chunk: chunk) == "the MP4 box 'moof' at byte 24 declares 4 bytes, fewer than its own header")
        var garbage = whole
        garbage[28] = 0x01
        #expect(Self.check(garbage, as: .isoMedia, chunk: chunk)?.hasPrefix("no MP4 box at byte 24") == true)
        // A 64-bit size, and a last box that runs to the end (size 0).
        let large = [0, 0, 0, 1] + Array("mdat".utf8) + withUnsafeBytes(of: UInt64(40).bigEndian, Array.init) + Array(repeating: 0, count: 24)
        #expect(Self.check(Self.box("ftyp", 8) + large, as: .isoMedia, chunk: chunk) == nil)
        #expect(Self.check(Self.box("ftyp", 8) + [0, 0, 0, 0] + Array("mdat".utf8) + [1, 2, 3], as: .isoMedia, chunk: chunk) == nil)
        #expect(Self.check([], as: .isoMedia, chunk: chunk) == "the MP4 file is empty")
    }

    @Test("MPEG-TS: every packet's sync byte, whatever the chunks; a file ending mid-packet", arguments: [1, 100, 188, 1000])
    func packets(chunk: Int) {
        var packets = [UInt8](repeating: 0xAB, count: 188 * 20)
        for packet in 0..<20 { packets[packet * 188] = 0x47 }
        #expect(Self.check(packets, as: .transportStream, chunk: chunk) == nil)
        var broken = packets
        broken[188 * 7] = 0x46
        broken[188 * 12] = 0
        #expect(Self.check(broken, as: .transportStream, chunk: chunk)
                == "MPEG-TS packet 8 (at byte 1316) has no sync byte (0x47) (and 1 more packets)")
        #expect(Self.check(Array(packets.dropLast(8)), as: .transportStream, chunk: chunk)
                == "the MPEG-TS file ends in the middle of a packet (180 bytes past its last whole packet)")
    }

    @Test("WebVTT: the header, with or without a byte order mark")
    func webVTT() {
        #expect(Self.check(Array("WEBVTT\n\n00:00.000 --> 00:01.000\nHi\n".utf8), as: .webVTT, chunk: 3) == nil)
        #expect(Self.check([0xEF, 0xBB, 0xBF] + Array("WEBVTT - title\n".utf8), as: .webVTT, chunk: 2) == nil)
        #expect(Self.check(Array("WEBVTTX\n".utf8), as: .webVTT, chunk: 100) == "the WebVTT file does not begin with WEBVTT")
        #expect(Self.check(Array("1\n00:00.000 --> 00:01.000\n".utf8), as: .webVTT, chunk: 100) == "the WebVTT file does not begin with WEBVTT")
    }

    @Test("containers are told by the file's extension, an init section being MP4")
    func containers() {
        #expect(StructureCheck.container(of: "video/00001.ts", kind: .segment) == .transportStream)
        #expect(StructureCheck.container(of: "video/00001.m4s", kind: .segment) == .isoMedia)
        #expect(StructureCheck.container(of: "video/init.bin", kind: .initSection) == .isoMedia)
        #expect(StructureCheck.container(of: "subtitles-en/00001.vtt", kind: .segment) == .webVTT)
        #expect(StructureCheck.container(of: "audio/00001.aac", kind: .segment) == .other)
    }

    @Test("a digest carried across a resumed fetch reads only the bytes an earlier process left, and one gone astray starts over", .heavy)
    func runningDigest() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("file.part").path
            let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let expected = String(try await run(URL(fileURLWithPath: "/usr/bin/sha256sum"), [path]).standardOutput.prefix(64))

            // Resumed after 100,000 bytes another process wrote: those are read, the rest streamed.
            let resumed = RunningDigest()
            try await resumed.catchUp(to: 100_000, from: path)
            bytes[100_000...].withUnsafeBytes { resumed.update($0, at: 100_000) }
            #expect(try await resumed.finish(length: bytes.count, path: path) == expected)

            // A chunk out of place (a response that restarted the file) is not hashed: the file is.
            let astray = RunningDigest()
            bytes[0..<1000].withUnsafeBytes { astray.update($0, at: 0) }
            bytes[5000..<6000].withUnsafeBytes { astray.update($0, at: 5000) }
            #expect(try await astray.finish(length: bytes.count, path: path) == expected)

            // Streamed whole: the file is not read (it is gone, and the digest is still right).
            let streamed = RunningDigest()
            bytes.withUnsafeBytes { streamed.update($0, at: 0) }
            try FileManager.default.removeItem(atPath: path)
            #expect(try await streamed.finish(length: bytes.count, path: path) == expected)

            // Handed over as the writer hands chunks (hashed on the digest's queue): the same
            // digest, the file not read; a chunk out of place is still skipped; the backlog drains.
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let queued = RunningDigest()
            for start in stride(from: 0, to: bytes.count, by: 8192) {
                queued.update(ByteBuffer(bytes: bytes[start..<min(start + 8192, bytes.count)]), at: start)
            }
            try await queued.drained(on: NIOAsyncTestingEventLoop()).get()
            #expect(queued.backlog == 0)
            try FileManager.default.removeItem(atPath: path)
            #expect(try await queued.finish(length: bytes.count, path: path) == expected)

            // A fetch from the file's start: catching up to byte 0 reads nothing (the file is
            // gone). Finished while chunks may still wait on the queue, the finish comes after
            // them, the file not read; finished again once all are hashed, the same digest.
            let racing = RunningDigest()
            try await racing.catchUp(to: 0, from: path)
            for start in stride(from: 0, to: bytes.count, by: 8192) {
                racing.update(ByteBuffer(bytes: bytes[start..<min(start + 8192, bytes.count)]), at: start)
            }
            #expect(try await racing.finish(length: bytes.count, path: path) == expected)
            #expect(racing.backlog == 0)
            #expect(try await racing.finish(length: bytes.count, path: path) == expected)

            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let queuedAstray = RunningDigest()
            queuedAstray.update(ByteBuffer(bytes: bytes[0..<1000]), at: 0)
            queuedAstray.update(ByteBuffer(bytes: bytes[5000..<6000]), at: 5000)
            #expect(try await queuedAstray.finish(length: bytes.count, path: path) == expected)
        }
    }
}
