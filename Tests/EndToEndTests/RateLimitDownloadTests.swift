@testable import Carryon
import CarryonServer
import HLS
import CarryonTestSupport
import Foundation
import Testing

/// A download under a rate limit: the session's, the task's own, the lower of the two; and a
/// limit slow enough that each chunk waits longer than the stall timeout.
@Suite("Downloads under a rate limit")
struct RateLimitDownloadTests {
    /// Seconds since `start`.
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock().now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    @Test("the session's limit and a task's own (kept with the asset, for resume): the lower holds the whole task, over all its connections",
          .timeLimit(.minutes(1)))
    func lowerLimitHolds() async throws {
        let options = DownloadOptions(maximumResolution: Resolution(width: 640, height: 360), audio: .languages(["en"]), subtitles: .none)
        try await Origin(root: sampleMedia.path).withRunning { origin in
            for (session, own, expected) in [(Optional(300_000), Int?.none, 300_000), (10_000_000, 200_000, 200_000)] {
                try await withTemporaryDirectory { folder in
                    var configuration = DownloadSession.Configuration()
                    configuration.maximumBytesPerSecond = session
                    var limited = options
                    limited.maximumBytesPerSecond = own
                    let start = ContinuousClock().now
                    let done = try await completedDownload(origin.baseURL + "/fmp4/main.m3u8", in: folder, options: limited, configuration: configuration)
                    let elapsed = Self.seconds(since: start)
                    let bytes = done.snapshot.progress.bytesDone
                    #expect(bytes > 500_000, "\(bytes)")
                    let kept = try await done.library.index.asset(done.id)?.options.maximumBytesPerSecond
                    #expect(kept == own, "the task's own limit is kept with it, for resume")
                    // Never faster than the limit (it may be slower on a busy machine).
                    #expect(elapsed >= Double(bytes) / Double(expected) * 0.95,
                            "\(bytes) bytes in \(elapsed) s under \(expected) bytes/s (session \(session.map(String.init) ?? "none"), task \(own.map(String.init) ?? "none"))")
                }
            }
        }
    }

    @Test("a limit that holds each chunk longer than the stall timeout is not a stall: the download completes", .timeLimit(.minutes(1)))
    func waitingIsNotStalling() async throws {
        let body = (0..<6_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try await HostileOrigin.withRunning { origin in
            origin.answer("/media.m3u8", with: .body([UInt8]("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns1.ts\n#EXT-X-ENDLIST\n".utf8)))
            origin.answer("/s1.ts", with: .body(body))
            try await withTemporaryDirectory { folder in
                var configuration = DownloadSession.Configuration()
                // 2 s, not less: a loaded machine may not read the socket for a second.
                configuration.stallTimeout = .seconds(2)
                configuration.maximumBytesPerSecond = 1_000
                let start = ContinuousClock().now
                let done = try await completedDownload(origin.baseURL + "/media.m3u8", in: folder, configuration: configuration)
                #expect(Self.seconds(since: start) >= 5.7, "6,000 bytes at 1,000 a second, in one or a few chunks each held seconds")
                let files = try FileManager.default.subpathsOfDirectory(atPath: done.library.bundleURL(for: done.id).path).filter { $0.hasSuffix(".ts") }
                let stored = try Data(contentsOf: done.library.bundleURL(for: done.id).appendingPathComponent(try #require(files.first)))
                #expect(Array(stored) == body)
                #expect(origin.requests.filter { $0.hasSuffix("/s1.ts") }.count == 1, "one request, never taken for stalled: \(origin.requests)")
            }
        }
    }
}
