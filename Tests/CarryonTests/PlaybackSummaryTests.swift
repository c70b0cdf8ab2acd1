@testable import Carryon
import Testing

/// The playback KPIs count media, whatever the format: a DASH player's `main.mpd`, its licence
/// request and keys are not segments, and its startup time runs from the manifest to the first
/// media request.
@Suite("Playback KPIs")
struct PlaybackSummaryTests {
    @Test("media is what lies in a rendition's folder; manifests, media playlists, keys and licences are not",
          arguments: [("video/00001.m4s", true), ("video/file1.mp4", true), ("audio-en/init1.mp4", true), ("subtitles-en/00003.vtt", true),
                      ("main.m3u8", false), ("main.mpd", false), ("main.toy", false), ("video/index.m3u8", false), ("clearkey", false),
                      ("keys/k1", false), ("", false), ("video/", false), ("/video/00001.m4s", false)])
    func media(_ path: String, _ isMedia: Bool) {
        #expect(LocalManifest.isMediaRequest(path) == isMedia)
    }

    func entry(_ time: String, _ uri: String, bytes: Int = 1000, session: String = "-") -> [String: String] {
        ["date": "2026-11-27", "time": time, "x-event": "playback", "cs-uri": uri, "sc-bytes": String(bytes),
         "sc-indicated-bitrate": "120000", "x-playback-session-id": session]
    }

    @Test("a DASH play: main.mpd and the licence are not segments, and the startup time is the manifest's to the first media")
    func dash() throws {
        let summary = try #require(PlaybackSummary(entries: [
            entry("10:00:00.000", "main.mpd", bytes: 4000), entry("10:00:00.050", "clearkey", bytes: 90),
            entry("10:00:00.250", "video/init1.mp4"), entry("10:00:00.400", "video/00001.m4s"),
            entry("10:00:00.600", "audio-en/00001.m4s"), entry("10:00:02.400", "video/00002.m4s"),
        ], isMedia: LocalManifest.isMediaRequest))
        #expect(summary.segmentsServed == 4 && summary.sessions == 1)
        #expect(summary.startupSeconds.map { abs($0 - 0.25) < 0.0005 } == true, "\(String(describing: summary.startupSeconds))")
        #expect(summary.bytesServed == 8090)
    }

    @Test("two DASH plays without a session: each counts, and the startup time is the latest's")
    func twoDASHPlays() throws {
        let summary = try #require(PlaybackSummary(entries: [
            entry("09:00:00.000", "main.mpd"), entry("09:00:01.000", "video/init1.mp4"), entry("09:00:02.000", "video/00001.m4s"),
            entry("10:00:00.000", "main.mpd"), entry("10:00:00.100", "clearkey"), entry("10:00:00.400", "video/init1.mp4"),
            entry("10:00:05.000", "main.mpd"),
        ], isMedia: LocalManifest.isMediaRequest))
        #expect(summary.sessions == 2 && summary.segmentsServed == 3)
        #expect(summary.startupSeconds.map { abs($0 - 0.4) < 0.0005 } == true, "\(String(describing: summary.startupSeconds))")
    }

    @Test("an HLS play in a session of its own: the playlists are not segments")
    func hls() throws {
        let summary = try #require(PlaybackSummary(entries: [
            entry("09:00:00.000", "video/00001.ts", session: "a"),
            entry("10:00:00.000", "main.m3u8", session: "b"), entry("10:00:00.100", "video/index.m3u8", session: "b"),
            entry("10:00:00.300", "video/00001.ts", session: "b"),
        ], isMedia: LocalManifest.isMediaRequest))
        #expect(summary.sessions == 2 && summary.segmentsServed == 2)
        #expect(summary.startupSeconds.map { abs($0 - 0.3) < 0.0005 } == true)
    }
}
