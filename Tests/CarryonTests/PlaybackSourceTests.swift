@testable import Carryon
import HLS
import Testing

/// What the playback server may serve of a bundle, and the playlists of an asset that is
/// neither complete nor downloading: cut before the first segment not on disk.
@Suite("Finding what a player asks for")
struct PlaybackSourceTests {
    @Test("bundle paths: playlists and media files pass; anything that leaves the bundle or is not for players does not",
          arguments: [
              ("main.m3u8", "main.m3u8"), ("video/index.m3u8", "video/index.m3u8"), ("video/00001.ts", "video/00001.ts"),
              ("audio-en/00001.m4s", "audio-en/00001.m4s"), ("video%2F00001.ts", "video/00001.ts"),
              ("../index.sqlite", nil), ("video/../../index.sqlite", nil), ("%2e%2e/index.sqlite", nil), ("/etc/passwd", nil),
              ("video//00001.ts", nil), ("video/", nil), ("", nil), (".lock", nil), ("video/.hidden", nil),
              ("origin/main.m3u8", nil), ("manifest.json", nil), ("video/00001.ts.part", nil), ("video/file1.ts.4096.part", nil),
              ("video/00001.ts%00", nil), ("./main.m3u8", nil), (".tmp", nil),
          ] as [(String, String?)])
    func bundlePaths(path: String, expected: String?) {
        #expect(PlaybackSource.bundlePath(path) == expected)
    }

    static let media = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:4
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-MAP:URI="init.mp4"
        #EXTINF:4.0,
        00001.m4s
        #EXTINF:4.0,
        00002.m4s
        #EXTINF:4.0,
        00003.m4s
        #EXT-X-ENDLIST

        """

    @Test("a playlist with every segment on disk is unchanged")
    func everythingOnDisk() throws {
        let onDisk: Set = ["video/init.mp4", "video/00001.m4s", "video/00002.m4s", "video/00003.m4s"]
        #expect(try PlaybackSource.cut(Self.media, folder: "video", onDisk: onDisk) == Self.media)
    }

    @Test("a playlist is cut before its first missing segment and ends there, even when later ones are on disk")
    func cutAtFirstGap() throws {
        let onDisk: Set = ["video/init.mp4", "video/00001.m4s", "video/00003.m4s"]
        let cut = try PlaybackSource.cut(Self.media, folder: "video", onDisk: onDisk)
        #expect(cut == """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:4
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-MAP:URI="init.mp4"
            #EXTINF:4.0,
            00001.m4s
            #EXT-X-ENDLIST

            """)
        let playlist = try MediaPlaylist(parsing: cut, url: "http://x/video/index.m3u8")
        #expect(playlist.segments.count == 1 && playlist.hasEndList)
    }

    @Test("without its init section on disk no segment plays: the playlist keeps only its own tags")
    func missingInitSection() throws {
        let cut = try PlaybackSource.cut(Self.media, folder: "video", onDisk: ["video/00001.m4s", "video/00002.m4s"])
        #expect(cut == "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-ENDLIST\n")
        #expect(try MediaPlaylist(parsing: cut, url: "http://x/video/index.m3u8").segments.isEmpty)
    }

    @Test("byte ranges count one by one: a range not on disk cuts the playlist there")
    func byteRanges() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXTINF:4.0,
            #EXT-X-BYTERANGE:1000@0
            file1.ts
            #EXTINF:4.0,
            #EXT-X-BYTERANGE:1000
            file1.ts
            #EXT-X-ENDLIST

            """
        let cut = try PlaybackSource.cut(text, folder: "video", onDisk: ["video/file1.ts@0"])
        #expect(try MediaPlaylist(parsing: cut, url: "http://x/video/index.m3u8").segments.map { $0.byteRange?.offset } == [0])
        #expect(try PlaybackSource.cut(text, folder: "video", onDisk: ["video/file1.ts@0", "video/file1.ts@1000"]) == text)
    }

    @Test("a file of another rendition's folder is found by its bundle path")
    func sharedFile() throws {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4.0,\n../audio-en/00001.aac\n#EXT-X-ENDLIST\n"
        #expect(try PlaybackSource.cut(text, folder: "audio-de", onDisk: ["audio-en/00001.aac"]) == text)
        #expect(try PlaybackSource.cut(text, folder: "audio-de", onDisk: []).hasSuffix("#EXT-X-TARGETDURATION:4\n#EXT-X-ENDLIST\n"))
    }
}

/// Waiting for a file another process downloads: the order of the two reads each poll makes.
@Suite("Waiting for another process's download")
struct ArrivalWaitTests {
    /// The two reads as the index answers them, one download's life scripted poll by poll.
    final class Script {
        var downloadingReads = 0
        var arrived = false
        var arrivalReads = 0
    }

    @Test("a download that brings the file and ends between two polls' reads has brought it: the wait ends with it, not with an error")
    func endsBetweenReads() async throws {
        let script = Script()
        // The second time it is asked, the download has just written the file and ended.
        let arrived = try await PlaybackSource.awaitArrival(of: "video/00003.ts of x", limit: .seconds(60), poll: .milliseconds(1),
                                                            downloading: {
                                                                script.downloadingReads += 1
                                                                if script.downloadingReads == 2 { script.arrived = true; return false }
                                                                return true
                                                            },
                                                            arrived: { script.arrivalReads += 1; return script.arrived })
        #expect(arrived)
        #expect(script.downloadingReads == 2 && script.arrivalReads == 2)
    }

    @Test("a download that stops without the file: false at once, not after the limit; one that never brings it: an error naming what and how long")
    func stopsShortOrTimesOut() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        let stopped = try await PlaybackSource.awaitArrival(of: "video/00003.ts of x", limit: .seconds(60), poll: .milliseconds(1),
                                                            downloading: { false }, arrived: { false })
        #expect(!stopped)
        #expect(clock.now - start < .seconds(30))
        var polls = 0
        await #expect(throws: CarryonError.self) {
            _ = try await PlaybackSource.awaitArrival(of: "video/00003.ts of x", limit: .milliseconds(20), poll: .milliseconds(5),
                                                      downloading: { true }, arrived: { polls += 1; return false })
        }
        #expect(polls >= 2)
        do {
            _ = try await PlaybackSource.awaitArrival(of: "video/00003.ts of x", limit: .zero, poll: .milliseconds(1),
                                                      downloading: { true }, arrived: { false })
            Issue.record("no error")
        } catch {
            #expect(error.code == .notFound && error.message.contains("video/00003.ts of x did not arrive within"), "\(error)")
        }
    }
}
