@testable import Carryon
import Foundation
import HLS
import Testing

/// A live HLS playlist recorded reload by reload (``RecordedPlaylist``): where it starts, what
/// each reload adds, the gaps a moved window leaves, a stream that starts over, keys, and how a
/// recording ends.
@Suite("Recording a live playlist")
struct RecordedPlaylistTests {
    static let url = "https://cdn.example/live/index.m3u8"

    /// A live window of 2 s segments `seg<N>.ts` from `first` to `last`, with `extra` lines before
    /// the first segment.
    static func window(_ first: Int, _ last: Int, extra: [String] = [], ended: Bool = false) throws -> MediaPlaylist {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:\(first)"] + extra
        for number in first...last { lines += ["#EXTINF:2.0,", "seg\(number).ts"] }
        if ended { lines.append("#EXT-X-ENDLIST") }
        return try MediaPlaylist(parsing: lines.joined(separator: "\n") + "\n", url: url)
    }

    /// The recording as a player reads it.
    static func read(_ recorded: RecordedPlaylist) throws -> MediaPlaylist {
        try MediaPlaylist(parsing: try recorded.text(), url: url, options: .strict)
    }

    @Test("It starts three target durations from the end, or at the oldest segment; each reload adds only what is new, numbered as the origin numbers it")
    func startAndReloads() throws {
        var edge = RecordedPlaylist()
        let first = try edge.merge(Self.window(10, 15), start: .liveEdge, limit: nil)
        #expect(first.added == 3)
        var oldest = RecordedPlaylist()
        #expect(try oldest.merge(Self.window(10, 15), start: .oldest, limit: nil).added == 6)

        #expect(try edge.merge(Self.window(10, 15), start: .liveEdge, limit: nil).added == 0)
        #expect(try edge.merge(Self.window(12, 17), start: .liveEdge, limit: nil).added == 2)
        let read = try Self.read(edge)
        #expect(read.mediaSequence == 13 && read.playlistType == .event && !read.hasEndList)
        #expect(read.segments.map(\.uri) == (13...17).map { "https://cdn.example/live/seg\($0).ts" })
        #expect(read.segments.map(\.mediaSequence) == Array(13...17))
        #expect(edge.duration == 10)
    }

    @Test("--start on a live stream: the first reload starts at the segment that holds that many seconds from the window's start; past the window's end refused, naming its length")
    func offset() throws {
        var recorded = RecordedPlaylist()
        #expect(try recorded.merge(Self.window(10, 15), start: .oldest, limit: 4, offset: 5).added == 2)
        #expect(try Self.read(recorded).segments.map(\.mediaSequence) == [12, 13])
        // Later reloads go on from what it has; the offset was for the first.
        var later = RecordedPlaylist()
        _ = try later.merge(Self.window(10, 15), start: .oldest, limit: nil, offset: 10)
        #expect(try later.merge(Self.window(12, 17), start: .oldest, limit: nil, offset: 10).added == 2)
        #expect(try Self.read(later).segments.map(\.mediaSequence) == [15, 16, 17])
        var past = RecordedPlaylist()
        #expect { try past.merge(Self.window(10, 15), start: .oldest, limit: nil, offset: 12) } throws: { error in
            "\(error)".contains("--start 0:00:12.0 is past the live edge: the window holds 0:00:12.0") && "\(error)".contains("--from-start")
        }
    }

    @Test("A window that moved past the recording leaves one EXT-X-GAP segment per number missed, keeping the numbers the origin's")
    func gaps() throws {
        var recorded = RecordedPlaylist()
        _ = try recorded.merge(Self.window(0, 5), start: .oldest, limit: nil)
        let merge = try recorded.merge(Self.window(9, 14), start: .oldest, limit: nil)
        #expect(merge.missed == 3 && merge.missedSeconds == 6 && merge.added == 6)
        let read = try Self.read(recorded)
        #expect(read.segments.map(\.mediaSequence) == Array(0...14))
        #expect(read.segments.filter(\.isGap).map(\.mediaSequence) == [6, 7, 8])
        #expect(recorded.gapCount == 3)
    }

    @Test("A stream that starts over goes on after a discontinuity, numbered after the last segment recorded, its derived IVs written out")
    func restart() throws {
        let key = ["#EXT-X-KEY:METHOD=AES-128,URI=\"key1\""]
        var recorded = RecordedPlaylist()
        _ = try recorded.merge(Self.window(100, 103, extra: key), start: .oldest, limit: nil)
        let merge = try recorded.merge(Self.window(0, 1, extra: key), start: .oldest, limit: nil)
        #expect(merge.restarted && merge.added == 2)
        let read = try Self.read(recorded)
        #expect(read.segments.map(\.mediaSequence) == Array(100...105))
        #expect(read.segments[4].discontinuity && !read.segments[3].discontinuity)
        // The IV the origin's number 0 and 1 derive, not the recording's 104 and 105.
        #expect(read.segments[4].key?.iv == HexSequence.iv(mediaSequence: 0) && read.segments[5].key?.iv == HexSequence.iv(mediaSequence: 1))
        #expect(read.segments[3].key?.iv == HexSequence.iv(mediaSequence: 103))
    }

    @Test("A key that rotates is restated where it changes; METHOD=NONE where encryption stops")
    func keys() throws {
        var recorded = RecordedPlaylist()
        _ = try recorded.merge(Self.window(0, 1, extra: ["#EXT-X-KEY:METHOD=AES-128,URI=\"key1\""]), start: .oldest, limit: nil)
        _ = try recorded.merge(Self.window(1, 3, extra: ["#EXT-X-KEY:METHOD=AES-128,URI=\"key2\""]), start: .oldest, limit: nil)
        _ = try recorded.merge(Self.window(3, 4), start: .oldest, limit: nil)
        let read = try Self.read(recorded)
        #expect(read.segments.map { $0.key?.uri } == ["https://cdn.example/live/key1", "https://cdn.example/live/key1",
                                                      "https://cdn.example/live/key2", "https://cdn.example/live/key2", nil])
        #expect(try recorded.text().components(separatedBy: "#EXT-X-KEY").count - 1 == 3)
    }

    @Test("A limit stops it at the segment that reaches it; finishing leaves out segments not on disk at the end, and makes those before the last one there gaps")
    func limitAndFinish() throws {
        var recorded = RecordedPlaylist()
        _ = try recorded.merge(Self.window(0, 9), start: .oldest, limit: 7)
        #expect(recorded.duration == 8 && recorded.reached(7))
        #expect(try recorded.merge(Self.window(0, 12), start: .oldest, limit: 7).added == 0)

        let onDisk: Set<String> = ["seg0.ts", "seg2.ts"]
        let gaps = recorded.finish { uri, _ in onDisk.contains(String(uri.split(separator: "/").last!)) }
        #expect(gaps.count == 1 && gaps.seconds == 2)
        let read = try Self.read(recorded)
        #expect(read.hasEndList && read.playlistType == .vod)
        #expect(read.segments.map(\.isGap) == [false, true, false])
        #expect(try recorded.merge(Self.window(0, 12), start: .oldest, limit: nil).added == 0)
    }

    @Test("A recording kept in the bundle reads back as it was, and a file that is not one is refused by name")
    func keptInTheBundle() throws {
        let bundle = FileManager.default.temporaryDirectory.appendingPathComponent("recording-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: bundle) }
        let recording = LiveRecording(fromStart: true, limit: 30)
        let merged = try recording.update(Self.url) { (playlist: inout RecordedPlaylist, start, limit, _, _) throws(CarryonError) in
            do { return try playlist.merge(Self.window(4, 9), start: start, limit: limit) } catch {
                throw CarryonError(.playlist, "\(error)")
            }
        }
        #expect(merged.added == 6)
        // No inline key: the master key is never asked for.
        let noKey = { () throws(CarryonError) -> MasterKey in throw CarryonError(.keys, "no master key") }
        try recording.save(to: bundle, masterKey: noKey)
        let loaded = try #require(try LiveRecording.load(from: bundle, masterKey: noKey))
        #expect(loaded.playlist(Self.url) == recording.playlist(Self.url))
        #expect(loaded.limit == 30 && loaded.duration == 12 && !loaded.isEnded)

        try Data("{not json".utf8).write(to: LiveRecording.file(in: bundle))
        #expect { try LiveRecording.load(from: bundle, masterKey: noKey) } throws: { error in
            (error as? CarryonError)?.code == .library && "\(error)".contains("recording.json")
        }
    }

    @Test("A rendition that starts beside another starts at the segment of the same program date, else of the same number, not at its own live edge")
    func anchored() throws {
        func dated(_ first: Int, _ last: Int, seconds: Double) throws -> MediaPlaylist {
            var lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:\(first)"]
            for number in first...last {
                let date = DateTime(secondsSince1970: 1_800_000_000 + Double(number) * 2)
                lines += ["#EXT-X-PROGRAM-DATE-TIME:\(date.text)", "#EXTINF:\(seconds),", "seg\(number).ts"]
            }
            return try MediaPlaylist(parsing: lines.joined(separator: "\n") + "\n", url: Self.url)
        }
        var video = RecordedPlaylist()
        _ = try video.merge(dated(10, 15, seconds: 2), start: .liveEdge, limit: nil)
        let anchor = try #require(video.anchor)
        #expect(anchor.sequence == 13)
        // Audio read a moment later, a segment further on: its own edge would be 14.
        var audio = RecordedPlaylist()
        _ = try audio.merge(dated(10, 16, seconds: 2.005), start: .liveEdge, limit: nil, anchor: anchor)
        #expect(try Self.read(audio).mediaSequence == 13)
        // Numbered the same, without dates.
        var subtitles = RecordedPlaylist()
        _ = try subtitles.merge(Self.window(10, 15), start: .liveEdge, limit: nil, anchor: RecordedPlaylist.Anchor(sequence: 12, date: nil))
        #expect(try Self.read(subtitles).mediaSequence == 12)
    }

    @Test("Careless numbers: a jump of a billion is a discontinuity, not a billion gaps; numbers near Int.max are refused by name, not a crash; reloads wait a second (half of one after no change) to a minute, whatever the target duration")
    func carelessNumbers() throws {
        var recorded = RecordedPlaylist()
        _ = try recorded.merge(Self.window(0, 2), start: .oldest, limit: nil)
        let merge = try recorded.merge(Self.window(1_000_000_000, 1_000_000_001), start: .oldest, limit: nil)
        #expect(merge.jumped == 999_999_998 && merge.missed == 0 && merge.added == 2)
        let read = try Self.read(recorded)
        #expect(read.segments.count == 5 && read.segments[3].discontinuity && read.segments.map(\.mediaSequence) == Array(0...4))

        var huge = RecordedPlaylist()
        _ = try huge.merge(Self.window(Int.max - 1, Int.max - 1), start: .oldest, limit: nil)
        #expect(throws: PlaylistError.self) { try huge.merge(Self.window(0, 1), start: .oldest, limit: nil) }

        for (target, delay) in [(0, 1.0), (4, 4.0), (1_000_000_000, 60.0)] {
            let alone = LiveRecording(fromStart: false, limit: nil)
            _ = try alone.update(Self.url) { (playlist: inout RecordedPlaylist, start, limit, _, _) throws(CarryonError) in
                let text = "#EXTM3U\n#EXT-X-TARGETDURATION:\(target)\n#EXTINF:1,\nseg.ts\n"
                do { return try playlist.merge(MediaPlaylist(parsing: text, url: Self.url), start: start, limit: limit) } catch {
                    throw CarryonError(.playlist, "\(error)")
                }
            }
            #expect(alone.reloadDelay(afterAdding: 1) == delay)
        }
    }

    @Test("The stream's own discontinuities are kept, the recording's discontinuity sequence starting where its first segment is; an init section restated where it changes")
    func discontinuities() throws {
        func playlist(_ lines: [String]) throws -> MediaPlaylist {
            try MediaPlaylist(parsing: (["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:2"] + lines).joined(separator: "\n") + "\n", url: Self.url)
        }
        var recorded = RecordedPlaylist()
        _ = try recorded.merge(playlist(["#EXT-X-MEDIA-SEQUENCE:5", "#EXT-X-DISCONTINUITY-SEQUENCE:2", "#EXT-X-MAP:URI=\"a.mp4\"",
                                         "#EXTINF:2,", "a5.m4s", "#EXT-X-DISCONTINUITY", "#EXT-X-MAP:URI=\"b.mp4\"", "#EXTINF:2,", "b6.m4s"]),
                               start: .oldest, limit: nil)
        _ = try recorded.merge(playlist(["#EXT-X-MEDIA-SEQUENCE:6", "#EXT-X-DISCONTINUITY-SEQUENCE:3", "#EXT-X-MAP:URI=\"b.mp4\"",
                                         "#EXTINF:2,", "b6.m4s", "#EXTINF:2,", "b7.m4s"]), start: .oldest, limit: nil)
        let read = try Self.read(recorded)
        #expect(read.discontinuitySequence == 2)
        #expect(read.segments.map(\.discontinuity) == [false, true, false])
        #expect(read.segments.map(\.discontinuitySequence) == [2, 3, 3])
        #expect(read.segments.map { $0.initSection?.uri } == ["https://cdn.example/live/a.mp4", "https://cdn.example/live/b.mp4", "https://cdn.example/live/b.mp4"])
        #expect(try recorded.text().components(separatedBy: "#EXT-X-MAP").count - 1 == 2)
    }
}
