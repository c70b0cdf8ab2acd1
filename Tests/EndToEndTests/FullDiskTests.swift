import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A download onto a disk that fills up: a clear error, nothing lost, and a resume after space
/// is freed completes. The disk is a small tmpfs mounted for the test (this needs root, as CI
/// and the development machines run).
@Suite("A full disk")
struct FullDiskTests {
    func mountTmpfs(at path: String, size: String) async throws {
        let result = try await run(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path])
        guard result.status == 0 else {
            throw TestSupportError("this test mounts a small tmpfs to fill it, and mount failed (it needs root): \(result.standardError)")
        }
    }

    @Test("a download that fills the disk fails with a clear error and resumes once space is freed",
          .timeLimit(.minutes(1)))
    func fullDisk() async throws {
        try await withTemporaryDirectory { folder in
            let disk = folder.appendingPathComponent("disk")
            try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
            try await mountTmpfs(at: disk.path, size: "640k")
            defer { _ = Glibc.umount2(disk.path, Int32(MNT_DETACH)) }
            let library = try OfflineLibrary(root: disk.appendingPathComponent("library"))
            try await Origin(root: sampleMedia.path).withRunning { origin in
                // One request at a time, so that what fills the disk is deterministic: the
                // resources before it are complete, and must survive.
                var configuration = DownloadSession.Configuration()
                configuration.maximumRequestsPerTask = 1
                configuration.maximumConcurrentRequests = 1
                let session = try await DownloadSession(library: library, configuration: configuration)
                let options = DownloadOptions(prefersHDR: false, audio: .all, subtitles: .all)
                let task = try await session.makeTask(url: origin.baseURL + "/ts/main.m3u8", options: options)
                try await task.resume()
                #expect(await task.waitUntilFinished() == .failed)
                let failed = try await task.snapshot()
                let message = try #require(failed.error)
                #expect(message.contains("no space left") || message.contains("full"), "\(message)")
                #expect(failed.progress.resourcesDone > 0)
                let doneBefore = failed.progress.resourcesDone

                // Free space, and continue.
                let remount = try await run(URL(fileURLWithPath: "/bin/mount"), ["-o", "remount,size=32m", disk.path])
                #expect(remount.status == 0)
                try await task.resume()
                #expect(await task.waitUntilFinished() == .completed)
                let done = try await task.snapshot()
                #expect(done.progress.resourcesDone == done.progress.resourcesTotal)
                #expect(done.progress.resourcesTotal > doneBefore)
                await session.shutdown()

                let bundle = URL(fileURLWithPath: done.bundlePath)
                let manifest = try JSONDecoder.iso8601.decode(BundleManifest.self, from: Data(contentsOf: bundle.appendingPathComponent("manifest.json")))
                for file in manifest.files {
                    let local = try Data(contentsOf: bundle.appendingPathComponent(file.path))
                    let source = try Data(contentsOf: sampleMedia.appendingPathComponent(String(file.uri.dropFirst(origin.baseURL.count))))
                    #expect(local == source, "\(file.path)")
                }
            }
        }
    }
}
