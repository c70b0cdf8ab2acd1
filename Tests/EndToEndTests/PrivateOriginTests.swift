import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// A daemon bound beyond loopback serves a network: whoever reaches its API must not make it
/// fetch this machine, its loopback or link-local addresses (server-side request forgery), nor
/// read back what they answer. 127.0.0.2 stands for the network address here, as nothing in a
/// test leaves the loopback interface; the origin listens on 127.0.0.1.
@Suite("serve beyond loopback refuses private origins", .heavy)
struct PrivateOriginTests {
    @Test("bound beyond loopback, stream URLs on loopback, link-local, unspecified or the daemon's own address are refused before any request; --allow-private-origins allows them")
    func refused() async throws {
        try await withTemporaryDirectory { folder in
            let media = try Data(contentsOf: sampleMedia.appendingPathComponent("ts/180p/segment0.ts"))
            let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns.ts\n#EXT-X-ENDLIST\n"
            try await HostileOrigin.withRunning(["/p.m3u8": .body(Array(playlist.utf8)), "/s.ts": .body(Array(media))]) { origin in
                let port = try #require(URL(string: origin.baseURL)?.port)
                for allowing in [false, true] {
                    let library = folder.appendingPathComponent("library-\(allowing)").path
                    let server = try RunningProcess(carryon: ["serve", "--bind", "127.0.0.2", "--allow-plain-http", "--library", library]
                                                    + (allowing ? ["--allow-private-origins"] : []))
                    var lines = server.lines.makeAsyncIterator()
                    let base = try #require(await lines.next().flatMap(URL.init(string:)), "\(server.standardError)")
                    let daemonPort = try #require(base.port)
                    func call(_ method: String, _ path: String, body: String? = nil) async throws -> (status: Int, text: String) {
                        var request = "\(method) \(base.path)/api/\(path) HTTP/1.1\r\nHost: 127.0.0.2:\(daemonPort)\r\nConnection: close\r\n"
                        if let body { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)" } else { request += "\r\n" }
                        let response = try await rawHTTP(port: daemonPort, address: "127.0.0.2", request)
                        return (response.status, String(decoding: response.body, as: UTF8.self))
                    }
                    if allowing {
                        let accepted = try await call("POST", "assets", body: #"{"url": "http://127.0.0.1:\#(port)/p.m3u8"}"#)
                        #expect(accepted.status == 201, "\(accepted.text)")
                    } else {
                        let urls = ["http://127.0.0.1:\(port)/p.m3u8", "http://localhost:\(port)/p.m3u8", "http://2130706433:\(port)/p.m3u8",
                                    "http://0x7f.1:\(port)/p.m3u8", "http://[::1]:\(port)/p.m3u8", "http://[::ffff:127.0.0.1]:\(port)/p.m3u8",
                                    "http://169.254.169.254/latest/meta-data/", "http://0.0.0.0:22/", "http://127.0.0.2:\(daemonPort)\(base.path)/api/storage"]
                        for url in urls {
                            let refused = try await call("POST", "assets", body: #"{"url": "\#(url)"}"#)
                            #expect(refused.status == 400 && refused.text.contains("url-refused") && refused.text.contains("allow-private-origins"),
                                    "\(url): \(refused.text)")
                            let inspected = try await call("GET", "streams?url=" + (url.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? url))
                            #expect(inspected.status == 400, "\(url): \(inspected.text)")
                            #expect(!inspected.text.contains("quotaBytes") && !refused.text.contains("quotaBytes"), "the daemon's own answer is not read back")
                        }
                        #expect(origin.requests.isEmpty, "nothing was requested: \(origin.requests)")
                        #expect(try await call("GET", "assets").text == "[]", "nothing was recorded")
                    }
                    server.kill(SIGTERM)
                    #expect(await server.wait() == 0)
                }
            }
        }
    }
}

/// The same daemon on a host apart (a network namespace), fetching from an origin on another
/// host that redirects to this host's own loopback: each location a redirect leads to is checked
/// before anything is asked of it, so the service behind that loopback never sees a request.
@Suite("serve beyond loopback refuses a redirect to a private address before asking it", .heavy)
struct PrivateRedirectTests {
    /// A server on the namespace's loopback that prints its port, writes each request line it
    /// gets to the file its argument names, and answers 200: what a cloud's metadata service or
    /// an admin page would be.
    static let canary = """
        import socket, sys
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.listen(16)
        print(s.getsockname()[1], flush=True)
        while True:
            c, _ = s.accept()
            with open(sys.argv[1], "a") as log:
                log.write(c.recv(65536).split(b"\\r\\n")[0].decode() + "\\n")
            c.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: 6\\r\\nConnection: close\\r\\n\\r\\nSECRET")
            c.close()
        """

    @Test("an origin's redirect to the daemon host's loopback, for a playlist and for a segment: refused, naming the redirect, and the service there gets no request; with --allow-private-origins the same redirect is followed")
    func redirectRefusedBeforeRequest() async throws {
        let python = try #require(findExecutable("python3"), "python3 is not installed: apt-get install -y python3")
        let hosts = try NetworkNamespaces(count: 1)
        defer { hosts.remove() }
        let address = hosts.address(of: 0)
        try await withTemporaryDirectory { folder in
            let asked = folder.appendingPathComponent("asked.txt")
            try Data().write(to: asked)
            func requests() throws -> [String] { try String(contentsOf: asked, encoding: .utf8).split(separator: "\n").map(String.init) }
            let (program, arguments) = hosts.command(in: 0, python, ["-c", Self.canary, asked.path])
            let canary = try RunningProcess(program, arguments)
            defer { canary.kill() }
            var canaryLines = canary.lines.makeAsyncIterator()
            let canaryPort = try #require(await canaryLines.next().flatMap { Int($0) }, "the canary did not start: \(canary.standardError)")
            let inside = "http://127.0.0.1:\(canaryPort)"
            let media = try Data(contentsOf: sampleMedia.appendingPathComponent("ts/180p/segment0.ts"))
            let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns.ts\n#EXT-X-ENDLIST\n"
            try await HostileOrigin.withRunning(["/p.m3u8": .body(Array(playlist.utf8)), "/s.ts": .redirect("\(inside)/s.ts"),
                                                 "/r.m3u8": .redirect("\(inside)/p.m3u8"), "/direct.ts": .body(Array(media))],
                                                host: hosts.servicesAddress) { origin in
                for allowing in [false, true] {
                    let library = folder.appendingPathComponent("library-\(allowing)").path
                    let (program, arguments) = hosts.command(in: 0, try requireCarryonBinary(),
                                                             ["serve", "--bind", address, "--allow-plain-http", "--library", library]
                                                             + (allowing ? ["--allow-private-origins"] : []))
                    let server = try RunningProcess(program, arguments)
                    var lines = server.lines.makeAsyncIterator()
                    let base = try #require(await lines.next().flatMap(URL.init(string:)), "\(server.standardError)")
                    let port = try #require(base.port)
                    func call(_ method: String, _ path: String, body: String? = nil) async throws -> (status: Int, json: [String: Any]) {
                        var request = "\(method) \(base.path)/api/\(path) HTTP/1.1\r\nHost: \(address):\(port)\r\nConnection: close\r\n"
                        if let body { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)" } else { request += "\r\n" }
                        let response = try await rawHTTP(port: port, address: address, request)
                        return (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? ["text": String(decoding: response.body, as: UTF8.self)])
                    }
                    /// The asset's state and error once it has ended (or "timed out").
                    func ended(_ url: String) async throws -> (state: String, error: String) {
                        let added = try await call("POST", "assets", body: #"{"url": "\#(url)"}"#)
                        guard added.status == 201, let id = added.json["id"] as? String else {
                            return ("refused \(added.status)", "\(added.json["message"] ?? added.json)")
                        }
                        for _ in 0..<300 {
                            let shown = try await call("GET", "assets/\(id)")
                            if let state = shown.json["state"] as? String, ["completed", "failed"].contains(state) {
                                return (state, shown.json["error"] as? String ?? "")
                            }
                            try await Task.sleep(for: .milliseconds(200))
                        }
                        return ("timed out", "")
                    }
                    let segment = try await ended("\(origin.baseURL)/p.m3u8")
                    let stream = try await ended("\(origin.baseURL)/r.m3u8")
                    if allowing {
                        #expect(segment.state == "completed", "\(segment)")
                        #expect(stream.state == "failed", "the canary's 6 bytes are no playlist: \(stream)")
                    } else {
                        for (what, ended) in [("a segment", segment), ("the stream", stream)] {
                            #expect(ended.state == "failed" || ended.state.hasPrefix("refused"), "\(what): \(ended)")
                            #expect(ended.error.contains("a redirect (302) from \(origin.baseURL)/") && ended.error.contains("127.0.0.1")
                                    && ended.error.contains("nothing was requested"), "\(what): \(ended.error)")
                        }
                    }
                    server.kill(SIGTERM)
                    #expect(await server.wait() == 0, "\(server.standardError)")
                    let asked = try requests()
                    if allowing {
                        // The check can fail: the same redirects, allowed, reach the canary.
                        #expect(Set(asked) == ["GET /s.ts HTTP/1.1", "GET /p.m3u8 HTTP/1.1"], "\(asked)")
                    } else {
                        #expect(asked.isEmpty, "the canary was asked: \(asked)")
                    }
                }
            }
        }
    }
}
