@testable import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// The format seam: a format the engine has never seen (``ToyFormat``, written for the tests)
/// downloads, resumes its bookkeeping, records its name and plays through the playback server
/// with nothing in the engine changed for it; and HLS keeps reading what nothing recognises.
@Suite("A second format through the seam", .heavy)
struct FormatSeamTests {
    /// The sample's 180p video and English audio as a toy manifest, every file answered by an
    /// origin that knows nothing of formats.
    static func toyOrigin() throws -> [String: HostileOrigin.Answer] {
        var manifest = "#CARRYON-TOY\n"
        var answers: [String: HostileOrigin.Answer] = [:]
        for (track, folder) in [("video", "180p"), ("audio:en", "audio_en")] {
            let playlist = try String(contentsOf: sampleMedia.appendingPathComponent("ts/\(folder)/index.m3u8"), encoding: .utf8)
            var duration: String?
            for line in playlist.split(separator: "\n") {
                if line.hasPrefix("#EXTINF:") {
                    duration = String(line.dropFirst(8).prefix { $0 != "," })
                } else if !line.hasPrefix("#"), let seconds = duration {
                    manifest += "\(track) \(seconds) \(folder)/\(line)\n"
                    answers["/show/\(folder)/\(line)"] = .body(Array(try Data(contentsOf: sampleMedia.appendingPathComponent("ts/\(folder)/\(line)"))))
                    duration = nil
                }
            }
        }
        answers["/show/main.toy"] = .body(Array(manifest.utf8))
        return answers
    }

    @Test("a toy manifest downloads through the seam, records its format, and ffmpeg plays every frame of the bundle")
    func toyDownloadsAndPlays() async throws {
        let frames = try await decodedVideoFrames(sampleMedia.appendingPathComponent("ts/180p/index.m3u8").path)
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning(try Self.toyOrigin()) { origin in
                let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
                var configuration = DownloadSession.Configuration()
                configuration.formats = [HLSFormat(), ToyFormat()]
                let session = try await DownloadSession(library: library, configuration: configuration)
                let task = try await session.makeTask(url: origin.baseURL + "/show/main.toy")
                try await task.resume()
                let state = await task.waitUntilFinished()
                let snapshot = try await task.snapshot()
                await session.shutdown()
                #expect(state == .completed, "\(snapshot.error ?? "")")
                #expect(snapshot.progress.resourcesDone == 7 && snapshot.progress.resourcesTotal == 7)

                let format = try await library.index.asset(task.id)?.format
                #expect(format == "toy")
                let bundle = URL(fileURLWithPath: snapshot.bundlePath)
                let manifest = try JSONDecoder.iso8601.decode(BundleManifest.self, from: Data(contentsOf: bundle.appendingPathComponent("manifest.json")))
                #expect(manifest.streamFormat == "toy" && manifest.files.count == 7)
                #expect(FileManager.default.fileExists(atPath: bundle.appendingPathComponent("origin/video.toy").path))

                var source = PlaybackSource(library: library)
                source.formats = configuration.formats
                try await PlaybackServer(source: source).withRunning { server in
                    let played = try await decodedVideoFrames(server.playlistURL(for: task.id))
                    #expect(frames > 0 && played == frames, "\(played) frames played, \(frames) in the source")
                    let decoded = try await ffmpegDecode(server.playlistURL(for: task.id))
                    #expect(decoded.status == 0 && decoded.standardError.isEmpty, "\(decoded.standardError)")
                    // The toy's own manifest, served as the format writes it, beside the HLS.
                    let toy = String(decoding: try await httpGet(server.url(of: ToyFormat.local, for: task.id)), as: UTF8.self)
                    #expect(toy == (try String(contentsOf: bundle.appendingPathComponent("main.toy"), encoding: .utf8)))
                    #expect(toy.hasPrefix("#CARRYON-TOY\nvideo ") && toy.contains(" video/00001.ts\n") && toy.split(separator: "\n").count == 8, "\(toy)")
                }
                // The KPIs count the media ffmpeg fetched, never main.m3u8, the media playlists or main.toy.
                let served = (try AssetLogs(library: library).entries(of: task.id, error: false)["access"] ?? [])
                    .filter { $0["x-event"] == "playback" }.compactMap { $0["cs-uri"] }
                let media = served.filter { $0.hasSuffix(".ts") }
                #expect(served.contains("main.toy") && media.count >= 7)
                let playback = try #require(try await library.asset(task.id).playback)
                #expect(playback.segmentsServed == media.count, "\(playback), \(served)")
                #expect((playback.startupSeconds ?? 0) > 0)
            }
        }
    }

    @Test("a toy manifest is inspected through the seam: the report of its tracks, as JSON and as text, with no inspection code of its own")
    func toyInspects() async throws {
        try await HostileOrigin.withRunning(try Self.toyOrigin()) { origin in
            var inspector = Inspector()
            inspector.formats = [HLSFormat(), ToyFormat()]
            let report = try await inspector.report(origin.baseURL + "/show/main.toy", .init(sizes: true))
            #expect(report.format == "toy")
            var json = Data()
            try report.writeJSON { json += $0 }
            let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
            #expect(object["type"] as? String == "toy" && object["url"] as? String == origin.baseURL + "/show/main.toy")
            let period = try #require((object["periods"] as? [[String: Any]])?.first)
            let variants = try #require(period["variants"] as? [[String: Any]])
            let renditions = try #require(period["renditions"] as? [[String: Any]])
            #expect(variants.map { $0["bandwidth"] as? Int } == [250_000])
            #expect(renditions.map { $0["kind"] as? String } == ["AUDIO"], "\(renditions)")
            #expect(renditions.map { $0["language"] as? String } == ["en"], "\(renditions)")
            #expect(report.text.hasPrefix("TOY \(origin.baseURL)/show/main.toy\n"), "\(report.text)")
            // The choices a chooser offers, in the words every format shares.
            #expect(report.choices.variants.map(\.bandwidth) == [250_000], "\(report.choices)")
            #expect(report.choices.audio.map(\.language) == ["en"] && report.choices.audio[0].isDefault, "\(report.choices)")
            #expect(report.text.contains("AUDIO") && report.text.contains("250 kb/s"), "\(report.text)")
            // Without the toy format the same manifest is read as HLS, which names the fault.
            let refused = await #expect(throws: CarryonError.self) { try await Inspector().report(origin.baseURL + "/show/main.toy") }
            #expect(refused?.code == .playlist)
        }
    }

    @Test("an asset of a format the session does not read is refused by name; what no format recognises is read as HLS, which names the fault")
    func unknownFormats() async throws {
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning(try Self.toyOrigin()) { origin in
                let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
                // Without the toy format, its manifest is not a playlist.
                let session = try await DownloadSession(library: library)
                let task = try await session.makeTask(url: origin.baseURL + "/show/main.toy")
                try await task.resume()
                #expect(await task.waitUntilFinished() == .failed)
                let error = try await task.snapshot().error ?? ""
                #expect(error.contains("/show/main.toy") && error.contains("EXTM3U"), "\(error)")
                // An asset recorded as toy, reopened by a session that reads HLS only.
                let toyPlan = DownloadPlan(renditions: [], resources: [], localMain: "", originMain: nil, duration: 0)
                try await library.index.savePlan(PlannedStream(plan: toyPlan, selection: nil, format: "toy"), of: task.id, keeping: false,
                                                 at: Date(), fence: nil)
                let renew = await #expect(throws: CarryonError.self) { try await session.renewKeys(task.id) }
                #expect(renew?.code == .unsupported && renew?.message.contains("toy, a format this session does not read (it reads hls, dash)") == true,
                        "\(renew?.message ?? "")")
                await session.shutdown()
            }
        }
    }
}
