import Carryon
@testable import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// The daemon's JSON API (`carryon serve`, `<base URL>/api/`): a download started, watched,
/// steered and deleted over HTTP, and every refusal a hostile or mistaken caller meets — each
/// an `{"error": {code, message, hint}}` with a 4xx status.
@Suite("The daemon's JSON API", .heavy)
struct DaemonAPITests {
    /// A running daemon over a new library in `folder`: the session, the playback server with
    /// the API, and the sample stream's origin.
    struct Daemon {
        var port: Int
        var path: String
        var origin: String
        var session: DownloadSession

        /// Sends `method` to `/api/<path>` with `body`, the Host the server expects and any
        /// `headers`.
        func call(_ method: String, _ path: String, body: String? = nil, headers: [String] = []) async throws -> (status: Int, json: Any?, response: RawHTTPResponse) {
            var request = "\(method) \(self.path)/api/\(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
            for header in headers { request += header + "\r\n" }
            if let body { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)" } else { request += "\r\n" }
            let response = try await rawHTTP(port: port, request)
            let json = response.body.isEmpty ? nil : try? JSONSerialization.jsonObject(with: Data(response.body))
            return (response.status, json, response)
        }

        /// The error object of an error answer.
        func error(_ json: Any?) -> [String: Any] {
            ((json as? [String: Any])?["error"] as? [String: Any]) ?? [:]
        }
    }

    /// `catalog` gives the catalog's JSON for the origin's base URL; the origin serves `media`.
    func withDaemon(allowFiles: [String] = [], catalog: (@Sendable (String) -> String)? = nil, media: URL = sampleMedia,
                    _ body: @Sendable (Daemon) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            let session = try await DownloadSession(library: library)
            try await Origin(root: media.path).withRunning { origin in
                var server = try PlaybackServer(source: PlaybackSource(library: library, session: session))
                let streams = try catalog.map { try StreamCatalog(data: Data($0(origin.baseURL).utf8)) }
                server.api = DaemonAPI(session: session, streams: StreamURLRule(allowedFolders: allowFiles), catalog: streams)
                try await server.withRunning { handle in
                    let base = try #require(URL(string: handle.baseURL))
                    try await body(Daemon(port: handle.port, path: base.path, origin: origin.baseURL, session: session))
                }
            }
            await session.shutdown()
        }
    }

    @Test("POST /api/assets starts a download with the command line's options; GET watches it to completion, it plays, GET /api/assets lists it, DELETE removes it")
    func downloadLifecycle() async throws {
        try await withDaemon { daemon in
            let started = try await daemon.call("POST", "assets", body: #"{"url": "\#(daemon.origin)/fmp4/main.m3u8", "name": "sample", "audio": ["de"], "subtitles": "none", "maxResolution": "640x360"}"#)
            #expect(started.status == 201, "\(String(decoding: started.response.body, as: UTF8.self))")
            let asset = try #require(started.json as? [String: Any])
            let id = try #require(asset["id"] as? String)
            #expect(asset["name"] as? String == "sample")
            #expect(started.response.header("Location") == "assets/\(id)")

            var state = ""
            let deadline = ContinuousClock.now + .seconds(100)
            while state != "completed", ContinuousClock.now < deadline {
                let shown = try await daemon.call("GET", "assets/\(id)")
                state = (shown.json as? [String: Any])?["state"] as? String ?? ""
                if state == "failed" { Issue.record("failed: \(String(decoding: shown.response.body, as: UTF8.self))"); return }
                if state != "completed" { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(state == "completed")
            let shown = try #require(try await daemon.call("GET", "assets/\(id)").json as? [String: Any])
            let selection = try #require(shown["selection"] as? [String: Any])
            let renditions = try #require(selection["renditions"] as? [[String: Any]])
            #expect(renditions.compactMap { $0["language"] as? String } == ["de"], "\(renditions)")
            let playlist = try #require(shown["playlist"] as? String)
            #expect(try await decodedVideoFrames(playlist) > 0)

            let list = try await daemon.call("GET", "assets")
            #expect(list.status == 200 && (list.json as? [[String: Any]])?.map { $0["id"] as? String } == [id])

            let deleted = try await daemon.call("DELETE", "assets/\(id)")
            #expect(deleted.status == 204)
            let gone = try await daemon.call("GET", "assets/\(id)")
            #expect(gone.status == 404 && daemon.error(gone.json)["code"] as? String == "unknown-asset", "\(gone.json ?? "")")
            #expect(!FileManager.default.fileExists(atPath: playlist))
        }
    }

    @Test("suspend, resume and cancel steer a download (one whose segment never ends, so it is running when asked); an action its state does not allow is 409")
    func steering() async throws {
        try await HostileOrigin.withRunning { slow in
            slow.answer("/media.m3u8", with: .body([UInt8]("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns1.ts\n#EXT-X-ENDLIST\n".utf8)))
            slow.answer("/s1.ts", with: .stall(sent: [0x47], length: 188_000))
            try await withDaemon { daemon in
                let started = try await daemon.call("POST", "assets", body: #"{"url": "\#(slow.baseURL)/media.m3u8"}"#)
                let id = try #require((started.json as? [String: Any])?["id"] as? String)
                func state(_ answer: (status: Int, json: Any?, response: RawHTTPResponse)) -> String? {
                    (answer.json as? [String: Any])?["state"] as? String
                }
                let suspended = try await daemon.call("POST", "assets/\(id)/suspend")
                #expect(suspended.status == 200 && state(suspended) == "suspended", "\(suspended.json ?? "")")
                let resumed = try await daemon.call("POST", "assets/\(id)/resume")
                #expect(resumed.status == 200 && ["waiting", "running"].contains(state(resumed)), "\(resumed.json ?? "")")
                let cancelled = try await daemon.call("POST", "assets/\(id)/cancel")
                #expect(cancelled.status == 200 && state(cancelled) == "cancelled", "\(cancelled.json ?? "")")
                let again = try await daemon.call("POST", "assets/\(id)/resume")
                #expect(again.status == 409 && daemon.error(again.json)["code"] as? String == "invalid-state", "\(again.json ?? "")")
                let unknown = try await daemon.call("POST", "assets/zzzzzzzzzz/resume")
                #expect(unknown.status == 404 && daemon.error(unknown.json)["code"] as? String == "unknown-asset")
            }
        }
    }

    @Test("local files are refused unless under --allow-files, without being read; other schemes and host-less URLs are refused; nothing is recorded")
    func streamURLs() async throws {
        try await withTemporaryDirectory { allowed in
            let secret = "CANARY-daemon-NOT-TO-BE-READ"
            let outside = allowed.deletingLastPathComponent().appendingPathComponent("outside-\(UUID().uuidString).m3u8")
            try "#EXTM3U\n##\(secret)\n".write(to: outside, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: outside) }
            let inside = try allowed.write("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nhttp://127.0.0.1:9/s.ts\n#EXT-X-ENDLIST\n", to: "inside.m3u8")
            try await withDaemon(allowFiles: [allowed.path]) { daemon in
                for url in [outside.absoluteString, outside.path, "file:///etc/passwd", allowed.path + "/../" + outside.lastPathComponent,
                            "ftp://example.com/a.m3u8", "http:///main.m3u8", "main.m3u8"] {
                    let refused = try await daemon.call("POST", "assets", body: #"{"url": "\#(url)"}"#)
                    let error = daemon.error(refused.json)
                    #expect(refused.status == 400 && error["code"] as? String == "url-refused", "\(url): \(refused.json ?? "")")
                    #expect((error["message"] as? String)?.contains(url) == true, "the error names the URL: \(error)")
                    #expect(!String(decoding: refused.response.body, as: UTF8.self).contains(secret))
                }
                #expect((try await daemon.call("GET", "assets").json as? [Any])?.isEmpty == true, "nothing was recorded")
                let accepted = try await daemon.call("POST", "assets", body: #"{"url": "\#(inside.absoluteString)"}"#)
                #expect(accepted.status == 201, "a stream under --allow-files: \(accepted.json ?? "")")
            }
        }
    }

    @Test("another page's Origin may not change anything (403); a bad body is 400, an unknown path 404, a wrong method 405; the token and Host still guard the API")
    func refusals() async throws {
        try await withDaemon { daemon in
            let body = #"{"url": "\#(daemon.origin)/ts/main.m3u8"}"#
            let foreign = try await daemon.call("POST", "assets", body: body, headers: ["Origin: https://evil.example"])
            #expect(foreign.status == 403 && daemon.error(foreign.json)["code"] as? String == "foreign-origin", "\(foreign.json ?? "")")
            let own = try await daemon.call("GET", "assets", headers: ["Origin: https://evil.example"])
            #expect(own.status == 200, "reading is not refused by Origin: the token guards it")
            #expect((try await daemon.call("GET", "assets").json as? [Any])?.isEmpty == true, "the foreign POST started nothing")
            let sameOrigin = try await daemon.call("POST", "assets", body: body, headers: ["Origin: http://127.0.0.1:\(daemon.port)"])
            #expect(sameOrigin.status == 201, "the daemon's own page may: \(sameOrigin.json ?? "")")

            for (text, field) in [("not json", "it is not JSON"), (#"{"name": "x"}"#, "url is missing"), (#"{"url": 7}"#, "url has the wrong type")] {
                let bad = try await daemon.call("POST", "assets", body: text)
                let error = daemon.error(bad.json)
                #expect(bad.status == 400 && error["code"] as? String == "bad-request" && (error["message"] as? String)?.contains(field) == true,
                        "\(text): \(bad.json ?? "")")
                #expect(error["hint"] is String)
            }
            let resolution = try await daemon.call("POST", "assets", body: #"{"url": "\#(daemon.origin)/ts/main.m3u8", "maxResolution": "big"}"#)
            #expect(resolution.status == 400 && (daemon.error(resolution.json)["message"] as? String)?.contains("maxResolution") == true)

            let unknownPath = try await daemon.call("GET", "nothing-here")
            #expect(unknownPath.status == 404 && daemon.error(unknownPath.json)["code"] as? String == "not-found")
            let unknownAction = try await daemon.call("POST", "assets/x/explode")
            #expect(unknownAction.status == 404)
            let wrongMethod = try await daemon.call("PUT", "assets")
            #expect(wrongMethod.status == 405 && daemon.error(wrongMethod.json)["code"] as? String == "method-not-allowed")

            let noToken = try await rawHTTP(port: daemon.port, "GET /api/assets HTTP/1.1\r\nHost: 127.0.0.1:\(daemon.port)\r\nConnection: close\r\n\r\n")
            #expect(noToken.status == 403)
            let badHost = try await rawHTTP(port: daemon.port, "GET \(daemon.path)/api/assets HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
            #expect(badHost.status == 403)
        }
    }

    @Test("storage: GET reports the settings and use, PUT changes them (null removes a limit); purge with dryRun lists, without it removes; bad values are 400")
    func storageAndPurge() async throws {
        try await withDaemon { daemon in
            let started = try await daemon.call("POST", "assets", body: #"{"url": "\#(daemon.origin)/ts/main.m3u8"}"#)
            let id = try #require((started.json as? [String: Any])?["id"] as? String)
            let task = try await daemon.session.task(id: id)
            #expect(await task.waitUntilFinished() == .completed)

            let report = try #require(try await daemon.call("GET", "storage").json as? [String: Any])
            #expect((report["libraryBytes"] as? Int ?? 0) > 0 && (report["freeBytes"] as? Int ?? 0) > 0, "\(report)")
            let limited = try await daemon.call("PUT", "storage", body: #"{"quotaBytes": 1000, "purgeOnDownload": true}"#)
            let settings = (limited.json as? [String: Any])?["settings"] as? [String: Any]
            #expect(limited.status == 200 && settings?["quotaBytes"] as? Int == 1000 && settings?["purgeOnDownload"] as? Bool == true,
                    "\(limited.json ?? "")")

            let dry = try await daemon.call("POST", "purge?dryRun=true")
            let removals = ((dry.json as? [String: Any])?["removals"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            #expect(dry.status == 200 && removals == [id], "\(dry.json ?? "")")
            #expect(try await daemon.call("GET", "assets/\(id)").status == 200, "a dry run removes nothing")
            let purged = try await daemon.call("POST", "purge")
            let afterPurge = try await daemon.call("GET", "assets/\(id)")
            #expect(purged.status == 200 && afterPurge.status == 404, "\(purged.json ?? "")")

            let unlimited = try await daemon.call("PUT", "storage", body: #"{"quotaBytes": null}"#)
            let after = (unlimited.json as? [String: Any])?["settings"] as? [String: Any]
            #expect(after?["quotaBytes"] == nil && after?["purgeOnDownload"] as? Bool == true, "null removes the quota, the rest stays: \(unlimited.json ?? "")")
            for body in [#"{"minimumFreeBytes": -1}"#, #"{"quotaBytes": "big"}"#, "[]"] {
                let bad = try await daemon.call("PUT", "storage", body: body)
                #expect(bad.status == 400 && daemon.error(bad.json)["code"] as? String == "bad-request", "\(body): \(bad.json ?? "")")
            }
            #expect(try await daemon.call("POST", "purge?dryRun=maybe").status == 400)
            #expect(try await daemon.call("GET", "purge").status == 405)
            #expect(try await daemon.call("DELETE", "storage").status == 405)
        }
    }

    @Test("GET /api/events streams every task's events as Server-Sent Events, numbered, with the JSON download --json prints; Last-Event-ID replays what a client missed")
    func events() async throws {
        try await withDaemon { daemon in
            let request = "GET \(daemon.path)/api/events HTTP/1.1\r\nHost: 127.0.0.1:\(daemon.port)\r\n"
            // Subscribed first (the stream's opening comment arrives: the server subscribes
            // before it writes it), then the download starts. A fixed wait here lost the first
            // event once under a loaded machine.
            let (opened, open) = AsyncStream<Void>.makeStream()
            let listening = Task {
                // The download runs in this busy test process: up to 100 s, within the test's limit.
                try await rawHTTPStream(port: daemon.port, request + "\r\n", seconds: 100,
                                        arrived: { if $0.contains(": carryon events") { open.yield(); open.finish() } }) {
                    $0.contains("event: finished")
                }
            }
            let ended = Task { _ = try? await listening.value; open.finish() }  // a failed stream does not leave the wait hanging
            for await _ in opened { break }
            _ = ended
            let started = try await daemon.call("POST", "assets", body: #"{"url": "\#(daemon.origin)/ts/main.m3u8"}"#)
            let id = try #require((started.json as? [String: Any])?["id"] as? String)
            let text = try await listening.value
            #expect(text.hasPrefix("HTTP/1.1 200") && text.lowercased().contains("content-type: text/event-stream"), "\(text.prefix(300))")
            let events = Self.events(in: text)
            try #require(events.count > 3, "\(text.prefix(2000))")
            #expect(events.map(\.id) == Array(1...events.count), "numbered from 1 in order")
            let kinds = events.map(\.kind)
            for kind in ["state", "selection", "progress", "rendition-completed", "finished"] {
                #expect(kinds.contains(kind), "\(kind) in \(kinds)")
            }
            #expect(events.allSatisfy { $0.data["id"] as? String == id && $0.data["event"] as? String == $0.kind })
            let progress = try #require(events.last { $0.kind == "progress" })
            #expect(progress.data["bytesDone"] is Int && progress.data["fraction"] is Double, "\(progress.data)")

            // A client that saw up to the third event gets the rest at once.
            let replay = try await rawHTTPStream(port: daemon.port, request + "Last-Event-ID: 3\r\n\r\n") { $0.contains("event: finished") }
            let replayed = Self.events(in: replay).map(\.id)
            #expect(replayed.first == 4 && replayed == Array(4...(replayed.last ?? 4)) && replayed.count >= events.count - 3, "\(replayed)")
            let bad = try await daemon.call("GET", "events", headers: ["Last-Event-ID: yesterday"])
            #expect(bad.status == 400)
        }
    }

    /// The events of a Server-Sent Events response (its chunked framing read past): id, kind
    /// and parsed data.
    static func events(in text: String) -> [(id: Int, kind: String, data: [String: Any])] {
        text.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n\n").compactMap { block in
            var id: Int?, kind: String?, data: [String: Any]?
            for line in block.split(separator: "\n") {
                if line.hasPrefix("id: ") { id = Int(line.dropFirst(4)) }
                if line.hasPrefix("event: ") { kind = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") {
                    data = try? JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any]
                }
            }
            guard let id, let kind, let data else { return nil }
            return (id, kind, data)
        }
    }

    @Test("GET /api/catalog gives each catalog stream's offline state; POST /api/assets takes a catalog stream by name")
    func catalog() async throws {
        let catalog: @Sendable (String) -> String = { base in
            #"[{"name": "Sample", "playlist_url": "\#(base)/fmp4/main.m3u8"}, {"name": "Other", "playlist_url": "\#(base)/ts/main.m3u8"}]"#
        }
        try await withDaemon(catalog: catalog) { daemon in
            let before = try #require(try await daemon.call("GET", "catalog").json as? [[String: Any]])
            #expect(before.map { $0["name"] as? String } == ["Sample", "Other"])
            #expect(before.allSatisfy { $0["state"] as? String == "not-downloaded" && $0["playableOffline"] as? Bool == false })

            let started = try await daemon.call("POST", "assets", body: #"{"catalog": "Sample"}"#)
            let asset = try #require(started.json as? [String: Any])
            #expect(started.status == 201 && asset["name"] as? String == "Sample" && asset["url"] as? String == "\(daemon.origin)/fmp4/main.m3u8")
            let id = try #require(asset["id"] as? String)
            #expect(try await daemon.session.task(id: id).waitUntilFinished() == .completed)
            let after = try #require(try await daemon.call("GET", "catalog").json as? [[String: Any]])
            #expect(after[0]["state"] as? String == "completed" && after[0]["id"] as? String == id && after[0]["playableOffline"] as? Bool == true,
                    "\(after[0])")
            #expect(after[1]["state"] as? String == "not-downloaded")

            let unknown = try await daemon.call("POST", "assets", body: #"{"catalog": "Nope"}"#)
            #expect(unknown.status == 404 && daemon.error(unknown.json)["code"] as? String == "unknown-stream")
            for body in ["{}", #"{"catalog": "Sample", "url": "\#(daemon.origin)/ts/main.m3u8"}"#] {
                let both = try await daemon.call("POST", "assets", body: body)
                #expect(both.status == 400, "\(body): \(both.json ?? "")")
            }
        }
        try await withDaemon { daemon in
            let none = try await daemon.call("GET", "catalog")
            #expect(none.status == 200 && (none.json as? [Any])?.isEmpty == true, "no catalog, no streams")
        }
    }

    @Test("POST …/selections adds a language to a downloaded asset and fetches only it; GET …/logs gives its access and error logs")
    func selectionsAndLogs() async throws {
        try await withDaemon { daemon in
            let started = try await daemon.call("POST", "assets", body: #"{"url": "\#(daemon.origin)/fmp4/main.m3u8", "audio": "de", "subtitles": "none"}"#)
            let id = try #require((started.json as? [String: Any])?["id"] as? String)
            let task = try await daemon.session.task(id: id)
            #expect(await task.waitUntilFinished() == .completed)

            let added = try await daemon.call("POST", "assets/\(id)/selections", body: #"{"audio": ["en"]}"#)
            #expect(added.status == 202, "\(added.json ?? "")")
            let keys = (added.json as? [String: Any])?["added"] as? [String]
            #expect(keys?.count == 1 && keys?.first?.hasPrefix("audio") == true, "\(added.json ?? "")")
            #expect(await task.waitUntilFinished() == .completed)
            let shown = try #require(try await daemon.call("GET", "assets/\(id)").json as? [String: Any])
            let languages = ((shown["selection"] as? [String: Any])?["renditions"] as? [[String: Any]])?.compactMap { $0["language"] as? String }
            #expect(Set(languages ?? []) == ["de", "en"], "\(languages ?? [])")

            let nothing = try await daemon.call("POST", "assets/\(id)/selections", body: "{}")
            #expect(nothing.status == 400 && (daemon.error(nothing.json)["message"] as? String)?.contains("nothing to add") == true)
            let again = try await daemon.call("POST", "assets/\(id)/selections", body: #"{"audio": ["en"]}"#)
            #expect(again.status == 422 && daemon.error(again.json)["code"] as? String == "selection", "adds nothing: \(again.json ?? "")")

            let logs = try await daemon.call("GET", "assets/\(id)/logs")
            let object = try #require(logs.json as? [String: Any])
            let access = try #require(object["access"] as? [[String: String]])
            #expect(logs.status == 200 && !access.isEmpty && object["error"] is [Any], "\(object.keys)")
            #expect(access.allSatisfy { $0["date"] != nil }, "entries keyed by the W3C fields: \(access.first ?? [:])")
            #expect(try await daemon.call("GET", "assets/zzzzzzzzzz/logs").status == 404)
            #expect(try await daemon.call("POST", "assets/\(id)/logs").status == 405)
        }
    }

    @Test("the OpenAPI document in the sources is the one Scripts/openapi.py writes: none edited by hand, which the next run of the script would undo")
    func openAPIFromItsScript() async throws {
        guard let python = findExecutable("python3") else {
            throw TestSupportError("python3 is not installed, and the document is made by a Python script: apt-get install -y python3")
        }
        let result = try await run(python, [packageRoot.appendingPathComponent("Scripts/openapi.py").path, "--check"])
        #expect(result.status == 0, "\(result.standardError)")
    }

    @Test("GET /api/openapi.json is an OpenAPI 3.1 document of exactly the routes the API answers; every operation answers a status it documents, and any other method on its path is 405")
    func openAPI() async throws {
        try await withDaemon { daemon in
            let served = try await daemon.call("GET", "openapi.json")
            let document = try #require(served.json as? [String: Any])
            #expect(served.status == 200 && document["openapi"] as? String == "3.1.0")
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            var documented: Set<String> = []
            for (path, operations) in paths {
                #expect(path.hasPrefix("/api/"), "\(path)")
                for method in operations.keys { documented.insert("\(method.uppercased()) \(path)") }
            }
            let implemented = Set(DaemonAPI.routes.map { "\($0.method) /api/\($0.pattern)" })
            #expect(documented == implemented, "documented only: \(documented.subtracting(implemented)); answered only: \(implemented.subtracting(documented))")

            for (path, operations) in paths.sorted(by: { $0.key < $1.key }) {
                let concrete = String(path.dropFirst("/api/".count)).replacingOccurrences(of: "{id}", with: "zzzzzzzzzz")
                for (method, operation) in operations where path != "/api/events" {
                    let body = ["POST", "PUT"].contains(method.uppercased()) ? "{}" : nil
                    let answer = try await daemon.call(method.uppercased(), concrete + (path == "/api/purge" ? "?dryRun=true" : ""), body: body)
                    let statuses = ((operation as? [String: Any])?["responses"] as? [String: Any])?.keys.compactMap(Int.init) ?? []
                    #expect(statuses.contains(answer.status), "\(method) \(path) answered \(answer.status), documented \(statuses.sorted())")
                }
                for method in ["GET", "POST", "PUT", "DELETE", "PATCH"] where operations[method.lowercased()] == nil {
                    let answer = try await daemon.call(method, concrete, body: ["POST", "PUT", "PATCH"].contains(method) ? "{}" : nil)
                    #expect(answer.status == 405, "\(method) \(path): \(answer.status)")
                }
            }
        }
    }
}
