import CarryonTestSupport
import Foundation
import Testing

/// A daemon serving a network, on a host apart (a network namespace), fetching from an origin on
/// another host that tries to lead it to its own loopback: by a redirect, or by its name
/// resolving there by the time the daemon connects (DNS rebinding). A canary server on that
/// loopback stands for what trusts the host (a cloud's metadata service, an admin page): it gets
/// no request; with `--allow-private-origins`, the same tricks reach it, so the test can fail.
@Suite("serve beyond loopback never asks its own host for an origin", .heavy, .serialized)
struct PrivateAddressTests {
    /// The canary: on the namespace's loopback (on `port`, or one the OS picks), it writes each
    /// request line it gets to a file and answers 200; a connection closed before it sent a
    /// request is written as ``closedUnasked``.
    struct Canary {
        static let script = """
            import socket, sys
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", int(sys.argv[2])))
            s.listen(16)
            print(s.getsockname()[1], flush=True)
            while True:
                c, _ = s.accept()
                line = c.recv(65536).split(b"\\r\\n")[0].decode()
                with open(sys.argv[1], "a") as log:
                    log.write((line or "(closed without a request)") + "\\n")
                if line:
                    c.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: 6\\r\\nConnection: close\\r\\n\\r\\nSECRET")
                c.close()
            """
        let process: RunningProcess
        let port: Int
        let log: URL

        init(in hosts: NetworkNamespaces, port: Int = 0, folder: URL) async throws {
            let python = try #require(findExecutable("python3"), "python3 is not installed: apt-get install -y python3")
            log = folder.appendingPathComponent("canary-\(UUID().uuidString).txt")
            try Data().write(to: log)
            let (program, arguments) = hosts.command(in: 0, python, ["-c", Self.script, log.path, String(port)])
            process = try RunningProcess(program, arguments)
            var lines = process.lines.makeAsyncIterator()
            self.port = try #require(await lines.next().flatMap { Int($0) }, "the canary did not start: \(process.standardError)")
        }

        static let closedUnasked = "(closed without a request)"

        /// What it got so far, a line each connection.
        func lines() throws -> [String] { try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init) }

        /// The request lines it got so far.
        func asked() throws -> [String] { try lines().filter { $0 != Self.closedUnasked } }
    }

    /// `carryon serve` in namespace 0, bound to its address: a daemon serving a network.
    struct Daemon {
        let server: RunningProcess
        let address: String
        let base: URL
        let port: Int

        init(in hosts: NetworkNamespaces, library: String, allowingPrivateOrigins: Bool) async throws {
            address = hosts.address(of: 0)
            let (program, arguments) = hosts.command(in: 0, try requireCarryonBinary(),
                                                     ["serve", "--bind", address, "--allow-plain-http", "--library", library]
                                                     + (allowingPrivateOrigins ? ["--allow-private-origins"] : []))
            server = try RunningProcess(program, arguments)
            var lines = server.lines.makeAsyncIterator()
            base = try #require(await lines.next().flatMap(URL.init(string:)), "\(server.standardError)")
            port = try #require(base.port)
        }

        func call(_ method: String, _ path: String, body: String? = nil) async throws -> (status: Int, json: [String: Any]) {
            var request = "\(method) \(base.path)/api/\(path) HTTP/1.1\r\nHost: \(address):\(port)\r\nConnection: close\r\n"
            if let body { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)" } else { request += "\r\n" }
            let response = try await rawHTTP(port: port, address: address, request)
            return (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? ["text": String(decoding: response.body, as: UTF8.self)])
        }

        /// The state and error of a download of `url` once it has ended: "refused STATUS" and
        /// the message when the API refuses it, "timed out" after a minute.
        func download(_ url: String) async throws -> (state: String, error: String) {
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

        func stop() async {
            server.kill(SIGTERM)
            #expect(await server.wait() == 0, "\(server.standardError)")
        }
    }

    static let playlist = Array("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns.ts\n#EXT-X-ENDLIST\n".utf8)

    @Test("an origin's redirect to the daemon host's loopback, for a playlist and for a segment: refused, naming the redirect, and the service there gets no request; with --allow-private-origins the same redirect is followed")
    func redirectRefusedBeforeRequest() async throws {
        let hosts = try NetworkNamespaces(count: 1)
        defer { hosts.remove() }
        try await withTemporaryDirectory { folder in
            let canary = try await Canary(in: hosts, folder: folder)
            defer { canary.process.kill() }
            let inside = "http://127.0.0.1:\(canary.port)"
            try await HostileOrigin.withRunning(["/p.m3u8": .body(Self.playlist), "/s.ts": .redirect("\(inside)/s.ts"),
                                                 "/r.m3u8": .redirect("\(inside)/p.m3u8")],
                                                host: hosts.servicesAddress) { origin in
                for allowing in [false, true] {
                    let daemon = try await Daemon(in: hosts, library: folder.appendingPathComponent("library-\(allowing)").path,
                                                  allowingPrivateOrigins: allowing)
                    let segment = try await daemon.download("\(origin.baseURL)/p.m3u8")
                    let stream = try await daemon.download("\(origin.baseURL)/r.m3u8")
                    await daemon.stop()
                    let asked = try canary.asked()
                    if allowing {
                        #expect(segment.state == "completed", "\(segment)")
                        #expect(stream.state == "failed", "the canary's 6 bytes are no playlist: \(stream)")
                        // The check can fail: the same redirects, allowed, reach the canary.
                        #expect(Set(asked) == ["GET /s.ts HTTP/1.1", "GET /p.m3u8 HTTP/1.1"], "\(asked)")
                    } else {
                        for (what, ended) in [("a segment", segment), ("the stream", stream)] {
                            #expect(ended.state == "failed" || ended.state.hasPrefix("refused"), "\(what): \(ended)")
                            #expect(ended.error.contains("a redirect (302) from \(origin.baseURL)/") && ended.error.contains("127.0.0.1")
                                    && ended.error.contains("nothing was requested"), "\(what): \(ended.error)")
                        }
                        #expect(asked.isEmpty, "the canary was asked: \(asked)")
                    }
                }
            }
        }
    }

    @Test("a name that resolves to the origin when its location is checked and to the daemon host's loopback when the client connects (DNS rebinding): the connection is closed before a request, naming the address; with --allow-private-origins the request reaches the service there")
    func rebindingRefusedAtConnect() async throws {
        let hosts = try NetworkNamespaces(count: 1)
        defer { hosts.remove() }
        // `ip netns exec` shows a namespace's processes /etc/netns/NAME/hosts as /etc/hosts;
        // rewritten in place (the same file), it changes what `origin.test` resolves to at once.
        let etc = URL(fileURLWithPath: "/etc/netns/\(hosts.names[0])")
        try FileManager.default.createDirectory(at: etc, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: etc) }
        let hostsFile = etc.appendingPathComponent("hosts")
        try Data().write(to: hostsFile)
        func resolve(to address: String) throws {
            let handle = try FileHandle(forWritingTo: hostsFile)
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: Data("127.0.0.1 localhost\n\(address) origin.test\n".utf8))
            try handle.close()
        }
        try await withTemporaryDirectory { folder in
            let media = try Data(contentsOf: sampleMedia.appendingPathComponent("ts/180p/segment0.ts"))
            // The playlist comes slowly, so that the name moves while it does: the segment's
            // connection, a new one (this origin closes each), is made after the move.
            try await HostileOrigin.withRunning(["/p.m3u8": .trickle(Self.playlist, every: .milliseconds(25)), "/s.ts": .body(Array(media))],
                                                host: hosts.servicesAddress) { origin in
                // On the daemon host's loopback, on the origin's port: where the name leads after the move.
                let canary = try await Canary(in: hosts, port: origin.port, folder: folder)
                defer { canary.process.kill() }
                for allowing in [false, true] {
                    try resolve(to: hosts.servicesAddress)
                    let daemon = try await Daemon(in: hosts, library: folder.appendingPathComponent("library-\(allowing)").path,
                                                  allowingPrivateOrigins: allowing)
                    let before = origin.requests.count
                    async let ended = daemon.download("http://origin.test:\(origin.port)/p.m3u8")
                    for _ in 0..<3000 where origin.requests.count == before { try await Task.sleep(for: .milliseconds(10)) }
                    #expect(origin.requests.count > before, "the origin was asked for the playlist")
                    try resolve(to: "127.0.0.1")
                    let outcome = try await ended
                    if !allowing {
                        // The refused connection is closed by the daemon itself, while it runs: a
                        // service that never hangs up must not hold one open per refusal.
                        var seen = try canary.lines()
                        for _ in 0..<100 where !seen.contains(Canary.closedUnasked) {
                            try await Task.sleep(for: .milliseconds(100))
                            seen = try canary.lines()
                        }
                        #expect(seen.contains(Canary.closedUnasked), "the daemon closed the connection it refused: \(seen)")
                    }
                    await daemon.stop()
                    let asked = try canary.asked()
                    if allowing {
                        // The check can fail: the name moved, and the service behind it was asked.
                        #expect(!asked.isEmpty && asked.allSatisfy { $0.hasPrefix("GET /") }, "\(asked)")
                    } else {
                        #expect(outcome.state == "failed", "\(outcome)")
                        #expect(outcome.error.contains("the connection reached 127.0.0.1, this machine's loopback")
                                && outcome.error.contains("nothing was requested"), "\(outcome.error)")
                        #expect(asked.isEmpty, "the canary was asked: \(asked)")
                    }
                }
            }
        }
    }
}
