@testable import Carryon
@testable import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// Every answer of the playback server (and the daemon's API and web app on it) carries
/// `X-Content-Type-Options: nosniff` and a Content-Security-Policy, and a 404 says nothing of
/// the path asked for: a link to the server cannot make it reflect a page.
@Suite("What every playback answer carries")
struct AnswerHeadersTests {
    @Test("nosniff and a CSP on every answer; the web page keeps its own CSP; a 404 or 405 does not echo the path")
    func headers() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            let session = try await DownloadSession(library: library)
            var playback = try PlaybackServer(source: PlaybackSource(library: library, session: session))
            playback.api = DaemonAPI(session: session)
            try await playback.withRunning { handle in
                let base = try #require(URL(string: handle.baseURL)).path
                let payload = "%3Cscript%3Ealert(1)%3C%2Fscript%3E"
                let paths = ["\(base)/", "\(base)/api/assets", "\(base)/api/\(payload)", "\(base)/\(payload)/main.m3u8",
                             "\(base)/nosuchasset/\(payload).ts", "/notthetoken/x", "\(base)/api/assets/\(payload)/logs"]
                for path in paths {
                    let response = try await rawHTTP(port: handle.port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(handle.port)\r\nConnection: close\r\n\r\n")
                    #expect(response.header("X-Content-Type-Options") == "nosniff", "\(path): \(response.head)")
                    let policy = try #require(response.header("Content-Security-Policy"), "\(path): \(response.head)")
                    #expect(policy.contains("default-src 'none'") || path == "\(base)/", "\(path): \(policy)")
                    let body = String(decoding: response.body, as: UTF8.self)
                    if response.status >= 400 {
                        #expect(!body.contains("script") && !body.contains("alert"), "\(path) \(response.status): \(body)")
                    }
                }
                let wrongMethod = try await rawHTTP(port: handle.port, "PATCH \(base)/api/assets HTTP/1.1\r\nHost: 127.0.0.1:\(handle.port)\r\nConnection: close\r\n\r\n")
                #expect(wrongMethod.status == 405 && wrongMethod.header("X-Content-Type-Options") == "nosniff")
            }
            await session.shutdown()
        }
    }
}
