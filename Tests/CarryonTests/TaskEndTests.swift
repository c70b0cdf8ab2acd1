@testable import Carryon
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
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            let session = try await DownloadSession(library: library)
            let playlist = folder.appendingPathComponent("empty.m3u8")
            try "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-ENDLIST\n".write(to: playlist, atomically: true, encoding: .utf8)
            var answers: [DownloadState] = []
            // The session records a failure across a few suspensions (the index, the error log);
            // waiters that ask during any of them, a few of the 50 each round, found it "running".
            for _ in 0..<100 {
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
            #expect(answers.count == 5_000)
            #expect(answers.allSatisfy { $0 == .failed }, "\(Dictionary(grouping: answers, by: \.rawValue).mapValues(\.count))")
        }
    }
}
