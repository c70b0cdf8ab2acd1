import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// Requests a playback server answered, collected for a test to look at.
actor RequestCollector {
    private(set) var requests: [PlaybackRequest] = []
    func add(_ request: PlaybackRequest) { requests.append(request) }
}

/// Bundles played back through the playback server: ffmpeg decodes each flavour of the sample
/// with the origin gone, the token and the Host header keep others out, paths cannot leave a
/// bundle, and an asset plays while it is still downloading.
@Suite("Playing bundles back", .heavy)
struct PlaybackTests {
    static let everything = DownloadOptions(prefersHDR: false, audio: .all, subtitles: .all)

    /// Downloads `path` of the sample media into `library`, completely, and returns its id. The
    /// origin is gone when this returns: what plays after is offline.
    func download(_ path: String, into library: OfflineLibrary, options: DownloadOptions = Self.everything) async throws -> String {
        try await Origin(root: sampleMedia.path).withRunning { origin in
            let session = try await DownloadSession(library: library)
            let task = try await session.makeTask(url: origin.baseURL + path, options: options)
            try await task.resume()
            let state = await task.waitUntilFinished()
            let error = try await task.snapshot().error
            await session.shutdown()
            #expect(state == .completed, "\(error ?? "")")
            return task.id
        }
    }

    @Test("ffmpeg decodes every flavour end to end through the server, offline", arguments: ["ts", "fmp4", "byterange"])
    func everyFlavourPlays(flavour: String) async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder)
            let id = try await download("/\(flavour)/main.m3u8", into: library)
            let collector = RequestCollector()
            let server = try PlaybackServer(source: PlaybackSource(library: library)) { await collector.add($0) }
            try await server.withRunning { handle in
                let decoded = try await ffmpegDecode(handle.playlistURL(for: id))
                #expect(decoded.status == 0, "ffmpeg: \(decoded.standardError)")
            }
            let requests = await collector.requests
            #expect(requests.allSatisfy { $0.status == 200 || $0.status == 206 }, "\(requests.filter { $0.status >= 300 })")
            // Every request after the multivariant playlist carries the session it began.
            let session = try #require(requests.first { $0.path == "main.m3u8" }?.sessionID)
            #expect(requests.allSatisfy { $0.sessionID == session })
            #expect(requests.contains { $0.path.hasPrefix("audio-de/") } && requests.contains { $0.path.hasPrefix("video/") })
            // The access log has a line a request, in W3C extended format, and show's figures come from it.
            let text = try String(contentsOf: AssetLogs(library: library).accessLogURL(for: id), encoding: .utf8)
            let log = try W3CLog(parsing: text)
            let played = log.entries.filter { $0["x-event"] == "playback" }
            #expect(played.count == requests.count)
            #expect(played.allSatisfy { $0["x-playback-session-id"] == session && $0["sc-indicated-bitrate"] != "-" })
            let summary = try #require(AssetLogs(library: library).playbackSummary(for: id))
            #expect(summary.sessions == 1 && summary.segmentsServed == requests.filter { !$0.path.hasSuffix(".m3u8") }.count)
            #expect(summary.bytesServed == requests.reduce(0) { $0 + $1.bytes } && summary.startupSeconds != nil)
            #expect(summary.timeWeightedIndicatedBitrate != nil)
        }
    }

    @Test("a request without the token, with another token, or with a Host that is not the server's loopback address is refused")
    func capability() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder)
            let id = try await download("/ts/main.m3u8", into: library, options: DownloadOptions(maximumBitrate: 200_000))
            try await PlaybackServer(source: PlaybackSource(library: library)).withRunning { (handle) async throws -> Void in
                let token = String(handle.baseURL.split(separator: "/").last!)
                func get(_ path: String, host: String?) async throws -> Int {
                    let hostLine = host.map { "Host: \($0)\r\n" } ?? ""
                    return try await rawHTTP(port: handle.port, "GET \(path) HTTP/1.1\r\n\(hostLine)Connection: close\r\n\r\n").status
                }
                let local = "127.0.0.1:\(handle.port)"
                #expect(try await get("/\(token)/\(id)/main.m3u8", host: local) == 200)
                #expect(try await get("/\(token)/\(id)/main.m3u8", host: "localhost:\(handle.port)") == 200)
                #expect(try await get("/\(id)/main.m3u8", host: local) == 403)
                #expect(try await get("/\(String(repeating: "0", count: 32))/\(id)/main.m3u8", host: local) == 403)
                #expect(try await get("/\(token.dropLast())/\(id)/main.m3u8", host: local) == 403)
                #expect(try await get("/\(token)/\(id)/main.m3u8", host: "attacker.example:\(handle.port)") == 403)
                #expect(try await get("/\(token)/\(id)/main.m3u8", host: "127.0.0.1:1") == 403)
                #expect(try await get("/\(token)/\(id)/main.m3u8", host: "127.0.0.1") == 403)
                #expect(try await get("/\(token)/\(id)/main.m3u8", host: nil) == 403)
                #expect(try await get("/\(token)/\(id)/main.m3u8", host: "") == 403)
            }
        }
    }

    @Test("a playback server listens on an IP address, and the names it answers to are host names",
          arguments: [("localhost", [String]()), ("media.example", []), ("", []), ("127.0.0.1", ["0.0.0.0"]), ("127.0.0.1", ["evil.example/x"]), ("127.0.0.1", [""])])
    func addressAndNames(host: String, names: [String]) throws {
        let library = try OfflineLibrary(root: FileManager.default.temporaryDirectory.appendingPathComponent("carryon-address-\(UUID())"))
        defer { try? FileManager.default.removeItem(at: library.root) }
        #expect(throws: PlaybackServerError.self) { try PlaybackServer(source: PlaybackSource(library: library), host: host, names: names) }
    }

    @Test("a server bound to another address answers its own address and names in Host, and no other; the token is still required")
    func otherAddress() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder)
            let id = try await download("/ts/main.m3u8", into: library, options: DownloadOptions(maximumBitrate: 200_000))
            // 127.0.0.2 stands for a network address: nothing in a test leaves the loopback interface.
            let server = try PlaybackServer(source: PlaybackSource(library: library), host: "127.0.0.2", names: ["Media.Example"])
            try await server.withRunning { (handle) async throws -> Void in
                #expect(handle.baseURL == "http://Media.Example:\(handle.port)/\(server.token)")
                func get(_ path: String, host: String) async throws -> Int {
                    try await rawHTTP(port: handle.port, address: "127.0.0.2", "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n").status
                }
                let path = "/\(server.token)/\(id)/main.m3u8"
                #expect(try await get(path, host: "media.example:\(handle.port)") == 200)
                #expect(try await get(path, host: "127.0.0.2:\(handle.port)") == 200)
                #expect(try await get(path, host: "attacker.example:\(handle.port)") == 403)
                #expect(try await get(path, host: "media.example") == 403, "the port is part of the name")
                #expect(try await get("/\(id)/main.m3u8", host: "media.example:\(handle.port)") == 403)
                await #expect(throws: (any Error).self, "it listens on 127.0.0.2 only") {
                    try await rawHTTP(port: handle.port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(handle.port)\r\nConnection: close\r\n\r\n")
                }
            }
        }
    }

    @Test("paths outside what the bundle plays are not found, and an unknown asset is not found")
    func pathsStayInTheBundle() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder)
            let id = try await download("/ts/main.m3u8", into: library, options: DownloadOptions(maximumBitrate: 200_000))
            try await PlaybackServer(source: PlaybackSource(library: library)).withRunning { handle in
                for path in ["../../index.sqlite", "%2e%2e/%2e%2e/index.sqlite", "..%2f..%2findex.sqlite", "origin/main.m3u8",
                             "manifest.json", ".lock", "video/00001.ts.part", "video//00001.ts", "/etc/passwd", "video/",
                             "video/99999.ts", "video/00001.ts%00.m3u8"] {
                    let response = try await rawHTTP(port: handle.port,
                                                      "GET \(handle.baseURL.dropFirst("http://127.0.0.1:\(handle.port)".count))/\(id)/\(path) HTTP/1.1\r\nHost: 127.0.0.1:\(handle.port)\r\nConnection: close\r\n\r\n")
                    #expect(response.status == 404 || response.status == 400, "\(path): \(response.status)")
                }
                let unknown = try await rawHTTP(port: handle.port,
                                                "GET \(handle.baseURL.dropFirst("http://127.0.0.1:\(handle.port)".count))/nosuchasset/main.m3u8 HTTP/1.1\r\nHost: 127.0.0.1:\(handle.port)\r\nConnection: close\r\n\r\n")
                #expect(unknown.status == 404)
            }
        }
    }

    @Test("segments are served with their content type, byte ranges (suffix ranges included) and HEAD")
    func rangesAndTypes() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder)
            let id = try await download("/fmp4/main.m3u8", into: library, options: DownloadOptions(maximumBitrate: 200_000))
            let bundle = library.bundleURL(for: id)
            let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: bundle.appendingPathComponent("video").path)
                .filter { $0.hasSuffix(".m4s") }.sorted().first)
            let bytes = try [UInt8](Data(contentsOf: bundle.appendingPathComponent("video/\(segment)")))
            try await PlaybackServer(source: PlaybackSource(library: library)).withRunning { (handle) async throws -> Void in
                let prefix = String(handle.baseURL.dropFirst("http://127.0.0.1:\(handle.port)".count)) + "/\(id)/"
                func request(_ method: String, _ path: String, range: String? = nil) async throws -> RawHTTPResponse {
                    let rangeLine = range.map { "Range: \($0)\r\n" } ?? ""
                    return try await rawHTTP(port: handle.port,
                                             "\(method) \(prefix)\(path) HTTP/1.1\r\nHost: 127.0.0.1:\(handle.port)\r\n\(rangeLine)Connection: close\r\n\r\n")
                }
                let whole = try await request("GET", "video/\(segment)")
                #expect(whole.status == 200 && whole.body == bytes)
                #expect(whole.header("content-type") == "video/mp4")
                let suffix = try await request("GET", "video/\(segment)", range: "bytes=-100")
                #expect(suffix.status == 206 && suffix.body == Array(bytes.suffix(100)))
                #expect(suffix.header("content-range") == "bytes \(bytes.count - 100)-\(bytes.count - 1)/\(bytes.count)")
                let middle = try await request("GET", "video/\(segment)", range: "bytes=10-19")
                #expect(middle.status == 206 && middle.body == Array(bytes[10...19]))
                let beyond = try await request("GET", "video/\(segment)", range: "bytes=\(bytes.count)-")
                #expect(beyond.status == 416)
                let head = try await request("HEAD", "video/\(segment)")
                #expect(head.status == 200 && head.body.isEmpty && head.header("content-length") == String(bytes.count))
                let playlist = try await request("GET", "video/index.m3u8")
                #expect(playlist.header("content-type") == "application/vnd.apple.mpegurl")
                let subtitles = try await request("GET", "main.m3u8")
                #expect(subtitles.status == 200)
                let post = try await request("POST", "main.m3u8")
                #expect(post.status == 405)
            }
        }
    }

    @Test("an asset plays while it downloads: ffmpeg decodes it whole, the bundle ends byte-identical, nothing is fetched twice", arguments: ["fmp4", "byterange"])
    func playWhileDownloading(flavour: String) async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            // Two connections of 20 kB/s: the download of about 0.8 MB takes some twenty seconds.
            var profile = LinkProfile.perfect
            profile.bandwidth = 20_000
            profile.latency = .milliseconds(20)
            try await Origin(root: sampleMedia.path, profile: profile).withRunning { origin in
                let session = try await DownloadSession(library: library, configuration: .init(maximumRequestsPerTask: 2))
                let task = try await session.makeTask(url: origin.baseURL + "/\(flavour)/main.m3u8", options: Self.everything)
                try await task.resume()
                let collector = RequestCollector()
                let server = try PlaybackServer(source: PlaybackSource(library: library, session: session)) { await collector.add($0) }
                try await server.withRunning { handle in
                    let before = try await task.snapshot().progress
                    let decoded = try await ffmpegDecode(handle.playlistURL(for: task.id))
                    #expect(decoded.status == 0 && decoded.standardError.isEmpty, "ffmpeg: \(decoded.standardError)")
                    // ffmpeg began before the download had the asset.
                    #expect(before.resourcesDone < before.resourcesTotal || before.resourcesTotal == 0)
                }
                let served = await collector.requests
                #expect(served.contains { $0.path.hasPrefix("video/") && !$0.path.hasSuffix(".m3u8") })
                #expect(served.allSatisfy { $0.status == 200 || $0.status == 206 }, "\(served.filter { $0.status >= 300 }.map { "\($0.path) \($0.status) \($0.error ?? "")" })")
                let state = await task.waitUntilFinished()
                #expect(state == .completed)
                let snapshot = try await task.snapshot()
                await session.shutdown()
                // Each file (or byte range of one) was fetched from the origin once.
                let media = await origin.requests().filter { !$0.path.hasSuffix(".m3u8") }
                let keys = media.map { "\($0.path) \($0.range ?? "")" }
                #expect(Set(keys).count == keys.count, "fetched twice: \(Dictionary(grouping: keys, by: { $0 }).filter { $0.value.count > 1 }.keys)")
                #expect(media.allSatisfy { $0.status == 200 || $0.status == 206 })
                let manifest = try JSONDecoder.iso8601.decode(
                    BundleManifest.self, from: Data(contentsOf: URL(fileURLWithPath: snapshot.bundlePath).appendingPathComponent("manifest.json")))
                try await DownloadTests().checkBundle(snapshot, manifest, base: origin.baseURL)
            }
        }
    }
}
