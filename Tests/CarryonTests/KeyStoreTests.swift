@testable import Carryon
import CarryonIndexTestSupport
import CarryonTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The key store: keys sealed under the master key, lifetimes with an injected clock (expiry,
/// rentals), invalidation; the master key file; data: URIs; playlists copied without their keys.
@Suite("Keeping content keys")
struct KeyStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let key: [UInt8] = Array(0..<16)

    static func info(lifetime: KeyLifetime, firstPlayed: Date? = nil, invalidated: Bool = false) -> ContentKeyInfo {
        ContentKeyInfo(id: "k1", assetID: "a", method: "AES-128", keyFormat: "identity", uri: "https://k", storedAt: t0,
                       lifetime: lifetime, firstPlayedAt: firstPlayed, isInvalidated: invalidated)
    }

    @Test("a key without a lifetime never expires; an expiration date ends it")
    func expiry() {
        #expect(Self.info(lifetime: KeyLifetime()).isAvailable(at: Self.t0.addingTimeInterval(1e9)))
        let dated = Self.info(lifetime: KeyLifetime(expiresAt: Self.t0.addingTimeInterval(60)))
        #expect(dated.isAvailable(at: Self.t0.addingTimeInterval(59)))
        #expect(!dated.isAvailable(at: Self.t0.addingTimeInterval(60)))
        #expect(dated.effectiveExpiry == Self.t0.addingTimeInterval(60))
    }

    @Test("a rental: available for its window after the download until first played, then for the playback window")
    func rental() {
        let lifetime = KeyLifetime(rentalWindow: 30 * 86_400, playbackWindow: 48 * 3_600)
        let unplayed = Self.info(lifetime: lifetime)
        #expect(unplayed.isAvailable(at: Self.t0.addingTimeInterval(29 * 86_400)))
        #expect(!unplayed.isAvailable(at: Self.t0.addingTimeInterval(30 * 86_400 + 1)))
        let played = Self.info(lifetime: lifetime, firstPlayed: Self.t0.addingTimeInterval(29 * 86_400))
        // Played on day 29: it plays 48 hours from then, past the rental window.
        #expect(played.isAvailable(at: Self.t0.addingTimeInterval(30 * 86_400 + 3_600)))
        #expect(!played.isAvailable(at: Self.t0.addingTimeInterval(29 * 86_400 + 48 * 3_600)))
        // An expiration date still ends it first.
        let capped = Self.info(lifetime: KeyLifetime(expiresAt: Self.t0.addingTimeInterval(86_400 * 29 + 3_600), rentalWindow: 30 * 86_400,
                                                     playbackWindow: 48 * 3_600), firstPlayed: Self.t0.addingTimeInterval(29 * 86_400))
        #expect(capped.effectiveExpiry == Self.t0.addingTimeInterval(86_400 * 29 + 3_600))
    }

    @Test("a session that began before the key expired keeps it; one that began after does not; an invalidated key plays for none")
    func sessions() {
        let info = Self.info(lifetime: KeyLifetime(expiresAt: Self.t0.addingTimeInterval(60)))
        let later = Self.t0.addingTimeInterval(3_600)
        #expect(info.isAvailable(at: later, sessionStartedAt: Self.t0.addingTimeInterval(30)))
        #expect(!info.isAvailable(at: later, sessionStartedAt: Self.t0.addingTimeInterval(61)))
        #expect(!Self.info(lifetime: KeyLifetime(), invalidated: true).isAvailable(at: Self.t0, sessionStartedAt: Self.t0))
    }

    @Test("keys are sealed: stored and opened with the master key, not with another, and not as another asset's")
    func sealing() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder)
            try await StorageManagerTests.addAsset(library, "a", bytes: 1)
            try await StorageManagerTests.addAsset(library, "b", bytes: 1)
            let store = KeyStore(library: library)
            try await store.store(Self.key, id: "k1", assetID: "a", uri: "data:;base64,AAA=", method: "AES-128", keyFormat: "identity",
                                  lifetime: KeyLifetime(), now: Self.t0)
            #expect(try await store.key("k1", of: "a", now: Self.t0) == Self.key)
            let listed = try await store.keys(of: "a")
            #expect(listed.map(\.uri) == ["data:"] && listed.first?.firstPlayedAt == Self.t0)
            let other = KeyStore(library: library, masterKey: try MasterKey(bytes: Array(repeating: 7, count: 32)))
            await #expect(throws: CarryonError.self) { try await other.key("k1", of: "a", now: Self.t0) }
            // The sealed bytes moved to another asset do not open.
            let moved = try #require(try await library.index.sealedKey("k1", of: "a"))
            var info = moved.info
            info.assetID = "b"
            try await library.index.storeKey(info, sealed: try #require(moved.sealed), fence: nil)
            await #expect(throws: CarryonError.self) { try await store.key("k1", of: "b", now: Self.t0) }
            try await store.invalidate("a")
            do {
                _ = try await store.key("k1", of: "a", now: Self.t0)
                Issue.record("an invalidated key was given out")
            } catch let error as CarryonError {
                #expect(error.message.contains("invalidated"))
            }
            #expect(try await store.keys(of: "a").first?.isInvalidated == true)
        }
    }

    @Test("an app's master key, given to the library, seals and opens its keys everywhere: no master.key is made, and without it they do not open")
    func appMasterKeyOnTheLibrary() async throws {
        try await withTemporaryDirectory { folder in
            let appKey = try MasterKey(bytes: Array(repeating: 9, count: 32))
            let library = try OfflineLibrary(testingAt: folder, masterKey: appKey)
            try await StorageManagerTests.addAsset(library, "a", bytes: 1)
            try await KeyStore(library: library).store(Self.key, id: "k1", assetID: "a", uri: "https://k", method: "AES-128",
                                                       keyFormat: "identity", lifetime: KeyLifetime(), now: Self.t0)
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("master.key").path))
            // Another opening of the same library with the app's key reads it, as a playback
            // source over that library does.
            let reopened = try OfflineLibrary(testingAt: folder, masterKey: appKey)
            #expect(try await KeyStore(library: reopened).key("k1", of: "a", now: Self.t0) == Self.key)
            let source = PlaybackSource(library: reopened, now: { Self.t0 })
            guard case .key(let served) = try await source.content(assetID: "a", path: "keys/k1") else {
                Issue.record("the playback source did not answer a key")
                return
            }
            #expect(served == Self.key)
            // Opened with the library's own key (a new master.key), they do not open.
            let withoutAppKey = try OfflineLibrary(testingAt: folder)
            await #expect(throws: CarryonError.self) { try await KeyStore(library: withoutAppKey).key("k1", of: "a", now: Self.t0) }
        }
    }

    @Test("the master key file is made with mode 0600 and reused; a file others can read is refused; CARRYON_MASTER_KEY wins")
    func masterKeyFile() async throws {
        try await withTemporaryDirectory { folder in
            let first = try MasterKey.forLibrary(at: folder, environment: [:])
            var info = stat()
            #expect(stat(folder.appendingPathComponent("master.key").path, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)
            let again = try MasterKey.forLibrary(at: folder, environment: [:])
            #expect(first.key == again.key)
            chmod(folder.appendingPathComponent("master.key").path, 0o644)
            #expect(throws: CarryonError.self) { try MasterKey.forLibrary(at: folder, environment: [:]) }
            let hex = String(repeating: "ab", count: 32)
            let fromEnvironment = try MasterKey.forLibrary(at: folder, environment: ["CARRYON_MASTER_KEY": hex])
            #expect(fromEnvironment.key == (try MasterKey(bytes: Array(repeating: 0xab, count: 32))).key)
            #expect(throws: CarryonError.self) { try MasterKey.forLibrary(at: folder, environment: ["CARRYON_MASTER_KEY": "abc"]) }
        }
    }

    @Test("CARRYON_MASTER_KEY_FILE: a fleet's shared key, 32 bytes or 64 hex digits, read and never made; one others can read, or that is not a key, is refused by name")
    func masterKeyFromFile() async throws {
        try await withTemporaryDirectory { folder in
            let library = folder.appendingPathComponent("library")
            try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
            let expected = try MasterKey(bytes: Array(repeating: 0xcd, count: 32)).key
            let raw = folder.appendingPathComponent("raw.key")
            try Data(repeating: 0xcd, count: 32).write(to: raw)
            chmod(raw.path, 0o600)
            #expect(try MasterKey.forLibrary(at: library, environment: ["CARRYON_MASTER_KEY_FILE": raw.path]).key == expected)
            let hex = folder.appendingPathComponent("hex.key")
            try (String(repeating: "CD", count: 32) + "\n").write(to: hex, atomically: true, encoding: .utf8)
            chmod(hex.path, 0o400)
            #expect(try MasterKey.forLibrary(at: library, environment: ["CARRYON_MASTER_KEY_FILE": hex.path]).key == expected)
            // Not made in the library folder: the file is the key.
            #expect(!FileManager.default.fileExists(atPath: library.appendingPathComponent("master.key").path))
            chmod(hex.path, 0o644)
            let open = #expect(throws: CarryonError.self) { try MasterKey.forLibrary(at: library, environment: ["CARRYON_MASTER_KEY_FILE": hex.path]) }
            #expect(open?.message.contains("readable by other users") == true && open?.message.contains(hex.path) == true)
            let missing = #expect(throws: CarryonError.self) {
                try MasterKey.forLibrary(at: library, environment: ["CARRYON_MASTER_KEY_FILE": folder.appendingPathComponent("nope").path])
            }
            #expect(missing?.message.contains("does not exist") == true)
            let short = folder.appendingPathComponent("short.key")
            try Data(repeating: 1, count: 16).write(to: short)
            chmod(short.path, 0o600)
            let notKey = #expect(throws: CarryonError.self) { try MasterKey.forLibrary(at: library, environment: ["CARRYON_MASTER_KEY_FILE": short.path]) }
            #expect(notKey?.message.contains("not a master key") == true)
            // CARRYON_MASTER_KEY still wins.
            let hexText = String(repeating: "ab", count: 32)
            #expect(try MasterKey.forLibrary(at: library, environment: ["CARRYON_MASTER_KEY": hexText, "CARRYON_MASTER_KEY_FILE": short.path]).key
                    == (try MasterKey(bytes: Array(repeating: 0xab, count: 32))).key)
        }
    }

    @Test("creators racing for a new library's master key all get the same complete key, never an empty file")
    func masterKeyRace() async throws {
        try await withTemporaryDirectory { root in
            // Many fresh libraries, each opened by several threads at once: the window between
            // creating master.key and writing it is what a loser used to read.
            for round in 0..<200 {
                let folder = root.appendingPathComponent("\(round)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let results = Locked<[Result<[UInt8], CarryonError>]>([])
                DispatchQueue.concurrentPerform(iterations: 6) { _ in
                    let result = Result { () throws(CarryonError) in try MasterKey.forLibrary(at: folder, environment: [:]).key.withUnsafeBytes { Array($0) } }
                    results.withLock { $0.append(result) }
                }
                let keys = try results.withLock { try $0.map { try $0.get() } }
                #expect(keys.count == 6 && Set(keys).count == 1 && keys[0].count == 32,
                        "round \(round): the racers got different keys")
                let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                #expect(leftovers == ["master.key"], "round \(round): \(leftovers)")
            }
        }
    }

    @Test("data: URIs decode, base64 or percent-encoded")
    func dataURIs() {
        #expect(ContentKeyFetcher.decodeDataURI("data:application/octet-stream;base64,AAECAw==") == [0, 1, 2, 3])
        #expect(ContentKeyFetcher.decodeDataURI("data:,%00%01%41") == [0, 1, 0x41])
        #expect(ContentKeyFetcher.decodeDataURI("data:;base64,!!!") == nil)
        #expect(ContentKeyFetcher.decodeDataURI("data:nocomma") == nil)
    }

    @Test("the copy of a playlist kept in the bundle has no data: key in it")
    func redaction() {
        let text = "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"data:;base64,AAECAw==\",IV=0x01\n#EXTINF:4,\na.ts\n"
        let redacted = String(decoding: HLSFormat.redactingDataKeys(in: Array(text.utf8)), as: UTF8.self)
        #expect(!redacted.contains("AAECAw==") && redacted.contains(",IV=0x01") && redacted.contains("a.ts"))
        let plain = "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"https://k/1\"\n"
        #expect(HLSFormat.redactingDataKeys(in: Array(plain.utf8)) == Array(plain.utf8))
        // In any case, and at the very end of the text.
        let upper = "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"DATA:;base64,AAECAw==\"\n"
        #expect(!String(decoding: HLSFormat.redactingDataKeys(in: Array(upper.utf8)), as: UTF8.self).contains("AAECAw=="))
        #expect(HLSFormat.redactingDataKeys(in: Array("data".utf8)) == Array("data".utf8))
    }
}
