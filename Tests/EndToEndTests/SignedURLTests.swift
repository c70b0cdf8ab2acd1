@testable import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// Downloads from a CDN whose signed URLs expire long before the download is done: the task
/// reads its manifest again and carries on, and fails — naming the status and the resource —
/// only when even a fresh location is refused.
@Suite("Expiring signed URLs")
struct SignedURLTests {
    @Test("media URLs signed for 3 s at most, a download of about 6 s: it completes byte-identical, each refresh in the error log",
          .timeLimit(.minutes(1)))
    func refreshesAndCompletes() async throws {
        try await withTemporaryDirectory { folder in
            // Signed anew every 0.5 s, each signature good for six signings: a fresh location
            // lasts 2.5 s at least (a loaded machine can take a second between reading the
            // manifest and asking for the segment), the first ones half the download (ten
            // segments of 1.2 s, two at a time).
            let cdn = try SigningCDN(segments: 10, size: 6_000, chunk: 1_000, every: .milliseconds(200), lifetime: 6,
                                     manifestURLFile: folder.appendingPathComponent("manifest-url"))
            defer { cdn.stop() }
            let rotation = cdn.rotating(every: .milliseconds(500))
            defer { rotation.cancel() }
            var configuration = DownloadSession.Configuration()
            configuration.maximumRequestsPerTask = 2
            let done = try await completedDownload(cdn.manifestURL, in: folder, configuration: configuration)
            let bundle = done.library.bundleURL(for: done.id)
            let files = try FileManager.default.subpathsOfDirectory(atPath: bundle.path).filter { $0.hasSuffix(".ts") }.sorted()
            #expect(files.count == 10)
            for (index, file) in files.enumerated() {
                #expect(Array(try Data(contentsOf: bundle.appendingPathComponent(file))) == cdn.segments[index], "\(file)")
            }
            let refreshes = try AssetLogs(library: done.library).entries(of: done.id)["error", default: []].filter { $0["x-error-code"] == "expired" }
            #expect(!refreshes.isEmpty && refreshes.allSatisfy { ($0["x-comment"] ?? "").contains("read the manifest again") },
                    "\(refreshes)")
            let refused = cdn.origin.requests.filter { $0.hasPrefix("/s") }.count - 10
            #expect(refused >= 1 && refreshes.count <= refused, "\(refused) requests met an expired signature, \(refreshes.count) refreshes")
        }
    }

    @Test("a segment refused even at the location a fresh manifest gives fails the task, naming the status and the resource",
          .timeLimit(.minutes(1)))
    func refusedEvenWhenFresh() async throws {
        try await withTemporaryDirectory { folder in
            let cdn = try SigningCDN(segments: 4, size: 2_000, chunk: 2_000, every: .milliseconds(10), alwaysRefused: [2],
                                     manifestURLFile: folder.appendingPathComponent("manifest-url"))
            defer { cdn.stop() }
            let error = try await failedDownloadError(cdn.manifestURL, in: folder)
            #expect(error.contains("403") && error.contains("/s2.ts?sig="), "\(error)")
            #expect(error.contains("even at the location the manifest gave"), "\(error)")
        }
    }

    @Test("a variant added to a bundle is read again at the location the multivariant playlist names now, not at the expired one stored")
    func addedVariantFollowsItsSignature() async throws {
        func media(_ name: String) -> HostileOrigin.Answer {
            .body([UInt8]("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:4,\n\(name).ts?sig=2\n#EXT-X-ENDLIST\n".utf8))
        }
        let main = """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360
            low.m3u8?sig=2
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280x720
            high.m3u8?sig=2

            """
        try await HostileOrigin.withRunning(["/main.m3u8": .body([UInt8](main.utf8)), "/low.m3u8?sig=2": media("low"),
                                             "/high.m3u8?sig=2": media("high")]) { origin in
            // Signature 1 has expired: anything asked with it is refused.
            origin.answerUnknown(with: 403)
            let base = origin.baseURL
            let stored = MediaSelection.Variant(uri: base + "/high.m3u8?sig=1", bandwidth: 2_000_000, averageBandwidth: nil,
                                                resolution: "1280x720", codecs: nil, videoRange: nil, frameRate: nil)
            let planner = HLSPlanner(fetcher: PlaylistFetcher(client: PlaylistFetcher.sharedClient), options: DownloadOptions())
            let (plan, selection) = try await planner.plan(assetID: "a1", url: base + "/main.m3u8", pinnedVariant: base + "/low.m3u8?sig=1",
                                                           additionalVariants: [stored])
            #expect(plan.renditions.map(\.record.uri) == [base + "/low.m3u8?sig=2", base + "/high.m3u8?sig=2"])
            #expect(plan.resources.map(\.uri).contains(base + "/high.ts?sig=2"))
            #expect(selection?.additionalVariants.map(\.uri) == [base + "/high.m3u8?sig=2"])
            #expect(!origin.requests.contains { $0.contains("sig=1") }, "\(origin.requests)")
        }
    }
}
