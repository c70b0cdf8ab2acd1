import Carryon
@testable import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

extension DaemonAPITests {
    /// Waits for asset `id` to leave the running states; returns its JSON.
    func settled(_ id: String, in daemon: Daemon) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let shown = try #require(try await daemon.call("GET", "assets/\(id)").json as? [String: Any])
            if ["completed", "failed", "cancelled"].contains(shown["state"] as? String ?? "") { return shown }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("\(id) did not settle")
        return [:]
    }

    @Test("POST /api/assets with \"keys\": a DASH cenc stream made by Shaka Packager downloads with the key held, never answered back; a wrong key fails it naming the KID; a key that is not KID:KEY is 400 naming the entry, not the key")
    func heldKeys() async throws {
        let key = "0f1e2d3c4b5a69788796a5b4c3d2e1f0", kid = "00112233445566778899aabbccddeeff"
        try await withDaemon(media: cencSampleMedia) { daemon in
            let started = try await daemon.call("POST", "assets", body: #"{"url": "\#(daemon.origin)/cenc/main.mpd", "keys": ["\#(kid):\#(key)"]}"#)
            #expect(started.status == 201, "\(String(decoding: started.response.body, as: UTF8.self))")
            let id = try #require((started.json as? [String: Any])?["id"] as? String)
            let done = try await settled(id, in: daemon)
            #expect(done["state"] as? String == "completed", "\(done)")
            let keys = try await KeyStore(library: daemon.session.library).keys(of: id)
            #expect(keys.map(\.id) == ["kid-\(kid)"] && keys.first?.uri == KeyStore.heldURI)
            for answer in [started.response.body, try await daemon.call("GET", "assets/\(id)").response.body,
                           try await daemon.call("GET", "assets").response.body] {
                #expect(!String(decoding: answer, as: UTF8.self).lowercased().contains(key))
            }

            let wrong = try await daemon.call("POST", "assets", body: #"{"url": "\#(daemon.origin)/cenc/main.mpd", "keys": ["\#(kid):000102030405060708090a0b0c0d0e0f"]}"#)
            #expect(wrong.status == 201)
            let wrongID = try #require((wrong.json as? [String: Any])?["id"] as? String)
            let failed = try await settled(wrongID, in: daemon)
            #expect(failed["state"] as? String == "failed")
            #expect((failed["error"] as? String)?.contains("the key given for KID \(kid) (key 1) is wrong") == true, "\(failed)")

            let typo = try await daemon.call("POST", "assets", body: #"{"url": "\#(daemon.origin)/cenc/main.mpd", "keys": ["\#(kid)=\#(key)"]}"#)
            #expect(typo.status == 400, "\(typo.status)")
            let message = daemon.error(typo.json)["message"] as? String ?? ""
            #expect(message.contains("key 1 is not KID:KEY") && !message.contains(key), "\(message)")
        }
    }
}
