@testable import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// Downloads from a CDN whose signed URLs expire long before the download is done: the task
/// reads its manifest again and carries on, and fails — naming the status and the resource —
/// only when even a fresh location is refused.
@Suite("Expiring signed URLs")
struct SignedURLTests {
    @Test("media URLs signed for 1.5 s at most, a download of about 3 s: it completes byte-identical, each refresh in the error log",
          .timeLimit(.minutes(1)))
    func refreshesAndCompletes() async throws {
        try await withTemporaryDirectory { folder in
            // Signed anew every 0.5 s, each signature good for three signings: a fresh location
            // lasts a second at least, the first ones far less than the download.
            let cdn = try SigningCDN(segments: 10, size: 6_000, chunk: 1_000, every: .milliseconds(100), lifetime: 3,
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
}
