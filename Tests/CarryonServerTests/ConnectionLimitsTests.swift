@testable import Carryon
@testable import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// Every connection is held to its server's limits: a head that does not come, or comes a byte
/// at a time, gets 408 and the connection is closed; an idle keep-alive connection is closed; a
/// body that stalls gets 408; one connection past the most gets 503; a head with two Host lines
/// gets 400. Before, none of these was ever closed. The limits here are short so that the tests
/// are; each closing is checked to come neither before its limit nor long after.
@Suite("Connection limits on the playback server and the origin")
struct ConnectionLimitsTests {
    static let limits = ConnectionLimits(headTimeout: .seconds(1), idleTimeout: .seconds(2), minimumBodyRate: 2_000, maximumConnections: 8)

    /// Runs a playback server (with its API) and an origin over an empty library with `limits`,
    /// and `body` with each one's port and the path its API answers under.
    func withServers(_ limits: ConnectionLimits = limits, _ body: @Sendable (_ port: Int, _ path: String) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            let session = try await DownloadSession(library: library)
            var playback = try PlaybackServer(source: PlaybackSource(library: library, session: session))
            playback.api = DaemonAPI(session: session)
            playback.limits = limits
            try await playback.withRunning { handle in
                try await body(handle.port, URL(string: handle.baseURL)!.path + "/api/assets")
            }
            var origin = Origin(root: folder.path)
            origin.limits = limits
            try await origin.withRunning { handle in
                try await body(URL(string: handle.baseURL)!.port!, "/library/index.sqlite")
            }
            await session.shutdown()
        }
    }

    @Test("a connection that sends nothing, and one that trickles its head a byte at a time, get 408 once the head's time is up")
    func slowHeads() async throws {
        try await withServers { port, path in
            let silent = try SlowClient(port: port)
            let trickling = try SlowClient(port: port)
            let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            let sender = Task.detached {
                for character in request {
                    guard trickling.send(String(character)) else { return }
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
            for client in [silent, trickling] {
                let read = await client.readUntilClosed(seconds: 30)
                #expect(read.closed && read.text.hasPrefix("HTTP/1.1 408"), "\(read.text)")
                #expect(read.secondsOpen >= 0.9 && read.secondsOpen < 15, "closed after \(read.secondsOpen) s")
            }
            sender.cancel()
        }
    }

    @Test("a keep-alive connection is answered, then closed once idle for the idle limit, with nothing more sent")
    func idleKeepAlive() async throws {
        try await withServers { port, path in
            let client = try SlowClient(port: port)
            #expect(client.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"))
            let read = await client.readUntilClosed(seconds: 30)
            #expect(read.closed, "the idle connection was closed")
            #expect(read.text.hasPrefix("HTTP/1.1 200") || read.text.hasPrefix("HTTP/1.1 404"), "\(read.text.prefix(200))")
            #expect(read.text.components(separatedBy: "HTTP/1.1 ").count == 2, "one answer, no 408 for a connection merely idle: \(read.text)")
            #expect(read.secondsOpen >= 1.9 && read.secondsOpen < 20, "closed after \(read.secondsOpen) s")
        }
    }

    @Test("an answer whose client stops reading is cut off once nothing moved for the send limit; one read slowly goes to its end")
    func stalledReader() async throws {
        try await withTemporaryDirectory { folder in
            // Far more than the kernel's buffers on both sides hold, so that the answer waits in the server.
            let length = 12 << 20
            try Data(repeating: 0x47, count: length).write(to: folder.appendingPathComponent("big.ts"))
            var origin = Origin(root: folder.path)
            origin.limits = ConnectionLimits(headTimeout: .seconds(5), idleTimeout: .seconds(30), maximumConnections: 8, sendTimeout: .seconds(1))
            try await origin.withRunning { handle in
                let port = URL(string: handle.baseURL)!.port!
                let request = "GET /big.ts HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"

                // Reads nothing for 4 s, then all it can: what the kernel held, then the end.
                let stalled = try SlowClient(port: port, receiveBuffer: 4096)
                #expect(stalled.send(request))
                try await Task.sleep(for: .seconds(4))
                let cut = await stalled.readPaced(chunk: 65_536, pause: .zero, count: length + 4096, seconds: 20)
                #expect(cut.closed, "the server closed the connection of a client that took nothing")
                #expect(cut.bytes < length, "\(cut.bytes) bytes reached the stalled client: the answer was cut off")

                // Reads what its 128 KiB buffer holds every 50 ms: slower than the server sends, never stopped.
                let slow = try SlowClient(port: port, receiveBuffer: 65_536)
                #expect(slow.send(request))
                let whole = await slow.readPaced(chunk: 262_144, pause: .milliseconds(50), count: length, seconds: 60)
                #expect(!whole.closed && whole.bytes >= length, "\(whole.bytes) bytes read, closed: \(whole.closed)")
                #expect(whole.secondsOpen > 1.5, "read over \(whole.secondsOpen) s: longer than the send limit")
            }
        }
    }

    @Test("a body announced at 50 MB of which 1 KB comes gets 408 once it falls below the minimum rate")
    func stalledBody() async throws {
        try await withServers { port, path in
            let client = try SlowClient(port: port)
            #expect(client.send("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\nContent-Length: 52428800\r\n\r\n"
                                + String(repeating: " ", count: 1_024)))
            let read = await client.readUntilClosed(seconds: 30)
            #expect(read.closed, "\(read.text)")
            // The API waits for the body: 408. The origin answers 405 at once, and is closed all the same.
            #expect(read.text.hasPrefix("HTTP/1.1 408") || read.text.hasPrefix("HTTP/1.1 405"), "\(read.text)")
            #expect(read.text.components(separatedBy: "HTTP/1.1 ").count == 2, "one answer: \(read.text)")
            // 1 s of grace and half a second for the 1,024 bytes at 2,000 bytes a second.
            #expect(read.secondsOpen >= 1.4 && read.secondsOpen < 15, "closed after \(read.secondsOpen) s")
        }
    }

    @Test("one connection past the most is answered 503 at once; once others close, new ones are served")
    func connectionCap() async throws {
        let limits = ConnectionLimits(headTimeout: .seconds(60), idleTimeout: .seconds(60), maximumConnections: 8)
        try await withServers(limits) { port, path in
            // Nine connections to a server that keeps eight: whichever it counts last (they are
            // set up on several threads) is answered 503 and closed; the others stay open.
            var held: [SlowClient] = []
            for _ in 0..<9 { held.append(try SlowClient(port: port)) }
            let reads = await withTaskGroup(of: (text: String, closed: Bool, secondsOpen: Double).self) { group in
                for client in held { group.addTask { await client.readUntilClosed(seconds: 5) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let refused = reads.filter(\.closed)
            #expect(refused.count == 1, "\(reads.map(\.text))")
            #expect(refused.allSatisfy { $0.text.hasPrefix("HTTP/1.1 503") && $0.text.contains("Retry-After: 1") && $0.secondsOpen < 5 },
                    "\(refused.map(\.text))")
            held.removeAll()
            var served = false
            for _ in 0..<100 where !served {
                let response = try await rawHTTP(port: port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
                served = response.status != 503
                if !served { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(served, "connections closed are no longer counted")
        }
    }

    @Test("a request with two Host lines is answered 400 and the connection closed, whichever comes first")
    func duplicateHost() async throws {
        try await withServers { port, path in
            for hosts in [["127.0.0.1:\(port)", "evil.example"], ["evil.example", "127.0.0.1:\(port)"], ["127.0.0.1:\(port)", "127.0.0.1:\(port)"]] {
                let request = "GET \(path) HTTP/1.1\r\n" + hosts.map { "Host: \($0)\r\n" }.joined() + "Connection: close\r\n\r\n"
                let response = try await rawHTTP(port: port, request)
                #expect(response.status == 400, "\(hosts): \(response.head)")
                #expect(String(decoding: response.body, as: UTF8.self).contains("Host"))
            }
        }
    }

    @Test("limits that cannot be applied (a timeout of zero or under a second, one of a thousand years, no connections, a negative rate) are refused by name before either server listens")
    func unusableLimits() async throws {
        let cases: [(ConnectionLimits, String)] = [
            (ConnectionLimits(sendTimeout: .zero), "sendTimeout must be between 1 and 86400 seconds (got 0.0 seconds)"),
            (ConnectionLimits(headTimeout: .milliseconds(-5)), "headTimeout must be between 1 and 86400 seconds"),
            (ConnectionLimits(headTimeout: .nanoseconds(1)), "headTimeout must be between 1 and 86400 seconds"),
            (ConnectionLimits(sendTimeout: .milliseconds(999)), "sendTimeout must be between 1 and 86400 seconds"),
            (ConnectionLimits(idleTimeout: .seconds(Int64.max)), "idleTimeout must be between 1 and 86400 seconds"),
            (ConnectionLimits(maximumConnections: 0), "maximumConnections must be between 1 and 1000000 (got 0)"),
            (ConnectionLimits(minimumBodyRate: -1), "minimumBodyRate must be zero or more bytes a second (got -1)"),
        ]
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            for (limits, words) in cases {
                var playback = try PlaybackServer(source: PlaybackSource(library: library))
                playback.limits = limits
                let listened = Locked(false)
                let playbackError = await #expect(throws: ConnectionLimitsError.self) {
                    try await playback.withRunning { _ in listened.withLock { $0 = true } }
                }
                #expect(playbackError?.description.hasPrefix(words) == true, "\(playbackError?.description ?? "no error")")
                var origin = Origin(root: folder.path)
                origin.limits = limits
                let originError = await #expect(throws: ConnectionLimitsError.self) {
                    try await origin.withRunning { _ in listened.withLock { $0 = true } }
                }
                #expect(originError?.description.hasPrefix(words) == true, "\(originError?.description ?? "no error")")
                #expect(!listened.withLock { $0 })
            }
            #expect(throws: Never.self) { try ConnectionLimits().validate() }
            #expect(throws: Never.self) { try Self.limits.validate() }
        }
    }
}
