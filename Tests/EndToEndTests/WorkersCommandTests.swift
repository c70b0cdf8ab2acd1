@testable import Carryon
@testable import CarryonIndexTestSupport
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// `carryon workers`: the fleet's workers alive now, as the library's index records them,
/// read by another process.
@Suite("carryon workers", .heavy)
struct WorkersCommandTests {
    @Test("carryon workers: a library folder that is not there refused; none before a worker starts (and enqueue says the download waits); the worker by name, process id and host while it runs, idle (a table, and --json); none once it stopped")
    func workersListed() async throws {
        try await withTemporaryDirectory { folder in try await Origin(root: sampleMedia.path).withRunning { origin in
            let library = folder.appendingPathComponent("library").path
            // A library folder that is not there is refused (a typo), not made.
            let typo = try await runCarryon(["workers", "--library", library])
            #expect(typo.status == 1 && typo.standardError.contains("no library at \(library): there is no such folder"), "\(typo.standardError)")
            #expect(!FileManager.default.fileExists(atPath: library))
            // With a PostgreSQL index the folder is not asked for (a machine that does not
            // mount the fleet's may read the index): the index is tried, and this one is not there.
            let shared = try await runCarryon(["workers", "--library", library, "--index", "postgres://carryon@127.0.0.1:1/none?connect_timeout=1"])
            #expect(shared.status == 1 && shared.standardError.contains("no connection to the library index") && !shared.standardError.contains("no library at"),
                    "\(shared.standardError)")
            let stream = origin.baseURL + "/ts/270p/index.m3u8"
            let waits = try await runCarryon(["enqueue", stream, "--library", library])
            #expect(waits.status == 0 && waits.standardError.contains("no worker runs now: the download waits until one starts"), "\(waits.standardError)")
            let none = try await runCarryon(["workers", "--library", library])
            #expect(none.status == 0 && none.standardOutput.hasPrefix("No worker runs now"), "\(none.standardOutput)\(none.standardError)")
            let worker = try RunningProcess(carryon: ["worker", "--name", "rack-3", "--allow-private-origins", "--library", library])
            func listed() async throws -> [[String: Any]] {
                let answer = try await runCarryon(["workers", "--json", "--library", library])
                #expect(answer.status == 0, "\(answer.standardError)")
                let json = try JSONSerialization.jsonObject(with: Data(answer.standardOutput.utf8)) as? [String: Any]
                return try #require(json?["workers"] as? [[String: Any]], "\(answer.standardOutput)")
            }
            // Listed once it has joined (it prints its first line then).
            var workers: [[String: Any]] = []
            let deadline = ContinuousClock.now + .seconds(30)
            while workers.isEmpty, ContinuousClock.now < deadline {
                workers = try await listed()
                if workers.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(workers.count == 1, "\(workers)")
            // Queued with a worker running: nothing to say. The worker runs both downloads.
            let runs = try await runCarryon(["enqueue", stream, "--name", "second", "--library", library])
            #expect(runs.status == 0 && !runs.standardError.contains("no worker"), "\(runs.standardError)")
            var states: Set<String> = []
            while states != ["completed"], ContinuousClock.now < deadline + .seconds(30) {
                let list = try await runCarryon(["list", "--json", "--library", library])
                let assets = try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [[String: Any]] ?? []
                states = Set(assets.compactMap { $0["state"] as? String })
                if states != ["completed"] { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(states == ["completed"])
            workers = try await listed()
            let first = workers.first ?? [:]
            #expect(first["name"] as? String == "rack-3" && first["pid"] as? Int == Int(worker.pid) && first["running"] as? Int == 0, "\(first)")
            #expect(first["earlierRelease"] as? Bool == false, "\(first)")
            #expect(first["description"] as? String == "rack-3 (pid \(worker.pid) on \(first["host"] as? String ?? "?"))", "\(first)")
            let table = try await runCarryon(["workers", "--library", library])
            let rows = table.standardOutput.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
            #expect(rows.first == ["NAME", "PID", "HOST", "SINCE", "RUNNING"], "\(table.standardOutput)")
            #expect(rows.count == 2 && rows.last?.prefix(2) == ["rack-3", "\(worker.pid)"] && rows.last?.last == "0", "\(table.standardOutput)")
            worker.kill(SIGTERM)
            #expect(await worker.wait() == 0)
            #expect(try await listed().isEmpty, "a worker that stopped is gone")
            // A process of an earlier release, still running through the upgrade (this test's
            // own, alive), does not say whether it works for the fleet: listed as one that may,
            // marked, and enqueue does not say that none runs.
            let now = Date()
            try await OfflineLibrary(root: URL(fileURLWithPath: library))
                .registerAsEarlierRelease(Instance.make(), label: "old worker", at: now, until: now.addingTimeInterval(120))
            #expect(try await listed().map { $0["earlierRelease"] as? Bool } == [true])
            let marked = try await runCarryon(["workers", "--library", library])
            let lines = marked.standardOutput.split(separator: "\n").map(String.init)
            #expect(lines.count == 3 && lines[1].hasPrefix("old worker * ") && lines[2].hasPrefix("* a process of an earlier release"), "\(marked.standardOutput)")
            let queued = try await runCarryon(["enqueue", stream, "--name", "third", "--library", library])
            #expect(queued.status == 0 && !queued.standardError.contains("no worker"), "\(queued.standardError)")
        } }
    }
}
