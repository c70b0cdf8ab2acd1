import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// A library written by an earlier release opens, lists and plays with this one. Each fixture
/// under `Tests/Fixtures/` was made by the release its name dates (the commands are in its
/// README) and is never changed: a test works on a copy.
@Suite("Libraries written by earlier releases", .heavy)
struct EarlierLibraryTests {
    /// The library of 2026-11-25: a clear TS asset and an AES-128 asset with rotating keys,
    /// both completed; the keys sealed under the library's own `master.key`.
    static let fixture = packageRoot.appendingPathComponent("Tests/Fixtures/library-2026-11-25")
    static let clear = "4htcanevzm"
    static let encrypted = "xrm2vqra7d"

    /// Copies the fixture into a temporary folder and runs `body` with the copy's path.
    func withCopy(_ body: (URL) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            let copy = folder.appendingPathComponent("library")
            try FileManager.default.copyItem(at: Self.fixture, to: copy)
            // git keeps no file mode but the executable bit: the master key comes out of a
            // clone readable by everyone, and the key store rightly refuses such a key. The
            // release wrote it 0600, as it is restored here.
            try FileManager.default.setAttributes([.posixPermissions: 0o600],
                                                  ofItemAtPath: copy.appendingPathComponent("master.key").path)
            try await body(copy)
        }
    }

    @Test("list and show read the 2026-11-25 library: both assets completed, with their names, sizes and renditions")
    func lists() async throws {
        try await withCopy { library in
            let list = try await runCarryon(["list", "--json", "--library", library.path])
            #expect(list.status == 0, "\(list.standardError)")
            let assets = try JSONDecoder.iso8601.decode([AssetSnapshot].self, from: Data(list.standardOutput.utf8))
            #expect(assets.map(\.id) == [Self.clear, Self.encrypted])
            #expect(assets.map(\.name) == ["Clear TS", "Encrypted"])
            #expect(assets.allSatisfy { $0.state == .completed && $0.progress.resourcesDone == $0.progress.resourcesTotal })
            #expect(assets.allSatisfy { $0.bytesOnDisk > 290_000 }, "\(assets.map(\.bytesOnDisk))")
            for id in [Self.clear, Self.encrypted] {
                let show = try await runCarryon(["show", id, "--library", library.path])
                #expect(show.status == 0 && show.standardOutput.contains("audio-en"), "\(show.standardOutput) \(show.standardError)")
            }
            let keys = try await runCarryon(["keys", "list", Self.encrypted, "--json", "--library", library.path])
            #expect(keys.status == 0 && keys.standardOutput.contains("\"k1\"") && keys.standardOutput.contains("\"k2\""), "\(keys.standardOutput)")
        }
    }

    @Test("both assets of the 2026-11-25 library play through the playback server: every frame, the encrypted one with its sealed keys")
    func plays() async throws {
        try await withCopy { root in
            let library = try OfflineLibrary(root: root)
            let expected = [
                Self.clear: try await decodedVideoFrames(sampleMedia.appendingPathComponent("ts/180p/index.m3u8").path),
                Self.encrypted: try await decodedVideoFrames(
                    packageRoot.appendingPathComponent("Samples/encrypted/aes-rotation/180p/index.m3u8").path,
                    extraArguments: ["-allowed_extensions", "ALL"]),
            ]
            try await PlaybackServer(source: PlaybackSource(library: library)).withRunning { server in
                for (id, frames) in expected {
                    let played = try await decodedVideoFrames(server.playlistURL(for: id))
                    #expect(frames > 0 && played == frames, "\(id): \(played) frames played, \(frames) in the source")
                    let decoded = try await ffmpegDecode(server.playlistURL(for: id))
                    #expect(decoded.status == 0 && decoded.standardError.isEmpty, "\(id): \(decoded.standardError)")
                }
            }
        }
    }

    @Test("verify checks the 2026-11-25 library, which has no digests, by length and structure; --record records them for the next check")
    func verifies() async throws {
        try await withCopy { library in
            struct Output: Decodable { var assets: [VerificationReport] }
            let first = try await runCarryon(["verify", "--json", "--library", library.path])
            #expect(first.status == 0, "\(first.standardError)")
            let reports = try JSONDecoder().decode(Output.self, from: Data(first.standardOutput.utf8)).assets
            #expect(reports.map(\.id) == [Self.clear, Self.encrypted])
            #expect(reports.allSatisfy { $0.isIntact && $0.hashed == 0 && $0.resources > 0 && $0.bytes > 0 })

            let recording = try await runCarryon(["verify", "--record", "--library", library.path])
            #expect(recording.status == 0 && recording.standardOutput.contains("digests recorded"), "\(recording.standardOutput)\(recording.standardError)")
            let second = try JSONDecoder().decode(Output.self, from: Data(try await runCarryon(["verify", "--json", "--library", library.path]).standardOutput.utf8))
            #expect(second.assets.allSatisfy { $0.isIntact && $0.hashed == $0.resources && $0.recorded == 0 })

            // A TS file whose sync bytes are broken is found by its digest now, and by its structure.
            let folder = library.appendingPathComponent("bundles/\(Self.clear)")
            let segment = try #require(FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String }.sorted().first { $0.hasSuffix(".ts") })
            var bytes = try Data(contentsOf: folder.appendingPathComponent(segment))
            bytes[188] = 0
            try bytes.write(to: folder.appendingPathComponent(segment))
            let damaged = try await runCarryon(["verify", Self.clear, "--library", library.path])
            #expect(damaged.status == 1)
            #expect(damaged.standardOutput.contains("altered: \(segment)") && damaged.standardOutput.contains("MPEG-TS packet 2 (at byte 188) has no sync byte"),
                    "\(damaged.standardOutput)")
        }
    }
}
