@testable import Carryon
import CarryonIndexTestSupport
import CarryonTestSupport
import Foundation
import HLS
import Testing

/// What a ``DownloadSession`` does without touching the network: tasks kept in the library
/// across sessions, ids, cancel and delete, and streams refused before any media is fetched.
/// Each test has its own library in a temporary folder and writes its streams there.
@Suite("A download session without the network")
struct DownloadSessionTests {
    /// One attempt per request: anything that tried the network would fail at once.
    static let configuration = DownloadSession.Configuration(retry: RetryPolicy(maximumAttempts: 1))

    /// Opens a library in a fresh folder and a session over it, shut down afterwards.
    func withSession(_ body: (DownloadSession, URL) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder.appendingPathComponent("library"))
            try await withSession(library) { session in try await body(session, folder) }
        }
    }

    func withSession(_ library: OfflineLibrary, _ body: (DownloadSession) async throws -> Void) async throws {
        let session = try await DownloadSession(library: library, configuration: Self.configuration)
        do {
            try await body(session)
        } catch {
            await session.shutdown()
            throw error
        }
        await session.shutdown()
    }

    /// AsyncHTTPClient traps when a running client is released; a session whose owner forgot
    /// `shutdown()` (or returned early on an error) must not take the process down with it.
    @Test("a session released without shutdown() does not crash the process")
    func releasedWithoutShutdown() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder.appendingPathComponent("library"))
            var session: DownloadSession? = try await DownloadSession(library: library, configuration: Self.configuration)
            #expect(try await session?.tasks().isEmpty == true)
            session = nil
            // Were the client released running, the process would have trapped in its deinit.
            let reopened = try await DownloadSession(library: library, configuration: Self.configuration)
            #expect(try await reopened.tasks().isEmpty)
            await reopened.shutdown()
        }
    }

    static let vod = """
        #EXTM3U
        #EXT-X-TARGETDURATION:4
        #EXTINF:4,
        s1.ts
        #EXT-X-ENDLIST

        """

    /// Runs `task` until it stops, and returns the state it stopped in with the errors the
    /// session reported for it and whether it got as far as choosing and planning media.
    func run(_ task: DownloadTask, in session: DownloadSession) async throws
        -> (state: DownloadState, errors: [CarryonError], planned: Bool) {
        let events = await session.events()
        try await task.resume()
        let state = await task.waitUntilFinished()
        await session.shutdown()   // ends the event stream
        var errors: [CarryonError] = []
        var planned = false
        for await event in events where event.taskID == task.id {
            switch event {
            case .failed(_, let error): errors.append(error)
            case .mediaSelectionResolved, .willDownload, .progress: planned = true
            default: break
            }
        }
        return (state, errors, planned)
    }

    // MARK: Tasks

    @Test("a task made by the session waits, suspended, until it is resumed")
    func newTaskIsSuspended() async throws {
        try await withSession { session, folder in
            let playlist = try folder.write(Self.vod, to: "show/main.m3u8")
            let task = try await session.makeTask(url: playlist.path)
            let snapshot = try await task.snapshot()
            #expect(snapshot.state == .suspended)
            #expect(snapshot.name == "show")
            #expect(snapshot.url == playlist.absoluteString)
            #expect(snapshot.playlist == nil)
            #expect(snapshot.progress.resourcesTotal == 0)
            #expect(await task.waitUntilFinished() == .suspended)
            #expect(!FileManager.default.fileExists(atPath: snapshot.bundlePath))
        }
    }

    @Test("a session opened later on the same library lists the tasks of an earlier one, oldest first, as they were")
    func tasksOutliveTheSession() async throws {
        try await withTemporaryDirectory { folder in
            let root = folder.appendingPathComponent("library")
            var made: [String] = []
            try await withSession(try OfflineLibrary(testingAt: root)) { session in
                for name in ["first", "second", "third"] {
                    made.append(try await session.makeTask(url: "https://cdn.example/\(name)/main.m3u8", name: name).id)
                }
                try await session.task(id: made[2]).cancel()
            }
            try await withSession(try OfflineLibrary(testingAt: root)) { session in
                let tasks = try await session.tasks()
                #expect(tasks.map(\.id) == made)
                var snapshots: [AssetSnapshot] = []
                for task in tasks { snapshots.append(try await task.snapshot()) }
                #expect(snapshots.map(\.name) == ["first", "second", "third"])
                #expect(snapshots.map(\.state) == [.suspended, .suspended, .cancelled])
                #expect(snapshots[0].url == "https://cdn.example/first/main.m3u8")
            }
        }
    }

    @Test("tasks are listed in the order they were made, however quickly they were made")
    func tasksInCreationOrder() async throws {
        try await withSession { session, _ in
            var made: [String] = []
            for _ in 0..<100 { made.append(try await session.makeTask(url: "https://cdn.example/main.m3u8").id) }
            #expect(try await session.tasks().map(\.id) == made)
        }
    }

    @Test("a task recorded as running or waiting by a process that died comes back suspended")
    func crashedTasksComeBackSuspended() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder.appendingPathComponent("library"))
            var ids: [String] = []
            try await withSession(library) { session in
                for _ in 0..<3 { ids.append(try await session.makeTask(url: "https://cdn.example/main.m3u8").id) }
            }
            // What a process killed mid-download leaves in the index.
            for (id, state) in zip(ids, [DownloadState.running, .waiting, .failed]) {
                try await library.index.setState(state, of: id, error: nil, at: Date())
            }
            try await withSession(library) { session in
                var states: [DownloadState] = []
                for id in ids { states.append(try await session.task(id: id).snapshot().state) }
                #expect(states == [.suspended, .suspended, .failed])
                // Read so by every process, the list included, without a session writing anything:
                // opening a session changes no row (issue 31); whoever resumes the task claims it.
                #expect(try await library.assets().map(\.state) == [.suspended, .suspended, .failed])
                var stored: [String] = []
                for id in ids {
                    stored.append(try await library.index.state(of: id)?.rawValue ?? "-")
                }
                #expect(stored == ["running", "waiting", "failed"])
                try await session.task(id: ids[0]).resume()
                #expect(try await session.task(id: ids[0]).snapshot().state != .suspended)
            }
        }
    }

    // MARK: Ids

    @Test("a task is found by its whole id or by a prefix no other id shares")
    func idPrefix() async throws {
        try await withSession { session, _ in
            let first = try await session.makeTask(url: "https://cdn.example/a/main.m3u8")
            let second = try await session.makeTask(url: "https://cdn.example/b/main.m3u8")
            #expect(try await session.task(id: first.id).id == first.id)
            #expect(try await session.task(id: String(first.id.prefix(8))).id == first.id)
            #expect(try await session.task(id: String(second.id.prefix(8))).id == second.id)
        }
    }

    @Test("a prefix several ids share is refused as unknown, naming them")
    func ambiguousPrefix() async throws {
        try await withSession { session, _ in
            // Ids are random; among 33 tasks, two start with the same character.
            var ids: [String] = []
            var shared: Character?
            while shared == nil {
                let id = try await session.makeTask(url: "https://cdn.example/main.m3u8").id
                if ids.contains(where: { $0.first == id.first }) { shared = id.first }
                ids.append(id)
            }
            let prefix = String(try #require(shared))
            let error = await #expect(throws: CarryonError.self) { try await session.task(id: prefix) }
            #expect(error?.code == .unknownAsset)
            #expect(error?.message.contains("several ids") == true)
            for id in ids where id.hasPrefix(prefix) { #expect(error?.message.contains(id) == true) }
        }
    }

    @Test("an id no task has is refused as unknown", arguments: ["", "0000000000000", "%", "_", "%%", "_%"])
    func unknownID(text: String) async throws {
        try await withSession { session, _ in
            let task = try await session.makeTask(url: "https://cdn.example/main.m3u8")
            let error = await #expect(throws: CarryonError.self) { try await session.task(id: text) }
            #expect(error?.code == .unknownAsset)
            let deleteError = await #expect(throws: CarryonError.self) { try await session.delete(text) }
            #expect(deleteError?.code == .unknownAsset)
            #expect(try await session.tasks().map(\.id) == [task.id])
        }
    }

    @Test("LIKE wildcards in an id are characters, not patterns")
    func wildcardsAreLiteral() async throws {
        try await withSession { session, _ in
            let task = try await session.makeTask(url: "https://cdn.example/main.m3u8")
            for text in ["_" + task.id.dropFirst(), String(task.id.prefix(3)) + "%", String(task.id.dropLast()) + "_"] {
                let error = await #expect(throws: CarryonError.self, "\(text)") { try await session.task(id: text) }
                #expect(error?.code == .unknownAsset)
            }
        }
    }

    // MARK: Cancel and delete

    @Test("cancelling a task removes its bundle and keeps it listed as cancelled")
    func cancelRemovesBundle() async throws {
        try await withSession { session, folder in
            let task = try await session.makeTask(url: try folder.write(Self.vod, to: "main.m3u8").path)
            let bundle = session.library.bundleURL(for: task.id)
            try bundle.write(bytes: [1, 2, 3], to: "media/00001.ts.part")   // what a suspended download leaves
            try await task.cancel()
            #expect(!FileManager.default.fileExists(atPath: bundle.path))
            #expect(try await task.snapshot().state == .cancelled)
            #expect(await task.waitUntilFinished() == .cancelled)
            #expect(try await session.tasks().map(\.id) == [task.id])
        }
    }

    @Test("a cancelled task cannot be resumed")
    func cancelledCannotResume() async throws {
        try await withSession { session, _ in
            let task = try await session.makeTask(url: "https://cdn.example/main.m3u8")
            try await task.cancel()
            let error = await #expect(throws: CarryonError.self) { try await task.resume() }
            #expect(error?.code == .invalidState)
            #expect(try await task.snapshot().state == .cancelled)
        }
    }

    @Test("deleting an asset removes its bundle and its record")
    func deleteRemovesAsset() async throws {
        try await withSession { session, _ in
            let kept = try await session.makeTask(url: "https://cdn.example/a/main.m3u8")
            let task = try await session.makeTask(url: "https://cdn.example/b/main.m3u8")
            let bundle = session.library.bundleURL(for: task.id)
            try bundle.write("{}", to: "manifest.json")
            try await session.delete(String(task.id.prefix(8)))
            #expect(!FileManager.default.fileExists(atPath: bundle.path))
            #expect(try await session.tasks().map(\.id) == [kept.id])
            let error = await #expect(throws: CarryonError.self) { try await task.snapshot() }
            #expect(error?.code == .unknownAsset)
            #expect(await task.waitUntilFinished() == .cancelled)
        }
    }

    // MARK: Refused before any media is fetched

    @Test("a live playlist (no EXT-X-ENDLIST) is recorded from its live edge; one that stops changing suspends the recording as stalled, naming it, with what it recorded kept")
    func livePlaylist() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder.appendingPathComponent("library"))
            var configuration = Self.configuration
            configuration.stallTimeout = .seconds(1)
            let session = try await DownloadSession(library: library, configuration: configuration)
            var lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:1", "#EXT-X-MEDIA-SEQUENCE:100"]
            for number in 100...103 {
                lines += ["#EXTINF:1,", "s\(number).ts"]
                try folder.write(bytes: Self.bytes(1_000 + number), to: "live/s\(number).ts")
            }
            let playlist = try folder.write(lines.joined(separator: "\n") + "\n", to: "live/index.m3u8")
            let task = try await session.makeTask(url: playlist.path)
            let (state, errors, planned) = try await run(task, in: session)
            #expect(state == .suspended && planned)
            #expect(errors.isEmpty)
            let stalled = try #require(await session.lastError(of: task.id))
            #expect(stalled.code == .stalled && stalled.message.contains(playlist.path) && stalled.message.contains("no new segment"), "\(stalled.message)")
            let snapshot = try await task.snapshot()
            #expect(snapshot.live == LiveOptions())
            // Three target durations from the end: the last three of the four.
            #expect(try Self.mediaFiles(in: snapshot.bundlePath).filter { $0.hasSuffix(".ts") }.count == 3)
            let local = try String(contentsOfFile: snapshot.bundlePath + "/media/index.m3u8", encoding: .utf8)
            #expect(local.contains("#EXT-X-MEDIA-SEQUENCE:101") && local.contains("#EXT-X-PLAYLIST-TYPE:EVENT") && !local.contains("ENDLIST"))
        }
    }

    @Test("a playlist with no segment, or only gaps, fails before anything is planned: nothing to download",
          arguments: ["", "#EXTINF:4,\n#EXT-X-GAP\ns0.ts\n"])
    func nothingToDownload(segments: String) async throws {
        try await withSession { session, folder in
            let playlist = try folder.write("#EXTM3U\n#EXT-X-TARGETDURATION:4\n\(segments)#EXT-X-ENDLIST\n", to: "empty/index.m3u8")
            let task = try await session.makeTask(url: playlist.path)
            let (state, errors, planned) = try await run(task, in: session)
            #expect(state == .failed)
            #expect(errors.map(\.code) == [.playlist])
            #expect(errors.first?.message.contains("nothing to download") == true)
            #expect(errors.first?.message.contains("empty/index.m3u8") == true)
            #expect(!planned)
        }
    }

    @Test("an encrypted playlist (EXT-X-KEY AES-128) downloads with its key sealed in the key store, not in the bundle")
    func encryptedPlaylist() async throws {
        try await withSession { session, folder in
            let playlist = try folder.write("""
                #EXTM3U
                #EXT-X-TARGETDURATION:4
                #EXT-X-PLAYLIST-TYPE:VOD
                #EXT-X-KEY:METHOD=AES-128,URI="key.bin"
                #EXTINF:4,
                s1.ts
                #EXT-X-ENDLIST

                """, to: "vod/index.m3u8")
            let key = Self.bytes(16, seed: 9)
            try folder.write(bytes: key, to: "vod/key.bin")
            try folder.write(bytes: Self.bytes(1_000), to: "vod/s1.ts")
            let task = try await session.makeTask(url: playlist.path)
            let (state, errors, _) = try await run(task, in: session)
            #expect(state == .completed, "\(errors)")
            let snapshot = try await task.snapshot()
            let local = try String(contentsOfFile: snapshot.bundlePath + "/media/index.m3u8", encoding: .utf8)
            #expect(local.contains("#EXT-X-KEY:METHOD=AES-128,URI=\"../keys/k1\""), "\(local)")
            let keys = try await KeyStore(library: session.library).keys(of: task.id)
            #expect(keys.map(\.id) == ["k1"] && keys.first?.method == "AES-128" && keys.first?.uri.hasSuffix("vod/key.bin") == true)
            #expect(try await KeyStore(library: session.library).key("k1", of: task.id) == key)
        }
    }

    @Test("SAMPLE-AES and SAMPLE-AES-CTR with the identity key format download with their key sealed, the method kept",
          arguments: ["SAMPLE-AES", "SAMPLE-AES-CTR"])
    func sampleAES(method: String) async throws {
        try await withSession { session, folder in
            let playlist = try folder.write("""
                #EXTM3U
                #EXT-X-VERSION:5
                #EXT-X-TARGETDURATION:4
                #EXT-X-PLAYLIST-TYPE:VOD
                #EXT-X-KEY:METHOD=\(method),URI="key.bin",KEYFORMAT="identity",IV=0x0102030405060708090a0b0c0d0e0f10
                #EXTINF:4,
                s1.ts
                #EXT-X-ENDLIST

                """, to: "vod/index.m3u8")
            let key = Self.bytes(16, seed: 3)
            try folder.write(bytes: key, to: "vod/key.bin")
            try folder.write(bytes: Self.bytes(1_000), to: "vod/s1.ts")
            let task = try await session.makeTask(url: playlist.path)
            let (state, errors, _) = try await run(task, in: session)
            #expect(state == .completed, "\(errors)")
            let local = try String(contentsOfFile: try await task.snapshot().bundlePath + "/media/index.m3u8", encoding: .utf8)
            // The edited tag is written canonically: attributes in the writer's order, hex in capitals.
            #expect(local.contains("#EXT-X-KEY:METHOD=\(method),URI=\"../keys/k1\",IV=0x0102030405060708090A0B0C0D0E0F10,KEYFORMAT=\"identity\""), "\(local)")
            let keys = try await KeyStore(library: session.library).keys(of: task.id)
            #expect(keys.map(\.method) == [method])
            #expect(try await KeyStore(library: session.library).key("k1", of: task.id) == key)
        }
    }

    @Test("a key that is not 16 bytes fails the task before any media, saying so")
    func wrongKeyLength() async throws {
        try await withSession { session, folder in
            let playlist = try folder.write("""
                #EXTM3U
                #EXT-X-TARGETDURATION:4
                #EXT-X-KEY:METHOD=AES-128,URI="key.bin"
                #EXTINF:4,
                s1.ts
                #EXT-X-ENDLIST

                """, to: "vod/index.m3u8")
            try folder.write(bytes: Self.bytes(20), to: "vod/key.bin")
            try folder.write(bytes: Self.bytes(1_000), to: "vod/s1.ts")
            let task = try await session.makeTask(url: playlist.path)
            let (state, errors, planned) = try await run(task, in: session)
            #expect(state == .failed && errors.map(\.code) == [.keys] && !planned)
            #expect(errors.first?.message.contains("20 bytes, not 16") == true, "\(errors)")
        }
    }

    @Test("a rendition whose key needs a provider no one registered (skd:, FairPlay's KEYFORMAT) fails the task before any media is fetched")
    func encryptedRendition() async throws {
        try await withSession { session, folder in
            try folder.write(Self.vod, to: "stream/v/index.m3u8")
            try folder.write(bytes: Self.bytes(1_000), to: "stream/v/s1.ts")
            try folder.write(bytes: Self.bytes(100), to: "stream/a/init.mp4")
            try folder.write(bytes: Self.bytes(1_000), to: "stream/a/s1.m4s")
            try folder.write("""
                #EXTM3U
                #EXT-X-TARGETDURATION:4
                #EXT-X-MAP:URI="init.mp4"
                #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://key",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"
                #EXTINF:4,
                s1.m4s
                #EXT-X-ENDLIST

                """, to: "stream/a/en.m3u8")
            let main = try folder.write("""
                #EXTM3U
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="a/en.m3u8"
                #EXT-X-STREAM-INF:BANDWIDTH=1000000,AUDIO="aud"
                v/index.m3u8

                """, to: "stream/main.m3u8")
            let task = try await session.makeTask(url: main.path, options: DownloadOptions(preferredLanguages: ["en"]))
            let (state, errors, planned) = try await run(task, in: session)
            #expect(state == .failed)
            // A DRM system Carryon cannot open (issue 35): its own code, the system by name.
            #expect(errors.map(\.code) == [.keySystem])
            #expect(errors.first?.message.contains("com.apple.streamingkeydelivery") == true, "\(errors)")
            #expect(errors.first?.message.contains("FairPlay") == true, "\(errors)")
            #expect(errors.first?.message.contains("skd:") == true)
            #expect(!planned)
            #expect(try Self.mediaFiles(in: session.library.bundleURL(for: task.id).path) == [])
        }
    }

    // MARK: Streams read from disk

    static let fmp4 = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:4
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-MAP:URI="init.mp4"
        #EXTINF:4,
        s1.m4s
        #EXTINF:3.5,
        s2.m4s
        #EXT-X-ENDLIST

        """

    @Test("a media playlist read from disk copies its local segments into a complete bundle")
    func streamFromDisk() async throws {
        try await withSession { session, folder in
            let playlist = try folder.write(Self.fmp4, to: "stream/index.m3u8")
            let sources = ["init.mp4": Self.bytes(100, seed: 1), "s1.m4s": Self.bytes(5_000, seed: 2), "s2.m4s": Self.bytes(3_000, seed: 3)]
            for (name, bytes) in sources { try folder.write(bytes: bytes, to: "stream/\(name)") }
            let task = try await session.makeTask(url: playlist.path)
            let (state, errors, _) = try await run(task, in: session)
            #expect(state == .completed)
            #expect(errors.isEmpty)

            let snapshot = try await task.snapshot()
            #expect(snapshot.progress.resourcesDone == 3 && snapshot.progress.resourcesTotal == 3)
            #expect(snapshot.progress.bytesDone == 8_100 && snapshot.progress.bytesExpected == 8_100 && snapshot.progress.isExact)
            #expect(snapshot.duration == 7.5)
            let bundle = URL(fileURLWithPath: snapshot.bundlePath)
            #expect(try Data(contentsOf: bundle.appendingPathComponent("media/init1.mp4")) == Data(sources["init.mp4"]!))
            #expect(try Data(contentsOf: bundle.appendingPathComponent("media/00001.m4s")) == Data(sources["s1.m4s"]!))
            #expect(try Data(contentsOf: bundle.appendingPathComponent("media/00002.m4s")) == Data(sources["s2.m4s"]!))
            #expect(try Self.mediaFiles(in: bundle.path).filter { $0.hasSuffix(".part") || $0.hasSuffix(".tmp") } == [])

            // The bundle plays from its own files.
            let main = try MultivariantPlaylist(parsing: String(contentsOf: bundle.appendingPathComponent("main.m3u8"), encoding: .utf8),
                                                url: bundle.appendingPathComponent("main.m3u8").absoluteString)
            let variant = try #require(main.variants.first)
            let mediaURL = try #require(URL(string: variant.uri))
            let media = try MediaPlaylist(parsing: String(contentsOf: mediaURL, encoding: .utf8), url: mediaURL.absoluteString)
            for uri in media.segments.map(\.uri) + media.segments.compactMap(\.initSection?.uri) {
                let file = try #require(URL(string: uri))
                #expect(FileManager.default.fileExists(atPath: file.path), "\(uri)")
            }
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let manifest = try decoder.decode(BundleManifest.self, from: Data(contentsOf: bundle.appendingPathComponent("manifest.json")))
            #expect(manifest.state == .completed)
            #expect(manifest.files.map(\.bytes).reduce(0, +) == 8_100)
        }
    }

    @Test("byte ranges of a file on disk land at their offsets in one local file")
    func byteRangesFromDisk() async throws {
        try await withSession { session, folder in
            let playlist = try folder.write("""
                #EXTM3U
                #EXT-X-VERSION:4
                #EXT-X-TARGETDURATION:4
                #EXT-X-BYTERANGE:1000@0
                #EXTINF:4,
                all.ts
                #EXT-X-BYTERANGE:1000@2000
                #EXTINF:4,
                all.ts
                #EXT-X-ENDLIST

                """, to: "ranges/index.m3u8")
            let source = Self.bytes(3_500, seed: 5)
            try folder.write(bytes: source, to: "ranges/all.ts")
            let task = try await session.makeTask(url: playlist.path)
            let (state, errors, _) = try await run(task, in: session)
            #expect(state == .completed)
            #expect(errors.isEmpty)
            let local = try [UInt8](Data(contentsOf: session.library.bundleURL(for: task.id).appendingPathComponent("media/file1.ts")))
            #expect(local.count == 3_000)
            #expect(local[0..<1_000] == source[0..<1_000])
            #expect(local[2_000..<3_000] == source[2_000..<3_000])
        }
    }

    @Test("a segment missing from disk fails the task with a file error naming it, keeping what was copied")
    func missingLocalSegment() async throws {
        try await withSession { session, folder in
            let playlist = try folder.write(Self.fmp4, to: "stream/index.m3u8")
            try folder.write(bytes: Self.bytes(100), to: "stream/init.mp4")
            try folder.write(bytes: Self.bytes(5_000), to: "stream/s1.m4s")
            let task = try await session.makeTask(url: playlist.path)
            let (state, errors, _) = try await run(task, in: session)
            #expect(state == .failed)
            #expect(errors.map(\.code) == [.file])
            #expect(errors.first?.message.contains("s2.m4s") == true)
            let snapshot = try await task.snapshot()
            #expect(snapshot.progress.resourcesDone == 2 && snapshot.progress.resourcesTotal == 3)
        }
    }

    /// `count` bytes of a pattern that differs with `seed`.
    static func bytes(_ count: Int, seed: Int = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 17 &+ $0 / 251) }
    }

    /// The files in a bundle other than its lock: nothing was planned or fetched if empty.
    static func mediaFiles(in bundle: String) throws -> [String] {
        guard FileManager.default.fileExists(atPath: bundle) else { return [] }
        return try FileManager.default.subpathsOfDirectory(atPath: bundle).filter { $0 != ".lock" }.sorted()
    }
}
