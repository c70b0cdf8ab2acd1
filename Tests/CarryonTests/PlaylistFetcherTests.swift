import AsyncHTTPClient
import Carryon
import CarryonTestSupport
import Foundation
import HLS
import Testing

@Suite("Reading playlists from files and URLs")
struct PlaylistFetcherTests {
    let media = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nsegment0.ts\n#EXT-X-ENDLIST\n"

    @Test("a relative path becomes an absolute file URL")
    func relativePath() throws {
        let url = try PlaylistFetcher.absoluteURL(for: "some dir/main.m3u8")
        let cwd = FileManager.default.currentDirectoryPath
        #expect(url == URL(fileURLWithPath: cwd + "/some dir/main.m3u8").absoluteString)
        #expect(url.hasPrefix("file:///"))
        #expect(url.hasSuffix("some%20dir/main.m3u8"))
    }

    @Test("http and https URLs are kept as they are")
    func httpURL() throws {
        #expect(try PlaylistFetcher.absoluteURL(for: "https://example.com/a/main.m3u8?x=1") == "https://example.com/a/main.m3u8?x=1")
    }

    @Test("other schemes are refused with an error naming the scheme", arguments: ["ftp://example.com/a.m3u8", "javascript:alert(1)"])
    func otherSchemes(location: String) throws {
        let error = #expect(throws: CarryonError.self) { try PlaylistFetcher.absoluteURL(for: location) }
        #expect(error?.code == .invalidLocation)
        #expect(error?.message.contains("is not supported") == true)
    }

    @Test("an http URL without a host is refused")
    func noHost() throws {
        let error = #expect(throws: CarryonError.self) { try PlaylistFetcher.absoluteURL(for: "http:///main.m3u8") }
        #expect(error?.code == .invalidLocation)
    }

    @Test("a local playlist is read and parsed, its URL the file URL")
    func localFile() async throws {
        let media = self.media
        try await withTemporaryDirectory { folder in
            let file = try folder.write(media, to: "v/index.m3u8")
            let fetched = try await PlaylistFetcher(client: .shared).fetch(file.path)
            #expect(fetched.url == file.absoluteString)
            #expect(fetched.parsed.playlist.kind == .media)
            #expect(fetched.bytes == Array(media.utf8))
        }
    }

    @Test("a missing file fails with a file error naming the path")
    func missingFile() async throws {
        let error = await #expect(throws: CarryonError.self) {
            try await PlaylistFetcher(client: .shared).fetch("/nonexistent/carryon/main.m3u8")
        }
        #expect(error?.code == .file)
        #expect(error?.message.contains("/nonexistent/carryon/main.m3u8") == true)
    }

    @Test("a directory is not a playlist")
    func directory() async throws {
        try await withTemporaryDirectory { folder in
            let error = await #expect(throws: CarryonError.self) { try await PlaylistFetcher(client: .shared).fetch(folder.path) }
            #expect(error?.code == .file)
        }
    }

    @Test("a playlist over the size limit is refused before parsing")
    func tooLarge() async throws {
        let media = self.media
        try await withTemporaryDirectory { folder in
            let file = try folder.write(media, to: "main.m3u8")
            let fetcher = PlaylistFetcher(client: .shared, maximumPlaylistBytes: 10)
            let error = await #expect(throws: CarryonError.self) { try await fetcher.fetch(file.path) }
            #expect(error?.code == .tooLarge)
        }
    }

    @Test("a file that is not a playlist fails with the parser's error as cause")
    func notAPlaylist() async throws {
        try await withTemporaryDirectory { folder in
            let file = try folder.write("<html>hello</html>\n", to: "index.m3u8")
            let error = await #expect(throws: CarryonError.self) { try await PlaylistFetcher(client: .shared).fetch(file.path) }
            #expect(error?.code == .playlist)
            let cause = try #require(error?.cause as? PlaylistError)
            #expect(cause.code == .missingHeader)
            #expect(cause.line == 1)
        }
    }

    @Test("the inspector resolves a local media playlist's segment URIs against its file URL")
    func inspectLocal() async throws {
        let media = self.media
        try await withTemporaryDirectory { folder in
            let file = try folder.write(media, to: "v/index.m3u8")
            let inspection = try await Inspector().inspect(file.path)
            guard case .media(let playlist) = inspection.resolved else {
                Issue.record("expected a media playlist")
                return
            }
            #expect(playlist.segments.map(\.uri) == [folder.appendingPathComponent("v/segment0.ts").absoluteString])
        }
    }

    @Test("the inspector reports an invalid media playlist with its line")
    func inspectInvalid() async throws {
        try await withTemporaryDirectory { folder in
            let file = try folder.write("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-BYTERANGE:100\n#EXTINF:4,\na.ts\n", to: "x.m3u8")
            let error = await #expect(throws: CarryonError.self) { try await Inspector().inspect(file.path) }
            let cause = try #require(error?.cause as? PlaylistError)
            #expect(cause.code == .byteRange)
            #expect(cause.line == 3)
        }
    }
}
