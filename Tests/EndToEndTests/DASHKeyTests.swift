@testable import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// Encrypted MPEG-DASH: a Representation protected by W3C Clear Key gets its key from the
/// licence server before any media, sealed in the key store; one protected by a DRM system
/// Carryon cannot ask fails before any media, naming the system.
@Suite("Encrypted MPEG-DASH", .heavy)
struct DASHKeyTests {
    /// The test key and KID `Scripts/make-dash-media.sh` encrypts `clearkey/` with.
    static let key: [UInt8] = Array(0...15)
    static let keyID: [UInt8] = (0x10...0x19).map(UInt8.init) + (0x20...0x25).map(UInt8.init)

    static func answers(mpd: String? = nil) throws -> [String: HostileOrigin.Answer] {
        let folder = dashSampleMedia.appendingPathComponent("clearkey")
        let license = "{\"keys\":[{\"kty\":\"oct\",\"kid\":\"\(ClearKeyLicense.base64URL(keyID))\",\"k\":\"\(ClearKeyLicense.base64URL(key))\"}],\"type\":\"temporary\"}"
        return [
            "/clearkey/main.mpd": .body(Array(try mpd.map { Data($0.utf8) } ?? Data(contentsOf: folder.appendingPathComponent("main.mpd")))),
            "/clearkey/video.mp4": .body(Array(try Data(contentsOf: folder.appendingPathComponent("video.mp4")))),
            "/clearkey/license": .body(headers: [("Content-Type", "application/json")], Array(license.utf8)),
        ]
    }

    @Test("a Clear Key Representation: the licence is asked for its KID before any media, the key sealed under its KID; offline, the playback server answers the licence its MPD names, and ffmpeg decrypts with that key, to the last frame, both the file it serves and the generated HLS rendition")
    func clearKey() async throws {
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning(try Self.answers()) { origin in
                let downloaded = try await completedDownload(origin.baseURL + "/clearkey/main.mpd", in: folder)
                let (library, id, snapshot) = (downloaded.library, downloaded.id, downloaded.snapshot)

                // The licence request came before the media, naming the KID.
                let heads = origin.requestHeads
                let licenseIndex = try #require(heads.firstIndex { $0.hasPrefix("POST /clearkey/license ") })
                let mediaIndex = try #require(heads.firstIndex { $0.hasPrefix("GET /clearkey/video.mp4 ") })
                #expect(licenseIndex < mediaIndex)
                #expect(heads[licenseIndex].contains("{\"kids\":[\"\(ClearKeyLicense.base64URL(Self.keyID))\"],\"type\":\"temporary\"}"))

                let keys = try await KeyStore(library: library).keys(of: id)
                #expect(keys.map(\.keyFormat) == ["org.w3.clearkey"])
                let sealed = try await KeyStore(library: library).key(ClearKeyLicense.storeID(Self.keyID), of: id)
                #expect(sealed == Self.key)

                let file = URL(fileURLWithPath: snapshot.bundlePath).appendingPathComponent("video/00001.mp4").path
                let decrypted = try await run(try requireFFmpeg(), ["-v", "error", "-decryption_key", ClearKeyLicense.hex(sealed),
                                                                    "-i", file, "-map", "0:v", "-f", "framemd5", "-"])
                let frames = decrypted.standardOutput.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
                #expect(frames == 200, "ffmpeg decrypted \(frames) frames: \(decrypted.standardError)")
                let mpd = try String(contentsOfFile: URL(fileURLWithPath: snapshot.bundlePath).appendingPathComponent("main.mpd").path, encoding: .utf8)
                #expect(mpd.contains("cenc:default_KID=\"10111213-1415-1617-1819-202122232425\""))
                #expect(!mpd.contains("license"), "the origin's licence server is not in the local MPD")

                // Offline: the playback server answers the Clear Key licence requests its MPD points at.
                try await PlaybackServer(source: PlaybackSource(library: library)).withRunning { server in
                    let base = try #require(URL(string: server.baseURL))
                    let port = try #require(base.port)
                    let served = try await rawHTTP(port: port, "GET \(base.path)/\(id)/main.mpd HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
                    let licenseURL = "\(server.baseURL)/\(id)/clearkey"
                    #expect(String(decoding: served.body, as: UTF8.self).contains("<dashif:Laurl>\(licenseURL)</dashif:Laurl>"))
                    func license(_ kids: [[UInt8]]) async throws -> RawHTTPResponse {
                        let body = "{\"kids\":[\(kids.map { "\"\(ClearKeyLicense.base64URL($0))\"" }.joined(separator: ","))],\"type\":\"temporary\"}"
                        return try await rawHTTP(port: port, "POST \(base.path)/\(id)/clearkey HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
                            + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
                    }
                    let answered = try await license([Self.keyID])
                    #expect(answered.status == 200)
                    let key = try ClearKeyLicense.key(for: Self.keyID, in: answered.body, from: licenseURL)
                    #expect(key == Self.key)
                    let played = try await run(try requireFFmpeg(), ["-v", "error", "-decryption_key", ClearKeyLicense.hex(key),
                                                                     "-i", "\(server.baseURL)/\(id)/video/00001.mp4", "-map", "0:v", "-f", "framemd5", "-"])
                    #expect(played.standardOutput.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 200,
                            "through the playback server: \(played.standardError)")
                    // As HLS: ffmpeg reads the generated main.m3u8 and decrypts with the licence's key.
                    let hls = try await run(try requireFFmpeg(), ["-v", "error", "-seg_format_options", "decryption_key=\(ClearKeyLicense.hex(key))",
                                                                  "-i", server.playlistURL(for: id), "-map", "0:v", "-f", "framemd5", "-"])
                    #expect(hls.standardOutput.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 200,
                            "the HLS rendition through the playback server: \(hls.standardError)")
                    let unknown = try await license([Array(repeating: 7, count: 16)])
                    #expect(unknown.status == 403 && String(decoding: unknown.body, as: UTF8.self).contains("has no key kid-07070707"))
                    try await KeyStore(library: library).invalidate(id)
                    let invalidated = try await license([Self.keyID])
                    #expect(invalidated.status == 403 && String(decoding: invalidated.body, as: UTF8.self).contains("invalidated"))
                    let noToken = try await rawHTTP(port: port, "POST /\(id)/clearkey HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
                    #expect(noToken.status == 403)
                }
            }
        }
    }

    /// The segmented Clear Key sample (`clearkey-segments/`, encrypted by Scripts/cenc-encrypt.py)
    /// with the same licence.
    static func segmentAnswers() throws -> [String: HostileOrigin.Answer] {
        let folder = dashSampleMedia.appendingPathComponent("clearkey-segments")
        var answers = try Self.answers().filter { $0.key == "/clearkey/license" }
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            answers["/clearkey/\(name)"] = .body(Array(try Data(contentsOf: folder.appendingPathComponent(name))))
        }
        return answers
    }

    @Test("Clear Key in segments: offline, Chromium plays the bundle's local MPD to the last frame, its Clear Key CDM licensed by the playback server; ffmpeg plays the HLS rendition with the same key")
    func clearKeyInBrowser() async throws {
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning(try Self.segmentAnswers()) { origin in
                let downloaded = try await completedDownload(origin.baseURL + "/clearkey/main.mpd", in: folder)
                let (library, id, snapshot) = (downloaded.library, downloaded.id, downloaded.snapshot)
                let bundle = URL(fileURLWithPath: snapshot.bundlePath)
                for resource in try await library.index.resources(of: id) {
                    let name = try #require(URL(string: resource.uri)?.lastPathComponent)
                    #expect(try Data(contentsOf: bundle.appendingPathComponent(resource.fileName))
                            == Data(contentsOf: dashSampleMedia.appendingPathComponent("clearkey-segments/\(name)")), "\(name)")
                }
                let fetched = origin.requests.count

                try await PlaybackServer(source: PlaybackSource(library: library)).withRunning { server in
                    let played = try await chromiumPlayback(base: server.baseURL, mpd: "\(id)/main.mpd")
                    #expect(played.error == nil, "\(played)")
                    #expect(played.licenceRequests == 1 && played.licenceStatuses == [200], "\(played)")
                    #expect(played.frames == 200 && played.currentTime >= 7.9, "Chromium played \(played)")

                    // The HLS rendition declares the key (common encryption's cenc: SAMPLE-AES-CTR), its
                    // raw bytes at the playback server, as for an HLS asset's keys.
                    let key = try #require(try await KeyStore(library: library).key(ClearKeyLicense.storeID(Self.keyID), of: id))
                    let video = try String(contentsOf: bundle.appendingPathComponent("video/index.m3u8"), encoding: .utf8)
                    let keyTag = "#EXT-X-KEY:METHOD=SAMPLE-AES-CTR,URI=\"../keys/\(ClearKeyLicense.storeID(Self.keyID))\",KEYFORMAT=\"identity\""
                    #expect(video.components(separatedBy: "\n").filter { $0.hasPrefix("#EXT-X-KEY") } == [keyTag], "\(video)")
                    let base = try #require(URL(string: server.baseURL))
                    let port = try #require(base.port)
                    let served = try await rawHTTP(port: port, "GET \(base.path)/\(id)/keys/\(ClearKeyLicense.storeID(Self.keyID)) HTTP/1.1\r\n"
                        + "Host: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
                    #expect(served.status == 200 && Array(served.body) == key, "the key the EXT-X-KEY names: \(served.status)")
                    let hls = try await run(try requireFFmpeg(), ["-v", "error", "-seg_format_options", "decryption_key=\(ClearKeyLicense.hex(key))",
                                                                  "-i", server.playlistURL(for: id), "-map", "0:v", "-f", "framemd5", "-"])
                    let frames = hls.standardOutput.split(separator: "\n").filter { !$0.hasPrefix("#") }
                    let clear = try await run(try requireFFmpeg(), ["-v", "error", "-i", dashSampleMedia.appendingPathComponent("single/main-stream1.mp4").path,
                                                                    "-map", "0:v", "-f", "framemd5", "-"])
                    #expect(frames.count == 200 && frames == clear.standardOutput.split(separator: "\n").filter { !$0.hasPrefix("#") },
                            "the HLS rendition decrypts to the clear video's frames: \(hls.standardError)")
                }
                #expect(origin.requests.count == fetched, "playback reached the origin: \(origin.requests.dropFirst(fetched))")
            }
        }
    }

    @Test("a Representation protected only by a DRM system with no ContentKeyProvider fails before any media, naming the system")
    func unknownSystem() async throws {
        let widevine = try String(contentsOf: dashSampleMedia.appendingPathComponent("clearkey/main.mpd"), encoding: .utf8)
            .replacingOccurrences(of: "urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e", with: "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed")
            .replacingOccurrences(of: "<dashif:Laurl>license</dashif:Laurl>", with: "<cenc:pssh>AAAAAHBzc2gAAAAA7e+LqXnWSs6jyCfc1R0h7QAAAAA=</cenc:pssh>")
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning(try Self.answers(mpd: widevine)) { origin in
                let error = try await failedDownloadError(origin.baseURL + "/clearkey/main.mpd", in: folder)
                // In DASH's terms: the system by name and scheme, and what would open it.
                #expect(error.contains("comes from Widevine (ContentProtection schemeIdUri=\"urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed\"), which Carryon cannot open"), "\(error)")
                #expect(error.contains("--key 10111213141516171819202122232425:KEY") && !error.contains("KEYFORMAT"), "\(error)")
                #expect(!origin.requests.contains("/clearkey/video.mp4"))
            }
        }
    }
}
