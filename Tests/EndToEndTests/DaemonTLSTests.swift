import AsyncHTTPClient
import CarryonServer
import CarryonTestSupport
import Foundation
import NIOSSL
import Testing

/// `carryon serve --tls-cert --tls-key` (issue 38): the daemon's API and playback over HTTPS on
/// `::1`, a certificate renewed on SIGHUP, and a pair that does not load refused by name.
@Suite("The daemon over TLS", .heavy)
struct DaemonTLSTests {
    /// The serial number of the certificate `https://[::1]:port` presents now (openssl s_client).
    static func servedSerial(port: Int) async throws -> String {
        let openssl = try ServerProgram.require("openssl")
        let shell = try ServerProgram.require("sh")
        let result = try await run(shell, ["-c", "\(openssl.path) s_client -connect '[::1]:\(port)' </dev/null 2>/dev/null | \(openssl.path) x509 -noout -serial"])
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The serial number of the certificate in `file`.
    static func serial(of file: URL) async throws -> String {
        let result = try await run(try ServerProgram.require("openssl"), ["x509", "-in", file.path, "-noout", "-serial"])
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("serve --tls-cert on ::1: the base URL is https, the API answers a client that trusts the CA, ffmpeg plays an asset over https, SIGHUP serves a renewed certificate to new connections and a broken one is refused while the old stays")
    func daemonOverTLS() async throws {
        try await withTemporaryDirectory { folder in
            let ca = try await TestCA.make(in: folder.appendingPathComponent("ca"))
            let first = try await ca.issue("first", for: ["localhost", "::1", "127.0.0.1"])
            let renewed = try await ca.issue("renewed", for: ["localhost", "::1", "127.0.0.1"])
            let library = folder.appendingPathComponent("library").path
            // An asset to play, from a plain loopback origin.
            let id = try await Origin(root: sampleMedia.path).withRunning { origin in
                let result = try await runCarryon(["download", origin.baseURL + "/fmp4/main.m3u8", "--library", library, "--max-resolution", "320x180",
                                                   "--audio", "en", "--subtitles", "none", "--no-hdr"])
                #expect(result.status == 0, "\(result.standardError)")
                return try #require(result.standardOutput.split(separator: "\n").last.map(String.init))
            }
            // The files serve reads: replaced in place on renewal, as certbot does.
            let certificate = folder.appendingPathComponent("server.pem")
            let key = folder.appendingPathComponent("server.key")
            try FileManager.default.copyItem(at: first.certificate, to: certificate)
            try FileManager.default.copyItem(at: first.key, to: key)

            let server = try RunningProcess(carryon: ["serve", "--bind", "::1", "--tls-cert", certificate.path, "--tls-key", key.path, "--library", library])
            var lines = server.lines.makeAsyncIterator()
            let base = try #require(await lines.next(), "serve printed no base URL: \(server.standardError)")
            #expect(base.hasPrefix("https://[::1]:"), "\(base)")
            let port = try #require(URLComponents(string: base)?.port)

            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(ca.certificate.path)
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
            do {
                let answer = try await client.execute(HTTPClientRequest(url: base + "/api/assets"), timeout: .seconds(30))
                let body = try await answer.body.collect(upTo: 1 << 20)
                #expect(answer.status.code == 200 && String(buffer: body).contains(id), "\(answer.status): \(String(buffer: body).prefix(300))")
                // A web page's request to change the library is refused; the web app's own (https) Origin is not.
                var foreign = HTTPClientRequest(url: base + "/api/assets/\(id)/suspend")
                foreign.method = .POST
                foreign.headers.add(name: "Origin", value: "http://[::1]:\(port)")
                #expect(try await client.execute(foreign, timeout: .seconds(30)).status.code == 403)
                try await client.shutdown()
            } catch {
                try? await client.shutdown()
                throw error
            }
            // ffmpeg plays the asset over https (it does not verify certificates by default).
            let frames = try await decodedVideoFrames(base + "/\(id)/main.m3u8")
            #expect(frames > 100, "\(frames) frames over https")

            #expect(try await Self.servedSerial(port: port) == (try await Self.serial(of: first.certificate)))
            try FileManager.default.removeItem(at: certificate)
            try FileManager.default.removeItem(at: key)
            try FileManager.default.copyItem(at: renewed.certificate, to: certificate)
            try FileManager.default.copyItem(at: renewed.key, to: key)
            server.kill(SIGHUP)
            let renewedSerial = try await Self.serial(of: renewed.certificate)
            var served = ""
            for _ in 0..<100 {
                served = try await Self.servedSerial(port: port)
                if served == renewedSerial { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(served == renewedSerial, "after SIGHUP the renewed certificate is served")
            // A key that is not the certificate's: refused on reload, the renewed one still served.
            try FileManager.default.removeItem(at: key)
            try FileManager.default.copyItem(at: first.key, to: key)
            server.kill(SIGHUP)
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await Self.servedSerial(port: port) == renewedSerial)
            server.kill(SIGTERM)
            #expect(await server.wait() == 0)
            #expect(server.standardError.contains("is not the private key of --tls-cert"), "\(server.standardError)")

            let mismatched = try await runCarryon(["serve", "--tls-cert", certificate.path, "--tls-key", key.path, "--library", library])
            #expect(mismatched.status != 0 && mismatched.standardError.contains("is not the private key of --tls-cert"), "\(mismatched.standardError)")
        }
    }
}
