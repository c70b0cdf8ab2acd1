@testable import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// Playlists sent with `Content-Encoding: gzip`, as browsers and players read them: decoded,
/// with the playlist limit applied to the decoded bytes, so that a gzip bomb stops there.
@Suite("Playlists sent gzip'ed")
struct GzipPlaylistTests {
    static let playlist = Array("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns1.ts\n#EXT-X-ENDLIST\n".utf8)

    static func fetcher(limit: Int = 64 << 20) -> PlaylistFetcher {
        PlaylistFetcher(client: PlaylistFetcher.sharedClient, maximumPlaylistBytes: limit, retry: RetryPolicy(maximumAttempts: 1))
    }

    @Test("a gzip'ed playlist is asked for and decoded; a long one in several gzip members too")
    func decoded() async throws {
        // A long playlist: 20 000 segments, so the decoded text spans many of zlib's output pieces.
        var long = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n"
        for index in 0..<20_000 { long += "#EXTINF:4,\nsegment\(index).ts\n" }
        long += "#EXT-X-ENDLIST\n"
        let half = long.utf8.count / 2
        let members = try gzipped(Array(long.utf8.prefix(half))) + gzipped(Array(long.utf8.dropFirst(half)))
        try await HostileOrigin.withRunning { origin in
            origin.answer("/short.m3u8", with: .body(headers: [("Content-Encoding", "gzip")], try gzipped(Self.playlist)))
            origin.answer("/long.m3u8", with: .body(headers: [("Content-Encoding", "gzip")], members))
            let short = try await Self.fetcher().fetch(origin.baseURL + "/short.m3u8")
            #expect(short.bytes == Self.playlist)
            #expect(short.parsed.playlist.kind == .media)
            #expect(origin.requestHeads.first?.lowercased().contains("accept-encoding: gzip, deflate") == true, "\(origin.requestHeads)")
            let fetched = try await Self.fetcher().fetch(origin.baseURL + "/long.m3u8")
            #expect(fetched.bytes == Array(long.utf8))
            #expect(members.count * 5 < long.utf8.count, "the test sends it compressed: \(members.count) of \(long.utf8.count) bytes")
        }
    }

    @Test("a gzip bomb stops at the playlist limit, measured after decoding")
    func bomb() async throws {
        // 16 members of 16 MiB of zeros: 256 MiB decoded from a quarter of a megabyte.
        let member = try gzipped([UInt8](repeating: 0, count: 16 << 20))
        let bomb = Array([[UInt8]](repeating: member, count: 16).joined())
        #expect(bomb.count < 1 << 20)
        try await HostileOrigin.withRunning { origin in
            origin.answer("/bomb.m3u8", with: .body(headers: [("Content-Encoding", "gzip")], bomb))
            let error = await #expect(throws: CarryonError.self) { try await Self.fetcher(limit: 20 << 20).fetch(origin.baseURL + "/bomb.m3u8") }
            #expect(error?.code == .tooLarge)
            #expect(error?.message == "\(origin.baseURL)/bomb.m3u8: the playlist is larger than the limit of \(20 << 20) bytes")
        }
    }

    @Test("a coding Carryon cannot decode, and a truncated gzip body, are errors that say so")
    func undecodable() async throws {
        let compressed = try gzipped(Self.playlist)
        try await HostileOrigin.withRunning { origin in
            origin.answer("/br.m3u8", with: .body(headers: [("Content-Encoding", "br")], Self.playlist))
            origin.answer("/cut.m3u8", with: .body(headers: [("Content-Encoding", "gzip")], Array(compressed.dropLast(12))))
            origin.answer("/plain.m3u8", with: .body(headers: [("Content-Encoding", "gzip")], Self.playlist))
            let br = await #expect(throws: CarryonError.self) { try await Self.fetcher().fetch(origin.baseURL + "/br.m3u8") }
            #expect(br?.message.contains("sent with Content-Encoding br, which Carryon cannot decode") == true, "\(br?.message ?? "")")
            let cut = await #expect(throws: CarryonError.self) { try await Self.fetcher().fetch(origin.baseURL + "/cut.m3u8") }
            #expect(cut?.message.contains("ends before its stream does") == true, "\(cut?.message ?? "")")
            let plain = await #expect(throws: CarryonError.self) { try await Self.fetcher().fetch(origin.baseURL + "/plain.m3u8") }
            #expect(plain?.message.contains("the compressed body cannot be decoded") == true, "\(plain?.message ?? "")")
        }
    }

    @Test("an Accept-Encoding the caller gives is sent instead of Carryon's")
    func callersAcceptEncoding() async throws {
        try await HostileOrigin.withRunning { origin in
            origin.answer("/plain.m3u8", with: .body(Self.playlist))
            var fetcher = Self.fetcher()
            fetcher.headers = [HTTPHeader(name: "Accept-Encoding", value: "identity")]
            _ = try await fetcher.fetch(origin.baseURL + "/plain.m3u8")
            let head = try #require(origin.requestHeads.first).lowercased()
            #expect(head.contains("accept-encoding: identity") && !head.contains("gzip"), "\(head)")
        }
    }
}
