import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

extension DaemonAPITests {
    @Test("POST /api/assets with start and duration downloads that part (the asset's timeRange says it) and POST selections with a wider part grows it; a negative start or two ends are 400 with the reason; a range past the stream's end fails as it is planned, saying so")
    func timeRange() async throws {
        try await withDaemon { daemon in
            let url = "\(daemon.origin)/fmp4/360p/index.m3u8"
            for (body, reason) in [(#"{"url": "\#(url)", "start": -1}"#, "the range's start -1.0 is not a time"),
                                   (#"{"url": "\#(url)", "end": 9, "duration": 2}"#, "end and duration both say where the part ends"),
                                   (#"{"url": "\#(url)", "start": 1e300}"#, "is not a time from 0")] {
                let refused = try await daemon.call("POST", "assets", body: body)
                let text = String(decoding: refused.response.body, as: UTF8.self)
                #expect(refused.status == 400 && text.contains(reason), "\(body): \(refused.status) \(text)")
            }
            // The download's end, once it has one.
            func ended(_ body: String) async throws -> [String: Any] {
                let started = try await daemon.call("POST", "assets", body: body)
                #expect(started.status == 201, "\(String(decoding: started.response.body, as: UTF8.self))")
                let id = try #require((started.json as? [String: Any])?["id"] as? String)
                var asset: [String: Any] = [:]
                let deadline = ContinuousClock.now + .seconds(60)
                while !["completed", "failed"].contains(asset["state"] as? String ?? ""), ContinuousClock.now < deadline {
                    asset = try #require(try await daemon.call("GET", "assets/\(id)").json as? [String: Any])
                    try await Task.sleep(for: .milliseconds(50))
                }
                return asset
            }
            let late = try await ended(#"{"url": "\#(url)", "start": 30}"#)
            #expect(late["state"] as? String == "failed")
            #expect((late["error"] as? String)?.contains("the range from 0:00:30.0 holds no segment of the stream, which lasts 0:00:12.0") == true, "\(late)")
            let asset = try await ended(#"{"url": "\#(url)", "start": 5, "duration": 2}"#)
            #expect(asset["state"] as? String == "completed")
            let range = asset["timeRange"] as? [String: Any]
            #expect(range?["start"] as? Double == 5 && range?["end"] as? Double == 7, "\(asset)")
            #expect(((asset["progress"] as? [String: Any])?["resourcesTotal"] as? Int) == 2, "the init section and one segment: \(asset)")
            // Grown to the whole stream: the two other segments.
            let id = try #require(asset["id"] as? String)
            let grown = try await daemon.call("POST", "assets/\(id)/selections", body: #"{"start": 0, "end": 12}"#)
            #expect(grown.status == 202, "\(String(decoding: grown.response.body, as: UTF8.self))")
            var whole: [String: Any] = [:]
            let deadline = ContinuousClock.now + .seconds(60)
            while whole["state"] as? String != "completed" || (whole["progress"] as? [String: Any])?["resourcesTotal"] as? Int != 4,
                  ContinuousClock.now < deadline {
                whole = try #require(try await daemon.call("GET", "assets/\(id)").json as? [String: Any])
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect((whole["timeRange"] as? [String: Any])?["end"] as? Double == 12, "\(whole)")
            #expect((whole["progress"] as? [String: Any])?["resourcesDone"] as? Int == 4, "\(whole)")
            let again = try await daemon.call("POST", "assets/\(id)/selections", body: #"{"start": 1, "duration": 2}"#)
            #expect(again.status == 422 && String(decoding: again.response.body, as: UTF8.self).contains("already holds"))
        }
    }
}
