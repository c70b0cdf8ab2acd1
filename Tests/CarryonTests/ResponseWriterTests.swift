@testable import Carryon
import AsyncHTTPClient
import CarryonTestSupport
import Foundation
import NIOCore
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The stall watch blames the server only for the server's time: once the response's head has
/// arrived, the fetch decides where the body goes (on Swift's cooperative pool, which a busy
/// process can keep waiting); that wait is not silence from the server.
@Suite("Writing a response as it arrives")
struct ResponseWriterTests {
    @Test("a fetch that decides on the head three times the stall timeout late is no stall: the body is written whole",
          .timeLimit(.minutes(1)))
    func lateDecisionIsNoStall() async throws {
        let body = (0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning(["/s1.ts": .body(body)]) { origin in
                let client = PlaylistFetcher.sharedClient
                let meter = StallMeter(timeout: .seconds(1))
                let writer = ResponseWriter(eventLoop: client.eventLoopGroup.next(), meter: meter)
                let request = try HTTPClient.Request(url: origin.baseURL + "/s1.ts")
                let task = client.execute(request: request, delegate: writer, eventLoop: .delegate(on: writer.eventLoop))
                writer.follow(task)
                let stalls = Locked<[StallWatch.Stall]>([])
                writer.watch { stall in
                    stalls.withLock { $0.append(stall) }
                    task.fail(reason: StallError(stall: stall))
                }
                let head = try await writer.head.get()
                #expect(head.status == .ok)
                // The process is slow to decide: three timeouts pass before the body may flow.
                try await Task.sleep(for: .seconds(3))
                let path = folder.appendingPathComponent("s1.part").path
                let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
                #expect(descriptor >= 0)
                writer.begin(.init(descriptor: descriptor, path: path, uri: origin.baseURL + "/s1.ts", offset: 0, expected: body.count,
                                   limit: body.count, budget: nil, rateLimit: nil, progress: { meter.received($0) }, digest: RunningDigest()))
                let written = try await task.futureResult.get()
                await writer.close()
                close(descriptor)
                #expect(stalls.withLock { $0 }.isEmpty, "\(stalls.withLock { $0 })")
                #expect(written == body.count)
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(body))
            }
        }
    }
}
