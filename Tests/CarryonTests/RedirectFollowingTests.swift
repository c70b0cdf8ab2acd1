@testable import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// Redirects as Carryon's fetchers follow them, on real connections: a segment and a playlist
/// reach the resource through hops on one origin and then another, the credentials stay with
/// the origin they were given for, and a licence request POSTed and answered 303 is asked
/// again as a GET.
@Suite("Following redirects, hop by hop")
struct RedirectFollowingTests {
    static let retry = RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(10), maximumDelay: .milliseconds(10), jitter: 0)
    static let credentials = [HTTPHeader(name: "Authorization", value: "Basic dXNlcjpzZWNyZXQ="), HTTPHeader(name: "Cookie", value: "session=1"),
                              HTTPHeader(name: "X-Client", value: "carryon-test")]

    /// The head each request to `origin` carried, by path.
    static func heads(_ origin: HostileOrigin) -> [String: String] {
        var heads: [String: String] = [:]
        for head in origin.requestHeads {
            let path = head.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            heads[path] = head.lowercased()
        }
        return heads
    }

    @Test("a segment and a playlist through a relative hop and one to another origin: the bytes arrive; the first origin gets the credentials, the other does not, and both get the other headers")
    func hopsAcrossOrigins() async throws {
        let body = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let playlist = Array("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns.ts\n#EXT-X-ENDLIST\n".utf8)
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning(["/cdn/s.ts": .body(body), "/cdn/p.m3u8": .body(playlist)]) { cdn in
                try await HostileOrigin.withRunning(["/s.ts": .redirect("hop/s.ts"), "/hop/s.ts": .redirect(cdn.baseURL + "/cdn/s.ts"),
                                                     "/p.m3u8": .redirect("/hop/p.m3u8"), "/hop/p.m3u8": .redirect(cdn.baseURL + "/cdn/p.m3u8")]) { origin in
                    let network = Network(client: PlaylistFetcher.sharedClient)
                    let fetcher = ResourceFetcher(network: network, headers: Self.credentials, retry: Self.retry, timeout: .seconds(30),
                                                  logger: .init(label: "test"), rule: .stream(origin.baseURL + "/p.m3u8"), stallTimeout: .seconds(30))
                    let part = folder.appendingPathComponent("s.part")
                    let result = try await fetcher.fetch(origin.baseURL + "/s.ts", range: nil, into: part.path, validators: .init()) { _ in }
                    #expect(result.bytes == body.count && result.attempts == 1)
                    #expect(try Data(contentsOf: part) == Data(body))

                    let playlists = PlaylistFetcher(network: network, headers: Self.credentials).forStream(origin.baseURL + "/p.m3u8")
                    let fetched = try await playlists.fetch(origin.baseURL + "/p.m3u8")
                    #expect(fetched.url == cdn.baseURL + "/cdn/p.m3u8", "relative URIs resolve where the playlist came from")

                    let first = Self.heads(origin)
                    let other = Self.heads(cdn)
                    #expect(Set(first.keys) == ["/s.ts", "/hop/s.ts", "/p.m3u8", "/hop/p.m3u8"])
                    #expect(Set(other.keys) == ["/cdn/s.ts", "/cdn/p.m3u8"])
                    for (path, head) in first {
                        #expect(head.contains("authorization: basic dxnlcjpzzwnyzxq=") && head.contains("cookie: session=1"), "\(path): \(head)")
                    }
                    for (path, head) in other {
                        #expect(!head.contains("authorization") && !head.contains("cookie") && !head.contains("dxnlcjpzzwnyzxq"), "\(path): \(head)")
                        #expect(head.contains("x-client: carryon-test"), "\(path): \(head)")
                    }
                }
            }
        }
    }

    @Test("a licence request POSTed and answered 303 is asked again as a GET without its body; answered 307, POSTed again with it")
    func postRedirected() async throws {
        let licence = Array("the licence".utf8)
        try await HostileOrigin.withRunning(["/see-other": .body(status: 303, headers: [("Location", "/licence")], []),
                                             "/temporary": .body(status: 307, headers: [("Location", "/licence")], []),
                                             "/licence": .body(licence)]) { origin in
            let fetcher = PlaylistFetcher(network: Network(client: PlaylistFetcher.sharedClient)).forStream(origin.baseURL + "/main.m3u8")
            let request = PlaylistFetcher.Post(body: Array("challenge".utf8), contentType: "application/octet-stream")
            for path in ["/see-other", "/temporary"] {
                let (url, bytes) = try await fetcher.fetchBytes(origin.baseURL + path, post: request)
                #expect(url == origin.baseURL + "/licence" && bytes == licence)
            }
            let heads = origin.requestHeads
            #expect(heads.count == 4, "\(heads)")
            guard heads.count == 4 else { return }
            #expect(heads[0].hasPrefix("POST /see-other ") && heads[0].hasSuffix("challenge"))
            #expect(heads[1].hasPrefix("GET /licence ") && !heads[1].lowercased().contains("content-type") && !heads[1].hasSuffix("challenge"), "\(heads[1])")
            #expect(heads[2].hasPrefix("POST /temporary "))
            #expect(heads[3].hasPrefix("POST /licence ") && heads[3].hasSuffix("challenge") && heads[3].contains("application/octet-stream"), "\(heads[3])")
        }
    }

    @Test("each hop goes through the proxy its own URL calls for: a redirect from an origin reached directly (NO_PROXY) to one that is not goes to the proxy")
    func proxyPerHop() async throws {
        let body = Array("segment".utf8)
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning(["/s.ts": .body(body)], host: "127.0.0.2") { other in
                try await HostileOrigin.withRunning(["/s.ts": .redirect(other.baseURL + "/s.ts")]) { origin in
                    // The proxy is a port nothing listens on: a request that goes to it fails, naming it.
                    let deadProxy = "http://127.0.0.1:\(try ServerProgram.freePort())"
                    for (noProxy, reachesOther) in [("127.0.0.1", false), ("127.0.0.1,127.0.0.2", true)] {
                        let network = try Network(settings: NetworkSettings(proxy: deadProxy, noProxy: noProxy, environment: [:]))
                        let fetcher = ResourceFetcher(network: network, headers: [], retry: Self.retry, timeout: .seconds(30), logger: .init(label: "test"),
                                                      rule: .stream(origin.baseURL + "/p.m3u8"), stallTimeout: .seconds(30))
                        let part = folder.appendingPathComponent("s-\(reachesOther).part")
                        do {
                            let result = try await fetcher.fetch(origin.baseURL + "/s.ts", range: nil, into: part.path, validators: .init()) { _ in }
                            #expect(reachesOther && result.bytes == body.count, "NO_PROXY \(noProxy): fetched")
                        } catch let error as CarryonError {
                            #expect(!reachesOther && error.message.contains("at \(other.baseURL)/s.ts, where a redirect led: the proxy \(deadProxy) failed: connection refused"),
                                    "NO_PROXY \(noProxy): \(error.message)")
                        }
                        await network.shutdown()
                    }
                    // Two attempts (the retry policy's) when the proxy fails, one when it is not used.
                    #expect(origin.requests == ["/s.ts", "/s.ts", "/s.ts"], "the first hop went directly each time")
                    #expect(other.requests == ["/s.ts"], "the second hop went directly only when NO_PROXY named its host")
                }
            }
        }
    }

    @Test("a redirect with a body is followed alike whether its body is read and dropped (2 KiB) or not read (10 KiB), for media and playlists; the body is in no file")
    func redirectBodies() async throws {
        let body = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let playlist = Array("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns.ts\n#EXT-X-ENDLIST\n".utf8)
        try await withTemporaryDirectory { folder in
            var answers: [String: HostileOrigin.Answer] = ["/s.ts": .body(body), "/p.m3u8": .body(playlist)]
            for size in [2 << 10, 10 << 10] {
                let filler = [UInt8](repeating: 0x5A, count: size)
                answers["/\(size)/s.ts"] = .body(status: 302, headers: [("Location", "/s.ts"), ("Content-Type", "text/html")], filler)
                answers["/\(size)/p.m3u8"] = .body(status: 301, headers: [("Location", "/p.m3u8")], filler)
            }
            try await HostileOrigin.withRunning(answers) { origin in
                let network = Network(client: PlaylistFetcher.sharedClient)
                let media = ResourceFetcher(network: network, headers: [], retry: Self.retry, timeout: .seconds(30), logger: .init(label: "test"),
                                            rule: .stream(origin.baseURL + "/p.m3u8"), stallTimeout: .seconds(30))
                let playlists = PlaylistFetcher(network: network).forStream(origin.baseURL + "/p.m3u8")
                for size in [2 << 10, 10 << 10] {
                    let part = folder.appendingPathComponent("s-\(size).part")
                    let result = try await media.fetch(origin.baseURL + "/\(size)/s.ts", range: nil, into: part.path, validators: .init()) { _ in }
                    #expect(result.bytes == body.count && result.attempts == 1, "\(size)")
                    #expect(try Data(contentsOf: part) == Data(body), "\(size): the redirect's body is not in the file")
                    let (url, bytes) = try await playlists.fetchBytes(origin.baseURL + "/\(size)/p.m3u8")
                    #expect(url == origin.baseURL + "/p.m3u8" && bytes == playlist, "\(size)")
                }
                #expect(origin.requests == ["/2048/s.ts", "/s.ts", "/2048/p.m3u8", "/p.m3u8", "/10240/s.ts", "/s.ts", "/10240/p.m3u8", "/p.m3u8"])
            }
        }
    }

    @Test("a redirect whose short body stops coming is cut off after the drain time and followed, for media and playlists: the stall watch (a minute here) is not waited for, and nothing is retried")
    func stalledRedirectBody() async throws {
        let body = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let playlist = Array("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns.ts\n#EXT-X-ENDLIST\n".utf8)
        try await withTemporaryDirectory { folder in
            // Each redirect announces 1,000 bytes, sends 10 and then nothing.
            let filler = [UInt8](repeating: 0x5A, count: 10)
            let answers: [String: HostileOrigin.Answer] = [
                "/s.ts": .body(body), "/p.m3u8": .body(playlist),
                "/stalled/s.ts": .stall(status: 302, headers: [("Location", "/s.ts")], sent: filler, length: 1_000),
                "/stalled/p.m3u8": .stall(status: 301, headers: [("Location", "/p.m3u8")], sent: filler, length: 1_000),
            ]
            try await HostileOrigin.withRunning(answers) { origin in
                let network = Network(client: PlaylistFetcher.sharedClient)
                let media = ResourceFetcher(network: network, headers: [], retry: Self.retry, timeout: .seconds(60), logger: .init(label: "test"),
                                            rule: .stream(origin.baseURL + "/p.m3u8"), stallTimeout: .seconds(60))
                let playlists = PlaylistFetcher(network: network, timeout: .seconds(60), stallTimeout: .seconds(60)).forStream(origin.baseURL + "/p.m3u8")
                let clock = ContinuousClock()
                let part = folder.appendingPathComponent("s.part")
                let start = clock.now
                let result = try await media.fetch(origin.baseURL + "/stalled/s.ts", range: nil, into: part.path, validators: .init()) { _ in }
                let (url, bytes) = try await playlists.fetchBytes(origin.baseURL + "/stalled/p.m3u8")
                let took = clock.now - start
                #expect(result.bytes == body.count && result.attempts == 1)
                #expect(try Data(contentsOf: part) == Data(body), "the redirect's body is not in the file")
                #expect(url == origin.baseURL + "/p.m3u8" && bytes == playlist)
                // Two drain times (2 s each), not the stall watch's minute.
                #expect(took < .seconds(30), "both fetches took \(took)")
                #expect(origin.requests == ["/stalled/s.ts", "/s.ts", "/stalled/p.m3u8", "/p.m3u8"])
            }
        }
    }
}
