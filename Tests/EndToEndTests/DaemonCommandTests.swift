import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// `carryon serve` as a daemon, from the command line: downloads suspended before it started
/// are resumed with `--resume`, and finish in its process.
@Suite("carryon serve as a daemon", .heavy)
struct DaemonCommandTests {
    static let body = (0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 11) }

    @Test("serve --resume resumes a download suspended before it started; it completes in the daemon, which SIGTERM stops cleanly")
    func resumeOnStart() async throws {
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning { origin in
                origin.answer("/media.m3u8", with: .body([UInt8]("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns1.ts\n#EXT-X-ENDLIST\n".utf8)))
                origin.answer("/s1.ts", with: .stall(sent: Array(Self.body.prefix(1000)), length: Self.body.count))
                let library = ["--library", folder.path]
                let stalled = try await runCarryon(["download", origin.baseURL + "/media.m3u8", "--stall-timeout", "1"] + library)
                #expect(stalled.status == 1 && stalled.standardError.contains("suspended"), "\(stalled.standardError)")
                let lastLine = stalled.standardOutput.split(separator: "\n").last.map(String.init)
                let id = try #require(lastLine, "the id ends stdout: \(stalled.standardOutput)")

                origin.answer("/s1.ts", with: .body(Self.body))
                let server = try RunningProcess(carryon: ["serve", "--resume"] + library)
                var lines = server.lines.makeAsyncIterator()
                let base = try #require(await lines.next().flatMap(URL.init(string:)))
                let port = try #require(base.port)
                var state = ""
                for _ in 0..<200 where state != "completed" {
                    let shown = try await rawHTTP(port: port, "GET \(base.path)/api/assets/\(id) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
                    state = (try? JSONSerialization.jsonObject(with: Data(shown.body)) as? [String: Any])?["state"] as? String ?? ""
                    if state != "completed" { try await Task.sleep(for: .milliseconds(100)) }
                }
                #expect(state == "completed", "the suspended download finished in the daemon")
                server.kill(SIGTERM)
                #expect(await server.wait() == 0)
            }
        }
    }

    /// SIGTERM stops the daemon gracefully: it stops listening, lets the answers in flight finish
    /// for half a second, then cancels what is left. Connections it accepted but had not yet
    /// served were dropped at that point, and each one dropped trapped (`Deinited NIOAsyncWriter
    /// without calling finish()`): a crash where README promises a clean exit for systemd.
    @Test("serve, sent SIGTERM while 100 clients connect in a loop, exits 0 without a crash, 20 times in a row")
    func terminatedWhileConnecting() async throws {
        try await withTemporaryDirectory { folder in
            for round in 0..<20 {
                let server = try RunningProcess(carryon: ["serve", "--library", folder.path])
                var lines = server.lines.makeAsyncIterator()
                let base = try #require(await lines.next().flatMap(URL.init(string:)), "round \(round): serve printed no base URL")
                let port = try #require(base.port)
                let clients = ConnectingClients(port: port, count: 100, request: "GET \(base.path)/api/assets HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
                defer { clients.stop() }
                let connected = try await clients.waitFor(connections: 300)
                server.kill(SIGTERM)
                let status = await server.wait()
                let made = clients.connections
                #expect(connected, "round \(round): the clients made \(made) connections, not 300, before SIGTERM")
                #expect(status == 0, "round \(round): serve exited \(status) on SIGTERM: \(server.standardError.suffix(2000))")
            }
        }
    }

    @Test("serve --bind ADDRESS --host NAME listens there, shows NAME in its base URL, and accepts only its names in Host; a bad --bind or --host is a usage error")
    func bindAndHost() async throws {
        try await withTemporaryDirectory { folder in
            // 127.0.0.2 stands for a network address: nothing in a test leaves the loopback interface.
            let server = try RunningProcess(carryon: ["serve", "--bind", "127.0.0.2", "--allow-plain-http", "--host", "mediabox.test", "--library", folder.path])
            var lines = server.lines.makeAsyncIterator()
            let base = try #require(await lines.next().flatMap(URL.init(string:)))
            let port = try #require(base.port)
            #expect(base.host == "mediabox.test", "\(base)")
            func status(_ path: String, host: String) async throws -> Int {
                try await rawHTTP(port: port, address: "127.0.0.2", "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n").status
            }
            #expect(try await status("\(base.path)/api/assets", host: "mediabox.test:\(port)") == 200)
            #expect(try await status("\(base.path)/api/assets", host: "127.0.0.2:\(port)") == 200)
            #expect(try await status("\(base.path)/api/assets", host: "rebound.example:\(port)") == 403)
            #expect(try await status("/api/assets", host: "mediabox.test:\(port)") == 403, "no token")
            server.kill(SIGTERM)
            #expect(await server.wait() == 0)

            for arguments in [["--bind", "mediabox.test"], ["--host", "::"], ["--host", "bad name"], ["--tls-cert", "server.pem"]] {
                let refused = try await runCarryon(["serve"] + arguments + ["--library", folder.path])
                #expect(refused.status == 64 && refused.standardError.contains(arguments[0]), "\(arguments): \(refused.standardError)")
            }
            // Beyond loopback without TLS, only when told: the token would cross the network in clear.
            let plain = try await runCarryon(["serve", "--bind", "127.0.0.2", "--library", folder.path])
            #expect(plain.status == 64 && plain.standardError.contains("--allow-plain-http") && plain.standardError.contains("--tls-cert"), "\(plain.standardError)")
        }
    }

    @Test("serve --token-file keeps the token across restarts, in a file only its owner reads; a file without a token is refused, naming it")
    func tokenFile() async throws {
        try await withTemporaryDirectory { folder in
            let file = folder.appendingPathComponent("token").path
            var bases: [String] = []
            for _ in 0..<2 {
                let server = try RunningProcess(carryon: ["serve", "--token-file", file, "--library", folder.path])
                var lines = server.lines.makeAsyncIterator()
                bases.append(try #require(await lines.next()))
                server.kill(SIGTERM)
                #expect(await server.wait() == 0)
            }
            let token = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .newlines)
            #expect(token.count == 32 && bases.allSatisfy { $0.hasSuffix("/" + token) }, "\(bases), \(token)")
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600)

            try Data("short\n".utf8).write(to: URL(fileURLWithPath: file))
            let refused = try await runCarryon(["serve", "--token-file", file, "--library", folder.path])
            #expect(refused.status == 1 && refused.standardError.contains(file) && refused.standardError.contains("16 letters and digits"), "\(refused.standardError)")
        }
    }

    @Test("serve --verify-every checks the library at start, names the damage (a JSON line, the asset's error log, GET /api/verification), and a restart waits out the interval; a bad, tiny or huge duration is a usage error")
    func verifiesTheLibrary() async throws {
        try await withTemporaryDirectory { folder in
            let library = ["--library", folder.path]
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let download = try await runCarryon(["download", origin.baseURL + "/fmp4/main.m3u8", "--audio", "none", "--subtitles", "none"] + library)
                #expect(download.status == 0, "\(download.standardError)")
                let id = String(download.standardOutput.split(separator: "\n").last ?? "")
                let bundle = folder.appendingPathComponent("bundles/\(id)")
                let segment = try #require(FileManager.default.enumerator(atPath: bundle.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".m4s") }.sorted().first)
                let original = try Data(contentsOf: bundle.appendingPathComponent(segment))
                try original.prefix(original.count / 3).write(to: bundle.appendingPathComponent(segment))

                let server = try RunningProcess(carryon: ["serve", "--json", "--verify-every", "1h"] + library)
                var lines = server.lines.makeAsyncIterator()
                func object(_ line: String?) -> [String: Any] {
                    line.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] } ?? [:]
                }
                let listening = object(await lines.next())
                let base = try #require((listening["url"] as? String).flatMap(URL.init(string:)), "\(listening)")
                let port = try #require(base.port)
                func get(_ path: String) async throws -> [String: Any] {
                    let answer = try await rawHTTP(port: port, "GET \(base.path)/api/\(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
                    return (try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]) ?? [:]
                }
                let verified = object(await lines.next())
                #expect(verified["event"] as? String == "verified", "\(verified)")
                let check = try #require(verified["verification"] as? [String: Any])
                let damaged = try #require(check["damaged"] as? [[String: Any]])
                #expect(check["assets"] as? Int == 1 && damaged.count == 1 && damaged.first?["id"] as? String == id, "\(check)")
                let damage = try #require(damaged.first?["damage"] as? [[String: Any]])
                #expect(damage.count == 1 && damage.first?["kind"] as? String == "truncated" && damage.first?["file"] as? String == segment, "\(damage)")

                let state = try await get("verification")
                let last = try #require(state["last"] as? [String: Any], "\(state)")
                #expect(state["everySeconds"] as? Int == 3600 && (last["damaged"] as? [Any])?.count == 1, "\(state)")
                let started = try #require((last["startedAt"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) })
                let next = try #require((state["nextAt"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) })
                #expect(next.timeIntervalSince(started) == 3600)
                let logs = try await get("assets/\(id)/logs")
                let errors = try #require(logs["error"] as? [[String: String]])
                #expect(errors.contains { $0["x-event"] == "verify" && $0["x-error-code"] == "damaged-truncated" }, "\(errors)")
                server.kill(SIGTERM)
                #expect(await server.wait() == 0)

                // Started again within the hour: no check, the last one still the last.
                let checked = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("verification.json").path)[.modificationDate] as? Date
                let again = try RunningProcess(carryon: ["serve", "--verify-daily"] + library)
                var againLines = again.lines.makeAsyncIterator()
                let againBase = try #require(await againLines.next().flatMap(URL.init(string:)))
                let againPort = try #require(againBase.port)
                let answer = try await rawHTTP(port: againPort, "GET \(againBase.path)/api/verification HTTP/1.1\r\nHost: 127.0.0.1:\(againPort)\r\nConnection: close\r\n\r\n")
                let againState = (try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]) ?? [:]
                #expect(againState["everySeconds"] as? Int == 86_400, "\(againState)")
                let againNext = (againState["nextAt"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }
                #expect(againNext.map { $0.timeIntervalSince(started) } == 86_400)
                again.kill(SIGTERM)
                #expect(await again.wait() == 0)
                #expect(try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("verification.json").path)[.modificationDate] as? Date == checked)
            }
            for careless in ["daily", "0.5s", "99999999999d"] {
                let refused = try await runCarryon(["serve", "--verify-every", careless] + library)
                #expect(refused.status != 0 && refused.standardError.contains("--verify-every") && refused.standardError.contains(careless), "\(refused.standardError)")
            }
        }
    }
}
