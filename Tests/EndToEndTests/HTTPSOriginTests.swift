@testable import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// The network real users have (issue 38): nginx from Debian serving the sample over HTTPS and
/// HTTP/2 with certificates from a CA the test makes, reached by `carryon` as a person runs it —
/// without the CA trusted, with `--cacert` and `SSL_CERT_FILE`, through tinyproxy (CONNECT, with
/// a password) and microsocks (SOCKS5), with `NO_PROXY`.
@Suite("HTTPS and HTTP/2 origins, trust and proxies", .heavy)
struct HTTPSOriginTests {
    /// What each download takes: the smallest variant, English audio, no subtitles.
    static let small = ["--max-resolution", "320x180", "--audio", "en", "--subtitles", "none", "--no-hdr"]
    /// The environment with no trust but the system's: this machine's SSL_CERT_FILE and
    /// SSL_CERT_DIR point at the system store, which the test's CA is not in.
    static let systemTrust = ["SSL_CERT_FILE": "", "SSL_CERT_DIR": "", "HTTPS_PROXY": "", "https_proxy": "", "ALL_PROXY": "", "all_proxy": ""]

    /// A CA, its good, expired and wrong-name certificates, and nginx serving the sample with
    /// each (in that order).
    static func withOrigins(_ body: (TestCA, TLSOrigin.Running, URL) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            let ca = try await TestCA.make(in: folder.appendingPathComponent("ca"))
            let good = try await ca.issue("good")
            let expired = try await ca.issue("expired", expired: true)
            let other = try await ca.issue("other", for: ["other.example"])
            try await TLSOrigin.withRunning(root: sampleMedia, certificates: [good, expired, other], in: folder) { origins in
                try await body(ca, origins, folder)
            }
        }
    }

    /// What no message of the HTTP layer may show: a library's internals, a build path.
    static func expectPlainWords(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for inner in ["NIOSSL", "BoringSSL", "error:1000", "/.build/", "handshake.cc", "SingleConnectionFailure", "HTTPClientError"] {
            #expect(!text.contains(inner), "\(inner) in: \(text)", sourceLocation: sourceLocation)
        }
    }

    /// Every bundle file of asset `id` is the sample's bytes, and nginx served them over HTTP/2.
    static func expectIdentical(_ id: String, library: URL, origin: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let bundle = library.appendingPathComponent("bundles/\(id)")
        let manifest = try JSONDecoder.iso8601.decode(BundleManifest.self, from: Data(contentsOf: bundle.appendingPathComponent("manifest.json")))
        #expect(manifest.files.count > 4, "\(manifest.files.count) files", sourceLocation: sourceLocation)
        for file in manifest.files {
            let local = try Data(contentsOf: bundle.appendingPathComponent(file.path))
            let source = try Data(contentsOf: sampleMedia.appendingPathComponent(String(file.uri.dropFirst(origin.count + 1))))
            #expect(local == source, "\(id): \(file.path)", sourceLocation: sourceLocation)
        }
    }

    /// The asset id a `download` printed last on standard output.
    static func downloaded(_ result: ProcessResult) -> String? {
        result.standardOutput.split(separator: "\n").last.map(String.init)
    }

    @Test("an untrusted, an expired and a wrong-name certificate each fail at once, not retried, in their own words; --cacert and SSL_CERT_FILE each make the download byte-identical, over HTTP/2")
    func trust() async throws {
        try await Self.withOrigins { ca, origins, folder in
            let library = folder.appendingPathComponent("library").path
            let (good, expired, other) = (origins.baseURLs[0], origins.baseURLs[1], origins.baseURLs[2])
            let cases: [(String, [String], [String])] = [
                (good, [], ["the server's certificate for 127.0.0.1 is not trusted", "issued by \"Carryon Test CA\"", "--cacert"]),
                (expired, ["--cacert", ca.certificate.path], ["the server's certificate for 127.0.0.1 expired on "]),
                (other, ["--cacert", ca.certificate.path], ["the server's certificate is for other.example, not for 127.0.0.1"]),
            ]
            for (origin, trust, words) in cases {
                let refused = try await runCarryon(["download", origin + "/fmp4/main.m3u8", "--library", library] + trust + Self.small,
                                                   environment: Self.systemTrust)
                #expect(refused.status == 1, "\(origin): \(refused.standardError)")
                for word in words { #expect(refused.standardError.contains(word), "\(word) not in: \(refused.standardError)") }
                #expect(!refused.standardError.contains("attempts"), "a certificate that does not verify is not retried: \(refused.standardError)")
                Self.expectPlainWords(refused.standardError)
            }
            let inspected = try await runCarryon(["inspect", good + "/fmp4/main.m3u8"], environment: Self.systemTrust)
            #expect(inspected.status == 1 && inspected.standardError.contains("is not trusted"), "\(inspected.standardError)")

            let withOption = try await runCarryon(["download", good + "/fmp4/main.m3u8", "--library", library, "--cacert", ca.certificate.path] + Self.small,
                                                  environment: Self.systemTrust)
            #expect(withOption.status == 0, "\(withOption.standardError)")
            try Self.expectIdentical(try #require(Self.downloaded(withOption)), library: URL(fileURLWithPath: library), origin: good)

            var environment = Self.systemTrust
            environment["SSL_CERT_FILE"] = ca.certificate.path
            let withVariable = try await runCarryon(["download", good + "/fmp4/main.m3u8", "--library", library, "--name", "second"] + Self.small,
                                                    environment: environment)
            #expect(withVariable.status == 0, "\(withVariable.standardError)")
            try Self.expectIdentical(try #require(Self.downloaded(withVariable)), library: URL(fileURLWithPath: library), origin: good)
            let segments = origins.accessLines().filter { $0.contains(".m4s") || $0.contains(".mp4") }
            #expect(!segments.isEmpty && segments.allSatisfy { $0.contains("HTTP/2.0\"") }, "every request over HTTP/2: \(segments.prefix(3))")

            // An IPv6 origin, its certificate naming ::1.
            let port = try #require(URLComponents(string: good)?.port)
            let overIPv6 = try await runCarryon(["inspect", "https://[::1]:\(port)/fmp4/main.m3u8", "--cacert", ca.certificate.path],
                                                environment: Self.systemTrust)
            #expect(overIPv6.status == 0 && overIPv6.standardOutput.contains("3 variants"), "\(overIPv6.standardError)")

            // A --cacert file that is not there, or holds no certificate, is refused before any request.
            let missing = try await runCarryon(["inspect", good + "/fmp4/main.m3u8", "--cacert", folder.appendingPathComponent("none.pem").path])
            #expect(missing.status != 0 && missing.standardError.contains("none.pem, which does not exist"), "\(missing.standardError)")
            let notPEM = try await runCarryon(["inspect", good + "/fmp4/main.m3u8", "--cacert", ca.folder.appendingPathComponent("good.ext").path])
            #expect(notPEM.status != 0 && notPEM.standardError.contains("holds no PEM certificate"), "\(notPEM.standardError)")
            // --insecure works, and says loudly what it costs.
            let insecure = try await runCarryon(["inspect", expired + "/fmp4/main.m3u8", "--insecure"], environment: Self.systemTrust)
            #expect(insecure.status == 0 && insecure.standardError.contains("NOT verified"), "\(insecure.standardError)")
        }
    }

    /// A line of `--json` output as an object, or nil.
    static func object(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }

    @Test("`play` resuming a download from an origin it was not told to trust says on standard error why the download stopped, in words, with the hint; it goes on serving what is stored")
    func playSaysWhyItsDownloadStopped() async throws {
        try await Self.withOrigins { ca, origins, folder in
            let library = folder.appendingPathComponent("library").path
            let url = origins.baseURLs[0] + "/fmp4/main.m3u8"
            // Killed a fifth of the way: incomplete, its origin trusted only by that process's --cacert.
            let download = try RunningProcess(carryon: ["download", url, "--library", library, "--json", "--limit-rate", "100K",
                                                        "--cacert", ca.certificate.path] + Self.small,
                                              environment: Self.systemTrust) { line in
                Self.object(line).map { $0["event"] as? String == "progress" && ($0["fraction"] as? Double ?? 0) > 0.2 } ?? false
            }
            var id: String?
            for await line in download.lines { id = Self.object(line)?["id"] as? String ?? id }
            #expect(await download.wait() == 128 + SIGKILL, "the download was to be killed part way")
            let asset = try #require(id)

            let play = try RunningProcess(carryon: ["play", asset, "--library", library], environment: Self.systemTrust)
            var lines = play.lines.makeAsyncIterator()
            let playlist = try #require(await lines.next())
            #expect(playlist.hasSuffix("/\(asset)/main.m3u8"), "\(playlist)")
            // Its first request meets the certificate, which is not retried: the download fails.
            var state = "running"
            for _ in 0..<150 where ["running", "waiting", "suspended"].contains(state) {
                try await Task.sleep(for: .milliseconds(100))
                let shown = try await runCarryon(["show", asset, "--library", library, "--json"])
                state = Self.object(shown.standardOutput)?["state"] as? String ?? state
            }
            #expect(state == "failed")
            // Still serving: what is stored plays (the playlists end before the first missing segment).
            let served = String(decoding: try await httpGet(playlist), as: UTF8.self)
            #expect(served.hasPrefix("#EXTM3U"), "\(served.prefix(200))")
            play.kill(SIGINT)
            _ = await play.wait()
            let said = play.standardError
            #expect(said.contains("\(asset): the download stopped: "), "\(said)")
            #expect(said.contains("the server's certificate for 127.0.0.1 is not trusted") && said.contains("--cacert"), "\(said)")
            Self.expectPlainWords(said)
        }
    }

    @Test("through tinyproxy with HTTPS_PROXY and with --proxy (its log shows CONNECT), through microsocks (SOCKS5), around a dead proxy by NO_PROXY; certificates that do not verify told apart through either proxy; the proxy's password is in no output")
    func proxies() async throws {
        try await Self.withOrigins { ca, origins, folder in
            let library = folder.appendingPathComponent("library")
            let good = origins.baseURLs[0]
            let password = "s3cr3t-pass"
            let trust = ["--cacert", ca.certificate.path]
            try await TestProxy.withTinyproxy(user: "carry", password: password, in: folder) { port, log in
                var outputs: [String] = []
                var environment = Self.systemTrust
                environment["HTTPS_PROXY"] = "http://carry:\(password)@127.0.0.1:\(port)"
                let viaVariable = try await runCarryon(["download", good + "/fmp4/main.m3u8", "--library", library.path, "--name", "variable"] + trust + Self.small,
                                                       environment: environment)
                outputs += [viaVariable.standardOutput, viaVariable.standardError]
                #expect(viaVariable.status == 0, "\(viaVariable.standardError)")
                let first = try #require(Self.downloaded(viaVariable))
                try Self.expectIdentical(first, library: library, origin: good)
                let connects = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.contains("CONNECT \(good.dropFirst("https://".count))") }
                #expect(!connects.isEmpty, "tinyproxy's log shows CONNECT to the origin")

                let viaOption = try await runCarryon(["download", good + "/fmp4/main.m3u8", "--library", library.path, "--name", "option",
                                                      "--proxy", "http://carry:\(password)@127.0.0.1:\(port)"] + trust + Self.small,
                                                     environment: Self.systemTrust)
                outputs += [viaOption.standardOutput, viaOption.standardError]
                #expect(viaOption.status == 0, "\(viaOption.standardError)")
                try Self.expectIdentical(try #require(Self.downloaded(viaOption)), library: library, origin: good)

                // A certificate that does not verify, through the proxy: told apart as it is
                // directly (the probe that reads it goes through the same tunnel).
                let proxy = ["--proxy", "http://carry:\(password)@127.0.0.1:\(port)"]
                let untrusted = try await runCarryon(["inspect", good + "/fmp4/main.m3u8"] + proxy, environment: Self.systemTrust)
                let expired = try await runCarryon(["inspect", origins.baseURLs[1] + "/fmp4/main.m3u8"] + proxy + trust, environment: Self.systemTrust)
                let otherName = try await runCarryon(["inspect", origins.baseURLs[2] + "/fmp4/main.m3u8"] + proxy + trust, environment: Self.systemTrust)
                outputs += [untrusted.standardError, expired.standardError, otherName.standardError]
                #expect(untrusted.status == 1 && untrusted.standardError.contains("is not trusted: it was issued by \"Carryon Test CA\""), "\(untrusted.standardError)")
                #expect(expired.status == 1 && expired.standardError.contains("the server's certificate for 127.0.0.1 expired on "), "\(expired.standardError)")
                #expect(otherName.status == 1 && otherName.standardError.contains("the server's certificate is for other.example, not for 127.0.0.1"), "\(otherName.standardError)")

                let wrong = try await runCarryon(["inspect", good + "/fmp4/main.m3u8", "--proxy", "http://carry:wrong-\(password)@127.0.0.1:\(port)"] + trust,
                                                 environment: Self.systemTrust)
                outputs += [wrong.standardOutput, wrong.standardError]
                #expect(wrong.status == 1 && wrong.standardError.contains("the proxy http://carry:***@127.0.0.1:\(port) refused"), "\(wrong.standardError)")
                Self.expectPlainWords(wrong.standardError)
                var without = Self.systemTrust
                without["HTTPS_PROXY"] = "127.0.0.1:\(port)"
                let noCredentials = try await runCarryon(["inspect", good + "/fmp4/main.m3u8"] + trust, environment: without)
                #expect(noCredentials.status == 1 && noCredentials.standardError.contains("asks for a user name and password"), "\(noCredentials.standardError)")

                for command in [["list", "--json"], ["list"], ["show", first], ["show", first, "--json"], ["logs", first, "--json"]] {
                    let shown = try await runCarryon(command + ["--library", library.path])
                    outputs += [shown.standardOutput, shown.standardError]
                }
                for output in outputs { #expect(!output.contains(password), "the proxy's password in: \(output.prefix(400))") }
                let files = try FileManager.default.subpathsOfDirectory(atPath: library.path).filter { !$0.hasSuffix(".m4s") && !$0.hasSuffix(".mp4") }
                for file in files {
                    let data = (try? Data(contentsOf: library.appendingPathComponent(file))) ?? Data()
                    #expect(data.range(of: Data(password.utf8)) == nil, "the proxy's password in the library's \(file)")
                }
            }
            try await TestProxy.withMicrosocks { port in
                let viaSOCKS = try await runCarryon(["download", good + "/fmp4/main.m3u8", "--library", library.path, "--name", "socks",
                                                     "--proxy", "socks5://127.0.0.1:\(port)"] + trust + Self.small, environment: Self.systemTrust)
                #expect(viaSOCKS.status == 0, "\(viaSOCKS.standardError)")
                try Self.expectIdentical(try #require(Self.downloaded(viaSOCKS)), library: library, origin: good)
                let untrusted = try await runCarryon(["inspect", good + "/fmp4/main.m3u8", "--proxy", "socks5://127.0.0.1:\(port)"], environment: Self.systemTrust)
                #expect(untrusted.status == 1 && untrusted.standardError.contains("is not trusted: it was issued by \"Carryon Test CA\""), "\(untrusted.standardError)")
                Self.expectPlainWords(untrusted.standardError)
            }
            // A proxy that is not there, and NO_PROXY naming the origin's host: no request goes to it.
            var bypass = Self.systemTrust
            bypass["HTTPS_PROXY"] = "http://127.0.0.1:\(try ServerProgram.freePort())"
            bypass["NO_PROXY"] = "localhost,127.0.0.0/8"
            let direct = try await runCarryon(["download", good + "/fmp4/main.m3u8", "--library", library.path, "--name", "direct"] + trust + Self.small,
                                              environment: bypass)
            #expect(direct.status == 0, "\(direct.standardError)")
            bypass["NO_PROXY"] = "example.com"
            let proxied = try await runCarryon(["inspect", good + "/fmp4/main.m3u8"] + trust, environment: bypass)
            #expect(proxied.status == 1 && proxied.standardError.contains("failed: connection refused"), "\(proxied.standardError)")
            Self.expectPlainWords(proxied.standardError)
        }
    }
}
