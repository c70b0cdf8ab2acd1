@testable import Carryon
import DASH
import Foundation
import Testing

/// A dynamic MPD recorded reload by reload (``RecordedMPD``): where it starts, what each reload
/// adds, a window that moved past it, and the static MPD it is planned as.
@Suite("Recording a dynamic MPD")
struct RecordedMPDTests {
    static let url = "https://cdn.example/live/live.mpd"

    /// ffmpeg's shape: one video Representation, 2 s segments (timescale 1000) numbered from
    /// `first`, `count` of them, in a SegmentTimeline.
    static func mpd(first: Int, count: Int, type: String = "dynamic", delay: String? = nil) throws -> (MPD, [UInt8]) {
        try document(type: type, attributes: (delay.map { " suggestedPresentationDelay=\"\($0)\"" } ?? "") + " availabilityStartTime=\"2026-01-01T00:00:00Z\"",
                     template: """
                         <SegmentTemplate timescale="1000" initialization="init-$RepresentationID$.m4s" media="chunk-$RepresentationID$-$Number$.m4s" startNumber="\(first)">
                           <SegmentTimeline><S t="\((first - 1) * 2000)" d="2000" r="\(count - 1)"/></SegmentTimeline>
                         </SegmentTemplate>
                         """)
    }

    /// An MPD of one video Representation of 2 s segments addressed by `template`.
    static func document(type: String, attributes: String, template: String) throws -> (MPD, [UInt8]) {
        let text = """
            <?xml version="1.0"?>
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="\(type)" minimumUpdatePeriod="PT2S"\(attributes) minBufferTime="PT4S">
              <Period id="0" start="PT0S">
                <AdaptationSet id="0" contentType="video">
                  <Representation id="v" mimeType="video/mp4" codecs="avc1.42c00d" bandwidth="700000" width="320" height="240">
                    \(template)
                  </Representation>
                </AdaptationSet>
              </Period>
            </MPD>
            """
        let bytes = Array(text.utf8)
        return (try MPD.read(bytes), bytes)
    }

    static func merge(_ recorded: inout RecordedMPD, first: Int, count: Int, start: LiveRecording.Start = .liveEdge,
                      limit: Double? = nil, type: String = "dynamic", delay: String? = nil) throws -> LiveRecording.Merge {
        let (mpd, bytes) = try Self.mpd(first: first, count: count, type: type, delay: delay)
        // A timeline's segments do not depend on the clock.
        return try recorded.merge(mpd, url: Self.url, bytes: bytes, start: start, limit: limit, now: 0)
    }

    /// A `$Number$` template of 2 s segments, timed from `availabilityStartTime` (1 January
    /// 2026, 00:00 UTC), its window 10 s deep.
    static func numbered(availabilityStart: Bool = true) throws -> (MPD, [UInt8]) {
        try document(type: "dynamic", attributes: (availabilityStart ? " availabilityStartTime=\"2026-01-01T00:00:00Z\"" : "") + " timeShiftBufferDepth=\"PT10S\"",
                     template: #"<SegmentTemplate timescale="1000" duration="2000" startNumber="1" initialization="init-$RepresentationID$.m4s" media="chunk-$RepresentationID$-$Number$.m4s"/>"#)
    }

    /// 1 January 2026, 00:00 UTC.
    static let availabilityStart = 1_767_225_600.0

    /// The segment URLs of the recording's static MPD.
    static func urls(_ recorded: RecordedMPD) throws -> [String] {
        let mpd = try MPD.read(try recorded.staticMPD())
        #expect(mpd.type == .static)
        return mpd.periods.flatMap(\.adaptationSets).flatMap(\.representations).flatMap { $0.segments.list?.segmentURLs ?? [] }.compactMap(\.media)
    }

    @Test("It starts suggestedPresentationDelay from the end (three segments without one), or at the oldest segment; a reload adds only what is new")
    func startAndReloads() throws {
        var edge = RecordedMPD()
        #expect(try Self.merge(&edge, first: 1, count: 6).added == 3)
        var delayed = RecordedMPD()
        #expect(try Self.merge(&delayed, first: 1, count: 6, delay: "PT4S").added == 2)
        var oldest = RecordedMPD()
        #expect(try Self.merge(&oldest, first: 1, count: 6, start: .oldest).added == 6)
        #expect(try Self.merge(&edge, first: 3, count: 6).added == 2)
        #expect(try Self.urls(edge) == (4...8).map { "https://cdn.example/live/chunk-v-\($0).m4s" })
        #expect(edge.duration == 10 && edge.updatePeriod == 2 && !edge.originEnded)
    }

    @Test("A window that moved past the recording leaves a gap in the timeline (an explicit t), counted; the static MPD lasts from the first instant to the last; an MPD turned static ends it")
    func gapAndEnd() throws {
        var recorded = RecordedMPD()
        _ = try Self.merge(&recorded, first: 1, count: 3, start: .oldest)
        let merge = try Self.merge(&recorded, first: 7, count: 3)
        #expect(merge.missed == 3 && merge.missedSeconds == 6 && merge.added == 3)
        let mpd = try MPD.read(try recorded.staticMPD())
        let list = try #require(mpd.periods.first?.adaptationSets.first?.representations.first?.segments.list)
        #expect(list.timeline?.entries.map(\.time) == [0, 12_000] && list.presentationTimeOffset == 0)
        #expect(mpd.mediaPresentationDuration?.seconds == 18)
        #expect(try Self.merge(&recorded, first: 8, count: 3, type: "static").added == 1 && recorded.originEnded)
    }

    @Test("A $Number$ template is timed by the clock: the segments ended by now but the newest, within timeShiftBufferDepth; each reload adds those ended since")
    func clockTimedTemplate() throws {
        let (mpd, bytes) = try Self.numbered()
        // At 21 s segments 1 to 10 have ended; the newest is held back; the window (10 s) holds
        // 6 to 10.
        var edge = RecordedMPD()
        #expect(try edge.merge(mpd, url: Self.url, bytes: bytes, start: .liveEdge, limit: nil, now: Self.availabilityStart + 21).added == 3)
        #expect(try Self.urls(edge) == (7...9).map { "https://cdn.example/live/chunk-v-\($0).m4s" })
        #expect(try edge.merge(mpd, url: Self.url, bytes: bytes, start: .liveEdge, limit: nil, now: Self.availabilityStart + 25).added == 2)
        #expect(try Self.urls(edge).last == "https://cdn.example/live/chunk-v-11.m4s")
        var oldest = RecordedMPD()
        #expect(try oldest.merge(mpd, url: Self.url, bytes: bytes, start: .oldest, limit: nil, now: Self.availabilityStart + 21).added == 4)
        #expect(try Self.urls(oldest).first == "https://cdn.example/live/chunk-v-6.m4s")
        // Before the first segment has ended there is nothing to record, and the error says why.
        var early = RecordedMPD()
        #expect(try early.merge(mpd, url: Self.url, bytes: bytes, start: .liveEdge, limit: nil, now: Self.availabilityStart + 3).added == 0)
        let empty = #expect(throws: CarryonError.self) { try early.staticMPD() }
        #expect(empty?.message.contains("availabilityStartTime") == true)
        // Without availabilityStartTime the template cannot be timed: refused, naming it.
        let (untimed, untimedBytes) = try Self.numbered(availabilityStart: false)
        var refused = RecordedMPD()
        let error = #expect(throws: CarryonError.self) {
            try refused.merge(untimed, url: Self.url, bytes: untimedBytes, start: .liveEdge, limit: nil, now: Self.availabilityStart + 21)
        }
        #expect(error?.message.contains("$Number$") == true)
    }

    @Test("--start on a live stream: the first track starts at the segment that holds that many seconds from its window's start; past the end refused, naming the window")
    func offset() throws {
        var recorded = RecordedMPD()
        let (mpd, bytes) = try Self.mpd(first: 1, count: 6)
        #expect(try recorded.merge(mpd, url: Self.url, bytes: bytes, start: .oldest, offset: 5, limit: 4, now: 0).added == 2)
        #expect(try Self.urls(recorded) == (3...4).map { "https://cdn.example/live/chunk-v-\($0).m4s" })
        var past = RecordedMPD()
        let error = #expect(throws: CarryonError.self) {
            try past.merge(mpd, url: Self.url, bytes: bytes, start: .oldest, offset: 12, limit: nil, now: 0)
        }
        #expect(error?.message.contains("--start 0:00:12.0 is past the live edge: the window holds 0:00:12.0") == true, "\(String(describing: error?.message))")
    }

    @Test("A limit stops each track at the segment that reaches it; finishing keeps what is on disk, the segments missing before the last one there leaving gaps")
    func limitAndFinish() throws {
        var recorded = RecordedMPD()
        _ = try Self.merge(&recorded, first: 1, count: 9, start: .oldest, limit: 7)
        #expect(recorded.duration == 8 && recorded.reached(7))
        let onDisk: Set<String> = ["chunk-v-1.m4s", "chunk-v-3.m4s"]
        let gaps = recorded.finish { onDisk.contains(String($0.split(separator: "/").last!)) }
        #expect(gaps.count == 1 && gaps.seconds == 2 && recorded.isFinished)
        #expect(try Self.urls(recorded) == ["https://cdn.example/live/chunk-v-1.m4s", "https://cdn.example/live/chunk-v-3.m4s"])
        #expect(try Self.merge(&recorded, first: 1, count: 12).added == 0)
    }
}
