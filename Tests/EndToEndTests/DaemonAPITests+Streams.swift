import Carryon
@testable import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// The API's look at a stream before it is downloaded, and an asset's storage policy.
extension DaemonAPITests {
    @Test("GET /api/streams reports a stream's variants and renditions with their sizes, by URL or catalog name; a stream that cannot be read is a 422 naming why")
    func streams() async throws {
        let catalog: @Sendable (String) -> String = { base in #"[{"name": "Sample", "playlist_url": "\#(base)/fmp4/main.m3u8"}]"# }
        try await withDaemon(catalog: catalog) { daemon in
            let answer = try await daemon.call("GET", "streams?url=\(daemon.origin)/fmp4/main.m3u8")
            let report = try #require(answer.json as? [String: Any])
            #expect(answer.status == 200 && report["type"] as? String == "multivariant", "\(report)")
            let variants = try #require(report["variants"] as? [[String: Any]])
            #expect(!variants.isEmpty)
            for variant in variants {
                let bytes = (variant["size"] as? [String: Any])?["estimatedBytes"] as? Int
                #expect((bytes ?? 0) > 0, "every variant has its size: \(variant)")
            }
            let audio = (report["renditions"] as? [[String: Any]] ?? []).filter { $0["type"] as? String == "AUDIO" }
            #expect(Set(audio.compactMap { $0["language"] as? String }) == ["en", "de"], "\(audio)")
            // The same choices in every format's words, what the web app's chooser reads.
            let choices = try #require(report["choices"] as? [String: Any], "\(report.keys.sorted())")
            let offered = try #require(choices["variants"] as? [[String: Any]])
            #expect(offered.count == variants.count && offered.allSatisfy { (($0["size"] as? [String: Any])?["bytes"] as? Int ?? 0) > 0 }, "\(offered)")
            #expect(Set((choices["audio"] as? [[String: Any]] ?? []).compactMap { $0["language"] as? String }) == ["en", "de"], "\(choices)")

            let byName = try await daemon.call("GET", "streams?catalog=Sample")
            #expect(byName.status == 200 && (byName.json as? [String: Any])?["url"] as? String == "\(daemon.origin)/fmp4/main.m3u8")

            let media = try #require(try await daemon.call("GET", "streams?url=\(daemon.origin)/fmp4/360p/index.m3u8").json as? [String: Any])
            #expect(media["type"] as? String == "media" && (media["segmentCount"] as? Int ?? 0) > 0 && media["segments"] == nil,
                    "a media playlist: its count, not its segments: \(media.keys.sorted())")

            let cases: [(String, Int, String)] = [
                ("streams?catalog=Nope", 404, "unknown-stream"),
                ("streams", 400, "bad-request"),
                ("streams?catalog=Sample&url=\(daemon.origin)/ts/main.m3u8", 400, "bad-request"),
                ("streams?url=file:///etc/passwd", 400, "url-refused"),
                ("streams?url=\(daemon.origin)/no/such.m3u8", 422, "http"),
                ("streams?url=\(daemon.origin)/fmp4/360p/init_2.mp4", 422, "playlist"),
            ]
            for (path, status, code) in cases {
                let refused = try await daemon.call("GET", path)
                #expect(refused.status == status && daemon.error(refused.json)["code"] as? String == code, "\(path): \(refused.status) \(refused.json ?? "")")
            }
        }
    }

    @Test("PUT /api/assets/{id}/policy sets an asset's expiry and priority (null: never expires); bad values are 400, an unknown asset 404")
    func policy() async throws {
        try await withDaemon { daemon in
            let started = try await daemon.call("POST", "assets", body: #"{"url": "\#(daemon.origin)/fmp4/main.m3u8", "audio": "en", "subtitles": "none", "maxResolution": "640x360"}"#)
            let id = try #require((started.json as? [String: Any])?["id"] as? String)

            let changed = try await daemon.call("PUT", "assets/\(id)/policy", body: #"{"expiresAt": "2030-01-02T03:04:05Z", "priority": "important"}"#)
            let policy = try #require((changed.json as? [String: Any])?["policy"] as? [String: Any], "\(changed.json ?? "")")
            #expect(changed.status == 200 && policy["expiresAt"] as? String == "2030-01-02T03:04:05Z" && policy["priority"] as? String == "important", "\(policy)")
            let stored = try await StorageManager(library: daemon.session.library).policy(for: id)
            #expect(stored.priority == .important && stored.expiresAt == Date(timeIntervalSince1970: 1_893_553_445))

            let never = try await daemon.call("PUT", "assets/\(id)/policy", body: #"{"expiresAt": null}"#)
            let unchanged = try #require((never.json as? [String: Any])?["policy"] as? [String: Any])
            #expect(unchanged["expiresAt"] == nil && unchanged["priority"] as? String == "important", "priority kept, expiry gone: \(unchanged)")

            for body in [#"{"expiresAt": "next week"}"#, #"{"priority": "urgent"}"#, #"{"priority": 3}"#] {
                let refused = try await daemon.call("PUT", "assets/\(id)/policy", body: body)
                #expect(refused.status == 400 && daemon.error(refused.json)["code"] as? String == "bad-request", "\(body): \(refused.json ?? "")")
            }
            #expect(try await daemon.call("PUT", "assets/zzzzzzzzzz/policy", body: "{}").status == 404)
            #expect(try await daemon.session.task(id: id).waitUntilFinished() == .completed)
        }
    }
}
