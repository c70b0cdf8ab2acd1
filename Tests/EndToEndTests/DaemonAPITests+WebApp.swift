import Carryon
@testable import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// How the daemon serves its web app: at the base URL, from the binary, under its policy.
extension DaemonAPITests {
    @Test("the web app is served at the base URL from the binary, every file with the Content-Security-Policy; the token and Host guard it; only GET and HEAD")
    func webAppFiles() async throws {
        try await withDaemon { daemon in
            func get(_ path: String, method: String = "GET", host: String? = nil) async throws -> RawHTTPResponse {
                try await rawHTTP(port: daemon.port, "\(method) \(path) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(daemon.port)")\r\nConnection: close\r\n\r\n")
            }
            let page = try await get(daemon.path + "/")
            let html = String(decoding: page.body, as: UTF8.self)
            #expect(page.status == 200 && page.header("content-type") == "text/html; charset=utf-8")
            #expect(page.header("content-security-policy") == WebApp.contentSecurityPolicy && page.header("x-content-type-options") == "nosniff")
            #expect(html.contains(#"<script type="module" src="app/app.js"></script>"#))
            let references = html.components(separatedBy: #"src=""#).dropFirst() + html.components(separatedBy: #"href=""#).dropFirst()
            #expect(references.count >= 3 && references.allSatisfy { !$0.hasPrefix("http") && !$0.hasPrefix("//") },
                    "the page loads nothing from outside the daemon: \(references.map { $0.prefix(30) })")

            let bare = try await get(daemon.path)
            #expect(bare.status == 308 && bare.header("location") == daemon.path + "/", "relative URLs need the slash")

            for (path, file) in WebApp.files where !path.isEmpty {
                let served = try await get("\(daemon.path)/\(path)")
                #expect(served.status == 200 && String(decoding: served.body, as: UTF8.self) == file.text, "\(path)")
                #expect(served.header("content-type") == file.contentType && served.header("content-security-policy") != nil, "\(path)")
                let scripts = String(decoding: served.body, as: UTF8.self)
                #expect(!scripts.contains("innerHTML") && !scripts.contains("eval("), "\(path) builds the page from text, never from HTML strings")
            }
            #expect(try await get(daemon.path + "/app/app.js", method: "HEAD").body.isEmpty)
            #expect(try await get(daemon.path + "/app/app.js", method: "POST").status == 405)
            #expect(try await get("/app/app.js").status == 403, "no token")
            #expect(try await get(daemon.path + "/", host: "rebound.example:\(daemon.port)").status == 403, "DNS rebinding")
            #expect(try await get(daemon.path + "/app/nothing.js").status == 404)

            let api = try await daemon.call("GET", "assets")
            #expect(api.response.header("content-security-policy") == WebApp.contentSecurityPolicy, "API answers carry the policy too")
        }
    }
}
