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
