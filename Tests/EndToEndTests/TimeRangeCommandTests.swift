import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// `carryon download --start/--duration/--end` (issue 34's time ranges) against the origin's
/// request log: only the segments that cover the range are fetched, the bundle says its range,
/// and real players play what it holds — ffmpeg the HLS bundle, GStreamer the DASH one.
@Suite("carryon download of a time range", .serialized, .heavy)
struct TimeRangeCommandTests {
    /// The paths of the media the origin served (playlists and manifests left out), with their ranges.
    static func media(_ origin: OriginHandle) async -> [String] {
        await origin.requests().filter { $0.status / 100 == 2 && !$0.path.hasSuffix(".m3u8") && !$0.path.hasSuffix(".mpd") }
            .map { $0.path + ($0.range.map { " \($0)" } ?? "") }.sorted()
    }

    /// Downloads `path` from `origin` into `library` with `arguments`: the asset's id, and its
    /// snapshot as `show --json` gives it.
    static func download(_ path: String, from origin: OriginHandle, into library: String, _ arguments: [String]) async throws -> AssetSnapshot {
        let result = try await runCarryon(["download", origin.baseURL + path, "--library", library, "--subtitles", "none"] + arguments)
        #expect(result.status == 0, "\(result.standardError)")
        let id = try #require(result.standardOutput.split(separator: "\n").last.map(String.init))
        let show = try await runCarryon(["show", id, "--json", "--library", library])
        return try JSONDecoder.iso8601.decode(AssetSnapshot.self, from: Data(show.standardOutput.utf8))
    }

    @Test("HLS fMP4: --start 5 --duration 2 fetches the one segment of each rendition that covers 5-7 s; show and manifest.json say the range; ffmpeg decodes a third of the stream's frames")
    func hlsSegments() async throws {
        try await withTemporaryDirectory { folder in
            let library = folder.appendingPathComponent("library").path
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let asset = try await Self.download("/fmp4/main.m3u8", from: origin, into: library,
                                                    ["--max-resolution", "640x360", "--audio", "en", "--start", "5", "--duration", "2"])
                // 4 s segments: the second of each, [4, 8), and the init sections.
                #expect(await Self.media(origin) == ["/fmp4/360p/init_2.mp4", "/fmp4/360p/segment1.m4s",
                                                     "/fmp4/audio_en/init_3.mp4", "/fmp4/audio_en/segment1.m4s"])
                #expect(asset.state == .completed)
                #expect(asset.timeRange == TimeRange(start: 5, end: 7))
                #expect(abs((asset.duration ?? 0) - 4) < 0.02)
                let text = try await runCarryon(["show", asset.id, "--library", library])
                #expect(text.standardOutput.contains("Range       0:00:05.0-0:00:07.0 of the stream"))
                let bundle = URL(fileURLWithPath: asset.bundlePath)
                let manifest = try JSONDecoder.iso8601.decode(BundleManifest.self, from: Data(contentsOf: bundle.appendingPathComponent("manifest.json")))
                #expect(manifest.timeRange == TimeRange(start: 5, end: 7))

                // A third of the 360p stream's frames: one of its three 4 s segments.
                let whole = try await decodedVideoFrames(origin.baseURL + "/fmp4/360p/index.m3u8")
                let frames = try await decodedVideoFrames(bundle.appendingPathComponent("main.m3u8").path)
                #expect(whole > 0 && frames == whole / 3, "the bundle decodes \(frames) frames of the stream's \(whole)")
            }
        }
    }

    @Test("add --start 0 --end 12 grows a download of 5-7 s to the whole stream, fetching only the segments it adds; a range it holds already, or a download of the whole stream, is refused")
    func extend() async throws {
        try await withTemporaryDirectory { folder in
            let library = folder.appendingPathComponent("library").path
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let asset = try await Self.download("/fmp4/main.m3u8", from: origin, into: library,
                                                    ["--max-resolution", "640x360", "--audio", "en", "--start", "5", "--duration", "2"])
                let before = await Self.media(origin)
                let inside = try await runCarryon(["add", asset.id, "--start", "5.5", "--end", "6", "--library", library])
                #expect(inside.status != 0 && inside.standardError.contains("already holds 0:00:05.0-0:00:07.0 of the stream"), "\(inside.standardError)")
                let added = try await runCarryon(["add", asset.id, "--start", "0", "--end", "12", "--library", library])
                #expect(added.status == 0, "\(added.standardError)")
                #expect(added.standardError.contains("now holds 0:00:00.0-0:00:12.0 of the stream"), "\(added.standardError)")
                // The first and third segment of each rendition, nothing fetched twice.
                let after = await Self.media(origin)
                #expect(after.count == before.count + 4, "\(after)")
                #expect(Set(after).count == after.count, "fetched twice: \(after)")
                let show = try await runCarryon(["show", asset.id, "--json", "--library", library])
                let grown = try JSONDecoder.iso8601.decode(AssetSnapshot.self, from: Data(show.standardOutput.utf8))
                #expect(grown.state == .completed && grown.timeRange == TimeRange(start: 0, end: 12))
                let whole = try await decodedVideoFrames(origin.baseURL + "/fmp4/360p/index.m3u8")
                let frames = try await decodedVideoFrames(URL(fileURLWithPath: grown.bundlePath).appendingPathComponent("main.m3u8").path)
                #expect(frames == whole, "the bundle decodes \(frames) frames of the stream's \(whole)")

                let full = try await Self.download("/fmp4/360p/index.m3u8", from: origin, into: library, [])
                let refused = try await runCarryon(["add", full.id, "--start", "0", "--library", library])
                #expect(refused.status != 0 && refused.standardError.contains("holds the whole stream"), "\(refused.standardError)")
            }
        }
    }

    @Test("HLS byte ranges: --start 0:05 --end 0:09 fetches the ranges from the second segment on, none from the first")
    func hlsByteRanges() async throws {
        try await withTemporaryDirectory { folder in
            let library = folder.appendingPathComponent("library").path
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let asset = try await Self.download("/byterange/main.m3u8", from: origin, into: library,
                                                    ["--max-resolution", "640x360", "--audio", "none", "--start", "0:05", "--end", "0:09"])
                let served = await Self.media(origin)
                // [4, 8) and [8, 12): the ranges at 193828 and 386528 of media.ts.
                #expect(served.count == 2 && served.allSatisfy { $0.hasPrefix("/byterange/360p/media.ts bytes=") }, "\(served)")
                #expect(served.contains { $0.hasPrefix("/byterange/360p/media.ts bytes=193828-") })
                #expect(served.contains { $0.hasPrefix("/byterange/360p/media.ts bytes=386528-") })
                let whole = try await decodedVideoFrames(origin.baseURL + "/byterange/360p/index.m3u8")
                let frames = try await decodedVideoFrames(URL(fileURLWithPath: asset.bundlePath).appendingPathComponent("main.m3u8").path)
                #expect(whole > 0 && frames == whole * 2 / 3, "the bundle decodes \(frames) frames of the stream's \(whole)")
            }
        }
    }

    @Test("DASH: --start 3 --duration 2 fetches the two 2 s segments that cover 3-5 s, of a timeline, across two Periods, and of a SegmentBase file's index; GStreamer plays their 100 frames from the local MPD",
          arguments: [("/timeline/main.mpd", ["stream1-00002.m4s", "stream1-00003.m4s"]),
                      ("/periods/main.mpd", ["stream1-00002.m4s", "stream1-00001.m4s"]),
                      // The file's index (its sidx), read to plan, then the two fragments.
                      ("/base/main.mpd", ["stream1.mp4 bytes=797-884", "stream1.mp4 bytes=26962-60998", "stream1.mp4 bytes=60999-92164"])])
    func dashSegments(path: String, segments: [String]) async throws {
        try await withTemporaryDirectory { folder in
            let library = folder.appendingPathComponent("library").path
            let id = try await Origin(root: dashSampleMedia.path).withRunning { origin in
                let asset = try await Self.download(path, from: origin, into: library, ["--audio", "none", "--start", "3", "--duration", "2"])
                #expect(asset.timeRange == TimeRange(start: 3, end: 5) && abs((asset.duration ?? 0) - 4) < 0.1, "\(asset)")
                let served = await Self.media(origin).filter { !$0.contains("init-") && !$0.contains("bytes=0-") }
                #expect(served.count == segments.count && segments.allSatisfy { segment in served.contains { $0.contains(segment) } }, "\(served)")
                return asset.id
            }
            let frames = try await DASHCommandTests.playedFrames(id, library: library).frames
            #expect(frames == 100, "GStreamer played \(frames) frames")
        }
    }

    @Test("a time that is not one, two ends, and a range past the stream's end are refused with what was wrong, nothing fetched")
    func refusals() async throws {
        try await withTemporaryDirectory { folder in
            let library = folder.appendingPathComponent("library").path
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let url = origin.baseURL + "/fmp4/main.m3u8"
                let typo = try await runCarryon(["download", url, "--library", library, "--start", "1:75"])
                #expect(typo.status != 0)
                #expect(typo.standardError.contains("--start must be a time such as 90, 90.5, 1:30 or 1:02:03.5, not '1:75'"), "\(typo.standardError)")
                let huge = try await runCarryon(["download", url, "--library", library, "--start", "99999999999"])
                #expect(huge.status != 0 && huge.standardError.contains("--start must be at most 100 years (3155760000 seconds), not '99999999999'"),
                        "\(huge.standardError)")
                let both = try await runCarryon(["download", url, "--library", library, "--duration", "5", "--end", "9"])
                #expect(both.standardError.contains("--duration and --end both say where the part ends"), "\(both.standardError)")
                let backwards = try await runCarryon(["download", url, "--library", library, "--start", "9", "--end", "5"])
                #expect(backwards.standardError.contains("the range ends at 0:00:05.0, not after its start 0:00:09.0"), "\(backwards.standardError)")
                #expect(await Self.media(origin).isEmpty)
                let late = try await runCarryon(["download", url, "--library", library, "--start", "20"])
                #expect(late.status != 0)
                #expect(late.standardError.contains("the range from 0:00:20.0 holds no segment of the stream, which lasts 0:00:12.0"), "\(late.standardError)")
                #expect(await Self.media(origin).isEmpty)
            }
        }
    }
}

extension TimeRangeCommandTests {
    @Test("an AES-128 stream whose IVs derive from the media sequence, its key rotated: each range's bundle holds only the key its segment uses, and decrypts and decodes without an error through the playback server",
          arguments: [(TimeRange(start: 5, duration: 2), 8, "/keys/key1.bin"), (TimeRange(start: 9), 9, "data:")])
    func encrypted(range: TimeRange, sequence: Int, key: String) async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            let id = try await Origin(root: encryptedMedia.path).withRunning { origin in
                let session = try await DownloadSession(library: library)
                let task = try await session.makeTask(url: origin.baseURL + "/aes-rotation/180p/index.m3u8", options: DownloadOptions(timeRange: range))
                try await task.resume()
                let state = await task.waitUntilFinished()
                let error = try await task.snapshot().error
                await session.shutdown()
                #expect(state == .completed, "\(error ?? "")")
                // One segment of the three (media sequence 7, 8, 9; the key rotated before the third).
                #expect(await Self.media(origin).filter { $0.hasSuffix(".ts") } == ["/aes-rotation/180p/segment\(sequence - 7).ts"])
                return task.id
            }
            let local = try String(contentsOf: library.bundleURL(for: id).appendingPathComponent("media/index.m3u8"), encoding: .utf8)
            #expect(local.contains("#EXT-X-MEDIA-SEQUENCE:\(sequence)\n") && local.contains("URI=\"../keys/k1\""), "\(local)")
            let keys = try await KeyStore(library: library).keys(of: id)
            #expect(keys.count == 1 && keys.first?.uri.hasSuffix(key) == true, "\(keys.map(\.uri))")
            try await PlaybackServer(source: PlaybackSource(library: library)).withRunning { handle in
                let decoded = try await ffmpegDecode(handle.playlistURL(for: id))
                #expect(decoded.status == 0 && decoded.standardError.isEmpty, "ffmpeg: \(decoded.standardError)")
                let frames = try await decodedVideoFrames(handle.playlistURL(for: id))
                #expect(frames > 0)
            }
        }
    }
}
