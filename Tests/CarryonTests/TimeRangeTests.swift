@testable import Carryon
import DASH
import Foundation
import HLS
import Testing

/// `--start`, `--duration`, `--end` (issue 34): the times a user types, the segments a range
/// covers, and the plans of a range, HLS and DASH: only the covering segments fetched, the
/// local playlists and MPD playing from the first of them.
@Suite("Time ranges")
struct TimeRangeTests {
    @Test("times are read as seconds, M:SS or H:MM:SS[.s]; anything else, a negative or past 100 years, is not a time")
    func parsing() {
        let good: [(String, Double)] = [("90", 90), ("90.5", 90.5), ("1:30", 90), ("01:02:03", 3723), ("1:02:03.250", 3723.25),
                                        ("0", 0), (" 10:00 ", 600), ("100:00", 6000)]
        for (text, seconds) in good { #expect(TimeRange.seconds(parsing: text) == seconds, "\(text)") }
        for bad in ["", "-5", "1:60", "1:02:60", "abc", "1e3", "inf", "nan", ":30", "1::2", "1.5:00", "1:2:3:4", ".5", "5.",
                    "1.2.3", "99999999999", "+5", "0x10", "１２"] {
            #expect(TimeRange.seconds(parsing: bad) == nil, "\(bad)")
        }
        // Only a well-written time past 100 years says so; a typo does not.
        #expect(TimeRange.isPastLatest("99999999999") && TimeRange.isPastLatest("999999999:00:00"))
        #expect(!TimeRange.isPastLatest("1:75") && !TimeRange.isPastLatest("1e30") && !TimeRange.isPastLatest("3155760000"))
    }

    @Test("a range is checked: a start from 0, an end after it, both finite and within 100 years")
    func checks() throws {
        try TimeRange(start: 0, end: 1).check()
        try TimeRange(start: 600).check()
        for (range, words) in [(TimeRange(start: 10, end: 10), "not after its start"), (TimeRange(start: 10, end: 5), "not after its start"),
                               (TimeRange(start: -1), "is not a time"), (TimeRange(start: .nan), "is not a time"),
                               (TimeRange(start: 0, end: .infinity), "is not a time"), (TimeRange(start: 1e300), "is not a time")] {
            let error = #expect(throws: CarryonError.self) { try range.check() }
            #expect(error?.code == .invalidValue)
            #expect(error?.message.contains(words) == true, "\(error?.message ?? "")")
        }
        var options = DownloadOptions()
        options.timeRange = TimeRange(start: 30, end: 20)
        #expect(throws: CarryonError.self) { try options.check() }
    }

    @Test("of a live stream, a range is where the recording starts in the window and how much it records")
    func recording() {
        #expect(TimeRange(start: 0, end: 60).recordingLimit == 60 && TimeRange(start: 0, end: 60).recordingOffset == nil)
        #expect(TimeRange(start: 30, end: 90).recordingLimit == 60 && TimeRange(start: 30, end: 90).recordingOffset == 30)
        #expect(TimeRange(start: 30, end: nil).recordingLimit == nil)
    }

    @Test("a segment is covered when it ends after the start and starts before the end: the first one contains the start")
    func covering() {
        let range = TimeRange(start: 10, end: 18)
        // 4 s segments: [8, 12) contains 10; [16, 20) contains 17.99; [4, 8) and [20, 24) are out.
        #expect(range.covers(start: 8, duration: 4))
        #expect(range.covers(start: 16, duration: 4))
        #expect(!range.covers(start: 4, duration: 4))
        #expect(!range.covers(start: 18, duration: 4))
        // A boundary a hair off, as sums of durations leave it: [6, 9.9999999) does not reach 10.
        #expect(!TimeRange(start: 10).covers(start: 6, duration: 3.9999999))
        #expect(!TimeRange(start: 0, end: 8).covers(start: 8.0000000001, duration: 4))
        // A segment of unknown duration counts from its start.
        #expect(TimeRange(start: 10).covers(start: 10, duration: 0))
        #expect(!TimeRange(start: 10).covers(start: 9, duration: 0))
        #expect(TimeRange(start: 600, duration: 120).description == "0:10:00.0-0:12:00.0")
        #expect(TimeRange(start: 5).description == "from 0:00:05.0")
    }

    /// Ten 4 s segments from media sequence 100, encrypted with a key without an IV (derived from
    /// the sequence number), one init section, a discontinuity before the sixth, the third and
    /// fourth byte ranges of one file, the fourth continuing the third.
    static let playlist = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:4
        #EXT-X-MEDIA-SEQUENCE:100
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-KEY:METHOD=AES-128,URI="key.bin"
        #EXT-X-MAP:URI="init.mp4"
        #EXTINF:4,
        s0.m4s
        #EXTINF:4,
        s1.m4s
        #EXTINF:4,
        #EXT-X-BYTERANGE:1000@0
        pair.m4s
        #EXTINF:4,
        #EXT-X-BYTERANGE:900
        pair.m4s
        #EXTINF:4,
        s4.m4s
        #EXT-X-DISCONTINUITY
        #EXTINF:4,
        s5.m4s
        #EXTINF:4,
        s6.m4s
        #EXTINF:4,
        s7.m4s
        #EXTINF:4,
        s8.m4s
        #EXTINF:4,
        s9.m4s
        #EXT-X-ENDLIST

        """

    @Test("an HLS range plans its covering segments alone; the local playlist plays from the first with its key, init section, sequence numbers and byte range")
    func hlsWindow() throws {
        let input = try PlanFixture.input("show/video.m3u8", Self.playlist)
        // 13 s to 22 s: the segments [12, 16), [16, 20), [20, 24).
        let plan = try DownloadPlan.make(assetID: "asset", inputs: [input], main: nil, selection: nil, range: TimeRange(start: 13, end: 22))
        let fetched = plan.resources.map { "\($0.uri.replacingOccurrences(of: PlanFixture.base + "show/", with: ""))\($0.rangeOffset.map { "@\($0)" } ?? "")" }
        #expect(Set(fetched) == ["init.mp4", "pair.m4s@1000", "s4.m4s", "s5.m4s"])
        #expect(plan.keys.map(\.uri) == [PlanFixture.base + "show/key.bin"])
        #expect(plan.duration == 12)
        let local = try plan.localText("video")
        let lines = local.split(separator: "\n").map(String.init)
        #expect(lines.first == "#EXTM3U")
        #expect(lines.contains("#EXT-X-MEDIA-SEQUENCE:103"))
        #expect(!lines.contains("#EXT-X-MEDIA-SEQUENCE:100"))
        #expect(lines.contains { $0.hasPrefix("#EXT-X-KEY:METHOD=AES-128,URI=\"../keys/k1\"") })
        #expect(lines.contains { $0.hasPrefix("#EXT-X-MAP:URI=") })
        // The continued range names its offset now that the segment before is gone.
        #expect(lines.contains("#EXT-X-BYTERANGE:900@1000"))
        #expect(lines.contains("#EXT-X-DISCONTINUITY"))
        #expect(lines.last == "#EXT-X-ENDLIST")
        #expect(try plan.localURIs("video").count == 3)
        // The playlist reads back with the window's segments, times and sequence numbers.
        let reread = try MediaPlaylist(try Playlist.parse(local).playlist, url: "carryon-bundle:///video/index.m3u8")
        #expect(reread.segments.map(\.mediaSequence) == [103, 104, 105])
        #expect(reread.segments.map(\.discontinuitySequence) == [0, 0, 1])
        #expect(reread.segments.first?.byteRange == ResolvedByteRange(offset: 1000, length: 900))
        #expect(reread.segments.allSatisfy { $0.key?.uri == "carryon-bundle:///keys/k1" && $0.initSection != nil })
        // The key's IV is derived from the same sequence numbers as in the origin's playlist.
        #expect(reread.segments.first?.key?.iv == input.media.segments[3].key?.iv)
    }

    @Test("a window after a discontinuity starts the discontinuity sequence there; one from the start keeps the playlist's head as it is")
    func hlsWindowEdges() throws {
        let input = try PlanFixture.input("show/video.m3u8", Self.playlist)
        let late = try DownloadPlan.make(assetID: "asset", inputs: [input], main: nil, selection: nil, range: TimeRange(start: 30))
        let reread = try MediaPlaylist(try Playlist.parse(try late.localText("video")).playlist, url: "carryon-bundle:///video/index.m3u8")
        #expect(reread.segments.map(\.mediaSequence) == [107, 108, 109])
        #expect(reread.segments.map(\.discontinuitySequence) == [1, 1, 1])
        #expect(try late.localText("video").contains("#EXT-X-DISCONTINUITY-SEQUENCE:1"))

        let early = try DownloadPlan.make(assetID: "asset", inputs: [input], main: nil, selection: nil, range: TimeRange(start: 0, duration: 5))
        let whole = try DownloadPlan.make(assetID: "asset", inputs: [input], main: nil, selection: nil)
        let wholeText = try whole.localText("video")
        let earlyText = try early.localText("video")
        // Everything up to the second segment's URI line, as the whole plan writes it, and the end.
        let second = try #require(try whole.localURIs("video").dropFirst().first)
        #expect(earlyText == wholeText.components(separatedBy: "\n\(second)\n")[0] + "\n\(second)\n#EXT-X-ENDLIST\n")
        #expect(try early.localURIs("video").count == 2)
        #expect(early.duration == 8)
    }

    @Test("a range past the stream's end is refused, naming the range and the stream's length")
    func hlsPastTheEnd() throws {
        let input = try PlanFixture.input("show/video.m3u8", Self.playlist)
        let error = #expect(throws: CarryonError.self) {
            try DownloadPlan.make(assetID: "asset", inputs: [input], main: nil, selection: nil, range: TimeRange(start: 40))
        }
        #expect(error?.code == .invalidValue)
        #expect(error?.message == "the range from 0:00:40.0 holds no segment of the stream, which lasts 0:00:40.0")
    }

    @Test("a DASH range plans its covering segments alone; the local MPD starts each Period at its first segment planned")
    func dashWindow() async throws {
        var options = DASHPlanFixture.options(audio: .languages(["en"]), subtitles: .none)
        options.timeRange = TimeRange(start: 2.5, end: 3.5)
        let (plan, _) = try await DASHPlanFixture.plan(DASHPlanFixture.ladder, options: options)
        let media = plan.resources.filter { $0.kind == .segment }.map { String($0.uri.split(separator: "/").suffix(2).joined(separator: "/")) }
        // 2 s segments: only the second (2 s to 4 s) of video and of audio.
        #expect(Set(media) == ["v1080/2.m4s", "a-en-128/2.m4s"])
        #expect(plan.duration == 2)
        let mpd = try MPD.read(Array(try #require(plan.localManifests[DASHFormat.localMPD.path]).utf8))
        #expect(mpd.type == .static)
        #expect(mpd.mediaPresentationDuration == MediaTime(2, timescale: 1))
        let period = try #require(mpd.periods.first)
        #expect(period.duration == MediaTime(2, timescale: 1))
        let lists = period.adaptationSets.flatMap(\.representations).compactMap(\.segments.list)
        #expect(lists.count == 2)
        // Each Representation's first segment at the Period's start.
        for list in lists {
            let first = try #require(list.timeline?.entries.first)
            #expect(first.time == list.presentationTimeOffset)
            #expect(list.segmentURLs?.count == 1)
        }

        options.timeRange = TimeRange(start: 7)
        let error = await DASHPlanFixture.failure(DASHPlanFixture.ladder, options: options)
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains("holds no segment of the stream, which lasts 0:00:06.0") == true)
    }

    /// Each resource's file name by its URI and range.
    static func names(_ plan: DownloadPlan) -> [String: String] {
        Dictionary(plan.resources.map { ("\($0.uri) \($0.rangeOffset ?? -1)", $0.fileName) }, uniquingKeysWith: { first, _ in first })
    }

    @Test("a wider range names each file it shares with a narrower one alike, and no two files alike: HLS segments, byte ranges and init sections; DASH segments and init sections")
    func stableNames() async throws {
        let input = try PlanFixture.input("show/video.m3u8", Self.playlist)
        let narrow = try DownloadPlan.make(assetID: "asset", inputs: [input], main: nil, selection: nil, range: TimeRange(start: 13, end: 22))
        let wide = try DownloadPlan.make(assetID: "asset", inputs: [input], main: nil, selection: nil, range: TimeRange(start: 0))
        let (narrowNames, wideNames) = (Self.names(narrow), Self.names(wide))
        #expect(narrowNames.count == 4 && wideNames.count == 11)
        for (resource, name) in narrowNames { #expect(wideNames[resource] == name, "\(resource)") }
        // A file a name: the two ranges of one file share it.
        #expect(Set(wideNames.values).count == Set(wide.resources.map(\.uri)).count)

        var options = DASHPlanFixture.options(audio: .languages(["en"]), subtitles: .none)
        options.timeRange = TimeRange(start: 2.5, end: 3.5)
        let dashNarrow = try await DASHPlanFixture.plan(DASHPlanFixture.ladder, options: options).plan
        options.timeRange = TimeRange(start: 0, end: 6)
        let dashWide = try await DASHPlanFixture.plan(DASHPlanFixture.ladder, options: options).plan
        let (dashNarrowNames, dashWideNames) = (Self.names(dashNarrow), Self.names(dashWide))
        #expect(dashNarrowNames.count == 4 && dashWideNames.count == 8)
        for (resource, name) in dashNarrowNames { #expect(dashWideNames[resource] == name, "\(resource)") }
        #expect(Set(dashWideNames.values).count == Set(dashWide.resources.map(\.uri)).count)
    }
}
