@testable import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// BaseURLs at every level of an MPD, and several at one level: the alternative locations of the
/// same files, fallen back to when the first fails.
@Suite("MPEG-DASH BaseURLs", .heavy)
struct DASHBaseURLTests {
    /// The sample's timeline MPD with a BaseURL at every level: two at the MPD's (a location that
    /// answers nothing but 404, then the one that serves the files), `period/` at the Period's,
    /// `set<id>/` at each AdaptationSet's and `rep<id>/` at each Representation's that has none.
    static func mpd(origin: String) throws -> String {
        var text = try String(contentsOf: dashSampleMedia.appendingPathComponent("timeline/main.mpd"), encoding: .utf8)
        func insert(after pattern: String, _ make: (String) -> String) throws {
            let expression = try NSRegularExpression(pattern: pattern)
            for match in expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).reversed() {
                let range = try #require(Range(match.range, in: text))
                let id = match.numberOfRanges > 1 ? Range(match.range(at: 1), in: text).map { String(text[$0]) } ?? "" : ""
                text.insert(contentsOf: make(id), at: range.upperBound)
            }
        }
        try insert(after: "<Representation id=\"([0-9]+)\"[^>]*>(?!\\s*<BaseURL>)") { "<BaseURL>rep\($0)/</BaseURL>" }
        try insert(after: "<AdaptationSet id=\"([0-9]+)\"[^>]*>") { "<BaseURL>set\($0)/</BaseURL>" }
        try insert(after: "<Period [^>]*>") { _ in "<BaseURL>period/</BaseURL>" }
        try insert(after: "<MPD [^>]*>") { _ in "<BaseURL>\(origin)/dead/</BaseURL><BaseURL>\(origin)/root/</BaseURL>" }
        return text
    }

    /// Where the origin serves each file of the timeline sample: `root/period/set<set>/rep<id>/`,
    /// the subtitles (a bare BaseURL) at `root/period/set3/`.
    static func answers() throws -> [String: HostileOrigin.Answer] {
        let folder = dashSampleMedia.appendingPathComponent("timeline")
        let sets = ["0": "0", "1": "0", "2": "1", "3": "2"]
        var answers: [String: HostileOrigin.Answer] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name != "main.mpd" {
            let body = HostileOrigin.Answer.body(Array(try Data(contentsOf: folder.appendingPathComponent(name))))
            if name == "subs_en.vtt" {
                answers["/root/period/set3/\(name)"] = body
            } else {
                let representation = try #require(name.firstMatch(of: /stream([0-9])/)?.1)
                answers["/root/period/set\(try #require(sets[String(representation)]))/rep\(representation)/\(name)"] = body
            }
        }
        return answers
    }

    @Test("BaseURLs at the MPD, Period, AdaptationSet and Representation levels chain; the first MPD-level location answers 404, so every resource comes from the second, byte-identical, with the fallback in the error log; both manifests play to the last frame and ffmpeg reads every WebVTT cue")
    func everyLevelWithFallback() async throws {
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning(try Self.answers()) { origin in
                origin.answer("/m/main.mpd", with: .body(Array(try Self.mpd(origin: origin.baseURL).utf8)))
                let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
                // One request at a time, so that each location is seen to fail once, then skipped.
                var configuration = DownloadSession.Configuration()
                configuration.maximumRequestsPerTask = 1
                let session = try await DownloadSession(library: library, configuration: configuration)
                let task = try await session.makeTask(url: origin.baseURL + "/m/main.mpd", options: DownloadOptions(audio: .all, subtitles: .all))
                try await task.resume()
                let state = await task.waitUntilFinished()
                let snapshot = try await task.snapshot()
                await session.shutdown()
                #expect(state == .completed, "\(snapshot.error ?? "")")

                let bundle = URL(fileURLWithPath: snapshot.bundlePath)
                let resources = try await library.index.resources(of: task.id)
                #expect(resources.count == 18)
                for resource in resources {
                    #expect(resource.uri.hasPrefix(origin.baseURL + "/dead/period/set"), "the plan names the first location: \(resource.uri)")
                    let name = try #require(resource.uri.split(separator: "/").last)
                    let expected = try Data(contentsOf: dashSampleMedia.appendingPathComponent("timeline/\(name)"))
                    #expect(try Data(contentsOf: bundle.appendingPathComponent(resource.fileName)) == expected, "\(resource.fileName)")
                }
                // Each rendition's folder failed once at the first location; then the second served it.
                let dead = origin.requests.filter { $0.hasPrefix("/dead/") }
                #expect(Set(dead.map { $0.split(separator: "/").dropLast().joined(separator: "/") }).count == dead.count, "\(dead)")
                #expect(dead.count == 4, "one request per rendition: \(dead)")
                #expect(origin.requests.filter { $0.hasPrefix("/root/") }.count == 18)
                let errors = try String(contentsOf: AssetLogs(library: library).errorLogURL(for: task.id), encoding: .utf8)
                #expect(errors.contains("404") && errors.contains("fetched from \(origin.baseURL)/root/period/"), "\(errors)")

                try await PlaybackServer(source: PlaybackSource(library: library)).withRunning { server in
                    let dash = try await gstreamerVideoFrames(server.mpdURL(for: task.id))
                    #expect(dash == DASHDownloadTests.frames, "GStreamer played \(dash) frames of the local MPD")
                    let hls = try await decodedVideoFrames(server.playlistURL(for: task.id))
                    #expect(hls == DASHDownloadTests.frames, "ffmpeg played \(hls) frames of the generated HLS")
                    // The WebVTT AdaptationSet as the HLS subtitle rendition: ffmpeg (whose HLS reader
                    // skips subtitle renditions of a multivariant playlist) reads its playlist's cues.
                    let main = try String(contentsOf: bundle.appendingPathComponent("main.m3u8"), encoding: .utf8)
                    #expect(main.contains("TYPE=SUBTITLES") && main.contains("URI=\"subtitles-en/index.m3u8\""), "\(main)")
                    let subtitles = server.playlistURL(for: task.id).replacingOccurrences(of: "main.m3u8", with: "subtitles-en/index.m3u8")
                    let cues = try await run(try requireFFmpeg(), ["-v", "error", "-i", subtitles, "-f", "webvtt", "-"])
                    #expect(cues.standardOutput.contains("Hello") && cues.standardOutput.contains("The test pattern moves"),
                            "ffmpeg read: \(cues.standardOutput) \(cues.standardError)")
                    #expect(cues.standardOutput.components(separatedBy: " --> ").count - 1 == 2)
                }
            }
        }
    }

    @Test("when every location of a resource fails, the error names each one")
    func everyLocationFails() async throws {
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning([:]) { origin in
                origin.answer("/m/main.mpd", with: .body(Array(try Self.mpd(origin: origin.baseURL).utf8)))
                let error = try await failedDownloadError(origin.baseURL + "/m/main.mpd", in: folder)
                #expect(error.contains("every location of \(origin.baseURL)/dead/period/"), "\(error)")
                #expect(error.contains("\(origin.baseURL)/root/period/") && error.contains("404"), "\(error)")
            }
        }
    }
}
