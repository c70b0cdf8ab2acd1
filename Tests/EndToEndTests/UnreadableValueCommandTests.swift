import Carryon
@testable import CarryonIndexTestSupport
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// A value the index cannot read, written straight into a library (as an earlier release that
/// accepted `--expires 3000000d` did, storing year 10240), no longer takes the library down:
/// `list`, `show`, the daemon's API and the playback of every other asset work, the bad value
/// is named without dumping its row, and `policy` repairs it. A date past 9999 is refused where
/// it enters.
@Suite("A library with a value it cannot read", .heavy)
struct UnreadableValueCommandTests {
    @Test("year 10240 in an asset's expiry: list, show, serve and playback of the other asset work; policy refuses 3000000d and repairs it")
    func farFutureExpiry() async throws {
        try await withTemporaryDirectory { folder in
            let library = ["--library", folder.path]
            let ids = try await Origin(root: sampleMedia.path).withRunning { origin in
                var ids: [String] = []
                for variant in ["180p", "270p"] {
                    let download = try await runCarryon(["download", origin.baseURL + "/ts/\(variant)/index.m3u8"] + library)
                    #expect(download.status == 0, "\(download.standardError)")
                    ids.append(try #require(download.standardOutput.split(separator: "\n").last.map(String.init)))
                }
                return ids
            }
            let (bad, good) = (ids[0], ids[1])

            // Refused where it enters, naming the limit; nothing is written.
            let refused = try await runCarryon(["policy", bad, "--expires", "3000000d"] + library)
            #expect(refused.status != 0 && refused.standardError.contains("9999-12-31"), "\(refused.standardError)")
            let february = try await runCarryon(["policy", bad, "--expires", "2026-02-30"] + library)
            #expect(february.status != 0 && february.standardError.contains("does not exist"), "\(february.standardError)")

            // What the earlier release wrote.
            let index = try LibraryIndexFile(libraryAt: folder)
            try await index.writeUnreadable([("expiresAt", "10240-08-16 04:00:00.000")], intoAsset: bad)
            try index.close()

            let list = try await runCarryon(["list"] + library)
            #expect(list.status == 0, "\(list.standardError)")
            #expect(list.standardOutput.contains(bad) && list.standardOutput.contains(good), "\(list.standardOutput)")
            #expect(list.standardError.contains("\(bad): its expiry") && list.standardError.contains("10240-08-16"), "\(list.standardError)")
            #expect(!list.standardError.contains("/ts/180p"), "the problem does not dump the row: \(list.standardError)")
            let show = try await runCarryon(["show", bad] + library)
            #expect(show.status == 0 && show.standardOutput.contains("Problem") && show.standardOutput.contains("expires never"),
                    "\(show.standardOutput)\(show.standardError)")

            let server = try RunningProcess(carryon: ["serve"] + library)
            var lines = server.lines.makeAsyncIterator()
            let base = try #require(await lines.next().flatMap(URL.init(string:)), "serve printed no base URL: \(server.standardError)")
            let port = try #require(base.port)
            func get(_ path: String) async throws -> RawHTTPResponse {
                try await rawHTTP(port: port, "GET \(base.path)\(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
            }
            let assets = try await get("/api/assets")
            #expect(assets.status == 200, "\(String(decoding: assets.body, as: UTF8.self))")
            let listed = try #require(try JSONSerialization.jsonObject(with: Data(assets.body)) as? [[String: Any]])
            #expect(Set(listed.compactMap { $0["id"] as? String }) == [bad, good])
            #expect((listed.first { $0["id"] as? String == bad }?["problems"] as? [String])?.first?.contains("expiry") == true)
            #expect(try await get("/api/storage").status == 200)
            let frames = try await decodedVideoFrames("\(base.absoluteString)/\(good)/main.m3u8")
            #expect(frames > 0, "the other asset plays")
            let badFrames = try await decodedVideoFrames("\(base.absoluteString)/\(bad)/main.m3u8")
            #expect(badFrames > 0, "the asset with the unreadable expiry plays too")
            server.kill(SIGTERM)
            #expect(await server.wait() == 0)

            let repair = try await runCarryon(["policy", bad, "--expires", "2030-01-01"] + library)
            #expect(repair.status == 0, "\(repair.standardError)")
            let after = try await runCarryon(["list"] + library)
            #expect(after.status == 0 && !after.standardError.contains("cannot be read"), "\(after.standardError)")
        }
    }
}
