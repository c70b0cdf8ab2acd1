import CarryonServer
import CarryonTestSupport
import Foundation
import HLS
import Testing

/// A stream whose playlists break RFC 8216bis the way real packagers do downloads as players
/// play it: the deviations are reported and logged, the bundle's playlists are strict, and
/// ffmpeg decodes every frame.
@Suite("Downloading a stream that deviates from RFC 8216bis", .heavy)
struct DeviantStreamTests {
    /// The sample's MPEG-TS stream with playlists a careless packager could have written.
    func writeDeviantStream(in folder: URL) throws -> URL {
        let stream = folder.appendingPathComponent("stream")
        try FileManager.default.copyItem(at: sampleMedia.appendingPathComponent("ts"), to: stream)
        // A comment before #EXTM3U, lower-case enumerated values, a capital X, CRLF line ends.
        var main = try String(contentsOf: stream.appendingPathComponent("main.m3u8"), encoding: .utf8)
        main = "# packaged by hand\n" + main
            .replacingOccurrences(of: "TYPE=AUDIO", with: "TYPE=audio")
            .replacingOccurrences(of: "RESOLUTION=320x180", with: "RESOLUTION=320X180")
        try Data(main.replacingOccurrences(of: "\n", with: "\r\n").utf8).write(to: stream.appendingPathComponent("main.m3u8"))
        // No EXT-X-TARGETDURATION, a spaced version, a quoted SCTE-35 message.
        for rendition in ["180p", "audio_en"] {
            let url = stream.appendingPathComponent("\(rendition)/index.m3u8")
            let media = try String(contentsOf: url, encoding: .utf8)
                .replacingOccurrences(of: "#EXT-X-TARGETDURATION:4\n", with: "")
                .replacingOccurrences(of: "#EXT-X-VERSION:3\n", with: "#EXT-X-VERSION: 3\n")
                .replacingOccurrences(of: "#EXT-X-PLAYLIST-TYPE:VOD\n", with: """
                    #EXT-X-PLAYLIST-TYPE:VOD
                    #EXT-X-DATERANGE:ID="ad1",START-DATE="2024-07-01T12:00:00Z",SCTE35-OUT="0xFC302F00"

                    """)
            try Data(media.utf8).write(to: url)
        }
        return stream
    }

    @Test("it downloads with each deviation reported and logged; the bundle's playlists pass --strict; ffmpeg decodes every frame")
    func deviantStreamDownloadsAndPlays() async throws {
        try await withTemporaryDirectory { folder in
            let stream = try writeDeviantStream(in: folder)
            let library = folder.appendingPathComponent("library").path
            try await Origin(root: stream.path).withRunning { origin in
                let url = origin.baseURL + "/main.m3u8"
                let strict = try await runCarryon(["inspect", url, "--strict"])
                #expect(strict.status == 1 && strict.standardError.contains("line 1"), "\(strict.standardError)")

                let result = try await runCarryon(["download", url, "--library", library, "--max-resolution", "320x180",
                                                   "--audio", "en", "--subtitles", "none"])
                #expect(result.status == 0, "\(result.standardError)")
                let id = try #require(result.standardOutput.split(separator: "\n").last.map(String.init))
                #expect(result.standardError.contains("the stream's playlists deviate from RFC 8216bis in"), "\(result.standardError)")
                #expect(result.standardError.contains("carryon logs \(id) --error"), "\(result.standardError)")

                let errorLog = try String(contentsOfFile: "\(library)/logs/\(id)/error.log", encoding: .utf8)
                for expected in ["playlist-warning", "\(origin.baseURL)/main.m3u8", "a comment before #EXTM3U is ignored",
                                 "TYPE=audio is written in lower case", "\(origin.baseURL)/180p/index.m3u8",
                                 "no EXT-X-TARGETDURATION", "SCTE35-OUT is a hexadecimal-sequence, written quoted"] {
                    #expect(errorLog.contains(expected), "error.log lacks \(expected): \(errorLog)")
                }

                let show = try await runCarryon(["show", id, "--library", library, "--json"])
                let asset = try #require(try JSONSerialization.jsonObject(with: Data(show.standardOutput.utf8)) as? [String: Any])
                let bundle = URL(fileURLWithPath: try #require(asset["bundlePath"] as? String))
                let mainText = try String(contentsOf: bundle.appendingPathComponent("main.m3u8"), encoding: .utf8)
                let main = try MultivariantPlaylist(parsing: mainText, url: "file:///main.m3u8", options: .strict)
                #expect(main.warnings.isEmpty, "\(main.warnings)")
                for rendition in ["video", "audio-en"] {
                    let text = try String(contentsOf: bundle.appendingPathComponent("\(rendition)/index.m3u8"), encoding: .utf8)
                    let media = try MediaPlaylist(parsing: text, url: "file:///\(rendition)/index.m3u8", options: .strict)
                    let longest = media.segments.map(\.duration).max() ?? 0
                    #expect(Double(media.targetDuration) == longest.rounded(.up), "the assumed target duration is written out")
                    #expect(media.warnings.isEmpty, "\(media.warnings)")
                }

                let originFrames = try await decodedVideoFrames(origin.baseURL + "/180p/index.m3u8")
                let bundleFrames = try await decodedVideoFrames(bundle.appendingPathComponent("main.m3u8").path,
                                                                extraArguments: ["-allowed_extensions", "ALL"])
                #expect(originFrames > 0 && bundleFrames == originFrames, "origin \(originFrames) frames, bundle \(bundleFrames)")
            }
        }
    }

    @Test("an EXT-X-KEY with a METHOD no specification defines is refused with the line named, before any media")
    func unknownKeyMethodIsRefused() async throws {
        try await withTemporaryDirectory { folder in
            _ = try folder.write("""
                #EXTM3U
                #EXT-X-TARGETDURATION:4
                #EXT-X-KEY:METHOD=AES-256,URI="key.bin"
                #EXTINF:4,
                s1.ts
                #EXT-X-ENDLIST

                """, to: "media.m3u8")
            _ = try folder.write("not media", to: "s1.ts")
            let library = folder.appendingPathComponent("library").path
            try await Origin(root: folder.path).withRunning { origin in
                let result = try await runCarryon(["download", origin.baseURL + "/media.m3u8", "--library", library])
                #expect(result.status == 1)
                #expect(result.standardError.contains("media.m3u8, line 3: EXT-X-KEY METHOD=AES-256 is not a method RFC 8216bis defines"),
                        "\(result.standardError)")
                let requests = await origin.requests().map(\.path)
                #expect(!requests.contains("/s1.ts") && !requests.contains("/key.bin"), "\(requests)")
            }
        }
    }
}
