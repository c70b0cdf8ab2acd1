@testable import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// Keys the user holds (issue 35): common-encryption streams made by Shaka Packager
/// (`Samples/cenc`, `Scripts/make-cenc-media.sh`) with no licence server, downloaded with
/// `--key` or `--keys-file`, byte-identical, with no key byte or hex digit on disk in clear, and
/// played offline to the last frame by real players.
@Suite("Keys the user holds", .heavy)
struct HeldKeyTests {
    static let keysFile = cencSampleMedia.appendingPathComponent("keys.txt").path
    static let keys = try! HeldKeys.read(file: URL(fileURLWithPath: keysFile))
    static let kid = "00112233445566778899aabbccddeeff"

    /// The origin's answers for the stream folders `streams` of Samples/cenc, under `/<folder>/`.
    static func answers(_ streams: [String]) throws -> [String: HostileOrigin.Answer] {
        var answers: [String: HostileOrigin.Answer] = [:]
        for stream in streams {
            let folder = cencSampleMedia.appendingPathComponent(stream)
            let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
            for file in files where !file.hasSuffix("/") {
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: folder.appendingPathComponent(file).path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
                answers["/\(stream)/\(file)"] = .body(Array(try Data(contentsOf: folder.appendingPathComponent(file))))
            }
        }
        return answers
    }

    /// Every file under `folder`, read whole, has none of the keys' bytes nor their hexadecimal
    /// (either case) in it.
    static func expectNoKeyInClear(under folder: URL) throws {
        let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        #expect(files.count > 5)
        for file in files {
            let path = folder.appendingPathComponent(file)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            let bytes = Data(try Data(contentsOf: path))
            for (keyID, key) in keys.keys {
                let hex = Hex.text(key)
                #expect(bytes.range(of: Data(key)) == nil, "\(file) holds the key of KID \(keyID)")
                #expect(bytes.range(of: Data(hex.utf8)) == nil && bytes.range(of: Data(hex.uppercased().utf8)) == nil,
                        "\(file) holds the key of KID \(keyID) in hexadecimal")
            }
        }
    }

    /// The bundle's files of asset `id` are the origin's bytes, each.
    static func expectByteIdentical(_ library: OfflineLibrary, _ id: String, stream: String, origin: String) async throws {
        let bundle = library.bundleURL(for: id)
        let resources = try await library.index.resources(of: id)
        #expect(resources.count >= 4)
        for resource in resources {
            let path = String(resource.uri.dropFirst(origin.count + stream.count + 2))
            #expect(try Data(contentsOf: bundle.appendingPathComponent(resource.fileName))
                    == Data(contentsOf: cencSampleMedia.appendingPathComponent("\(stream)/\(path)")), "\(stream)/\(path)")
        }
    }

    @Test("DASH, cenc with one key given by --key (a UUID KID, upper case) and cbcs with a key per track and a clear lead: byte-identical, no key in clear on disk, and Chromium's Clear Key plays each offline to the last frame, licensed by the playback server")
    func dash() async throws {
        try await withTemporaryDirectory { folder in
            let libraryPath = folder.appendingPathComponent("library").path
            try await HostileOrigin.withRunning(try Self.answers(["cenc", "cbcs-tracks"])) { origin in
                let given = "00112233-4455-6677-8899-AABBCCDDEEFF:" + Hex.text(try #require(Self.keys.keys[Self.kid])).uppercased()
                let cenc = try await runCarryon(["download", origin.baseURL + "/cenc/main.mpd", "--library", libraryPath, "--key", given])
                #expect(cenc.status == 0, "\(cenc.standardError)")
                let cbcs = try await runCarryon(["download", origin.baseURL + "/cbcs-tracks/main.mpd", "--library", libraryPath, "--json",
                                                 "--key", "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf:5c5d5e5f505152535455565758595a5b",
                                                 "--key", "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff:1a2b3c4d5e6f708192a3b4c5d6e7f809"])
                #expect(cbcs.status == 0, "\(cbcs.standardError)")
                // The video's key cannot be checked by its samples (Shaka keeps slice headers clear): said.
                #expect(cbcs.standardOutput.contains("the key given for KID a0a1a2a3a4a5a6a7a8a9aaabacadaeaf (key 1) could not be checked"), "\(cbcs.standardOutput)")
                let ids = [cenc, cbcs].map { $0.standardOutput.split(separator: "\n").last.map(String.init) ?? "" }
                let cbcsIDs = cbcs.standardOutput.split(separator: "\n").compactMap { line -> String? in
                    (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
                }
                let cbcsID = try #require(cbcsIDs.first)
                let library = try OfflineLibrary(root: URL(fileURLWithPath: libraryPath))
                try await Self.expectByteIdentical(library, ids[0], stream: "cenc", origin: origin.baseURL)
                try await Self.expectByteIdentical(library, cbcsID, stream: "cbcs-tracks", origin: origin.baseURL)
                // Sealed under their KIDs, listed as held.
                let kept = try await KeyStore(library: library).keys()
                #expect(Set(kept.map(\.id)) == ["kid-" + Self.kid, "kid-a0a1a2a3a4a5a6a7a8a9aaabacadaeaf", "kid-f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"])
                #expect(kept.allSatisfy { $0.uri == KeyStore.heldURI })
                let listed = try await runCarryon(["keys", "list", "--library", libraryPath, "--json"])
                #expect(listed.status == 0 && listed.standardOutput.contains(Self.kid))
                try Self.expectNoKeyInClear(under: URL(fileURLWithPath: libraryPath))
                for output in [cenc, cbcs, listed] {
                    for key in Self.keys.keys.values {
                        #expect(!(output.standardOutput + output.standardError).lowercased().contains(Hex.text(key)))
                    }
                }
                let fetched = origin.requests.count
                try await PlaybackServer(source: PlaybackSource(library: library)).withRunning { server in
                    for id in [ids[0], cbcsID] {
                        let played = try await chromiumPlayback(base: server.baseURL, mpd: "\(id)/main.mpd")
                        #expect(played.error == nil, "\(played)")
                        #expect(played.licenceRequests == 1 && played.licenceStatuses == [200], "\(played)")
                        #expect(played.frames == 100 && played.currentTime >= 3.9, "Chromium played \(played)")
                    }
                }
                #expect(origin.requests.count == fetched, "playback reached the origin")
            }
        }
    }

    @Test("HLS fMP4, SAMPLE-AES (cbcs, the first segment clear) and SAMPLE-AES-CTR (cenc) whose key URI the origin does not serve: downloaded with --key and with a keys file, byte-identical, no key in clear on disk, and ffmpeg given the key decodes every video frame and audio packet of the bundle's files")
    func hls() async throws {
        let ffmpeg = try requireFFmpeg()
        try await withTemporaryDirectory { folder in
            let libraryPath = folder.appendingPathComponent("library").path
            try await HostileOrigin.withRunning(try Self.answers(["hls-cbcs", "hls-cenc"])) { origin in
                let key = try #require(Self.keys.keys[Self.kid])
                for stream in ["hls-cbcs", "hls-cenc"] {
                    // A key given by --key; a key ring whose other keys the stream does not use.
                    let keys = stream == "hls-cbcs" ? ["--key", "\(Self.kid):\(Hex.text(key))"] : ["--keys-file", Self.keysFile]
                    let result = try await runCarryon(["download", origin.baseURL + "/\(stream)/main.m3u8", "--library", libraryPath] + keys)
                    #expect(result.status == 0, "\(stream): \(result.standardError)")
                    let id = try #require(result.standardOutput.split(separator: "\n").last.map(String.init))
                    let library = try OfflineLibrary(root: URL(fileURLWithPath: libraryPath))
                    try await Self.expectByteIdentical(library, id, stream: stream, origin: origin.baseURL)
                    // Each rendition's files, init section first, as one file for ffmpeg's mov reader.
                    let resources = try await library.index.resources(of: id)
                    for (track, stream) in [("v/", "0:v"), ("a/", "0:a")] {
                        let files = resources.filter { $0.uri.contains("/\(track)") }
                            .sorted { ($0.kind == .initSection ? 0 : 1, $0.uri.count, $0.uri) < ($1.kind == .initSection ? 0 : 1, $1.uri.count, $1.uri) }
                        var joined = Data()
                        for file in files { joined += try Data(contentsOf: library.bundleURL(for: id).appendingPathComponent(file.fileName)) }
                        let path = folder.appendingPathComponent("\(id)-\(track.dropLast()).mp4")
                        try joined.write(to: path)
                        let decoded = try await run(ffmpeg, ["-v", "error", "-decryption_key", Hex.text(key), "-i", path.path,
                                                             "-map", stream, "-f", "framemd5", "-"])
                        let frames = decoded.standardOutput.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
                        #expect(decoded.standardError.isEmpty, "\(id) \(track): \(decoded.standardError)")
                        #expect(track == "v/" ? frames == 100 : frames >= 187, "\(id) \(track): ffmpeg decoded \(frames)")
                    }
                }
                #expect(!origin.requests.contains { $0.hasSuffix("key.bin") }, "the key URI was asked for: \(origin.requests)")
                // The ring's keys for other streams were left out.
                let library = try OfflineLibrary(root: URL(fileURLWithPath: libraryPath))
                #expect(Set(try await KeyStore(library: library).keys().map(\.id)) == ["k1", "kid-" + Self.kid])
                try Self.expectNoKeyInClear(under: URL(fileURLWithPath: libraryPath))
            }
        }
    }

    @Test("refusals before the media: a wrong key (naming its KID, after reading only the first segments), a key for a KID the stream does not use, a Widevine-only stream without a key (naming Widevine in DASH's terms), a key that is not KID:KEY (naming the entry, never the key), a key given with a space for the colon (the usage error hides it)")
    func refusals() async throws {
        try await withTemporaryDirectory { folder in
            let libraryPath = folder.appendingPathComponent("library").path
            try await HostileOrigin.withRunning(try Self.answers(["cenc", "widevine"])) { origin in
                let wrong = try await runCarryon(["download", origin.baseURL + "/cenc/main.mpd", "--library", libraryPath,
                                                  "--key", "\(Self.kid):000102030405060708090a0b0c0d0e0f"])
                #expect(wrong.status != 0)
                #expect(wrong.standardError.contains("the key given for KID \(Self.kid) (key 1) is wrong: decrypted with it,"), "\(wrong.standardError)")
                #expect(wrong.standardError.contains("samples are not AAC") && wrong.standardError.contains("nothing was downloaded"))
                // Only the first segment of each Representation was read to tell.
                #expect(!origin.requests.contains { $0.hasSuffix("/2.m4s") }, "\(origin.requests)")
                let library = try OfflineLibrary(root: URL(fileURLWithPath: libraryPath))
                #expect(try await KeyStore(library: library).keys().isEmpty)
                // The failed download resumed with the right key: it completes.
                let failedID = try #require(wrong.standardOutput.split(separator: "\n").last.map(String.init))
                let resumed = try await runCarryon(["resume", failedID, "--library", libraryPath,
                                                    "--key", "\(Self.kid):\(Hex.text(try #require(Self.keys.keys[Self.kid])))"])
                #expect(resumed.status == 0, "\(resumed.standardError)")
                #expect(try await KeyStore(library: library).keys(of: failedID).map(\.id) == ["kid-" + Self.kid])
                try await KeyStore(library: library).remove(failedID)

                let unused = try await runCarryon(["download", origin.baseURL + "/cenc/main.mpd", "--library", libraryPath,
                                                   "--key", "\(Self.kid):\(Hex.text(try #require(Self.keys.keys[Self.kid])))",
                                                   "--key", "ffeeddccbbaa99887766554433221100:000102030405060708090a0b0c0d0e0f"])
                #expect(unused.status != 0)
                #expect(unused.standardError.contains("the stream does not use the KID of key 2 (it uses KID \(Self.kid))"), "\(unused.standardError)")
                #expect(!unused.standardError.contains("ffeeddccbbaa99887766554433221100"))
                #expect(try await KeyStore(library: library).keys().isEmpty)

                let before = origin.requests.count
                let widevine = try await runCarryon(["download", origin.baseURL + "/widevine/main.mpd", "--library", libraryPath])
                #expect(widevine.status != 0)
                #expect(widevine.standardError.contains("comes from Widevine (ContentProtection schemeIdUri=\"urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed\"), which Carryon cannot open"),
                        "\(widevine.standardError)")
                #expect(widevine.standardError.contains("--key \(Self.kid):KEY") && !widevine.standardError.contains("KEYFORMAT"))
                #expect(origin.requests.dropFirst(before).allSatisfy { $0.hasSuffix(".mpd") }, "media was asked for: \(origin.requests.dropFirst(before))")

                let typo = try await runCarryon(["download", origin.baseURL + "/cenc/main.mpd", "--library", libraryPath,
                                                 "--key", "\(Self.kid):0f1e2d3c4b5a69788796a5b4c3d2e1"])
                #expect(typo.status != 0)
                #expect(typo.standardError.contains("key 1: the key is not 16 bytes"), "\(typo.standardError)")
                #expect(!typo.standardError.contains("0f1e2d3c4b5a69788796a5b4c3d2e1"))
                // A space for the colon: the usage error hides what it cannot place.
                let spaced = try await runCarryon(["download", origin.baseURL + "/cenc/main.mpd", "--library", libraryPath,
                                                   "--key", Self.kid, "0f1e2d3c4b5a69788796a5b4c3d2e1f0"])
                #expect(spaced.status == 64 && spaced.standardError.contains("Unexpected argument '<hidden>'"), "\(spaced.standardError)")
                #expect(!spaced.standardError.contains("0f1e2d3c4b5a69788796a5b4c3d2e1f0"))
            }
        }
    }

    @Test("--license-url: a Clear Key licence server the MPD does not name is asked with --header's headers, and kept with the asset; keys fetch --key after a download without keys; add --key for a rendition with its own KID, checked before its media")
    func licenseServerAndLaterKeys() async throws {
        try await withTemporaryDirectory { folder in
            let libraryPath = folder.appendingPathComponent("library").path
            var answers = try Self.answers(["cenc", "cbcs-tracks"])
            let key = try #require(Self.keys.keys[Self.kid])
            let kidBytes = try #require(Hex.bytes(Self.kid))
            let license = "{\"keys\":[{\"kty\":\"oct\",\"kid\":\"\(ClearKeyLicense.base64URL(kidBytes))\",\"k\":\"\(ClearKeyLicense.base64URL(key))\"}],\"type\":\"temporary\"}"
            answers["/license"] = .body(headers: [("Content-Type", "application/json")], Array(license.utf8))
            try await HostileOrigin.withRunning(answers) { origin in
                let licensed = try await runCarryon(["download", origin.baseURL + "/cenc/main.mpd", "--library", libraryPath,
                                                     "--license-url", origin.baseURL + "/license", "--header", "Authorization: Bearer t0ken"])
                #expect(licensed.status == 0, "\(licensed.standardError)")
                let post = try #require(origin.requestHeads.first { $0.hasPrefix("POST /license ") })
                #expect(post.contains("Authorization: Bearer t0ken") && post.contains(ClearKeyLicense.base64URL(kidBytes)), "\(post)")
                let id = try #require(licensed.standardOutput.split(separator: "\n").last.map(String.init))
                let library = try OfflineLibrary(root: URL(fileURLWithPath: libraryPath))
                #expect(try await KeyStore(library: library).keys(of: id).map(\.uri) == [origin.baseURL + "/license"])
                #expect(try await library.index.asset(id)?.options.licenseURL == origin.baseURL + "/license")

                // Keys after the media: the download needs none, keys fetch takes the key held.
                let later = try await runCarryon(["download", origin.baseURL + "/cenc/main.mpd", "--library", libraryPath, "--no-prefetch-keys"])
                #expect(later.status == 0, "\(later.standardError)")
                let laterID = try #require(later.standardOutput.split(separator: "\n").last.map(String.init))
                let fetched = try await runCarryon(["keys", "fetch", laterID, "--library", libraryPath, "--key", "\(Self.kid):\(Hex.text(key))"])
                #expect(fetched.status == 0 && fetched.standardOutput.contains("fetched kid-\(Self.kid)"), "\(fetched.standardOutput) \(fetched.standardError)")
                #expect(try await KeyStore(library: library).keys(of: laterID).map(\.uri) == [KeyStore.heldURI])

                // A rendition added later brings its own KID: its key given to add, checked first.
                let video = try await runCarryon(["download", origin.baseURL + "/cbcs-tracks/main.mpd", "--library", libraryPath, "--audio", "none",
                                                  "--key", "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf:5c5d5e5f505152535455565758595a5b"])
                #expect(video.status == 0, "\(video.standardError)")
                let videoID = try #require(video.standardOutput.split(separator: "\n").last.map(String.init))
                let wrongAudio = try await runCarryon(["add", videoID, "--audio", "en", "--library", libraryPath,
                                                       "--key", "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff:00000000000000000000000000000000"])
                #expect(wrongAudio.status != 0 && wrongAudio.standardError.contains("the key given for KID f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff (key 1) is wrong"),
                        "\(wrongAudio.standardError)")
                let audio = try await runCarryon(["add", videoID, "--audio", "en", "--library", libraryPath,
                                                  "--key", "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff:1a2b3c4d5e6f708192a3b4c5d6e7f809"])
                #expect(audio.status == 0, "\(audio.standardError)")
                #expect(Set(try await KeyStore(library: library).keys(of: videoID).map(\.id))
                        == ["kid-a0a1a2a3a4a5a6a7a8a9aaabacadaeaf", "kid-f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"])
                #expect(try await library.index.resources(of: videoID).contains { $0.uri.hasSuffix("/a/2.m4s") })
            }
        }
    }

    @Test("enqueue --key: the key sealed at once for the worker that claims the download (another process), which uses it; never in clear on disk")
    func fleet() async throws {
        try await withTemporaryDirectory { folder in
            let libraryPath = folder.appendingPathComponent("library").path
            try await HostileOrigin.withRunning(try Self.answers(["cenc"])) { origin in
                let key = try #require(Self.keys.keys[Self.kid])
                let enqueued = try await runCarryon(["enqueue", origin.baseURL + "/cenc/main.mpd", "--library", libraryPath,
                                                     "--key", "\(Self.kid):\(Hex.text(key))"])
                #expect(enqueued.status == 0, "\(enqueued.standardError)")
                let id = try #require(enqueued.standardOutput.split(separator: "\n").last.map(String.init))
                let library = try OfflineLibrary(root: URL(fileURLWithPath: libraryPath))
                #expect(try await KeyStore(library: library).keys(of: id).map(\.uri) == [KeyStore.heldURI])
                let worker = try RunningProcess(carryon: ["worker", "--allow-private-origins", "--tasks", "1", "--library", libraryPath])
                var state = ""
                let deadline = ContinuousClock.now + .seconds(60)
                while state != "completed" && state != "failed", ContinuousClock.now < deadline {
                    state = try await library.index.asset(id)?.state.rawValue ?? ""
                    try await Task.sleep(for: .milliseconds(100))
                }
                worker.kill(SIGTERM)
                #expect(await worker.wait() == 0)
                #expect(state == "completed", "\(worker.standardError.suffix(2000))")
                try await Self.expectByteIdentical(library, id, stream: "cenc", origin: origin.baseURL)
                try Self.expectNoKeyInClear(under: URL(fileURLWithPath: libraryPath))
            }
        }
    }
}
