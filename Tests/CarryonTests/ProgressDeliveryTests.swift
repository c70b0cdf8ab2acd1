@testable import Carryon
import CarryonIndexTestSupport
import CarryonTestSupport
import Foundation
import Testing

/// Progress counts each byte once: the batches a request reports arrive in order and before
/// the resource is done, on a fast link with several requests at once.
@Suite("Progress delivered in order")
struct ProgressDeliveryTests {
    @Test("every progress event counts no more than the bytes that arrived; the last one counts them exactly",
          .timeLimit(.minutes(1)))
    func exactBytes() async throws {
        // Sixty segments of 700 kB, each several batches, four requests at a time.
        let segments = 60
        let body = (0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var playlist = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        var answers: [String: HostileOrigin.Answer] = [:]
        for index in 0..<segments {
            playlist += "#EXTINF:2.0,\n\(index).ts\n"
            answers["/\(index).ts"] = .body(body)
        }
        playlist += "#EXT-X-ENDLIST\n"
        answers["/main.m3u8"] = .body([UInt8](playlist.utf8))
        let total = segments * body.count
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning(answers) { origin in
                let library = try OfflineLibrary(testingAt: folder.appendingPathComponent("library"))
                let session = try await DownloadSession(library: library, configuration: .init(maximumRequestsPerTask: 4))
                let events = await session.events()
                let task = try await session.makeTask(url: origin.baseURL + "/main.m3u8")
                try await task.resume()
                let state = await task.waitUntilFinished()
                await session.shutdown()
                #expect(state == .completed)
                var progress: [DownloadProgress] = []
                for await event in events {
                    if case .progress(_, let value) = event { progress.append(value) }
                }
                let over = progress.filter { $0.bytesDone > total }
                #expect(over.isEmpty, "\(over.count) events counted more than the \(total) bytes sent, up to \(over.map(\.bytesDone).max() ?? 0)")
                let last = try #require(progress.last)
                #expect(last.bytesDone == total && last.resourcesDone == segments)
            }
        }
    }
}
