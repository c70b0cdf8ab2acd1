@testable import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import HLS
import Testing

/// MPEG-DASH downloads, judged by real players: every addressing mode and two Periods download
/// byte-identical through the conditioned origin, then play through the playback server to the
/// last frame both as DASH (GStreamer's dashdemux, the local `main.mpd`) and as HLS (ffmpeg, the
/// generated `main.m3u8`).
@Suite("MPEG-DASH downloads", .serialized)
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
                try await body(Downloaded(id: task.id, library: library, snapshot: snapshot))
            }
        }
    }

    @Test("every addressing mode downloads byte-identical and plays every frame as DASH (GStreamer) and as HLS (ffmpeg)",
          .timeLimit(.minutes(3)),
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

    @Test("two Periods with a BaseURL each play to the last frame: the MPD's Periods, and HLS with a discontinuity and a new init section",
          .timeLimit(.minutes(3)))
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

    @Test("a dynamic (live) MPD is refused before any media, naming why")
    func liveRefused() async throws {
        try await withTemporaryDirectory { folder in
            let mpd = "<MPD type=\"dynamic\" availabilityStartTime=\"2026-01-01T00:00:00Z\"><Period/></MPD>"
            try await HostileOrigin.withRunning(["/live.mpd": .body(Array(mpd.utf8))]) { origin in
                let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
                let session = try await DownloadSession(library: library)
                let task = try await session.makeTask(url: origin.baseURL + "/live.mpd")
                try await task.resume()
                #expect(await task.waitUntilFinished() == .failed)
                let error = try await task.snapshot().error ?? ""
                await session.shutdown()
                #expect(error.contains("dynamic (live) MPD"), "\(error)")
            }
        }
    }
}
