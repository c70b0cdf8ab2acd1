@testable import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// What `main.m3u8` must name, checked on bundles made here: every rendition's playlist, each
/// playlist once (two renditions of one URI are one playlist), a DASH bundle's subtitles apart
/// (its `main.m3u8` names only those HLS players read, which the index does not record).
@Suite("The multivariant playlist's check")
struct ManifestCheckTests {
    /// The damage `ManifestCheck` finds in `main.m3u8` of a bundle of `format` with
    /// `renditions` (key, type, URI), whose `main.m3u8` names `named`.
    func mainDamage(format: String, renditions: [(String, TrackType, String)], named: [String]) async throws -> String? {
        try await withTemporaryDirectory { folder in
            var asset = AssetRecord(id: "a", name: "a", url: "https://cdn.example/a", state: .completed, errorMessage: nil, options: DownloadOptions(),
                                    headers: [], selection: nil, planned: true, createdAt: Date(), updatedAt: Date(), completedAt: Date(), duration: 8)
            asset.format = format
            var records: [RenditionRecord] = []
            for (position, (key, type, uri)) in renditions.enumerated() {
                records.append(RenditionRecord(assetID: "a", key: key, type: type, name: key, language: nil, uri: uri, isMain: position == 0,
                                               duration: 8, position: position))
                try FileManager.default.createDirectory(at: folder.appendingPathComponent(key), withIntermediateDirectories: true)
                try Data("#EXTM3U\n#EXT-X-TARGETDURATION:8\n#EXT-X-ENDLIST\n".utf8).write(to: folder.appendingPathComponent("\(key)/index.m3u8"))
            }
            var main = "#EXTM3U\n"
            for path in named.dropFirst() { main += "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"\(path)\",URI=\"\(path)\"\n" }
            main += "#EXT-X-STREAM-INF:BANDWIDTH=1000000\(named.count > 1 ? ",AUDIO=\"a\"" : "")\n\(named[0])\n"
            try Data(main.utf8).write(to: folder.appendingPathComponent("main.m3u8"))
            let check = ManifestCheck(asset: asset, bundle: folder, renditions: records, resources: [])
            return check.damage().first { $0.file == "main.m3u8" }?.message
        }
    }

    @Test("a rendition's playlist left out is damage; two renditions of one URI are one playlist, named by either")
    func everyPlaylistOnce() async throws {
        let renditions: [(String, TrackType, String)] = [("video", .video, "https://cdn.example/v.m3u8"), ("audio-en", .audio, "https://cdn.example/en.m3u8")]
        #expect(try await mainDamage(format: "hls", renditions: renditions, named: ["video/index.m3u8", "audio-en/index.m3u8"]) == nil)
        #expect(try await mainDamage(format: "hls", renditions: renditions, named: ["video/index.m3u8"])
                == "it names 1 of the bundle's 2 rendition playlists (audio-en/index.m3u8 is not named): it is cut short or was altered")
        // An audio-only variant that is also the audio rendition: the plan names it once.
        let shared: [(String, TrackType, String)] = [("video", .video, "https://cdn.example/a.m3u8"), ("audio-en", .audio, "https://cdn.example/a.m3u8")]
        #expect(try await mainDamage(format: "hls", renditions: shared, named: ["video/index.m3u8"]) == nil)
    }

    @Test("a DASH bundle's main.m3u8 is not held to its subtitles (TTML is not for HLS players), an HLS bundle's is; both to their audio")
    func dashSubtitles() async throws {
        let renditions: [(String, TrackType, String)] = [("video", .video, "v"), ("audio-en", .audio, "en"), ("subtitles-en", .subtitles, "s")]
        let named = ["video/index.m3u8", "audio-en/index.m3u8"]
        #expect(try await mainDamage(format: "dash", renditions: renditions, named: named) == nil)
        #expect(try await mainDamage(format: "hls", renditions: renditions, named: named)?.contains("(subtitles-en/index.m3u8 is not named)") == true)
        #expect(try await mainDamage(format: "dash", renditions: renditions, named: ["video/index.m3u8"])?.contains("(audio-en/index.m3u8 is not named)") == true)
    }
}
