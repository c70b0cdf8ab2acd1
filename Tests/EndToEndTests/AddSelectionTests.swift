import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// Adding media selections to a downloaded asset: only the new rendition's media is fetched,
/// the bundle stays byte-identical, the local playlists offer it, and it plays.
@Suite("Adding media selections", .heavy)
struct AddSelectionTests {
    @Test("adding a language fetches only that rendition's media, and the asset plays with it")
    func addLanguage() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let session = try await DownloadSession(library: library)
                let task = try await session.makeTask(url: origin.baseURL + "/ts/main.m3u8",
                                                      options: DownloadOptions(audio: .languages(["en"]), subtitles: .none))
                try await task.resume()
                #expect(await task.waitUntilFinished() == .completed)
                let before = try await task.snapshot()
                #expect(before.cache.isPlayableOffline)
                #expect(before.cache.audible.map(\.key) == ["audio-en"] && before.cache.audible.allSatisfy(\.isComplete))
                #expect(before.cache.legible.isEmpty)
                let requestsBefore = await origin.requests().count

                let added = try await session.addMediaSelections(task.id, audio: .languages(["de"]))
                #expect(added == ["audio-de"])
                let pending = try await task.snapshot()
                #expect(pending.state == .suspended && !pending.cache.audible.allSatisfy(\.isComplete))
                #expect(pending.cache.isPlayableOffline, "the main selection is still complete")
                try await task.resume()
                #expect(await task.waitUntilFinished() == .completed)
                let after = try await task.snapshot()
                await session.shutdown()

                // Only the German audio's media was fetched; the other requests were playlists.
                let newRequests = await origin.requests().dropFirst(requestsBefore)
                let media = newRequests.filter { !$0.path.hasSuffix(".m3u8") }
                #expect(!media.isEmpty && media.allSatisfy { $0.path.hasPrefix("/ts/audio_de/") }, "\(media.map(\.path))")
                #expect(after.cache.audible.map(\.key) == ["audio-en", "audio-de"] && after.cache.audible.allSatisfy(\.isComplete))
                let main = try String(contentsOfFile: try #require(after.playlist), encoding: .utf8)
                #expect(main.contains("audio-de/index.m3u8") && main.contains("audio-en/index.m3u8"))

                let manifest = try JSONDecoder.iso8601.decode(
                    BundleManifest.self, from: Data(contentsOf: URL(fileURLWithPath: after.bundlePath).appendingPathComponent("manifest.json")))
                try await DownloadTests().checkBundle(after, manifest, base: origin.baseURL)

                // Both languages play through the playback server.
                try await PlaybackServer(source: PlaybackSource(library: library)).withRunning { handle in
                    let probe = try await run(try requireFFmpeg().deletingLastPathComponent().appendingPathComponent("ffprobe"),
                                              ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0",
                                               handle.playlistURL(for: task.id)])
                    #expect(probe.standardOutput.split(separator: "\n").filter { $0 == "audio" }.count >= 2, "\(probe.standardOutput)")
                    let decoded = try await ffmpegDecode(handle.playlistURL(for: task.id))
                    #expect(decoded.status == 0, "ffmpeg: \(decoded.standardError)")
                }
            }
        }
    }

    @Test("adding a better variant fetches only its media; the local playlist offers both variants, and both play")
    func addVariant() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let session = try await DownloadSession(library: library)
                let task = try await session.makeTask(url: origin.baseURL + "/fmp4/main.m3u8",
                                                      options: DownloadOptions(maximumBitrate: 200_000, audio: .languages(["en"]), subtitles: .none))
                try await task.resume()
                #expect(await task.waitUntilFinished() == .completed)
                let requestsBefore = await origin.requests().count

                let added = try await session.addMediaSelections(task.id, variant: DownloadOptions(minimumBitrate: 400_000))
                #expect(added == ["video-2"])
                try await task.resume()
                #expect(await task.waitUntilFinished() == .completed)
                let after = try await task.snapshot()
                await session.shutdown()

                let media = await origin.requests().dropFirst(requestsBefore).filter { !$0.path.hasSuffix(".m3u8") }
                #expect(!media.isEmpty && media.allSatisfy { $0.path.hasPrefix("/fmp4/360p/") }, "\(media.map(\.path))")
                #expect(after.selection?.variants.map(\.resolution) == ["320x180", "640x360"])
                #expect(after.cache.variants.map(\.key) == ["video", "video-2"] && after.cache.variants.allSatisfy(\.isComplete))
                let main = try String(contentsOfFile: try #require(after.playlist), encoding: .utf8)
                #expect(main.components(separatedBy: "#EXT-X-STREAM-INF").count == 3, "\(main)")
                #expect(main.contains("video/index.m3u8") && main.contains("video-2/index.m3u8"))
                let manifest = try JSONDecoder.iso8601.decode(
                    BundleManifest.self, from: Data(contentsOf: URL(fileURLWithPath: after.bundlePath).appendingPathComponent("manifest.json")))
                try await DownloadTests().checkBundle(after, manifest, base: origin.baseURL)

                // Adding it again is refused.
                let again = try await DownloadSession(library: library)
                do {
                    _ = try await again.addMediaSelections(task.id, variant: DownloadOptions(minimumBitrate: 400_000))
                    Issue.record("the same variant was added twice")
                } catch let error as CarryonError {
                    #expect(error.code == .selection && error.message.contains("already has the variant"))
                }
                await again.shutdown()
            }
        }
    }

    @Test("adding what the asset already has, or to an asset still downloading, is refused clearly")
    func refusals() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            try await Origin(root: sampleMedia.path).withRunning { origin in
                let session = try await DownloadSession(library: library)
                let task = try await session.makeTask(url: origin.baseURL + "/fmp4/main.m3u8",
                                                      options: DownloadOptions(maximumBitrate: 200_000, audio: .all, subtitles: .none))
                await #expect(throws: CarryonError.self) { _ = try await session.addMediaSelections(task.id, audio: .all) }
                try await task.resume()
                #expect(await task.waitUntilFinished() == .completed)
                do {
                    _ = try await session.addMediaSelections(task.id, audio: .languages(["de"]))
                    Issue.record("adding a language the asset has was accepted")
                } catch let error as CarryonError {
                    #expect(error.code == .selection && error.message.contains("already has"), "\(error)")
                }
                await session.shutdown()
            }
            let missing = try await runCarryon(["add", "nosuchid", "--audio", "de", "--library", folder.appendingPathComponent("library").path])
            #expect(missing.status == 1 && missing.standardError.contains("no asset"))
            let nothing = try await runCarryon(["add", "nosuchid", "--library", folder.appendingPathComponent("library").path])
            #expect(nothing.status == 64)
        }
    }
}
