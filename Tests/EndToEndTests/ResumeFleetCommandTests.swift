import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// `carryon resume ID --fleet`: a download suspended (or failed) handed back to the fleet's
/// queue, for any worker, instead of being run by the process that asks.
@Suite("carryon resume --fleet", .heavy)
struct ResumeFleetCommandTests {
    static func state(_ id: String, _ library: String) async throws -> String {
        let show = try await runCarryon(["show", id, "--json", "--library", library])
        return try JSONDecoder.iso8601.decode(AssetSnapshot.self, from: Data(show.standardOutput.utf8)).state.rawValue
    }

    @Test("a queued download suspended, then resume --fleet: it waits in the fleet's queue, fetching nothing, until a worker runs it to completion; a completed one is left complete")
    func handBack() async throws {
        try await withTemporaryDirectory { folder in
            let library = folder.appendingPathComponent("library").path
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let enqueued = try await runCarryon(["enqueue", origin.baseURL + "/fmp4/360p/index.m3u8", "--library", library])
                let id = try #require(enqueued.standardOutput.split(separator: "\n").last.map(String.init), "\(enqueued.standardError)")
                let suspended = try await runCarryon(["suspend", id, "--library", library])
                #expect(suspended.status == 0, "\(suspended.standardError)")
                #expect(try await Self.state(id, library) == "suspended")

                let handed = try await runCarryon(["resume", id, "--fleet", "--json", "--library", library])
                #expect(handed.status == 0, "\(handed.standardError)")
                let line = try JSONSerialization.jsonObject(with: Data(handed.standardOutput.utf8)) as? [String: String]
                #expect(line == ["id": id, "state": "waiting"], "\(handed.standardOutput)")
                #expect(try await Self.state(id, library) == "waiting")
                #expect(await origin.requests().filter { $0.path.hasSuffix(".m4s") || $0.path.hasSuffix(".mp4") }.isEmpty)

                let worker = try RunningProcess(carryon: ["worker", "--allow-private-origins", "--tasks", "1", "--library", library])
                var state = ""
                let deadline = ContinuousClock.now + .seconds(60)
                while state != "completed", ContinuousClock.now < deadline {
                    state = try await Self.state(id, library)
                    try await Task.sleep(for: .milliseconds(100))
                }
                worker.kill(SIGTERM)
                #expect(await worker.wait() == 0)
                #expect(state == "completed")

                let again = try await runCarryon(["resume", id, "--fleet", "--library", library])
                #expect(again.status == 0 && again.standardOutput == "\(id)\n", "\(again.standardError)")
                #expect(try await Self.state(id, library) == "completed")
            }
        }
    }

    @Test("a worker refuses a queued stream on this machine unless --allow-private-origins: whoever fills the queue must not make it fetch its own host; the download fails naming the option, nothing fetched")
    func privateOriginRefused() async throws {
        try await withTemporaryDirectory { folder in
            let library = folder.appendingPathComponent("library").path
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let enqueued = try await runCarryon(["enqueue", origin.baseURL + "/fmp4/360p/index.m3u8", "--library", library])
                let id = try #require(enqueued.standardOutput.split(separator: "\n").last.map(String.init), "\(enqueued.standardError)")
                let worker = try RunningProcess(carryon: ["worker", "--tasks", "1", "--library", library])
                var state = ""
                let deadline = ContinuousClock.now + .seconds(60)
                while state != "failed" && state != "completed", ContinuousClock.now < deadline {
                    state = try await Self.state(id, library)
                    try await Task.sleep(for: .milliseconds(100))
                }
                worker.kill(SIGTERM)
                #expect(await worker.wait() == 0)
                #expect(state == "failed")
                let show = try await runCarryon(["show", id, "--json", "--library", library])
                let error = try JSONDecoder.iso8601.decode(AssetSnapshot.self, from: Data(show.standardOutput.utf8)).error ?? ""
                #expect(error.contains("127.0.0.1") && error.contains("nothing was requested"), "\(error)")
                let requested = await origin.requests()
                #expect(requested.isEmpty, "nothing was fetched: \(requested)")
            }
        }
    }
}
