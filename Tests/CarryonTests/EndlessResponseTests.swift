@testable import Carryon
import CarryonIndexTestSupport
import CarryonTestSupport
import Foundation
import Testing

/// A response that never ends, against a session: the free space to keep stops it (the
/// library's minimum, or the default reserve when the library sets none), and a segment far
/// past its variant's bandwidth is refused as wrong — whatever the estimate said before the
/// start.
@Suite("Endless responses")
struct EndlessResponseTests {
    /// A multivariant playlist with one 4-second segment at `bandwidth`, served by `origin`,
    /// whose segment `/s1.ts` answers as the test says.
    static func serveStream(_ origin: HostileOrigin, bandwidth: Int) {
        origin.answer("/main.m3u8", with: .body(Array("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=\(bandwidth)\nmedia.m3u8\n".utf8)))
        origin.answer("/media.m3u8", with: .body(Array("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns1.ts\n#EXT-X-ENDLIST\n".utf8)))
        origin.answer("/s1.ts", with: .endless(chunk: 64 << 10))
    }

    @Test("without rules of the library's own, the default reserve stops an endless segment; the task is suspended with the sizes",
          .timeLimit(.minutes(1)))
    func defaultReserve() async throws {
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning { origin in
                Self.serveStream(origin, bandwidth: 8_000_000)
                let library = try OfflineLibrary(testingAt: folder.appendingPathComponent("library"))
                // A 400 MB disk (default reserve: 5 %, 20 MB) with 40 MB free before the download.
                let root = library.root
                var configuration = DownloadSession.Configuration()
                configuration.diskSpace = DiskSpace(free: { 40_000_000 - BundleFiles.totalUsage(of: root) }, total: { 400_000_000 })
                let session = try await DownloadSession(library: library, configuration: configuration)
                let task = try await session.makeTask(url: origin.baseURL + "/main.m3u8")
                try await task.resume()
                #expect(await task.waitUntilFinished() == .suspended)
                let error = try #require(await session.lastError(of: task.id))
                #expect(error.code == .storage)
                #expect(error.message.contains("/s1.ts") && error.message.contains("less than 20000000 bytes free")
                        && error.message.contains("default reserve"), "\(error.message)")
                let written = BundleFiles.totalUsage(of: library.bundleURL(for: task.id))
                #expect(written <= 20_000_000 + 64 << 10, "stopped at the reserve, give or take one chunk: \(written)")
                #expect(written > 19_000_000, "\(written)")
                #expect(try await task.snapshot().error == error.message, "the error is kept with the asset")
                await session.shutdown()
            }
        }
    }

    @Test("a segment that passes 16 times its variant's bandwidth (32 MiB at least) is refused as wrong", .timeLimit(.minutes(1)))
    func growthLimit() async throws {
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning { origin in
                Self.serveStream(origin, bandwidth: 100_000)
                let library = try OfflineLibrary(testingAt: folder.appendingPathComponent("library"))
                let session = try await DownloadSession(library: library)
                let task = try await session.makeTask(url: origin.baseURL + "/main.m3u8")
                try await task.resume()
                #expect(await task.waitUntilFinished() == .failed)
                let error = try #require(await session.lastError(of: task.id))
                #expect(error.code == .tooLarge)
                #expect(error.message.contains("/s1.ts: the response passed \(32 << 20) bytes without an end"), "\(error.message)")
                let parts = BundleFiles.usage(of: library.bundleURL(for: task.id))
                let kept = try FileManager.default.subpathsOfDirectory(atPath: library.bundleURL(for: task.id).path)
                    .filter { $0.hasSuffix(".ts.part") }
                    .map { BundleFiles.size(of: library.bundleURL(for: task.id).appendingPathComponent($0)) ?? 0 }
                #expect(kept.count == 1 && kept[0] <= 32 << 20 && kept[0] > 31 << 20, "stopped at the limit: \(kept), \(parts)")
                #expect(origin.requests.filter { $0 == "/s1.ts" }.count == 1, "refused, not retried: \(origin.requests)")
                await session.shutdown()
            }
        }
    }
}
