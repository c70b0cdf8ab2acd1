import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// A live recording in the daemon's web app (issue 34): `carryon serve` records a live HLS
/// stream ffmpeg makes in real time, started through the API; Debian's Chromium, driven by
/// Playwright (`Tests/Browser/recording.py`), sees its row say "live recording" and its recorded
/// duration grow; the API's suspend then ends it complete.
@Suite("A live recording in the web app", .heavy)
struct WebAppRecordingTests {
    /// What `recording.py` saw.
    struct Watch: Decodable {
        var errors: [String]
        var first: String
        var firstSeconds: Int?
        var later: String
        var laterSeconds: Int?
        var hint: String
        var progressMax: String?
    }

    @Test("the recording's row says live recording, its recorded duration (of the 60 s asked for) grows as Chromium watches; suspend through the API ends it completed")
    func watched() async throws {
        let python = try requireBrowserPython()
        try await withTemporaryDirectory { folder in
            let stream = try LiveHLSStream(in: folder.appendingPathComponent("origin"))
            try await stream.waitForSegments(3)
            try await Origin(root: stream.folder.path).withRunning { origin in
                let server = try RunningProcess(carryon: ["serve", "--library", folder.appendingPathComponent("library").path])
                defer { server.kill(SIGTERM) }
                var lines = server.lines.makeAsyncIterator()
                let base = try #require(await lines.next().flatMap(URL.init(string:)), "serve prints its base URL first")
                let daemon = try #require(DaemonClient(base: base))
                let started = try await daemon.call("POST", "assets", body: #"{"url": "\#(origin.baseURL + LiveHLSStream.path)", "name": "Live", "duration": 60}"#)
                #expect(started.status == 201, "\(String(describing: started.json))")
                let id = try #require(started.json?["id"] as? String)

                let result = try await run(python, [packageRoot.appendingPathComponent("Tests/Browser/recording.py").path, base.absoluteString, "Live"])
                guard result.status == 0 else {
                    throw TestSupportError("watching the recording failed (recording.py status \(result.status)): \(result.standardError.suffix(4000))")
                }
                let watch = try JSONDecoder().decode(Watch.self, from: Data(result.standardOutput.utf8))
                #expect(watch.errors.isEmpty, "\(watch.errors)")
                #expect(watch.hint.hasPrefix("live recording"), "\(watch.hint)")
                #expect(watch.first.contains(" of 1:00") && watch.progressMax == "60", "\(watch.first), max \(String(describing: watch.progressMax))")
                let first = try #require(watch.firstSeconds), later = try #require(watch.laterSeconds)
                #expect(later >= first + 4, "the recorded duration grew: \(watch.first) → \(watch.later)")

                #expect(try await daemon.call("POST", "assets/\(id)/suspend").status < 300)
                var state = ""
                for _ in 0..<300 where state != "completed" {
                    state = try await daemon.call("GET", "assets/\(id)").json?["state"] as? String ?? ""
                    if state != "completed" { try await Task.sleep(for: .milliseconds(100)) }
                }
                #expect(state == "completed", "a recording the API stops ends complete")
            }
        }
    }
}
