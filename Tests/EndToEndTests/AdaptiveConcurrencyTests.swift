@testable import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// Adaptive concurrency against a real origin: a link that paces each connection rewards more
/// requests, and the task takes more, up to its maximum; the number shows in the progress.
@Suite("Adaptive concurrency, downloading")
struct AdaptiveConcurrencyTests {
    @Test("each connection capped: the requests in flight grow past 8 and never pass the maximum, shown in the progress",
          .timeLimit(.minutes(2)))
    func grows() async throws {
        let segment = (0..<4_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        try await HostileOrigin.withRunning { origin in
            var playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
            // Alone this takes about 2 s; beside the whole suite, whose tests share the
            // cooperative threads, 30 s or more, and the growth came too late to overlap in
            // one run of four with 96 segments: 160 leave time after it.
            for index in 0..<160 {
                playlist += "#EXTINF:4,\ns\(index).ts\n"
                origin.answer("/s\(index).ts", with: .paced(segment, chunk: 1_000, every: .milliseconds(50)))
            }
            origin.answer("/media.m3u8", with: .body([UInt8]((playlist + "#EXT-X-ENDLIST\n").utf8)))
            try await withTemporaryDirectory { folder in
                var configuration = DownloadSession.Configuration()
                configuration.concurrencyWindow = .milliseconds(400)
                configuration.maximumConnections = 20
                let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
                let session = try await DownloadSession(library: library, configuration: configuration)
                let events = await session.events()
                let task = try await session.makeTask(url: origin.baseURL + "/media.m3u8")
                let watcher = Task {
                    var seen: [Int] = []
                    for await event in events {
                        if case .progress(_, let progress) = event, let connections = progress.connections { seen.append(connections) }
                        if case .stateChanged(_, let state) = event, state == .completed || state == .failed { break }
                    }
                    return seen
                }
                try await task.resume()
                #expect(await task.waitUntilFinished() == .completed)
                let seen = await watcher.value
                await session.shutdown()
                #expect(seen.first == 8 && (seen.max() ?? 0) > 8 && (seen.max() ?? 0) <= 20, "requests in flight over the download: \(seen)")
                #expect(origin.mostAtOnce > 8 && origin.mostAtOnce <= 20, "\(origin.mostAtOnce) requests at once at the origin")
            }
        }
    }
}
