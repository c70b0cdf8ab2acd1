import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// Downloads of the real sample asset through the origin on loopback, checked byte for byte
/// against the origin's files and decoded end to end by ffmpeg.
@Suite("Downloading real streams", .heavy)
struct DownloadTests {
    /// Downloads `path` under the sample media (`root`: the HLS sample unless told) with
    /// `options`, returning the bundle's manifest and the origin's request log.
    func download(_ path: String, options: DownloadOptions, profile: LinkProfile = .perfect,
                  configuration: DownloadSession.Configuration = .init(), root: URL = sampleMedia)
        async throws -> (snapshot: AssetSnapshot, manifest: BundleManifest, requests: [OriginRequest], base: String) {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            return try await Origin(root: root.path, profile: profile).withRunning { origin in
                let session = try await DownloadSession(library: library, configuration: configuration)
                let task = try await session.makeTask(url: origin.baseURL + path, options: options)
                try await task.resume()
                let state = await task.waitUntilFinished()
                let snapshot = try await task.snapshot()
                await session.shutdown()
                #expect(state == .completed, "\(snapshot.error ?? "")")
                let manifestData = try Data(contentsOf: URL(fileURLWithPath: snapshot.bundlePath).appendingPathComponent("manifest.json"))
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .iso8601
                let manifest = try decoder.decode(BundleManifest.self, from: manifestData)
                try await checkBundle(snapshot, manifest, base: origin.baseURL, root: root)
                let requests = await origin.requests()
                return (snapshot, manifest, requests, origin.baseURL)
            }
        }
    }

    /// Every file is byte-identical to the origin's, and ffmpeg decodes the local playlist.
    func checkBundle(_ snapshot: AssetSnapshot, _ manifest: BundleManifest, base: String, root: URL = sampleMedia) async throws {
        #expect(manifest.state == .completed)
        #expect(!manifest.files.isEmpty)
        let bundle = URL(fileURLWithPath: snapshot.bundlePath)
        for file in manifest.files {
            let local = try Data(contentsOf: bundle.appendingPathComponent(file.path))
            let originPath = String(file.uri.dropFirst(base.count))
            let origin = try Data(contentsOf: root.appendingPathComponent(originPath))
            #expect(local == origin, "\(file.path) differs from \(originPath)")
            #expect(local.count == file.bytes)
        }
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: bundle.path).filter { $0.hasSuffix(".part") }
        #expect(leftovers.isEmpty, "partial files left: \(leftovers)")
        let playlist = try #require(snapshot.playlist)
        let decoded = try await ffmpegDecode(playlist, extraArguments: ["-allowed_extensions", "ALL"])
        #expect(decoded.status == 0, "ffmpeg: \(decoded.standardError)")
    }

    static let everything = DownloadOptions(prefersHDR: false, audio: .all, subtitles: .all)

    @Test("an MPEG-TS stream with two audio languages and subtitles downloads byte-identical and plays")
    func transportStream() async throws {
        let result = try await download("/ts/main.m3u8", options: Self.everything)
        #expect(result.manifest.renditions.map(\.key) == ["video", "audio-en", "audio-de", "subtitles-en", "subtitles-de"])
        #expect(result.manifest.variant?.resolution == "640x360")
        #expect(result.snapshot.progress.isExact)
        #expect(result.snapshot.progress.bytesDone == result.manifest.files.reduce(0) { $0 + $1.bytes })
    }

    @Test("an fMP4 stream with init sections downloads byte-identical and plays")
    func fragmentedMP4() async throws {
        let result = try await download("/fmp4/main.m3u8", options: Self.everything)
        #expect(result.manifest.files.contains { $0.path.hasPrefix("video/init") })
    }

    @Test("a single-file byte-range stream is reassembled into the origin's files and plays")
    func byteRanges() async throws {
        let result = try await download("/byterange/main.m3u8", options: Self.everything)
        #expect(result.manifest.files.filter { $0.path.hasSuffix(".ts") }.count == 3)
        // Each range was asked for once, with a Range header.
        let media = result.requests.filter { $0.path.hasSuffix("media.ts") }
        #expect(!media.isEmpty)
        #expect(media.allSatisfy { $0.range != nil })
        #expect(Set(media.map { "\($0.path) \($0.range ?? "")" }).count == media.count)
    }

    @Test("no resource is fetched twice")
    func nothingTwice() async throws {
        let result = try await download("/ts/main.m3u8", options: Self.everything)
        let gets = result.requests.filter { $0.method == "GET" }.map(\.path)
        #expect(Set(gets).count == gets.count, "fetched twice: \(Dictionary(grouping: gets, by: { $0 }).filter { $0.value.count > 1 }.keys)")
    }

    @Test("a media playlist URL downloads as a single-rendition asset")
    func mediaPlaylist() async throws {
        let result = try await download("/ts/270p/index.m3u8", options: DownloadOptions())
        #expect(result.manifest.renditions.map(\.key) == ["media"])
    }

    @Test("options choose the variant and renditions downloaded")
    func options() async throws {
        let options = DownloadOptions(maximumBitrate: 300_000, audio: .languages(["de"]), subtitles: .none)
        let result = try await download("/fmp4/main.m3u8", options: options)
        #expect(result.manifest.variant?.resolution == "480x270")
        #expect(result.manifest.renditions.map(\.key) == ["video", "audio-de"])
        let fetched = Set(result.requests.map(\.path))
        #expect(!fetched.contains { $0.contains("audio_en/segment") })
        #expect(!fetched.contains { $0.contains("subs_") })
    }

    /// Seeds whose fault schedules hold every kind of fault within the first requests of each
    /// run (fault draws follow the order requests arrive in, so they repeat run after run).
    static let lossySeeds: [UInt64] = [7, 8, 9, 10, 13]

    @Test("through a lossy link (5 % 503, 2 % resets, 2 % truncation) HLS and DASH downloads complete byte-identical")
    func lossyLink() async throws {
        var profile = LinkProfile.lossy
        profile.latency = .milliseconds(2)
        profile.retryAfterSeconds = 0
        var configuration = DownloadSession.Configuration()
        configuration.retry = RetryPolicy(maximumAttempts: 12, baseDelay: .milliseconds(5), maximumDelay: .milliseconds(100))
        var faults: [LinkFault] = []
        // HLS's flavours, then DASH's SegmentTemplate and single-file byte ranges.
        let streams = ["/ts/main.m3u8", "/fmp4/main.m3u8", "/byterange/main.m3u8", "/timeline/main.mpd", "/single/main.mpd"]
        for (index, path) in streams.enumerated() {
            // A seed per stream, so the runs draw different faults.
            profile.seed = Self.lossySeeds[index]
            let result = try await download(path, options: Self.everything, profile: profile, configuration: configuration,
                                            root: path.hasSuffix(".mpd") ? dashSampleMedia : sampleMedia)
            let drawn = result.requests.compactMap(\.fault)
            #expect(!drawn.isEmpty, "\(path) met no fault: the seed should draw some")
            faults += drawn
            #expect(result.snapshot.state == .completed)
        }
        // The link really was lossy: every kind of fault happened and was survived.
        #expect(Set(faults) == Set(LinkFault.allCases), "faults seen: \(faults)")
    }
}
