import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// The encrypted samples made by Scripts/make-encrypted-media.sh.
var encryptedMedia: URL { packageRoot.appendingPathComponent("Samples/encrypted") }

/// Encrypted streams offline: keys fetched before the media, sealed in the key store, never in
/// clear on disk, answered by the playback server with its token; ffmpeg decodes the result.
@Suite("Encrypted streams", .heavy)
struct EncryptedTests {
    static let keyFiles = ["key1.bin", "key2.bin"]

    static func keys() throws -> [[UInt8]] {
        try keyFiles.map { try [UInt8](Data(contentsOf: encryptedMedia.appendingPathComponent("keys/\($0)"))) }
    }

    /// Fails the test for any file under `root` holding one of `keys` in clear: raw bytes, hex
    /// (either case) or base64.
    static func expectNoKeyInClear(under root: URL, keys: [[UInt8]], minimumFiles: Int = 6) throws {
        var needles: [(String, [UInt8])] = []
        for key in keys {
            let hex = key.map { String(format: "%02x", $0) }.joined()
            needles += [("raw", key), ("hex", Array(hex.utf8)), ("HEX", Array(hex.uppercased().utf8)),
                        ("base64", Array(Data(key).base64EncodedString().utf8))]
        }
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        var scanned = 0
        for file in files where (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            let bytes = try [UInt8](Data(contentsOf: file))
            scanned += 1
            for (form, needle) in needles where bytes.count >= needle.count {
                let found = (0...(bytes.count - needle.count)).contains { start in bytes[start..<(start + needle.count)].elementsEqual(needle) }
                #expect(!found, "a content key in clear (\(form)) in \(file.path)")
            }
        }
        #expect(scanned >= minimumFiles, "scanned \(scanned) files only")
    }

    @Test("an AES-128 stream downloads encrypted, its keys sealed, and ffmpeg decodes it through the server", arguments: ["aes-iv", "aes-rotation", "fmp4-init"])
    func downloadsAndPlays(flavour: String) async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            let id = try await Origin(root: encryptedMedia.path).withRunning { origin in
                let session = try await DownloadSession(library: library)
                let task = try await session.makeTask(url: origin.baseURL + "/\(flavour)/main.m3u8", options: DownloadOptions(audio: .all))
                try await task.resume()
                let state = await task.waitUntilFinished()
                let snapshot = try await task.snapshot()
                await session.shutdown()
                #expect(state == .completed, "\(snapshot.error ?? "")")
                // The media is stored as the origin served it: encrypted, byte for byte.
                let manifest = try JSONDecoder.iso8601.decode(
                    BundleManifest.self, from: Data(contentsOf: URL(fileURLWithPath: snapshot.bundlePath).appendingPathComponent("manifest.json")))
                // Three segments a rendition, and for fMP4 an (encrypted) init section each.
                #expect(manifest.files.count == (flavour == "fmp4-init" ? 8 : 6))
                for file in manifest.files {
                    let local = try Data(contentsOf: URL(fileURLWithPath: snapshot.bundlePath).appendingPathComponent(file.path))
                    let served = try Data(contentsOf: encryptedMedia.appendingPathComponent(String(file.uri.dropFirst(origin.baseURL.count))))
                    #expect(local == served, "\(file.path)")
                }
                let requests = await origin.requests()
                // Keys before media.
                let firstMedia = try #require(requests.firstIndex { !$0.path.hasSuffix(".m3u8") && !$0.path.hasPrefix("/keys/") })
                #expect(requests[..<firstMedia].contains { $0.path == "/keys/key1.bin" })
                return task.id
            }
            let keys = try await KeyStore(library: library).keys(of: id)
            #expect(keys.map(\.id) == (flavour == "aes-rotation" ? ["k1", "k2"] : ["k1"]))
            if flavour == "aes-rotation" { #expect(keys.last?.uri == "data:") }
            let local = try String(contentsOf: library.bundleURL(for: id).appendingPathComponent("video/index.m3u8"), encoding: .utf8)
            #expect(local.contains("URI=\"../keys/k1\"") && !local.contains("key1.bin") && !local.contains("base64"))

            let collector = RequestCollector()
            try await PlaybackServer(source: PlaybackSource(library: library)) { await collector.add($0) }.withRunning { handle in
                let decoded = try await ffmpegDecode(handle.playlistURL(for: id))
                #expect(decoded.status == 0 && decoded.standardError.isEmpty, "ffmpeg: \(decoded.standardError)")
            }
            let served = await collector.requests
            #expect(served.contains { $0.path == "keys/k1" && $0.status == 200 })
            #expect(served.allSatisfy { $0.status == 200 || $0.status == 206 })
            try Self.expectNoKeyInClear(under: library.root, keys: try Self.keys())
        }
    }

    /// Supplies key1 for `myscheme:` and notes what it was asked.
    final class TestProvider: ContentKeyProvider {
        let asked = Locked<[ContentKeyRequest]>([])
        func key(for request: ContentKeyRequest) async throws -> ContentKeyResponse {
            asked.withLock { $0.append(request) }
            return ContentKeyResponse(key: try EncryptedTests.keys()[0], lifetime: KeyLifetime(playbackWindow: 48 * 3_600))
        }
    }

    /// A copy of the aes-iv sample whose key URI is `myscheme://license/one`, which no server
    /// answers.
    func customSchemeMedia(in folder: URL) throws -> URL {
        let media = folder.appendingPathComponent("media")
        try FileManager.default.copyItem(at: encryptedMedia.appendingPathComponent("aes-iv"), to: media)
        for rendition in ["180p", "audio_en"] {
            let playlist = media.appendingPathComponent("\(rendition)/index.m3u8")
            let text = try String(contentsOf: playlist, encoding: .utf8).replacingOccurrences(of: "../../keys/key1.bin", with: "myscheme://license/one")
            try text.write(to: playlist, atomically: true, encoding: .utf8)
        }
        return media
    }

    @Test("a key of an app's own scheme comes from its ContentKeyProvider; without one the task fails before any media")
    func customScheme() async throws {
        try await withTemporaryDirectory { folder in
            let media = try customSchemeMedia(in: folder)
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            try await Origin(root: media.path).withRunning { origin in
                let plain = try await DownloadSession(library: library)
                let refused = try await plain.makeTask(url: origin.baseURL + "/main.m3u8", options: DownloadOptions(audio: .all))
                try await refused.resume()
                #expect(await refused.waitUntilFinished() == .failed)
                let error = try #require(try await refused.snapshot().error)
                #expect(error.contains("myscheme:") && error.contains("identity"), "\(error)")
                await plain.shutdown()
                #expect(!(await origin.requests()).contains { $0.path.hasSuffix(".ts") })

                let provider = TestProvider()
                var configuration = DownloadSession.Configuration()
                configuration.keyProviders = ["myscheme": provider]
                let session = try await DownloadSession(library: library, configuration: configuration)
                let task = try await session.makeTask(url: origin.baseURL + "/main.m3u8", options: DownloadOptions(audio: .all))
                try await task.resume()
                #expect(await task.waitUntilFinished() == .completed)
                await session.shutdown()
                let asked = provider.asked.withLock { $0 }
                #expect(asked.map(\.uri) == ["myscheme://license/one"] && asked.first?.keyFormat == "identity" && asked.first?.method == "AES-128")
                let stored = try await KeyStore(library: library).keys(of: task.id)
                #expect(stored.first?.lifetime.playbackWindow == TimeInterval(172_800))
                try await PlaybackServer(source: PlaybackSource(library: library)).withRunning { handle in
                    let decoded = try await ffmpegDecode(handle.playlistURL(for: task.id))
                    #expect(decoded.status == 0, "ffmpeg: \(decoded.standardError)")
                }
            }
        }
    }

    /// A clock a test moves by hand.
    final class TestClock: Sendable {
        let date: Locked<Date>
        init(_ date: Date) { self.date = Locked(date) }
        func now() -> Date { date.withLock { $0 } }
        func set(_ new: Date) { date.withLock { $0 = new } }
    }

    @Test("an expired key is refused over HTTP (403, an error-log line naming it), except to a session that began before")
    func expiredKey() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            let expiry = Date(timeIntervalSince1970: 1_900_000_000)
            let id = try await Origin(root: encryptedMedia.path).withRunning { origin in
                var configuration = DownloadSession.Configuration()
                configuration.keyLifetime = KeyLifetime(expiresAt: expiry)
                let session = try await DownloadSession(library: library, configuration: configuration)
                let task = try await session.makeTask(url: origin.baseURL + "/aes-iv/main.m3u8")
                try await task.resume()
                #expect(await task.waitUntilFinished() == .completed)
                await session.shutdown()
                return task.id
            }
            let clock = TestClock(expiry.addingTimeInterval(-3_600))
            let source = PlaybackSource(library: library, now: { clock.now() })
            try await PlaybackServer(source: source).withRunning { handle in
                let prefix = String(handle.baseURL.dropFirst("http://127.0.0.1:\(handle.port)".count)) + "/\(id)/"
                func get(_ path: String) async throws -> RawHTTPResponse {
                    try await rawHTTP(port: handle.port, "GET \(prefix)\(path) HTTP/1.1\r\nHost: 127.0.0.1:\(handle.port)\r\nConnection: close\r\n\r\n")
                }
                func session() async throws -> String {
                    let main = String(decoding: try await get("main.m3u8").body, as: UTF8.self)
                    return try #require(main.split(separator: "\n").first { $0.hasPrefix("s-") }?.split(separator: "/").first.map(String.init))
                }
                let early = try await session()
                let key = try await get("\(early)/keys/k1")
                let key1 = try Self.keys()[0]
                #expect(key.status == 200 && key.body == key1)
                #expect(key.header("cache-control") == "no-store")

                clock.set(expiry.addingTimeInterval(3_600))
                // The session that began before the expiry plays on; a new one is refused.
                #expect(try await get("\(early)/keys/k1").status == 200)
                let late = try await session()
                #expect(late != early)
                let refused = try await get("\(late)/keys/k1")
                #expect(refused.status == 403)
                #expect(String(decoding: refused.body, as: UTF8.self).contains("expired at 2030-03-17T17:46:40Z"))
                #expect(try await get("keys/k1").status == 403)
                #expect(try await get("\(late)/keys/k9").status == 403)
            }
            let errors = try W3CLog(parsing: String(contentsOf: AssetLogs(library: library).errorLogURL(for: id), encoding: .utf8))
            #expect(errors.entries.contains { $0["cs-uri"] == "keys/k1" && $0["sc-status"] == "403" && $0["x-error-code"] == "keys"
                && ($0["x-comment"] ?? "").contains("k1") && ($0["x-comment"] ?? "").contains("expired at") })
        }
    }
}

/// `carryon keys` and the key options of `download`, as users run them.
@Suite("carryon keys", .heavy)
struct KeysCommandTests {
    @Test("download --key-expires, keys list (never the key), invalidate (the server refuses it), renew (it plays again), delete")
    func keysLifecycle() async throws {
        try await withTemporaryDirectory { folder in
            let library = folder.appendingPathComponent("library")
            try await Origin(root: encryptedMedia.path).withRunning { origin in
                let download = try await runCarryon(["download", origin.baseURL + "/aes-rotation/main.m3u8", "--library", library.path,
                                                     "--key-expires", "2099-01-01", "--rental-window", "30d", "--playback-window", "48h"])
                #expect(download.status == 0, "\(download.standardError)")
                let id = try #require(download.standardOutput.split(separator: "\n").last.map(String.init))

                let list = try await runCarryon(["keys", "list", id, "--library", library.path, "--json"])
                #expect(list.status == 0, "\(list.standardError)")
                let keys = try JSONSerialization.jsonObject(with: Data(list.standardOutput.utf8)) as? [[String: Any]]
                #expect(keys?.compactMap { $0["id"] as? String } == ["k1", "k2"])
                let keyBytes = try EncryptedTests.keys()
                let hex = keyBytes.map { $0.map { String(format: "%02x", $0) }.joined() }
                let base64 = keyBytes.map { Data($0).base64EncodedString() }
                for text in [list.standardOutput, download.standardOutput, download.standardError] {
                    #expect(!(hex + base64).contains { text.contains($0) || text.contains($0.uppercased()) })
                }
                let table = try await runCarryon(["keys", "list", "--library", library.path])
                #expect(table.standardOutput.contains("k2") && table.standardOutput.contains("valid") && table.standardOutput.contains("data:"))

                let invalidate = try await runCarryon(["keys", "invalidate", id, "--library", library.path])
                #expect(invalidate.status == 0)
                let source = PlaybackSource(library: try OfflineLibrary(root: library))
                await #expect(throws: CarryonError.self) { _ = try await source.content(assetID: id, path: "keys/k1") }
                let invalidated = try await runCarryon(["keys", "list", id, "--library", library.path])
                #expect(invalidated.standardOutput.contains("invalidated"))
                try EncryptedTests.expectNoKeyInClear(under: library, keys: keyBytes)

                let renew = try await runCarryon(["keys", "renew", id, "--library", library.path, "--playback-window", "24h"])
                #expect(renew.status == 0 && renew.standardOutput.contains("k1, k2"), "\(renew.standardError)")
                let mediaRequests = await origin.requests().filter { $0.path.hasSuffix(".ts") }.count
                #expect(mediaRequests == 6, "renewing fetched media again")
                #expect(try await source.content(assetID: id, path: "keys/k1") == .key(keyBytes[0]))
                try await PlaybackServer(source: source).withRunning { handle in
                    let decoded = try await ffmpegDecode(handle.playlistURL(for: id))
                    #expect(decoded.status == 0, "ffmpeg: \(decoded.standardError)")
                }

                let delete = try await runCarryon(["delete", id, "--library", library.path])
                #expect(delete.status == 0)
                let after = try await runCarryon(["keys", "list", "--library", library.path, "--json"])
                #expect(after.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "[\n\n]"
                        || after.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "[]", "\(after.standardOutput)")
                try EncryptedTests.expectNoKeyInClear(under: library, keys: keyBytes, minimumFiles: 2)
            }
        }
    }
}

/// When keys are obtained: before the media (the default, or alone with `keys prefetch`), after
/// it (`--no-prefetch-keys`, then `keys fetch`), from session keys; and playing an encrypted
/// stream while it downloads.
@Suite("Obtaining keys early and late", .heavy)
struct KeyTimingTests {
    @Test("keys prefetch obtains the keys and no media; resume downloads the media later")
    func prefetch() async throws {
        try await withTemporaryDirectory { folder in
            let library = folder.appendingPathComponent("library").path
            try await Origin(root: encryptedMedia.path).withRunning { origin in
                let prefetch = try await runCarryon(["keys", "prefetch", origin.baseURL + "/aes-iv/main.m3u8", "--library", library])
                #expect(prefetch.status == 0, "\(prefetch.standardError)")
                let id = try #require(prefetch.standardOutput.split(separator: "\n").last.map(String.init))
                #expect(prefetch.standardError.contains("obtained k1"))
                #expect(await origin.requests().contains { $0.path == "/keys/key1.bin" })
                #expect(!(await origin.requests()).contains { $0.path.hasSuffix(".ts") })
                let resume = try await runCarryon(["resume", id, "--library", library])
                #expect(resume.status == 0, "\(resume.standardError)")
                #expect(await origin.requests().filter { $0.path.hasSuffix(".ts") }.count == 6)
                #expect(await origin.requests().filter { $0.path == "/keys/key1.bin" }.count == 1)
            }
        }
    }

    @Test("download --no-prefetch-keys leaves the keys; the server says they were never fetched; keys fetch gets only those")
    func fetchAfter() async throws {
        try await withTemporaryDirectory { folder in
            let libraryURL = folder.appendingPathComponent("library")
            try await Origin(root: encryptedMedia.path).withRunning { origin in
                let download = try await runCarryon(["download", origin.baseURL + "/aes-rotation/main.m3u8", "--library", libraryURL.path,
                                                     "--no-prefetch-keys"])
                #expect(download.status == 0, "\(download.standardError)")
                let id = try #require(download.standardOutput.split(separator: "\n").last.map(String.init))
                #expect(!(await origin.requests()).contains { $0.path.hasPrefix("/keys/") })
                let source = PlaybackSource(library: try OfflineLibrary(root: libraryURL))
                do {
                    _ = try await source.content(assetID: id, path: "keys/k1")
                    Issue.record("a key that was never fetched was served")
                } catch let error as CarryonError {
                    #expect(error.code == .keys && error.message.contains("never fetched"), "\(error)")
                }
                let fetch = try await runCarryon(["keys", "fetch", id, "--library", libraryURL.path])
                #expect(fetch.status == 0 && fetch.standardOutput.contains("fetched k1, k2"), "\(fetch.standardOutput) \(fetch.standardError)")
                let again = try await runCarryon(["keys", "fetch", id, "--library", libraryURL.path])
                #expect(again.standardOutput.contains("has all its keys"))
                #expect(await origin.requests().filter { $0.path == "/keys/key1.bin" }.count == 1)
                #expect(try await source.content(assetID: id, path: "keys/k2") == .key(try EncryptedTests.keys()[1]))
            }
        }
    }

    @Test("an identity EXT-X-SESSION-KEY is obtained before the media, once with the media playlists' same key")
    func sessionKeys() async throws {
        try await withTemporaryDirectory { folder in
            let media = folder.appendingPathComponent("media")
            try FileManager.default.copyItem(at: encryptedMedia, to: media)
            let main = media.appendingPathComponent("aes-iv/main.m3u8")
            let text = try String(contentsOf: main, encoding: .utf8).replacingOccurrences(of: "#EXT-X-VERSION:3\n", with: """
                #EXT-X-VERSION:3
                #EXT-X-SESSION-KEY:METHOD=AES-128,URI="../keys/key1.bin"
                #EXT-X-SESSION-KEY:METHOD=AES-128,URI="../keys/key2.bin"
                #EXT-X-SESSION-KEY:METHOD=SAMPLE-AES,URI="skd://fairplay/1",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"

                """)
            try text.write(to: main, atomically: true, encoding: .utf8)
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            try await Origin(root: media.path).withRunning { origin in
                let session = try await DownloadSession(library: library)
                let task = try await session.makeTask(url: origin.baseURL + "/aes-iv/main.m3u8")
                try await task.resume()
                let state = await task.waitUntilFinished()
                let error = try await task.snapshot().error
                #expect(state == .completed, "\(error ?? "")")
                await session.shutdown()
                let keys = try await KeyStore(library: library).keys(of: task.id)
                #expect(keys.map(\.id) == ["k1", "k2"] && keys.map { $0.uri.hasSuffix("key1.bin") } == [true, false])
                let requests = await origin.requests()
                let firstMedia = try #require(requests.firstIndex { $0.path.hasSuffix(".ts") })
                #expect(requests[..<firstMedia].filter { $0.path.hasPrefix("/keys/") }.map(\.path).sorted() == ["/keys/key1.bin", "/keys/key2.bin"])
                let local = try String(contentsOf: library.bundleURL(for: task.id).appendingPathComponent("main.m3u8"), encoding: .utf8)
                #expect(!local.contains("SESSION-KEY"))
            }
        }
    }

    @Test("an encrypted stream plays while it downloads")
    func playWhileDownloading() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            var profile = LinkProfile.perfect
            profile.bandwidth = 40_000
            try await Origin(root: encryptedMedia.path, profile: profile).withRunning { origin in
                let session = try await DownloadSession(library: library, configuration: .init(maximumRequestsPerTask: 2))
                let task = try await session.makeTask(url: origin.baseURL + "/aes-rotation/main.m3u8")
                try await task.resume()
                try await PlaybackServer(source: PlaybackSource(library: library, session: session)).withRunning { handle in
                    let decoded = try await ffmpegDecode(handle.playlistURL(for: task.id))
                    #expect(decoded.status == 0 && decoded.standardError.isEmpty, "ffmpeg: \(decoded.standardError)")
                }
                #expect(await task.waitUntilFinished() == .completed)
                await session.shutdown()
                let media = await origin.requests().filter { $0.path.hasSuffix(".ts") }.map(\.path)
                #expect(media.count == 6 && Set(media).count == 6)
            }
        }
    }
}
