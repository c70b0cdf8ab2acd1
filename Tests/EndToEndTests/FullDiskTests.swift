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
    /// Runs `body` with a library on a tmpfs of `size` (mount's syntax: 640k, 8m), unmounted after.
    func withLibraryOnTmpfs(size: String, _ body: (OfflineLibrary, URL) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            let disk = folder.appendingPathComponent("disk")
            try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
            let result = try await run(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", disk.path])
            guard result.status == 0 else {
                throw TestSupportError("this test mounts a small tmpfs to fill it, and mount failed (it needs root): \(result.standardError)")
            }
            defer { _ = Glibc.umount2(disk.path, Int32(MNT_DETACH)) }
            try await body(try OfflineLibrary(root: disk.appendingPathComponent("library")), disk)
        }
    }

    @Test("a download that fills the disk fails with a clear error and resumes once space is freed",
          .timeLimit(.minutes(1)))
    func fullDisk() async throws {
        try await withLibraryOnTmpfs(size: "640k") { library, disk in
            try await Origin(root: sampleMedia.path).withRunning { origin in
                // One request at a time, so that what fills the disk is deterministic: the
                // resources before it are complete, and must survive.
                var configuration = DownloadSession.Configuration()
                configuration.maximumRequestsPerTask = 1
                configuration.maximumConcurrentRequests = 1
                // A disk that reports plenty free (as a network file system may, or as when
                // another writer fills it meanwhile): the write itself meets the full disk.
                // The reserve on a disk that reports its space is tested below.
                configuration.diskSpace = DiskSpace(free: { 1 << 40 }, total: { 1 << 41 })
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

    @Test("on a real disk, the default reserve stops an endless segment before the disk fills: suspended, the reserve still free",
          .timeLimit(.minutes(1)))
    func defaultReserve() async throws {
        try await withLibraryOnTmpfs(size: "8m") { library, disk in
            try await HostileOrigin.withRunning { origin in
                origin.answer("/main.m3u8", with: .body(Array("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2000000\nmedia.m3u8\n".utf8)))
                origin.answer("/media.m3u8", with: .body(Array("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns1.ts\n#EXT-X-ENDLIST\n".utf8)))
                origin.answer("/s1.ts", with: .endless(chunk: 16 << 10))
                let session = try await DownloadSession(library: library)
                let task = try await session.makeTask(url: origin.baseURL + "/main.m3u8")
                try await task.resume()
                #expect(await task.waitUntilFinished() == .suspended)
                let error = try #require(await session.lastError(of: task.id))
                #expect(error.code == .storage && error.message.contains("default reserve"), "\(error.message)")
                // 5 % of 8 MiB must stay free: statvfs of the tmpfs says so, whatever Carryon counted.
                let space = DiskSpace.fileSystem(at: disk.path)
                #expect(space.free() >= space.defaultReserve, "free \(space.free()), reserve \(space.defaultReserve)")
                #expect(space.free() < space.defaultReserve + (1 << 20), "it wrote up to the reserve: free \(space.free())")
                await session.shutdown()
            }
        }
    }
}
