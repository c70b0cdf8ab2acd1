@testable import Carryon
import CarryonIndexTestSupport
import CarryonTestSupport
import Foundation
import Testing

/// A fleet's machines share the index and mount the library's folder; one that does not mount
/// it (or names another `--library`) sees none of the bundles the index lists. It must not take
/// that for the truth: the sizes it would keep are every machine's, the storage rules' included,
/// and a repair would download the whole library again into a folder no one else reads. With
/// SQLite the index lives in the folder, so a missing bundle is a missing bundle.
@Suite("A bundle this machine does not see")
struct UnseenBundleTests {
    @Test("PostgreSQL: a machine without the library's folder lists the index's sizes, says the bundle is not there and keeps nothing, and its verify refuses naming the path; SQLite: a removed bundle lists as 0 bytes and verifies as damaged")
    func folderNotMounted() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder.appendingPathComponent("fleet"))
            let media = folder.appendingPathComponent("media")
            try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
            for index in 0..<3 { try Data(repeating: UInt8(index), count: 4_000).write(to: media.appendingPathComponent("s\(index).ts")) }
            try "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns0.ts\n#EXTINF:4,\ns1.ts\n#EXTINF:4,\ns2.ts\n#EXT-X-ENDLIST\n"
                .write(to: media.appendingPathComponent("main.m3u8"), atomically: true, encoding: .utf8)
            let session = try await DownloadSession(library: library)
            let task = try await session.makeTask(url: media.appendingPathComponent("main.m3u8").path, name: "title")
            try await task.resume()
            #expect(await task.waitUntilFinished() == .completed)
            await session.shutdown()
            let listed = try await library.asset(task.id)
            #expect(listed.bytesOnDisk > 12_000, "\(listed.bytesOnDisk)")
            #expect(listed.problems == nil)

            guard TestIndex.isPostgres else {
                try FileManager.default.removeItem(at: library.bundleURL(for: task.id))
                // A change the index counts (as a download writing the bundle makes): its figures are walked again.
                try await library.index.bundleChanged(task.id)
                let walked = try await library.asset(task.id)
                #expect(walked.bytesOnDisk == 0 && walked.problems == nil, "\(walked.bytesOnDisk) \(String(describing: walked.problems))")
                let checker = try await DownloadSession(library: library)
                let report = try await checker.verify(task.id)
                await checker.shutdown()
                #expect(!report.isIntact && report.damage.count == 3, "\(report.damage)")
                return
            }
            // Another machine: the same index, a folder that is not the fleet's; the bundle changed
            // since it was last listed (a worker wrote it), so the figures are computed again.
            let elsewhere = try OfflineLibrary(root: folder.appendingPathComponent("not-mounted"), index: library.indexLocation)
            try await elsewhere.index.bundleChanged(task.id)
            let unseen = try await elsewhere.asset(task.id)
            let path = elsewhere.bundleURL(for: task.id).path
            #expect(unseen.bytesOnDisk == listed.bytesOnDisk && unseen.bytesByRendition == listed.bytesByRendition)
            #expect(unseen.problems?.contains { $0.contains("not at \(path) on this machine") } == true, "\(String(describing: unseen.problems))")
            #expect(try await elsewhere.assets().first?.bytesOnDisk == listed.bytesOnDisk)
            // Nothing of that listing was kept: the fleet's machines still read the bundle's sizes,
            // and the index still counts them for the storage rules.
            #expect(try await library.index.asset(task.id)?.figuresAreCurrent == false)
            #expect(try await library.asset(task.id).bytesOnDisk == listed.bytesOnDisk)
            #expect(try await library.index.asset(task.id)?.bytesOnDisk == listed.bytesOnDisk)
            let checker = try await DownloadSession(library: elsewhere)
            let refusal = await #expect(throws: CarryonError.self) { try await checker.verify(task.id) }
            await checker.shutdown()
            #expect(refusal?.code == .library && refusal?.message.contains(path) == true, "\(String(describing: refusal))")
        }
    }
}
