import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// A download killed with SIGKILL part-way, then resumed by a new process.
@Suite("Surviving kill -9", .heavy)
struct CrashResumeTests {
    struct Event: Decodable {
        var event: String
        var id: String
        var fraction: Double?
        var state: String?
    }

    /// Runs `carryon` with `arguments` (a `download --json`) and kills it with SIGKILL once its
    /// progress passes 30 % (on the thread that reads its output, the moment the line arrives):
    /// its exit status and the task's id.
    static func downloadKilledPastAThird(_ arguments: [String]) async throws -> (Int32, String?) {
        let first = try RunningProcess(carryon: arguments) { line in
            guard let event = try? JSONDecoder().decode(Event.self, from: Data(line.utf8)) else { return false }
            return event.event == "progress" && (event.fraction ?? 0) > 0.3
        }
        var id: String?
        for await line in first.lines {
            if let event = try? JSONDecoder().decode(Event.self, from: Data(line.utf8)) { id = event.id }
        }
        return (await first.wait(), id)
    }

    @Test("a download killed mid-way resumes to a byte-identical bundle, fetching again only what was in flight")
    func killAndResume() async throws {
        try await withTemporaryDirectory { folder in
            let libraryPath = folder.appendingPathComponent("library").path
            // Slow enough to be caught mid-way: about 2 s for the whole asset.
            let profile = LinkProfile(bandwidth: 60_000)
            try await Origin(root: sampleMedia.path, profile: profile).withRunning { origin in
                let url = origin.baseURL + "/ts/main.m3u8"
                let (status, id) = try await Self.downloadKilledPastAThird(
                    ["download", url, "--library", libraryPath, "--json", "--audio", "all", "--subtitles", "all", "--no-hdr"])
                #expect(status == 128 + SIGKILL)
                let taskID = try #require(id)
                let beforeResume = await origin.requests()
                let completedBefore = Set(beforeResume.filter { $0.isComplete && $0.method == "GET" && $0.fault == nil }
                    .map { "\($0.path) \($0.range ?? "")" })

                // A new process finds the task suspended, not running.
                let listed = try await runCarryon(["show", taskID, "--library", libraryPath, "--json"])
                #expect(listed.status == 0)
                #expect(listed.standardOutput.contains("\"state\" : \"suspended\""))

                let resumed = try await runCarryon(["resume", taskID, "--library", libraryPath])
                #expect(resumed.status == 0, "\(resumed.standardError)")
                #expect(resumed.standardOutput.split(separator: "\n").last.map(String.init) == taskID)

                let afterResume = Array(await origin.requests().dropFirst(beforeResume.count))
                // Playlists are not read again: the plan is in the library.
                #expect(!afterResume.contains { $0.path.hasSuffix(".m3u8") })
                // Only what was in flight is fetched again: at most one request's worth per
                // connection the task had open.
                let again = afterResume.filter { completedBefore.contains("\($0.path) \($0.range ?? "")") }
                #expect(again.count <= DownloadSession.Configuration().maximumRequestsPerTask,
                        "fetched again: \(again.map(\.path))")
                // A partly written segment continues where it stopped.
                #expect(afterResume.contains { request in
                    guard let range = request.range, range.hasPrefix("bytes="), !request.path.contains("media.ts") else { return false }
                    return !range.hasPrefix("bytes=0-")
                }, "no request resumed a partial file with Range")

                // And the result is the origin's bytes, playable.
                let show = try await runCarryon(["show", taskID, "--library", libraryPath, "--json"])
                let snapshot = try JSONDecoder.iso8601.decode(AssetSnapshot.self, from: Data(show.standardOutput.utf8))
                #expect(snapshot.state == .completed)
                let bundle = URL(fileURLWithPath: snapshot.bundlePath)
                let manifest = try JSONDecoder.iso8601.decode(BundleManifest.self, from: Data(contentsOf: bundle.appendingPathComponent("manifest.json")))
                for file in manifest.files {
                    let local = try Data(contentsOf: bundle.appendingPathComponent(file.path))
                    let origin = try Data(contentsOf: sampleMedia.appendingPathComponent(String(file.uri.dropFirst(origin.baseURL.count))))
                    #expect(local == origin, "\(file.path)")
                }
                let decoded = try await ffmpegDecode(bundle.appendingPathComponent("main.m3u8").path)
                #expect(decoded.status == 0, "\(decoded.standardError)")
            }
        }
    }
}

extension CrashResumeTests {
    @Test("an MPEG-DASH download of byte ranges killed mid-way resumes without reading the MPD again, to files identical to the origin's that play every frame")
    func killAndResumeDASH() async throws {
        try await withTemporaryDirectory { folder in
            let libraryPath = folder.appendingPathComponent("library").path
            // About 2 s for the whole asset.
            try await Origin(root: dashSampleMedia.path, profile: LinkProfile(bandwidth: 40_000)).withRunning { origin in
                let (status, id) = try await Self.downloadKilledPastAThird(
                    ["download", origin.baseURL + "/single/main.mpd", "--library", libraryPath, "--json", "--audio", "all"])
                #expect(status == 128 + SIGKILL)
                let taskID = try #require(id)
                let beforeResume = await origin.requests().count
                let listed = try await runCarryon(["show", taskID, "--library", libraryPath, "--json"])
                #expect(listed.standardOutput.contains("\"state\" : \"suspended\""), "\(listed.standardOutput)")

                let resumed = try await runCarryon(["resume", taskID, "--library", libraryPath])
                #expect(resumed.status == 0, "\(resumed.standardError)")
                let afterResume = Array(await origin.requests().dropFirst(beforeResume))
                #expect(!afterResume.isEmpty && !afterResume.contains { $0.path.hasSuffix(".mpd") })

                let show = try await runCarryon(["show", taskID, "--library", libraryPath, "--json"])
                let snapshot = try JSONDecoder.iso8601.decode(AssetSnapshot.self, from: Data(show.standardOutput.utf8))
                #expect(snapshot.state == .completed && snapshot.format == "dash")
                let bundle = URL(fileURLWithPath: snapshot.bundlePath)
                let manifest = try JSONDecoder.iso8601.decode(BundleManifest.self, from: Data(contentsOf: bundle.appendingPathComponent("manifest.json")))
                #expect(manifest.files.count == 3)
                for file in manifest.files {
                    // Each file holds the byte ranges of one origin file, from its first byte.
                    let local = try Data(contentsOf: bundle.appendingPathComponent(file.path))
                    let origin = try Data(contentsOf: dashSampleMedia.appendingPathComponent(String(file.uri.dropFirst(origin.baseURL.count + 1))))
                    #expect(!local.isEmpty && origin.prefix(local.count) == local, "\(file.path)")
                }
                #expect(try await decodedVideoFrames(bundle.appendingPathComponent("main.m3u8").path) == 200)
                #expect(try await gstreamerVideoFrames("file://" + bundle.appendingPathComponent("main.mpd").path) == 200)
            }
        }
    }
}

extension JSONDecoder {
    static var iso8601: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
