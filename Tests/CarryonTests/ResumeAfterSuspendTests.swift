@testable import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// A resume that comes while a suspended run is still stopping (a suspend records the state and
/// cancels the transfer without waiting) waits for it, instead of finding the run there and doing
/// nothing: the daemon's API answered such a resume "suspended" on a loaded machine.
@Suite("Resume right after suspend")
struct ResumeAfterSuspendTests {
    @Test("a resume the moment a suspend returns is not lost: the task is queued and fetches again, five times over", arguments: 0..<5)
    func resumeAtOnce(round: Int) async throws {
        try await HostileOrigin.withRunning { origin in
            origin.answer("/media.m3u8", with: .body([UInt8]("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns1.ts\n#EXT-X-ENDLIST\n".utf8)))
            origin.answer("/s1.ts", with: .stall(sent: [0x47], length: 188_000))
            try await withTemporaryDirectory { folder in
                let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
                let session = try await DownloadSession(library: library)
                let task = try await session.makeTask(url: origin.baseURL + "/media.m3u8")
                try await task.resume()
                func fetches() -> Int { origin.requests.filter { $0 == "/s1.ts" }.count }
                let deadline = ContinuousClock.now + .seconds(30)
                while fetches() < 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
                #expect(fetches() == 1, "round \(round): the segment was never asked for")
                #expect(try await task.suspend() == .suspended)
                try await task.resume()
                let state = try await task.snapshot().state
                #expect([.waiting, .running].contains(state), "round \(round): resumed, it is \(state)")
                while fetches() < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
                #expect(fetches() == 2, "round \(round): the segment was not asked for again")
                await session.shutdown()
            }
        }
    }
}
