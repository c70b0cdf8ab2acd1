import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

extension DaemonAPITests {
    @Test("POST /api/assets with fleet: true queues the download for the fleet's workers instead of starting it: it waits, fetching nothing, until a worker sharing the library claims it and runs it to completion; GET /api/fleet names the worker while it works, and no one before or after")
    func enqueueForTheFleet() async throws {
        try await withDaemon { daemon in
            let started = try await daemon.call("POST", "assets", body: #"{"url": "\#(daemon.origin)/ts/270p/index.m3u8", "fleet": true}"#)
            #expect(started.status == 201, "\(String(decoding: started.response.body, as: UTF8.self))")
            let id = try #require((started.json as? [String: Any])?["id"] as? String)
            #expect((started.json as? [String: Any])?["state"] as? String == "waiting")
            // The daemon is no worker: nothing is fetched.
            try await Task.sleep(for: .seconds(1))
            let waiting = try #require(try await daemon.call("GET", "assets/\(id)").json as? [String: Any])
            #expect(waiting["state"] as? String == "waiting" && waiting["bytesOnDisk"] as? Int == 0, "\(waiting)")
            // A worker on the same library (another process, as far as the index knows) claims it.
            let worker = try await DownloadSession(library: daemon.session.library)
            let events = await worker.events(followingOtherProcesses: false)
            let seen = Task { () -> [String] in
                var kinds: [String] = []
                for await event in events where event.taskID == id {
                    switch event {
                    case .stateChanged(_, .running): kinds.append("running")
                    case .finished: kinds.append("finished")
                    default: break
                    }
                }
                return kinds
            }
            func workers() async throws -> [[String: Any]] {
                let answer = try await daemon.call("GET", "fleet")
                #expect(answer.status == 200)
                return try #require((answer.json as? [String: Any])?["workers"] as? [[String: Any]], "\(String(decoding: answer.response.body, as: UTF8.self))")
            }
            #expect(try await workers().isEmpty, "the daemon is no worker")
            try await worker.joinFleet()
            let listed = try await workers()
            #expect(listed.count == 1, "\(listed)")
            let pid = Int(ProcessInfo.processInfo.processIdentifier)
            var host = [CChar](repeating: 0, count: 256)
            gethostname(&host, host.count)
            #expect(listed.first?["pid"] as? Int == pid && listed.first?["host"] as? String == String(cString: host), "\(listed)")
            #expect((listed.first?["description"] as? String)?.contains("(pid \(pid) on ") == true, "\(listed)")
            var state = ""
            let deadline = ContinuousClock.now + .seconds(60)
            while state != "completed", ContinuousClock.now < deadline {
                state = (try await daemon.call("GET", "assets/\(id)").json as? [String: Any])?["state"] as? String ?? ""
                try await Task.sleep(for: .milliseconds(50))
            }
            await worker.shutdown()
            #expect(try await workers().isEmpty, "a worker that stopped is gone")
            #expect(state == "completed")
            // Run by the worker, not by the daemon.
            #expect(await seen.value == ["running", "finished"])
        }
    }
}
