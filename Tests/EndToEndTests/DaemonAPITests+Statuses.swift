import Carryon
@testable import CarryonIndexTestSupport
@testable import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// Every error status the OpenAPI document gives is one a request really gets, with the
/// `{"error": …}` body.
extension DaemonAPITests {
    @Test("each error status each operation documents is reached by a request, and each answer is an error object")
    func everyErrorStatus() async throws {
        let catalog: @Sendable (String) -> String = { base in #"[{"name": "Sample", "playlist_url": "\#(base)/fmp4/main.m3u8"}]"# }
        try await withDaemon(catalog: catalog) { daemon in
            // A completed asset, and a cancelled one.
            let started = try await daemon.call("POST", "assets", body: #"{"url": "\#(daemon.origin)/fmp4/main.m3u8", "audio": "en", "subtitles": "none", "maxResolution": "320x180"}"#)
            let done = try #require((started.json as? [String: Any])?["id"] as? String)
            #expect(try await daemon.session.task(id: done).waitUntilFinished() == .completed)
            let other = try await daemon.call("POST", "assets", body: #"{"url": "\#(daemon.origin)/ts/main.m3u8"}"#)
            let cancelled = try #require((other.json as? [String: Any])?["id"] as? String)
            #expect(try await daemon.call("POST", "assets/\(cancelled)/cancel").status == 200)

            let foreign = ["Origin: https://evil.example"]
            let large = #"{"name": ""# + String(repeating: "x", count: 70_000) + #""}"#
            // (method, path in the document, concrete path, body, headers, expected status)
            let cases: [(String, String, String, String?, [String], Int)] = [
                ("POST", "/api/assets", "assets", "{}", [], 400),
                ("POST", "/api/assets", "assets", #"{"url": "\#(daemon.origin)/ts/main.m3u8"}"#, foreign, 403),
                ("POST", "/api/assets", "assets", #"{"catalog": "Nope"}"#, [], 404),
                ("POST", "/api/assets", "assets", large, [], 413),
                ("GET", "/api/assets", "assets?limit=0", nil, [], 400),
                ("GET", "/api/assets/{id}", "assets/zzzzzzzzzz", nil, [], 404),
                ("DELETE", "/api/assets/{id}", "assets/\(done)", nil, foreign, 403),
                ("DELETE", "/api/assets/{id}", "assets/zzzzzzzzzz", nil, [], 404),
                ("POST", "/api/assets/{id}/cancel", "assets/\(cancelled)/cancel", nil, foreign, 403),
                ("POST", "/api/assets/{id}/cancel", "assets/zzzzzzzzzz/cancel", nil, [], 404),
                ("POST", "/api/assets/{id}/cancel", "assets/\(done)/cancel", nil, [], 409),
                ("POST", "/api/assets/{id}/suspend", "assets/\(done)/suspend", nil, foreign, 403),
                ("POST", "/api/assets/{id}/suspend", "assets/zzzzzzzzzz/suspend", nil, [], 404),
                ("POST", "/api/assets/{id}/resume", "assets/\(done)/resume", nil, foreign, 403),
                ("POST", "/api/assets/{id}/resume", "assets/zzzzzzzzzz/resume", nil, [], 404),
                ("POST", "/api/assets/{id}/resume", "assets/\(cancelled)/resume", nil, [], 409),
                ("POST", "/api/assets/{id}/selections", "assets/\(done)/selections", "{}", [], 400),
                ("POST", "/api/assets/{id}/selections", "assets/\(done)/selections", #"{"audio": "de"}"#, foreign, 403),
                ("POST", "/api/assets/{id}/selections", "assets/zzzzzzzzzz/selections", #"{"audio": "de"}"#, [], 404),
                ("POST", "/api/assets/{id}/selections", "assets/\(cancelled)/selections", #"{"audio": "de"}"#, [], 409),
                ("POST", "/api/assets/{id}/selections", "assets/\(done)/selections", large, [], 413),
                ("POST", "/api/assets/{id}/selections", "assets/\(done)/selections", #"{"audio": "en"}"#, [], 422),
                ("PUT", "/api/assets/{id}/policy", "assets/\(done)/policy", #"{"priority": "high"}"#, [], 400),
                ("PUT", "/api/assets/{id}/policy", "assets/\(done)/policy", #"{"priority": "important"}"#, foreign, 403),
                ("PUT", "/api/assets/{id}/policy", "assets/zzzzzzzzzz/policy", "{}", [], 404),
                ("PUT", "/api/assets/{id}/policy", "assets/\(done)/policy", large, [], 413),
                ("POST", "/api/assets/{id}/verify", "assets/\(done)/verify?repair=maybe", nil, [], 400),
                ("POST", "/api/assets/{id}/verify", "assets/\(done)/verify", nil, foreign, 403),
                ("POST", "/api/assets/{id}/verify", "assets/zzzzzzzzzz/verify", nil, [], 404),
                ("GET", "/api/streams", "streams", nil, [], 400),
                ("GET", "/api/streams", "streams?catalog=Nope", nil, [], 404),
                ("GET", "/api/streams", "streams?url=\(daemon.origin)/nothing.m3u8", nil, [], 422),
                ("GET", "/api/assets/{id}/logs", "assets/zzzzzzzzzz/logs", nil, [], 404),
                ("GET", "/api/assets/{id}/logs", "assets/\(done)/logs?limit=0", nil, [], 400),
                ("PUT", "/api/storage", "storage", #"{"quotaBytes": -1}"#, [], 400),
                ("PUT", "/api/storage", "storage", #"{"quotaBytes": null}"#, foreign, 403),
                ("PUT", "/api/storage", "storage", large, [], 413),
                ("POST", "/api/purge", "purge?dryRun=perhaps", nil, [], 400),
                ("POST", "/api/purge", "purge", nil, foreign, 403),
                ("GET", "/api/events", "events", nil, ["Last-Event-ID: soon"], 400),
            ]
            var reached: Set<String> = []
            for (method, documented, path, body, headers, expected) in cases {
                let answer = try await daemon.call(method, path, body: body, headers: headers)
                let error = daemon.error(answer.json)
                #expect(answer.status == expected && error["code"] is String && error["message"] is String,
                        "\(method) \(path) \(headers): \(answer.status) \(answer.json ?? "")")
                reached.insert("\(method) \(documented) \(answer.status)")
            }
            // Another process downloads the asset and does not answer the request to stop: DELETE is busy.
            _ = try await daemon.session.library.holdAsAnotherProcess(done)
            let busy = try await daemon.call("DELETE", "assets/\(done)")
            #expect(busy.status == 409 && daemon.error(busy.json)["code"] as? String == "busy", "\(busy.json ?? "")")
            reached.insert("DELETE /api/assets/{id} \(busy.status)")
            // Nor is a repair of its files, which that process is writing.
            let shown = try await daemon.call("GET", "assets/\(done)").json as? [String: Any]
            let bundle = try #require(shown?["bundlePath"] as? String)
            let files = FileManager.default.enumerator(atPath: bundle)?.compactMap { $0 as? String } ?? []
            let segment = try #require(files.first { $0.hasSuffix(".m4s") })
            try Data("damaged".utf8).write(to: URL(fileURLWithPath: bundle).appendingPathComponent(segment))
            let repair = try await daemon.call("POST", "assets/\(done)/verify?repair=true")
            #expect(repair.status == 409 && daemon.error(repair.json)["code"] is String, "\(repair.json ?? "")")
            reached.insert("POST /api/assets/{id}/verify \(repair.status)")

            let document = try #require(try await daemon.call("GET", "openapi.json").json as? [String: Any])
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            var documented: Set<String> = []
            for (path, operations) in paths {
                for (method, operation) in operations {
                    for status in ((operation as? [String: Any])?["responses"] as? [String: Any] ?? [:]).keys where status >= "400" {
                        documented.insert("\(method.uppercased()) \(path) \(status)")
                    }
                }
            }
            #expect(documented == reached, "documented, never reached: \(documented.subtracting(reached).sorted()); reached, not documented: \(reached.subtracting(documented).sorted())")
        }
    }
}
