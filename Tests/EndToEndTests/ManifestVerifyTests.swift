@testable import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// `verify` checks the manifests players read first: every kind of bundle Carryon writes reads
/// as intact, and a manifest gone, cut short, garbled, naming a file outside its bundle or
/// another asset's is named; `--repair` writes each again as it was.
@Suite("Verify the manifests", .heavy)
struct ManifestVerifyTests {
    /// Downloads `path` from an origin over `Samples/` with `options`; the library, the asset's id
    /// and its bundle.
    static func download(_ path: String, options: DownloadOptions, into folder: URL) async throws -> (OfflineLibrary, String, URL) {
        try await Origin(root: packageRoot.appendingPathComponent("Samples").path).withRunning { origin in
            try await download(path, options: options, into: folder, from: origin)
        }
    }

    /// Downloads `path` from the running `origin`.
    static func download(_ path: String, options: DownloadOptions, into folder: URL, from origin: OriginHandle) async throws -> (OfflineLibrary, String, URL) {
        let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
        let (id, bundle) = try await {
            let session = try await DownloadSession(library: library)
            let task = try await session.makeTask(url: origin.baseURL + "/" + path, options: options)
            try await task.resume()
            let state = await task.waitUntilFinished()
            let snapshot = try await task.snapshot()
            await session.shutdown()
            #expect(state == .completed, "\(snapshot.error ?? "")")
            return (task.id, URL(fileURLWithPath: snapshot.bundlePath))
        }()
        return (library, id, bundle)
    }

    static func verify(_ id: String, in library: OfflineLibrary) async throws -> VerificationReport {
        let session = try await DownloadSession(library: library)
        defer { Task { await session.shutdown() } }
        return try await session.verify(id)
    }

    @Test("every kind of bundle reads as intact, its manifests included", arguments: [
        "media/ts/main.m3u8", "media/fmp4/main.m3u8", "media/byterange/main.m3u8", "encrypted/aes-rotation/main.m3u8",
        "encrypted/fmp4-init/main.m3u8", "dash/timeline/main.mpd", "dash/base/main.mpd", "dash/list/main.mpd",
        "dash/number/main.mpd", "dash/periods/main.mpd", "dash/single/main.mpd", "media/ts/main.m3u8#2-6",
    ])
    func intactBundles(path: String) async throws {
        try await withTemporaryDirectory { folder in
            let parts = path.split(separator: "#")
            var options = DownloadOptions(audio: .all, subtitles: .all)
            if parts.count == 2 {
                let bounds = parts[1].split(separator: "-").compactMap { Double($0) }
                options.timeRange = TimeRange(start: bounds[0], end: bounds[1])
            }
            let (library, id, _) = try await Self.download(String(parts[0]), options: options, into: folder)
            let report = try await Self.verify(id, in: library)
            #expect(report.manifests == [], "\(report.manifests.map(\.line))")
            #expect(report.isIntact && report.resources > 0)
        }
    }

    @Test("a manifest gone, cut short, garbled, naming a file outside the bundle or another asset's is named; --repair writes each again as it was")
    func damagedManifests() async throws {
        try await withTemporaryDirectory { folder in try await Origin(root: packageRoot.appendingPathComponent("Samples").path).withRunning { origin in
            let (library, id, bundle) = try await Self.download("media/ts/main.m3u8", options: DownloadOptions(audio: .languages(["en"]), subtitles: .none),
                                                                into: folder, from: origin)
            func url(_ file: String) -> URL { bundle.appendingPathComponent(file) }
            let files = ["main.m3u8", "video/index.m3u8", "audio-en/index.m3u8", "manifest.json"]
            var written: [String: Data] = [:]
            for file in files { written[file] = try Data(contentsOf: url(file)) }
            let video = try #require(String(data: written["video/index.m3u8"]!, encoding: .utf8))
            let segments = video.split(separator: "\n").filter { !$0.hasPrefix("#") }
            try #require(segments.count >= 3)

            // Cut short after its first segment; garbled; a segment line that climbs out of the
            // bundle; gone; another asset's.
            let cut = video.components(separatedBy: "\n").prefix { !$0.hasPrefix(String(segments[1])) }.joined(separator: "\n") + "\n"
            try Data(cut.utf8).write(to: url("video/index.m3u8"))
            try Data("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=zz\nvideo/index.m3u8\n".utf8).write(to: url("main.m3u8"))
            let audio = try #require(String(data: written["audio-en/index.m3u8"]!, encoding: .utf8))
            let firstAudio = try #require(audio.split(separator: "\n").first { !$0.hasPrefix("#") })
            try Data(audio.replacingOccurrences(of: String(firstAudio), with: "../../elsewhere/\(firstAudio)").utf8).write(to: url("audio-en/index.m3u8"))
            try FileManager.default.removeItem(at: url("manifest.json"))

            let report = try await Self.verify(id, in: library)
            #expect(report.damage.isEmpty && !report.isIntact && report.damageCount == 4)
            let byFile = Dictionary(uniqueKeysWithValues: report.manifests.map { ($0.file, $0.message) })
            #expect(byFile["main.m3u8"]?.contains("does not read as a playlist") == true, "\(byFile)")
            #expect(byFile["video/index.m3u8"]?.contains("of its rendition's \(segments.count) files") == true, "\(byFile)")
            #expect(byFile["audio-en/index.m3u8"]?.contains("which is not a file of the bundle") == true, "\(byFile)")
            #expect(byFile["manifest.json"] == "it is not in the bundle", "\(byFile)")
            #expect(report.manifests.map(\.file) == ["main.m3u8", "video/index.m3u8", "audio-en/index.m3u8", "manifest.json"])

            // Repaired: every manifest written again as it was.
            let session = try await DownloadSession(library: library)
            let repair = try await session.beginRepair(id, damage: report.damage, manifests: report.manifests)
            try await repair.task.resume()
            _ = await repair.task.waitUntilFinished()
            let outcome = try await session.endRepair(repair)
            await session.shutdown()
            #expect(outcome.manifests == report.manifests.map(\.file) && outcome.unmended.isEmpty)
            for file in files where file != "manifest.json" {
                #expect(try Data(contentsOf: url(file)) == written[file], "\(file)")
            }
            #expect(try await Self.verify(id, in: library).isIntact)

            // Another asset's manifest.json is named as such.
            var other = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url("manifest.json"))) as? [String: Any])
            other["id"] = "zzzzzzzzzz"
            try JSONSerialization.data(withJSONObject: other).write(to: url("manifest.json"))
            let again = try await Self.verify(id, in: library)
            #expect(again.manifests.map(\.line) == ["manifest: manifest.json: it is the manifest of asset zzzzzzzzzz, not of \(id)"])
        } }
    }

    @Test("a DASH bundle's main.mpd that does not read is named")
    func damagedMPD() async throws {
        try await withTemporaryDirectory { folder in
            let (library, id, bundle) = try await Self.download("dash/timeline/main.mpd", options: DownloadOptions(audio: .all), into: folder)
            let mpd = bundle.appendingPathComponent("main.mpd")
            let text = try String(contentsOf: mpd, encoding: .utf8)
            try Data(text.prefix(text.count / 2).utf8).write(to: mpd)
            let report = try await Self.verify(id, in: library)
            #expect(report.manifests.map(\.file) == ["main.mpd"])
            #expect(report.manifests.first?.message.hasPrefix("it does not read as an MPD") == true, "\(report.manifests)")
        }
    }
}
