@testable import Carryon
@testable import CarryonIndexTestSupport
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
        "dash/periods/main.mpd#3-5", "dash/base/main.mpd#3-5",
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
            #expect(report.isIntact && report.resources > 0 && report.manifestsChecked)
        }
    }

    @Test("a main.m3u8 that reads well but leaves a rendition's playlist out (a player would offer no audio) is named; --repair writes it again as it was")
    func mainLeavesARenditionOut() async throws {
        try await withTemporaryDirectory { folder in try await Origin(root: packageRoot.appendingPathComponent("Samples").path).withRunning { origin in
            let (library, id, bundle) = try await Self.download("media/ts/main.m3u8", options: DownloadOptions(audio: .languages(["en"]), subtitles: .none),
                                                                into: folder, from: origin)
            let main = bundle.appendingPathComponent("main.m3u8")
            let written = try Data(contentsOf: main)
            try Data("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000000\nvideo/index.m3u8\n".utf8).write(to: main)
            let report = try await Self.verify(id, in: library)
            #expect(report.manifests.map(\.file) == ["main.m3u8"] && report.damage.isEmpty, "\(report.manifests)")
            #expect(report.manifests.first?.message == "it names 1 of the bundle's 2 rendition playlists (audio-en/index.m3u8 is not named): it is cut short or was altered",
                    "\(report.manifests)")
            let session = try await DownloadSession(library: library)
            let repair = try await session.beginRepair(id, damage: report.damage, manifests: report.manifests)
            let outcome = try await session.endRepair(repair)
            await session.shutdown()
            #expect(!repair.fetches && outcome.manifests == ["main.m3u8"] && outcome.manifestsLeft.isEmpty)
            #expect(try Data(contentsOf: main) == written)
            #expect(try await Self.verify(id, in: library).isIntact)
        } }
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
            // And a segment gone: mended by the same repair.
            let segment = try #require(try await library.index.resources(of: id).first { $0.renditionKey == "video" && $0.kind == .segment })
            let segmentBytes = try Data(contentsOf: url(segment.fileName))
            try FileManager.default.removeItem(at: url(segment.fileName))

            let report = try await Self.verify(id, in: library)
            #expect(report.damage.map(\.file) == [segment.fileName] && !report.isIntact && report.damageCount == 5)
            let byFile = Dictionary(uniqueKeysWithValues: report.manifests.map { ($0.file, $0.message) })
            #expect(byFile["main.m3u8"]?.contains("does not read as a playlist: line 2: ") == true, "\(byFile)")
            #expect(report.manifests.allSatisfy { !$0.message.contains("\n") }, "one line each: \(byFile)")
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
            #expect(outcome.manifests == report.manifests.map(\.file) && outcome.manifestsLeft.isEmpty)
            #expect(outcome.mended.map(\.file) == [segment.fileName] && outcome.unmended.isEmpty)
            for file in files where file != "manifest.json" {
                #expect(try Data(contentsOf: url(file)) == written[file], "\(file)")
            }
            #expect(try Data(contentsOf: url(segment.fileName)) == segmentBytes)
            #expect(try await Self.verify(id, in: library).isIntact)

            // Another asset's manifest.json is named as such.
            var other = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url("manifest.json"))) as? [String: Any])
            other["id"] = "zzzzzzzzzz"
            try JSONSerialization.data(withJSONObject: other).write(to: url("manifest.json"))
            let again = try await Self.verify(id, in: library)
            #expect(again.manifests.map(\.line) == ["manifest: manifest.json: it is the manifest of asset zzzzzzzzzz, not of \(id)"])
        } }
    }

    @Test("a playlist alone: written again byte-identical, no other manifest written, the task not run and still completed")
    func playlistAlone() async throws {
        try await withTemporaryDirectory { folder in try await Origin(root: packageRoot.appendingPathComponent("Samples").path).withRunning { origin in
            let (library, id, bundle) = try await Self.download("media/ts/main.m3u8", options: DownloadOptions(audio: .languages(["en"]), subtitles: .none),
                                                                into: folder, from: origin)
            let playlist = bundle.appendingPathComponent("video/index.m3u8")
            let written = try Data(contentsOf: playlist)
            let others = ["main.m3u8", "audio-en/index.m3u8", "origin/video.m3u8", "manifest.json"].map { bundle.appendingPathComponent($0) }
            let dates = try others.map { try FileManager.default.attributesOfItem(atPath: $0.path)[.modificationDate] as? Date }
            try Data(written.prefix(written.count / 3)).write(to: playlist)
            try await Task.sleep(for: .milliseconds(20))
            let report = try await Self.verify(id, in: library)
            #expect(report.manifests.map(\.file) == ["video/index.m3u8"] && report.damage.isEmpty, "\(report.manifests.map(\.line))")
            let session = try await DownloadSession(library: library)
            let repair = try await session.beginRepair(id, damage: report.damage, manifests: report.manifests)
            #expect(!repair.fetches)
            let outcome = try await session.endRepair(repair)
            await session.shutdown()
            #expect(outcome.manifests == ["video/index.m3u8"] && outcome.manifestsLeft.isEmpty)
            #expect(try Data(contentsOf: playlist) == written)
            #expect(try others.map { try FileManager.default.attributesOfItem(atPath: $0.path)[.modificationDate] as? Date } == dates, "nothing else written")
            #expect(try await library.index.asset(id)?.state == .completed)
            #expect(try await Self.verify(id, in: library).isIntact)
        } }
    }

    @Test("a stream changed at the origin: its playlists are left as they are, said, and the damaged segment is mended all the same",
          arguments: ["a segment fewer", "other durations"])
    func changedStream(change: String) async throws {
        try await withTemporaryDirectory { folder in
            // The origin serves a copy of the sample, which changes after the download.
            let root = folder.appendingPathComponent("origin")
            try FileManager.default.copyItem(at: sampleMedia.appendingPathComponent("ts"), to: root.appendingPathComponent("ts"))
            try await Origin(root: root.path).withRunning { origin in
                let (library, id, bundle) = try await Self.download("ts/main.m3u8", options: DownloadOptions(audio: .none, subtitles: .none),
                                                                    into: folder, from: origin)
                let playlist = bundle.appendingPathComponent("video/index.m3u8")
                try Data("#EXTM3U\n".utf8).write(to: playlist)
                let segment = try #require(try await library.index.resources(of: id).first { $0.kind == .segment })
                try FileManager.default.removeItem(at: bundle.appendingPathComponent(segment.fileName))
                // The origin's video playlist loses its last segment.
                let variant = try #require(try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("ts").path)
                    .first { ["180p", "270p", "360p"].contains($0) && segment.uri.contains("/\($0)/") })
                let originPlaylist = root.appendingPathComponent("ts/\(variant)/index.m3u8")
                var lines = try String(contentsOf: originPlaylist, encoding: .utf8).components(separatedBy: "\n")
                if change == "a segment fewer" {
                    let last = try #require(lines.lastIndex { $0.hasSuffix(".ts") })
                    lines.removeSubrange((last - 1)...last)
                } else {
                    // The same files planned: told apart by the copy of the playlist the bundle keeps.
                    lines = lines.map { $0.hasPrefix("#EXTINF:") ? "#EXTINF:1.5," : $0 }
                }
                try Data(lines.joined(separator: "\n").utf8).write(to: originPlaylist)

                let report = try await Self.verify(id, in: library)
                #expect(report.manifests.map(\.file) == ["video/index.m3u8"] && report.damage.map(\.file) == [segment.fileName])
                let repaired = try await runCarryon(["verify", id, "--repair", "--library", library.root.path])
                #expect(repaired.status == 1, "\(repaired.standardOutput)\(repaired.standardError)")
                #expect(repaired.standardOutput.contains("manifest: video/index.m3u8: not written again: the stream has changed at the origin"),
                        "\(repaired.standardOutput)")
                if change == "other durations" {
                    #expect(repaired.standardOutput.contains("(origin/video.m3u8 is not the copy the bundle keeps)"), "\(repaired.standardOutput)")
                }
                #expect(try Data(contentsOf: playlist) == Data("#EXTM3U\n".utf8), "left as it was")
                #expect(FileManager.default.fileExists(atPath: bundle.appendingPathComponent(segment.fileName).path), "the segment is mended")
            }
        }
    }

    @Test("a DASH stream without @bandwidth downloads to a bundle that reads as intact")
    func dashWithoutBandwidth() async throws {
        try await withTemporaryDirectory { folder in
            let root = folder.appendingPathComponent("origin")
            try FileManager.default.copyItem(at: dashSampleMedia.appendingPathComponent("timeline"), to: root.appendingPathComponent("timeline"))
            let mpd = root.appendingPathComponent("timeline/main.mpd")
            let text = try String(contentsOf: mpd, encoding: .utf8)
            try Data(text.replacingOccurrences(of: #" bandwidth="[0-9]+""#, with: "", options: .regularExpression).utf8).write(to: mpd)
            try #require(!(try String(contentsOf: mpd, encoding: .utf8)).contains("bandwidth="))
            let (library, id, _) = try await Origin(root: root.path).withRunning { origin in
                try await Self.download("timeline/main.mpd", options: DownloadOptions(audio: .all), into: folder, from: origin)
            }
            let report = try await Self.verify(id, in: library)
            #expect(report.manifests == [] && report.isIntact, "\(report.manifests.map(\.line))")
        }
    }

    @Test("while another process downloads the asset its manifests are not checked, and the report says so")
    func runningNotChecked() async throws {
        try await withTemporaryDirectory { folder in
            let (library, id, bundle) = try await Self.download("media/ts/main.m3u8", options: DownloadOptions(audio: .none, subtitles: .none), into: folder)
            try Data("#EXTM3U\n".utf8).write(to: bundle.appendingPathComponent("video/index.m3u8"))
            let claim = try await library.holdAsAnotherProcess(id)
            #expect(try await library.index.asset(id)?.state == .running)
            let running = try await Self.verify(id, in: library)
            #expect(running.manifests.isEmpty && !running.manifestsChecked)
            let printed = try await runCarryon(["verify", id, "--library", library.root.path])
            #expect(printed.standardOutput.contains("its manifests not checked"), "\(printed.standardOutput)")
            try await library.release(claim, as: .completed)
            let stopped = try await Self.verify(id, in: library)
            #expect(stopped.manifests.map(\.file) == ["video/index.m3u8"] && stopped.manifestsChecked)
        }
    }

    @Test("a DASH bundle's main.mpd that does not read, names a file outside the bundle or one it lacks, or leaves a file out is named")
    func damagedMPD() async throws {
        try await withTemporaryDirectory { folder in
            let (library, id, bundle) = try await Self.download("dash/timeline/main.mpd", options: DownloadOptions(audio: .all), into: folder)
            let mpd = bundle.appendingPathComponent("main.mpd")
            let text = try String(contentsOf: mpd, encoding: .utf8)
            let segment = try #require(text.firstRange(of: #/<SegmentURL media="([^"]+)"\/>/#), "the local MPD lists its segments")
            let name = String(text[segment].split(separator: "\"")[1])
            // A Representation and its files left out: the MPD still reads.
            let representation = try #require(text.firstRange(of: #/<Representation [^>]*>(?s:.)*?<\/Representation>/#))
            let damages = [
                (String(text.prefix(text.count / 2)), "it is cut short: it does not end with </MPD>"),
                (text.replacingCharacters(in: segment, with: #"<SegmentURL media="https://evil.example/x.m4s"/>"#),
                 "it names https://evil.example/x.m4s, which is not a file of the bundle"),
                (text.replacingCharacters(in: segment, with: #"<SegmentURL media="video/elsewhere.m4s"/>"#),
                 "it names video/elsewhere.m4s, which is not in the bundle"),
                (text.replacingCharacters(in: segment, with: ""), "is not named): it is cut short or was altered"),
                (text.replacingCharacters(in: representation, with: ""), "is not named): it is cut short or was altered"),
                // Every name a bundle file, but a BaseURL above them leads a player elsewhere.
                (text.replacingOccurrences(of: "<Period", with: "<BaseURL>https://evil.example/</BaseURL><Period"),
                 "it has a BaseURL above its Representations (https://evil.example/), which Carryon's local MPD does not: it was altered"),
            ]
            for (damaged, message) in damages {
                try Data(damaged.utf8).write(to: mpd)
                let report = try await Self.verify(id, in: library)
                #expect(report.manifests.map(\.file) == ["main.mpd"], "\(message)")
                #expect(report.manifests.first?.message.hasSuffix(message) == true, "\(report.manifests) (\(name))")
            }
            try Data(text.utf8).write(to: mpd)
            #expect(try await Self.verify(id, in: library).manifests.isEmpty, "the MPD as it was reads as intact")
        }
    }
}
