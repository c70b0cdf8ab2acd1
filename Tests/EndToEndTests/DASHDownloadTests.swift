@testable import Carryon
import CarryonServer
import CarryonTestSupport
import DASH
import Foundation
import HLS
import Testing

/// MPEG-DASH downloads, judged by real players: every addressing mode and two Periods download
/// byte-identical through the conditioned origin, then play through the playback server to the
/// last frame both as DASH (GStreamer's dashdemux, the local `main.mpd`) and as HLS (ffmpeg, the
/// generated `main.m3u8`).
@Suite("MPEG-DASH downloads", .serialized, .heavy)
struct DASHDownloadTests {
    /// The frames of the sample: 8 s at 25 frames a second.
    static let frames = 200

    struct Downloaded {
        var id: String
        var library: OfflineLibrary
        var snapshot: AssetSnapshot
    }

    /// Downloads `flavour` of the DASH sample with every audio and subtitle track, checks that
    /// every resource is byte-identical to the origin's, then hands over the library.
    func download(_ flavour: String, options: DownloadOptions = DownloadOptions(audio: .all, subtitles: .all),
                  _ body: @Sendable (Downloaded) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            try await Origin(root: dashSampleMedia.path).withRunning { origin in
                let session = try await DownloadSession(library: library)
                let task = try await session.makeTask(url: origin.baseURL + "/\(flavour)/main.mpd", options: options)
                try await task.resume()
                let state = await task.waitUntilFinished()
                let snapshot = try await task.snapshot()
                await session.shutdown()
                #expect(state == .completed, "\(snapshot.error ?? "")")
                let bundle = URL(fileURLWithPath: snapshot.bundlePath)
                for resource in try await library.index.resources(of: task.id) {
                    let path = try #require(URL(string: resource.uri)?.path)
                    let origin = try Data(contentsOf: dashSampleMedia.appendingPathComponent(String(path.dropFirst())))
                    let local = try Data(contentsOf: bundle.appendingPathComponent(resource.fileName))
                    if let offset = resource.rangeOffset, let length = resource.rangeLength {
                        #expect(local[offset..<(offset + length)] == origin[offset..<(offset + length)], "\(resource.fileName) @\(offset)")
                    } else {
                        #expect(local == origin, "\(resource.fileName)")
                    }
                }
                // A file assembled from byte ranges is the origin's whole: its index (`sidx`)
                // and the bytes after the last fragment (`mfra`) as well as the ranges named.
                let ranged = Dictionary(grouping: try await library.index.resources(of: task.id).filter { $0.rangeOffset != nil }, by: \.fileName)
                for (fileName, resources) in ranged {
                    let path = try #require(URL(string: resources[0].uri)?.path)
                    let origin = try Data(contentsOf: dashSampleMedia.appendingPathComponent(String(path.dropFirst())))
                    let local = try Data(contentsOf: bundle.appendingPathComponent(fileName))
                    #expect(local == origin, "\(fileName) is \(local.count) bytes, the origin's \(origin.count), or differs")
                }
                if flavour == "base" {
                    // The video file alone, as a user copies it out of the bundle, plays.
                    let video = try #require(ranged.keys.filter { $0.hasPrefix("video/") }.first)
                    let frames = try await decodedVideoFrames(bundle.appendingPathComponent(video).path)
                    #expect(frames == Self.frames, "ffmpeg decoded \(frames) frames of \(video) alone")
                }
                try await body(Downloaded(id: task.id, library: library, snapshot: snapshot))
            }
        }
    }

    @Test("every addressing mode downloads byte-identical and plays every frame as DASH (GStreamer) and as HLS (ffmpeg)",
          arguments: ["timeline", "number", "list", "single", "base"])
    func addressingModes(_ flavour: String) async throws {
        try await download(flavour) { downloaded in
            let bundle = URL(fileURLWithPath: downloaded.snapshot.bundlePath)
            #expect(FileManager.default.fileExists(atPath: bundle.appendingPathComponent("origin/main.mpd").path))
            let renditions = try await downloaded.library.index.renditions(of: downloaded.id)
            #expect(renditions.map(\.key).sorted() == (flavour == "timeline" ? ["audio-de", "audio-en", "subtitles-en", "video"] : ["audio-de", "audio-en", "video"]))
            let manifest = try JSONDecoder.iso8601.decode(BundleManifest.self, from: Data(contentsOf: bundle.appendingPathComponent("manifest.json")))
            #expect(manifest.streamFormat == "dash")
            try await PlaybackServer(source: PlaybackSource(library: downloaded.library)).withRunning { server in
                let dash = try await gstreamerVideoFrames(server.mpdURL(for: downloaded.id))
                #expect(dash == Self.frames, "GStreamer played \(dash) frames of the local MPD")
                let hls = try await decodedVideoFrames(server.playlistURL(for: downloaded.id))
                #expect(hls == Self.frames, "ffmpeg played \(hls) frames of the generated HLS")
                let decoded = try await ffmpegDecode(server.playlistURL(for: downloaded.id))
                #expect(decoded.status == 0 && decoded.standardError.isEmpty, "\(decoded.standardError)")
            }
        }
    }

    @Test("two Periods with a BaseURL each play to the last frame: the MPD's Periods, and HLS with a discontinuity and a new init section")
    func periods() async throws {
        try await download("periods") { downloaded in
            let bundle = URL(fileURLWithPath: downloaded.snapshot.bundlePath)
            let video = try String(contentsOf: bundle.appendingPathComponent("video/index.m3u8"), encoding: .utf8)
            #expect(video.components(separatedBy: "#EXT-X-DISCONTINUITY").count == 2)
            #expect(video.components(separatedBy: "#EXT-X-MAP").count == 3)
            try await PlaybackServer(source: PlaybackSource(library: downloaded.library)).withRunning { server in
                let dash = try await gstreamerVideoFrames(server.mpdURL(for: downloaded.id))
                #expect(dash == Self.frames, "GStreamer played \(dash) frames of the local MPD")
                // ffmpeg 5.1's HLS reader skips a new init section ("duplicated MOOV atom") and
                // with it a segment; GStreamer's hlsdemux reads the HLS rendition to its end.
                let hls = try await gstreamerVideoFrames(server.playlistURL(for: downloaded.id))
                #expect(hls == Self.frames, "GStreamer played \(hls) frames of the generated HLS")
            }
        }
    }

    @Test("a DASH play's KPIs: main.mpd is not a segment, the media requests are, and the startup time is the MPD's to the first media")
    func playbackKPIs() async throws {
        try await download("timeline") { downloaded in
            try await PlaybackServer(source: PlaybackSource(library: downloaded.library)).withRunning { server in
                let mpd = String(decoding: try await httpGet(server.mpdURL(for: downloaded.id)), as: UTF8.self)
                #expect(mpd.contains("<MPD"))
                // What a DASH player asks for next: an init section and the first segments.
                let media = try await downloaded.library.index.resources(of: downloaded.id).filter { $0.renditionKey == "video" }.prefix(3)
                try await Task.sleep(for: .milliseconds(20))
                for resource in media { _ = try await httpGet("\(server.baseURL)/\(downloaded.id)/\(resource.fileName)") }
            }
            let playback = try #require(try await downloaded.library.asset(downloaded.id).playback)
            #expect(playback.segmentsServed == 3, "\(playback)")
            #expect((playback.startupSeconds ?? 0) >= 0.02, "\(playback)")
        }
    }

    @Test("a deviation an MPD is read past is logged under the dash error domain, named by its line")
    func warningsUnderDASH() async throws {
        let folder = dashSampleMedia.appendingPathComponent("timeline")
        var answers: [String: HostileOrigin.Answer] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            answers["/show/\(name)"] = .body(Array(try Data(contentsOf: folder.appendingPathComponent(name))))
        }
        let mpd = try String(contentsOf: folder.appendingPathComponent("main.mpd"), encoding: .utf8) + "</Stray>\n"
        answers["/show/main.mpd"] = .body(Array(mpd.utf8))
        try await withTemporaryDirectory { temporary in
            try await HostileOrigin.withRunning(answers) { origin in
                let library = try OfflineLibrary(root: temporary.appendingPathComponent("library"))
                let session = try await DownloadSession(library: library)
                let task = try await session.makeTask(url: origin.baseURL + "/show/main.mpd", options: DownloadOptions(audio: .languages(["en"]), subtitles: .none))
                try await task.resume()
                let state = await task.waitUntilFinished()
                await session.shutdown()
                #expect(state == .completed)
                let errors = try AssetLogs(library: library).entries(of: task.id, access: false)["error"] ?? []
                let warning = try #require(errors.first { $0["x-error-code"] == "playlist-warning" }, "\(errors)")
                #expect(warning["x-error-domain"] == "dash", "\(warning)")
                #expect(warning["x-comment"]?.contains("</Stray>") == true, "\(warning)")
            }
        }
    }

    @Test("the options choose as they do for HLS: a resolution bound and one audio language")
    func selection() async throws {
        var options = DownloadOptions(audio: .languages(["de"]), subtitles: .none)
        options.maximumResolution = Resolution(width: 200, height: 120)
        try await download("timeline", options: options) { downloaded in
            let renditions = try await downloaded.library.index.renditions(of: downloaded.id)
            #expect(renditions.map(\.key) == ["video", "audio-de"])
            let selection = try #require(downloaded.snapshot.selection)
            #expect(selection.variant.resolution == "192x108")
            let main = try String(contentsOf: URL(fileURLWithPath: downloaded.snapshot.bundlePath).appendingPathComponent("main.mpd"), encoding: .utf8)
            #expect(main.contains("id=\"0\"") && !main.contains("width=\"320\""))
        }
    }

    @Test("a dynamic (live) MPD with nothing to record fails before any media, naming why")
    func liveRefused() async throws {
        try await withTemporaryDirectory { folder in
            let mpd = "<MPD type=\"dynamic\" availabilityStartTime=\"2026-01-01T00:00:00Z\"><Period/></MPD>"
            try await HostileOrigin.withRunning(["/live.mpd": .body(Array(mpd.utf8))]) { origin in
                let error = try await failedDownloadError(origin.baseURL + "/live.mpd", in: folder)
                #expect(error.contains("dynamic (live) MPD"), "\(error)")
            }
        }
    }

    /// A CDN that answers the `number` sample's first video Representation only with the MPD
    /// URL's token (403 without it), its MPD with the URL query parameter descriptor or without.
    static func tokenCDN(declared: Bool) throws -> [String: HostileOrigin.Answer] {
        let folder = dashSampleMedia.appendingPathComponent("number")
        let descriptor = declared ? """
            <SupplementalProperty schemeIdUri="urn:mpeg:dash:urlparam:2014"><up:UrlQueryInfo queryTemplate="$querypart$" useMPDUrlQuery="true"/></SupplementalProperty>
            """ : ""
        let mpd = """
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" xmlns:up="urn:mpeg:dash:schema:urlparam:2014" type="static" mediaPresentationDuration="PT8S">
              <Period><AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.4d400b" width="192" height="108">
                \(descriptor)
                <Representation id="0" bandwidth="60000">
                  <SegmentTemplate timescale="1000000" duration="2000000" startNumber="1" initialization="init-stream$RepresentationID$.m4s" media="chunk-stream$RepresentationID$-$Number%05d$.m4s"/>
                </Representation>
              </AdaptationSet></Period>
            </MPD>
            """
        var answers: [String: HostileOrigin.Answer] = ["/show/main.mpd?token=s3cret": .body(Array(mpd.utf8))]
        for name in ["init-stream0.m4s"] + (1...4).map({ "chunk-stream0-0000\($0).m4s" }) {
            answers["/show/\(name)?token=s3cret"] = .body(Array(try Data(contentsOf: folder.appendingPathComponent(name))))
            answers["/show/\(name)"] = .body(status: 403, Array("no token".utf8))
        }
        return answers
    }

    /// Downloads from ``tokenCDN(declared:)``, `requests` at a time: the bundle plays every frame
    /// both ways and its local MPD names local files only. Returns the origin's requests and the
    /// asset's error log and the fallbacks its plan recorded.
    func downloadFromTokenCDN(declared: Bool, requests: Int = 8) async throws -> (requests: [String], errorLog: String, fallbacks: [Fallback]) {
        try await withTemporaryDirectory { temporary in
            try await HostileOrigin.withRunning(try Self.tokenCDN(declared: declared)) { origin in
                let downloaded = try await completedDownload(origin.baseURL + "/show/main.mpd?token=s3cret", in: temporary, configuration: .init(maximumRequestsPerTask: requests))
                let (library, id, snapshot) = (downloaded.library, downloaded.id, downloaded.snapshot)
                let bundle = URL(fileURLWithPath: snapshot.bundlePath)
                let frames = try await decodedVideoFrames(bundle.appendingPathComponent("main.m3u8").path)
                #expect(frames == Self.frames)
                let local = try String(contentsOf: bundle.appendingPathComponent("main.mpd"), encoding: .utf8)
                #expect(!local.contains("urlparam") && !local.contains("s3cret"), "the local MPD names local files only")
                #expect(try await gstreamerVideoFrames("file://" + bundle.appendingPathComponent("main.mpd").path) == Self.frames)
                let errorLog = (try? String(contentsOf: AssetLogs(library: library).errorLogURL(for: id), encoding: .utf8)) ?? ""
                return (origin.requests, errorLog, try await library.index.fallbacks(of: id))
            }
        }
    }

    @Test("a CDN that answers media only with the MPD URL's token: the MPD's URL query parameter descriptor carries it to every request")
    func mpdTokenCarried() async throws {
        let (requests, _, fallbacks) = try await downloadFromTokenCDN(declared: true)
        #expect(fallbacks.isEmpty)
        #expect(requests.count == 6 && requests.allSatisfy { $0.hasSuffix("?token=s3cret") }, "\(requests)")
    }

    @Test("a CDN that wants the MPD URL's token on media without the MPD saying so: a request refused without it is made again with it, and the rest go with it first")
    func mpdTokenWhenRefused() async throws {
        // One request at a time, so that "the rest" is an order.
        let (requests, errorLog, fallbacks) = try await downloadFromTokenCDN(declared: false, requests: 1)
        #expect(fallbacks == [.carrying("token=s3cret")], "recorded with the plan, for resume")
        let media = requests.dropFirst()
        #expect(media.filter { $0.hasSuffix("?token=s3cret") }.count == 5, "every resource fetched with the token: \(requests)")
        #expect(media.filter { !$0.hasSuffix("?token=s3cret") } == ["/show/init-stream0.m4s"],
                "tried without the token until it was refused, not after: \(requests)")
        #expect(errorLog.contains("403"), "the refusal is in the error log: \(errorLog)")
    }

    @Test("a download that stopped part-way plays what is on disk: main.mpd is served cut before the first missing segment, as main.m3u8 is, and GStreamer plays it to its new end")
    func stoppedPartWay() async throws {
        let folder = dashSampleMedia.appendingPathComponent("timeline")
        var answers: [String: HostileOrigin.Answer] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name != "chunk-stream1-00003.m4s" {
            answers["/timeline/\(name)"] = .body(Array(try Data(contentsOf: folder.appendingPathComponent(name))))
        }
        try await withTemporaryDirectory { temporary in
            try await HostileOrigin.withRunning(answers) { origin in
                let library = try OfflineLibrary(root: temporary.appendingPathComponent("library"))
                var configuration = DownloadSession.Configuration()
                configuration.maximumRequestsPerTask = 1
                let session = try await DownloadSession(library: library, configuration: configuration)
                let task = try await session.makeTask(url: origin.baseURL + "/timeline/main.mpd", options: DownloadOptions(audio: .languages(["en"])))
                try await task.resume()
                #expect(await task.waitUntilFinished() == .failed)
                await session.shutdown()
                try await PlaybackServer(source: PlaybackSource(library: library)).withRunning { server in
                    let served = try await String(decoding: httpGet(server.mpdURL(for: task.id)), as: UTF8.self)
                    let mpd = try MPD.read(Array(served.utf8))
                    let video = try #require(mpd.periods.first?.adaptationSets.first { $0.contentType == "video" }?.representations.first)
                    #expect(video.segments.list?.segmentURLs?.count == 2, "\(served)")
                    let duration = try #require(mpd.duration?.seconds)
                    #expect(duration > 3.5 && duration <= 4.0, "\(served)")
                    let frames = try await gstreamerVideoFrames(server.mpdURL(for: task.id))
                    #expect(frames == 100, "GStreamer played \(frames) frames of the cut MPD")
                    let hls = try await decodedVideoFrames(server.playlistURL(for: task.id))
                    #expect(hls == 100, "ffmpeg played \(hls) frames of the cut HLS")
                }
            }
        }
    }

    @Test("a DASH asset plays while it downloads: GStreamer plays main.mpd to the last frame, nothing is fetched twice, the bundle ends byte-identical")
    func playWhileDownloading() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            // Two connections of 10 kB/s: the download of about 0.2 MB takes some ten seconds.
            var profile = LinkProfile.perfect
            profile.bandwidth = 10_000
            profile.latency = .milliseconds(20)
            try await Origin(root: dashSampleMedia.path, profile: profile).withRunning { origin in
                let session = try await DownloadSession(library: library, configuration: .init(maximumRequestsPerTask: 2))
                let task = try await session.makeTask(url: origin.baseURL + "/timeline/main.mpd", options: DownloadOptions(audio: .all, subtitles: .all))
                try await task.resume()
                let collector = RequestCollector()
                let server = try PlaybackServer(source: PlaybackSource(library: library, session: session)) { await collector.add($0) }
                try await server.withRunning { handle in
                    let before = try await task.snapshot().progress
                    let frames = try await gstreamerVideoFrames(handle.mpdURL(for: task.id))
                    #expect(frames == Self.frames, "GStreamer played \(frames) frames while the asset downloaded")
                    #expect(before.resourcesDone < before.resourcesTotal || before.resourcesTotal == 0)
                }
                let served = await collector.requests
                #expect(served.contains { $0.path.hasPrefix("video/") })
                #expect(served.allSatisfy { $0.status == 200 || $0.status == 206 }, "\(served.filter { $0.status >= 300 }.map { "\($0.path) \($0.status) \($0.error ?? "")" })")
                #expect(await task.waitUntilFinished() == .completed)
                let snapshot = try await task.snapshot()
                await session.shutdown()
                let media = await origin.requests().filter { !$0.path.hasSuffix(".mpd") }
                let keys = media.map { "\($0.path) \($0.range ?? "")" }
                #expect(Set(keys).count == keys.count, "fetched twice: \(Dictionary(grouping: keys, by: { $0 }).filter { $0.value.count > 1 }.keys)")
                let bundle = URL(fileURLWithPath: snapshot.bundlePath)
                for resource in try await library.index.resources(of: task.id) {
                    let path = try #require(URL(string: resource.uri)?.path)
                    #expect(try Data(contentsOf: bundle.appendingPathComponent(resource.fileName))
                        == Data(contentsOf: dashSampleMedia.appendingPathComponent(String(path.dropFirst()))), "\(resource.fileName)")
                }
            }
        }
    }
}
