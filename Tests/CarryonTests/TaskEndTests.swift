@testable import Carryon
@testable import CarryonIndexTestSupport
import CarryonTestSupport
import Foundation
import Testing

/// `waitUntilFinished()` answers with the state a task stopped in, never with one it passed
/// through: `carryon download` exits by that answer, and once printed an asset id and exited 0
/// for a stream refused at once, having been told "running" while the session was still
/// recording the failure.
@Suite("Waiting for a task's end")
struct TaskEndTests {
    @Test("a task refused at once is failed for every waiter, however soon after resume each asks")
    func everyWaiterSeesTheEnd() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder.appendingPathComponent("library"))
            let session = try await DownloadSession(library: library)
            let playlist = folder.appendingPathComponent("empty.m3u8")
            try "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-ENDLIST\n".write(to: playlist, atomically: true, encoding: .utf8)
            var answers: [DownloadState] = []
            // The session records a failure across a few suspensions (the index, the error log);
            // waiters that ask during any of them, a few of the 50 each round, found it "running".
            for _ in 0..<40 {
                let task = try await session.makeTask(url: playlist.path)
                try await task.resume()
                answers += await withTaskGroup(of: DownloadState.self) { group in
                    for delay in 0..<50 {
                        group.addTask {
                            for _ in 0..<delay { await Task.yield() }
                            return await task.waitUntilFinished()
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
            }
            await session.shutdown()
            #expect(answers.count == 2_000)
            #expect(answers.allSatisfy { $0 == .failed }, "\(Dictionary(grouping: answers, by: \.rawValue).mapValues(\.count))")
        }
    }

    @Test("a task cancelled just as it fails is cancelled: the end is recorded first, never written over the cancel")
    func cancelAsItEnds() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder.appendingPathComponent("library"))
            let session = try await DownloadSession(library: library, configuration: .init(maximumConcurrentTasks: 64))
            let playlist = folder.appendingPathComponent("empty.m3u8")
            try "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-ENDLIST\n".write(to: playlist, atomically: true, encoding: .utf8)
            var outcomes: [String] = []
            for _ in 0..<4 {
                var tasks: [DownloadTask] = []
                for _ in 0..<60 { tasks.append(try await session.makeTask(url: playlist.path)) }
                for task in tasks { try await task.resume() }
                // Sixty tasks failing at once, each cancelled a little later than the one before:
                // some before they fail, some while their end is being recorded, some after.
                outcomes += await withTaskGroup(of: String.self) { group in
                    for (index, task) in tasks.enumerated() {
                        group.addTask {
                            for _ in 0..<index { await Task.yield() }
                            do {
                                try await task.cancel()
                                return try await task.snapshot().state.rawValue
                            } catch {
                                return "\(error)"
                            }
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
            }
            await session.shutdown()
            #expect(outcomes.allSatisfy { $0 == "cancelled" }, "\(Dictionary(grouping: outcomes, by: { $0 }).mapValues(\.count))")
        }
    }

    @Test("resuming a task another process is downloading is refused as busy, naming why")
    func resumeWhileDownloadedElsewhere() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder.appendingPathComponent("library"))
            let session = try await DownloadSession(library: library)
            let task = try await session.makeTask(url: "http://127.0.0.1:9/main.m3u8")
            // The other process's claim in the index.
            _ = try await library.holdAsAnotherProcess(task.id)
            let error = await #expect(throws: CarryonError.self) { try await task.resume() }
            #expect(error?.code == .busy && error?.message.contains("another process") == true, "\(String(describing: error))")
            await session.shutdown()
        }
    }

    @Test("a session shut down answers every waiter: a running task's with suspended, a queued one's with waiting",
          .timeLimit(.minutes(1)))
    func shutdownAnswersWaiters() async throws {
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning(["/silent.m3u8": .silent]) { origin in
                let library = try OfflineLibrary(testingAt: folder.appendingPathComponent("library"))
                let session = try await DownloadSession(library: library, configuration: .init(maximumConcurrentTasks: 1))
                let running = try await session.makeTask(url: origin.baseURL + "/silent.m3u8")
                let queued = try await session.makeTask(url: origin.baseURL + "/silent.m3u8?second")
                try await running.resume()
                try await queued.resume()
                let runningWaiter = Task { await running.waitUntilFinished() }
                let queuedWaiter = Task { await queued.waitUntilFinished() }
                while true {
                    let waiting = (await session.finishWaiterCount(running.id), await session.finishWaiterCount(queued.id))
                    if origin.requests.contains("/silent.m3u8") && waiting == (1, 1) { break }
                    try await Task.sleep(for: .milliseconds(10))
                }
                await session.shutdown()
                // Answered, a waiter is gone; one never answered would hang the test.
                let deadline = ContinuousClock.now + .seconds(20)
                while await session.finishWaiterCount(running.id) + session.finishWaiterCount(queued.id) > 0 {
                    guard ContinuousClock.now < deadline else {
                        Issue.record("shutdown left a waiter unanswered")
                        return
                    }
                    try await Task.sleep(for: .milliseconds(10))
                }
                let (first, second) = (await runningWaiter.value, await queuedWaiter.value)
                #expect(first == .suspended && second == .waiting, "\(first), \(second)")
            }
        }
    }
}

extension DownloadSession {
    /// How many wait for task `id` to finish.
    func finishWaiterCount(_ id: String) -> Int { tasks[id]?.waiters.count ?? 0 }
}
