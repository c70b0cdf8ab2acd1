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
@Suite("A full disk", .heavy)
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

    /// The stream each format's case downloads, its sample's root, and a disk too small for it.
    static let streams: [String: (root: URL, path: String, disk: String)] = [
        "hls": (sampleMedia, "/ts/main.m3u8", "640k"),
        "dash": (dashSampleMedia, "/timeline/main.mpd", "448k"),
    ]

    @Test("a download that fills the disk fails with a clear error and resumes once space is freed", arguments: ["hls", "dash"])
    func fullDisk(format: String) async throws {
        let stream = try #require(Self.streams[format])
        try await withLibraryOnTmpfs(size: stream.disk) { library, disk in
            try await Origin(root: stream.root.path).withRunning { origin in
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
                let task = try await session.makeTask(url: origin.baseURL + stream.path, options: options)
                try await task.resume()
                #expect(await task.waitUntilFinished() == .failed)
                let failed = try await task.snapshot()
                let message = try #require(failed.error)
                #expect(message.contains("no space left") || message.contains("full"), "\(message)")
                #expect(message.contains("; the download still needs about ") && message.hasSuffix(" more bytes"), "\(message)")
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
                    let source = try Data(contentsOf: stream.root.appendingPathComponent(String(file.uri.dropFirst(origin.baseURL.count))))
                    #expect(local == source, "\(file.path)")
                }
            }
        }
    }

    @Test("on a real disk, the default reserve stops an endless segment before the disk fills: suspended, the reserve still free")
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
    @Test("on a full disk the index's error says the disk is full and where; list and show still work, even after a crash mid-download")
    func fullIndex() async throws {
        try await withLibraryOnTmpfs(size: "4m") { library, disk in
            try await HostileOrigin.withRunning { origin in
                let segment = [UInt8](repeating: 0x47, count: 188 * 20)
                origin.answer("/main.m3u8", with: .body(Array("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns1.ts\n#EXTINF:4,\ns2.ts\n#EXT-X-ENDLIST\n".utf8)))
                origin.answer("/s1.ts", with: .body(segment))
                origin.answer("/s2.ts", with: .stall(sent: Array(segment.prefix(1000)), length: segment.count))
                let root = library.root.path
                // A download killed while it runs leaves its task "running" in the index: the
                // next process records it suspended, which is a write.
                let download = try RunningProcess(carryon: ["download", origin.baseURL + "/main.m3u8", "--library", root, "--json"])
                for _ in 0..<500 where !origin.requests.contains(where: { $0.contains("/s2.ts") }) {
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(origin.requests.contains { $0.contains("/s2.ts") })
                let filler = try fill(disk)
                download.kill()
                _ = await download.wait()

                let list = try await runCarryon(["list", "--library", root])
                #expect(list.status == 0, "list on a full disk: \(list.standardError)")
                let id = try #require(list.standardOutput.split(separator: "\n").dropFirst().first?.split(separator: " ").first.map(String.init))
                #expect(list.standardOutput.contains("suspended"), "\(list.standardOutput)")
                let show = try await runCarryon(["show", id, "--library", root])
                #expect(show.status == 0 && show.standardOutput.contains(id), "show on a full disk: \(show.standardError)")
                for command in [["logs", id], ["keys", "list", id]] {
                    let result = try await runCarryon(command + ["--library", root])
                    #expect(result.status == 0, "\(command) on a full disk: \(result.standardError)")
                }

                let policy = try await runCarryon(["policy", id, "--expires", "30d", "--library", root])
                #expect(policy.status == 1)
                let lines = policy.standardError.split(separator: "\n").map(String.init)
                #expect(lines.first?.contains("the disk holding the library is full: the index \(root)/index.sqlite cannot be written") == true,
                        "\(policy.standardError)")
                #expect(lines.last?.contains("Free disk space") == true, "\(policy.standardError)")

                try FileManager.default.removeItem(at: filler)
                let after = try await runCarryon(["policy", id, "--expires", "30d", "--library", root])
                #expect(after.status == 0, "\(after.standardError)")
            }
        }
    }

    /// Fills the file system holding `folder` with a file, to the last byte it takes; returns it.
    func fill(_ folder: URL) throws -> URL {
        let filler = folder.appendingPathComponent("filler")
        let descriptor = open(filler.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw TestSupportError("cannot create \(filler.path)") }
        defer { close(descriptor) }
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while chunk.count > 0 {
            if Glibc.write(descriptor, &chunk, chunk.count) < 0 { chunk.removeLast(chunk.count / 2 + chunk.count % 2) }
        }
        return filler
    }
}
