@testable import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// `verify` and `repair`: each resource's SHA-256 is recorded as it is written; every kind of
/// damage is found and named; a repair mends each resource byte-identical from the origin, and
/// one that cannot reach the origin changes nothing.
@Suite("Verify and repair", .heavy)
struct VerifyRepairTests {
    /// The SHA-256 of a file, by coreutils: the digests Carryon records are checked against a
    /// tool that is not Carryon's.
    static func sha256(_ path: String) async throws -> String {
        let result = try await run(URL(fileURLWithPath: "/usr/bin/sha256sum"), [path])
        return String(result.standardOutput.prefix(64))
    }

    /// The origin's file a resource was fetched from (the sample media under `base`).
    static func originFile(_ resource: ResourceRecord, base: String) -> URL {
        sampleMedia.appendingPathComponent(String(resource.uri.dropFirst(base.count + 1)))
    }

    @Test("every kind of damage is found and named, repair mends each byte-identical, and a repair without the origin changes nothing")
    func damageFoundAndMended() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            let origin = Origin(root: sampleMedia.path)
            let (id, base, bundle) = try await origin.withRunning { origin in
                let session = try await DownloadSession(library: library)
                let task = try await session.makeTask(url: origin.baseURL + "/ts/main.m3u8",
                                                      options: DownloadOptions(audio: .languages(["en"]), subtitles: .languages(["en"])))
                try await task.resume()
                #expect(await task.waitUntilFinished() == .completed)
                let snapshot = try await task.snapshot()
                await session.shutdown()
                return (task.id, origin.baseURL, URL(fileURLWithPath: snapshot.bundlePath))
            }
            let resources = try await library.index.resources(of: id)
            // Recorded as written: each resource's digest is its file's.
            for resource in resources {
                #expect(resource.sha256 == (try await Self.sha256(bundle.appendingPathComponent(resource.fileName).path)), "\(resource.fileName)")
            }
            let session = try await DownloadSession(library: library)
            #expect(try await session.verify(id).isIntact)

            let video = resources.filter { $0.renditionKey == "video" && $0.kind == .segment }
            let audio = resources.filter { $0.renditionKey == "audio-en" }
            let subtitles = resources.filter { $0.renditionKey.hasPrefix("subtitles") }
            try #require(video.count >= 3 && audio.count >= 3 && !subtitles.isEmpty)
            @Sendable func path(_ resource: ResourceRecord) -> String { bundle.appendingPathComponent(resource.fileName).path }

            // A flipped byte, a truncated file, a deleted file, a file replaced by another
            // resource's bytes, and a TS whose sync bytes are broken, downloaded by a release
            // before digests (none recorded: found by its structure alone).
            var flipped = try Data(contentsOf: URL(fileURLWithPath: path(video[0])))
            flipped[5000] ^= 0xFF
            try flipped.write(to: URL(fileURLWithPath: path(video[0])))
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path(video[1])))
            try handle.truncate(atOffset: 1000)
            try handle.close()
            try FileManager.default.removeItem(atPath: path(audio[0]))
            try FileManager.default.removeItem(atPath: path(audio[1]))
            try FileManager.default.copyItem(atPath: path(audio[2]), toPath: path(audio[1]))
            var unsynced = try Data(contentsOf: URL(fileURLWithPath: path(video[2])))
            unsynced[188 * 3] = 0x00
            try unsynced.write(to: URL(fileURLWithPath: path(video[2])))
            try await library.index.markDone(video[2].id!, bytes: video[2].bytes!, etag: video[2].etag, lastModified: video[2].lastModified,
                                             sha256: nil, fence: nil)
            // A subtitle file written before digests, intact: --record records its digest.
            try await library.index.markDone(subtitles[0].id!, bytes: subtitles[0].bytes!, etag: nil, lastModified: nil, sha256: nil, fence: nil)

            let report = try await session.verify(id, record: true)
            let found = Dictionary(uniqueKeysWithValues: report.damage.map { ($0.file, $0) })
            #expect(report.damage.count == 5, "\(report.damage.map(\.line))")
            #expect(found[video[0].fileName]?.kind == .altered && found[video[0].fileName]?.message.contains("SHA-256") == true)
            #expect(found[video[1].fileName]?.kind == .truncated && found[video[1].fileName]?.message.contains("1000 of the") == true)
            #expect(found[audio[0].fileName]?.kind == .missing)
            #expect(found[audio[1].fileName]?.kind == .altered
                    && found[audio[1].fileName]?.message == "it holds the bytes of \(audio[2].fileName) instead of its own")
            #expect(found[video[2].fileName]?.kind == .structure
                    && found[video[2].fileName]?.message == "MPEG-TS packet 4 (at byte 564) has no sync byte (0x47)")
            #expect(report.damage.allSatisfy { !$0.rendition.isEmpty })
            #expect(report.recorded == 1 && report.hashed == resources.count - 2)
            #expect(try await library.index.resources([subtitles[0].id!], of: id).first?.sha256 == (try await Self.sha256(path(subtitles[0]))))

            // Without the origin (it has stopped): nothing mended, nothing changed.
            var quick = DownloadSession.Configuration(retry: RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(10)))
            quick.stallTimeout = .seconds(5)
            let offline = try await DownloadSession(library: library, configuration: quick)
            await session.shutdown()
            let filesBefore = resources.map { FileManager.default.contents(atPath: path($0)) }
            let recordsBefore = try await library.index.resources(of: id).map { "\($0.state) \($0.bytes ?? -1) \($0.sha256 ?? "")" }
            let failing = try await offline.beginRepair(id, damage: report.damage)
            try await failing.task.resume()
            _ = await failing.task.waitUntilFinished()
            let failed = try await offline.endRepair(failing)
            #expect(failed.mended.isEmpty && failed.unmended.count == 5)
            #expect(failed.error?.contains("127.0.0.1") == true, "\(failed.error ?? "no error")")
            #expect(resources.map { FileManager.default.contents(atPath: path($0)) } == filesBefore)
            #expect(try await library.index.resources(of: id).map { "\($0.state) \($0.bytes ?? -1) \($0.sha256 ?? "")" } == recordsBefore)
            #expect(try await offline.task(id: id).snapshot().state == .completed)
            #expect(try await offline.task(id: id).snapshot().error == nil)
            #expect(!FileManager.default.fileExists(atPath: path(video[0]) + ".part"))
            await offline.shutdown()

            // With the origin back (the same files, a new port: the asset's URLs are moved to it).
            try await Origin(root: sampleMedia.path).withRunning { origin in
                try await library.index.relocate(resources.map { ($0.id!, origin.baseURL + $0.uri.dropFirst(base.count)) }, of: id, fence: nil)
                let session = try await DownloadSession(library: library)
                let repair = try await session.beginRepair(id, damage: report.damage)
                try await repair.task.resume()
                #expect(await repair.task.waitUntilFinished() == .completed)
                let outcome = try await session.endRepair(repair)
                #expect(outcome.mended.count == 5 && outcome.unmended.isEmpty && outcome.changedAtOrigin.isEmpty)
                // Exactly the damaged resources were fetched.
                let media = await origin.requests().map(\.path).filter { !$0.hasSuffix(".m3u8") }
                #expect(Set(media) == Set([video[0], video[1], video[2], audio[0], audio[1]].map { String($0.uri.dropFirst(base.count)) }), "\(media)")
                for resource in resources {
                    #expect(FileManager.default.contents(atPath: path(resource)) == FileManager.default.contents(atPath: Self.originFile(resource, base: base).path),
                            "\(resource.fileName)")
                }
                let again = try await session.verify(id)
                #expect(again.isIntact && again.hashed == resources.count, "\(again.damage.map(\.line))")
                await session.shutdown()
            }
        }
    }

    @Test("a damaged byte range of a shared file is mended in place, the other ranges untouched")
    func byteRange() async throws {
        try await withTemporaryDirectory { folder in
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let download = try await completedDownload(origin.baseURL + "/byterange/main.m3u8", in: folder)
                let library = download.library
                let bundle = URL(fileURLWithPath: download.snapshot.bundlePath)
                let ranges = try await library.index.resources(of: download.id).filter { $0.renditionKey == "video" && $0.rangeOffset != nil }
                try #require(ranges.count >= 3)
                let file = bundle.appendingPathComponent(ranges[1].fileName)
                let whole = try Data(contentsOf: file)
                var damaged = whole
                damaged[ranges[1].rangeOffset! + 10] ^= 0x01
                try damaged.write(to: file)

                let session = try await DownloadSession(library: library)
                let report = try await session.verify(download.id)
                #expect(report.damage.count == 1 && report.damage.first?.offset == ranges[1].rangeOffset
                        && report.damage.first?.length == ranges[1].bytes, "\(report.damage.map(\.line))")
                let requestsBefore = await origin.requests().count
                let repair = try await session.beginRepair(download.id, damage: report.damage)
                try await repair.task.resume()
                #expect(await repair.task.waitUntilFinished() == .completed)
                #expect(try await session.endRepair(repair).mended.count == 1)
                await session.shutdown()
                #expect(try Data(contentsOf: file) == whole)
                let fetched = await origin.requests().dropFirst(requestsBefore).filter { !$0.path.hasSuffix(".m3u8") }
                #expect(fetched.count == 1 && fetched.first?.range == "bytes=\(ranges[1].rangeOffset!)-\(ranges[1].rangeOffset! + ranges[1].bytes! - 1)",
                        "\(fetched.map { "\($0.path) \($0.range ?? "")" })")
            }
        }
    }

    @Test("carryon verify: exit 1 naming the damage; --repair mends it from the origin and says so; --json tells both")
    func command() async throws {
        try await withTemporaryDirectory { folder in
            let library = folder.appendingPathComponent("library").path
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let download = try await runCarryon(["download", origin.baseURL + "/fmp4/main.m3u8", "--library", library, "--audio", "none", "--subtitles", "none"])
                #expect(download.status == 0, "\(download.standardError)")
                let id = String(download.standardOutput.split(separator: "\n").last ?? "")
                let bundle = URL(fileURLWithPath: library).appendingPathComponent("bundles/\(id)")
                let files = try #require(FileManager.default.enumerator(atPath: bundle.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".m4s") || $0.hasSuffix(".mp4") }.sorted())
                let initSection = try #require(files.first { $0.hasSuffix(".mp4") })
                let segment = try #require(files.first { $0.hasSuffix(".m4s") })
                let original = try Data(contentsOf: bundle.appendingPathComponent(segment))
                // A segment cut short, and an init section whose first box no longer adds up.
                try original.prefix(original.count / 2).write(to: bundle.appendingPathComponent(segment))
                var header = try Data(contentsOf: bundle.appendingPathComponent(initSection))
                let initial = header
                header[3] = header[3] &+ 1
                try header.write(to: bundle.appendingPathComponent(initSection))

                let found = try await runCarryon(["verify", id, "--library", library])
                #expect(found.status == 1)
                #expect(found.standardOutput.contains("2 damaged") && found.standardOutput.contains("truncated: \(segment)")
                        && found.standardOutput.contains("altered: \(initSection)"), "\(found.standardOutput)")

                let repaired = try await runCarryon(["verify", id, "--repair", "--json", "--library", library])
                #expect(repaired.status == 0, "\(repaired.standardError)")
                struct Output: Decodable { var assets: [VerificationReport]; var repairs: [Repaired] }
                struct Repaired: Decodable { var id: String; var outcome: DownloadSession.RepairOutcome }
                let output = try JSONDecoder().decode(Output.self, from: Data(repaired.standardOutput.utf8))
                #expect(output.assets.first?.damage.count == 2)
                #expect(output.repairs.first?.outcome.mended.count == 2 && output.repairs.first?.outcome.unmended.isEmpty == true)
                #expect(try Data(contentsOf: bundle.appendingPathComponent(segment)) == original)
                #expect(try Data(contentsOf: bundle.appendingPathComponent(initSection)) == initial)
                let after = try await runCarryon(["verify", id, "--library", library])
                #expect(after.status == 0 && after.standardOutput.contains(": intact"), "\(after.standardOutput)")
            }
        }
    }
}
