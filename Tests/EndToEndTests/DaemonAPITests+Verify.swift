import Carryon
@testable import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

extension DaemonAPITests {
    @Test("POST /api/assets/ID/verify: an intact bundle is 200 with no damage; a file damaged is named; ?repair=true is 202 and mends it byte-identical; ?repair=maybe is 400")
    func verifyAndRepair() async throws {
        try await withDaemon { daemon in
            let started = try await daemon.call("POST", "assets", body: #"{"url": "\#(daemon.origin)/ts/main.m3u8", "audio": "none", "subtitles": "none"}"#)
            #expect(started.status == 201)
            let id = try #require((started.json as? [String: Any])?["id"] as? String)
            let done = try await settled(id, in: daemon)
            #expect(done["state"] as? String == "completed", "\(done)")

            let intact = try await daemon.call("POST", "assets/\(id)/verify")
            #expect(intact.status == 200)
            let report = try #require((intact.json as? [String: Any])?["report"] as? [String: Any])
            #expect((report["damage"] as? [Any])?.isEmpty == true && (report["resources"] as? Int ?? 0) > 0, "\(report)")
            #expect((intact.json as? [String: Any])?["repairing"] as? Bool == false)

            let bundle = URL(fileURLWithPath: try #require(done["bundlePath"] as? String))
            let segment = bundle.appendingPathComponent("video/00001.ts")
            let original = try Data(contentsOf: segment)
            var damaged = original
            damaged[100] ^= 0x20
            try damaged.write(to: segment)
            let found = try await daemon.call("POST", "assets/\(id)/verify")
            let damage = try #require(((found.json as? [String: Any])?["report"] as? [String: Any])?["damage"] as? [[String: Any]])
            #expect(damage.count == 1 && damage.first?["kind"] as? String == "altered" && damage.first?["file"] as? String == "video/00001.ts", "\(damage)")

            #expect(try await daemon.call("POST", "assets/\(id)/verify?repair=maybe").status == 400)
            let repairing = try await daemon.call("POST", "assets/\(id)/verify?repair=true")
            #expect(repairing.status == 202)
            #expect((repairing.json as? [String: Any])?["repairing"] as? Bool == true)
            #expect(try await settled(id, in: daemon)["state"] as? String == "completed")
            #expect(try Data(contentsOf: segment) == original)
            let after = try await daemon.call("POST", "assets/\(id)/verify")
            #expect((((after.json as? [String: Any])?["report"] as? [String: Any])?["damage"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("GET /api/verification without a schedule: every field null until the library is checked, then the last check, its nulls written out")
    func libraryVerification() async throws {
        try await withDaemon { daemon in
            let never = try await daemon.call("GET", "verification")
            #expect(never.status == 200)
            let empty = try #require(never.json as? [String: Any])
            #expect(empty.keys.sorted() == ["everySeconds", "last", "nextAt"] && empty.values.allSatisfy { $0 is NSNull }, "\(empty)")
            #expect(try await daemon.call("POST", "verification").status == 405)

            let check = try await daemon.session.verifyLibrary()
            let answered = try #require(try await daemon.call("GET", "verification").json as? [String: Any])
            let last = try #require(answered["last"] as? [String: Any], "\(answered)")
            #expect(last["assets"] as? Int == check.assets && (last["damaged"] as? [Any])?.isEmpty == true, "\(last)")
            #expect(answered["everySeconds"] is NSNull && answered["nextAt"] is NSNull)
        }
    }
}
