@testable import Carryon
@testable import CarryonIndexTestSupport
import CarryonTestSupport
import Foundation
import Testing

/// A fleet's machines share the index and mount the library's folder; one that does not mount
/// it (or names another `--library`) sees none of the bundles the index lists. It must not take
/// that for the truth: the sizes it would keep are every machine's, the storage rules' included,
/// and a repair would download the whole library again into a folder no one else reads. A
/// bundle missing beside others, though, is missing — damage — on either index.
@Suite("A bundle this machine does not see")
struct UnseenBundleTests {
    @Test("a bundle removed beside others lists as 0 bytes and verifies as damaged; PostgreSQL: a machine without the library's folder lists the index's sizes, says the bundle is not there, keeps nothing, and its verify refuses naming the path; a cancelled asset there shows no such note")
    func folderNotMounted() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder.appendingPathComponent("fleet"))
            let stream = try writeThreeSegmentStream(in: folder.appendingPathComponent("media"))
            let session = try await DownloadSession(library: library)
            var ids: [String] = []
            for name in ["unseen", "cancelled", "removed", "kept"] {
                let task = try await session.makeTask(url: stream.path, name: name)
                try await task.resume()
                #expect(await task.waitUntilFinished() == .completed)
                ids.append(task.id)
            }
            let (unseen, cancelled, removed, _) = (ids[0], ids[1], ids[2], ids[3])
            let listed = try await library.asset(unseen)
            #expect(listed.bytesOnDisk > 12_000 && listed.problems == nil, "\(listed.bytesOnDisk) \(String(describing: listed.problems))")
            // Listed (its figures kept), then suspended (as adding media selections leaves it) and cancelled.
            #expect(try await library.asset(cancelled).bytesOnDisk > 12_000)
            try await library.release(try await library.holdAsAnotherProcess(cancelled))
            #expect(try await session.task(id: cancelled).cancel() == .cancelled)

            // A bundle removed while the others are there: it is gone, on either index.
            try FileManager.default.removeItem(at: library.bundleURL(for: removed))
            // A change the index counts (as a download writing the bundle makes): its figures are walked again.
            try await library.index.bundleChanged(removed)
            let walked = try await library.asset(removed)
            #expect(walked.bytesOnDisk == 0 && walked.problems == nil, "\(walked.bytesOnDisk) \(String(describing: walked.problems))")
            let report = try await session.verify(removed)
            #expect(!report.isIntact && report.damage.count == 3, "\(report.damage)")
            await session.shutdown()
            guard TestIndex.isPostgres else { return }

            // Another machine: the same index, a folder that is not the fleet's; the bundle changed
            // since it was last listed (a worker wrote it), so the figures are computed again.
            let elsewhere = try OfflineLibrary(root: folder.appendingPathComponent("not-mounted"), index: library.indexLocation)
            try await elsewhere.index.bundleChanged(unseen)
            let seenElsewhere = try await elsewhere.asset(unseen)
            let path = elsewhere.bundleURL(for: unseen).path
            #expect(seenElsewhere.bytesOnDisk == listed.bytesOnDisk && seenElsewhere.bytesByRendition == listed.bytesByRendition)
            #expect(seenElsewhere.problems?.contains { $0.contains("not at \(path) on this machine") } == true, "\(String(describing: seenElsewhere.problems))")
            #expect(try await elsewhere.assets().first { $0.id == unseen }?.bytesOnDisk == listed.bytesOnDisk)
            // The cancelled asset's bundle is gone with its plan: nothing out of sight, no note.
            let gone = try await elsewhere.asset(cancelled)
            #expect(gone.bytesOnDisk == 0 && gone.problems == nil, "\(gone.bytesOnDisk) \(String(describing: gone.problems))")
            // Nothing of that listing was kept: the fleet's machines still read the bundle's sizes,
            // and the index still counts them for the storage rules.
            #expect(try await library.index.asset(unseen)?.figuresAreCurrent == false)
            #expect(try await library.asset(unseen).bytesOnDisk == listed.bytesOnDisk)
            #expect(try await library.index.asset(unseen)?.bytesOnDisk == listed.bytesOnDisk)
            let checker = try await DownloadSession(library: elsewhere)
            let refusal = await #expect(throws: CarryonError.self) { try await checker.verify(unseen) }
            await checker.shutdown()
            #expect(refusal?.code == .library && refusal?.message.contains(path) == true, "\(String(describing: refusal))")
        }
    }
}
