@testable import Carryon
import DASH
import Foundation
import Testing

/// A DASH recording in progress is served as a dynamic MPD of what it holds
/// (`DASHFormat.growing`): its end at the moment it is served, reloaded each segment, every
/// segment within the time-shift buffer, and the `<MPD …>` tag closed within 512 bytes (the
/// most GStreamer 1.22 sniffs of an MPD served over HTTP).
@Suite("A recording in progress served as a dynamic MPD")
struct GrowingMPDTests {
    /// A bundle's local MPD of 20 s: ten 2 s video segments from 26 s in the origin's timeline.
    static let local = """
        <?xml version="1.0" encoding="utf-8"?>
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:full:2011" type="static" mediaPresentationDuration="PT20S" minBufferTime="PT4S">
          <Period id="0" start="PT0S" duration="PT20S">
            <AdaptationSet id="0" contentType="video">
              <Representation id="0" bandwidth="698980" mimeType="video/mp4" codecs="avc1.42c00d" width="320" height="240">
                <SegmentList timescale="1000" presentationTimeOffset="26000">
                  <Initialization sourceURL="video/init1.m4s"/>
                  <SegmentTimeline><S t="26000" d="2000" r="9"/></SegmentTimeline>
        \((1...10).map { "          <SegmentURL media=\"video/\($0).m4s\"/>" }.joined(separator: "\n"))
                </SegmentList>
              </Representation>
            </AdaptationSet>
          </Period>
        </MPD>
        """

    @Test("dynamic, ending now, reloaded each segment, started two segments behind, every segment within the buffer; the segments as they were")
    func growing() throws {
        let now = Date(timeIntervalSince1970: 1_795_845_600)
        let text = DASHFormat().growing(Self.local, of: .mpd, now: now)
        let mpd = try MPD.read(Array(text.utf8))
        #expect(mpd.type == .dynamic)
        #expect(mpd.availabilityStartTime?.secondsSince1970 == 1_795_845_580)
        #expect(mpd.publishTime?.secondsSince1970 == 1_795_845_600)
        #expect(mpd.minimumUpdatePeriod?.seconds == 2 && mpd.suggestedPresentationDelay?.seconds == 4)
        #expect(mpd.timeShiftBufferDepth?.seconds == 22)
        #expect(mpd.mediaPresentationDuration == nil && mpd.periods.first?.duration == nil && mpd.periods.first?.start?.seconds == 0)
        let list = try #require(mpd.periods.first?.adaptationSets.first?.representations.first?.segments.list)
        #expect(list.presentationTimeOffset == 26000 && list.segmentURLs?.count == 10)
        let tagEnd = try #require(text.range(of: "<MPD ").flatMap { text[$0.upperBound...].firstIndex(of: ">") }).utf16Offset(in: text)
        #expect(tagEnd < 512, "the MPD tag closes at byte \(tagEnd)")
    }

    @Test("an MPD already dynamic, another manifest, or an HLS playlist is served as it is")
    func unchanged() throws {
        let now = Date(timeIntervalSince1970: 1_795_845_600)
        let dynamic = DASHFormat().growing(Self.local, of: .mpd, now: now)
        #expect(DASHFormat().growing(dynamic, of: .mpd, now: now.addingTimeInterval(60)) == dynamic)
        #expect(DASHFormat().growing(Self.local, of: .main, now: now) == Self.local)
        #expect(HLSFormat().growing("#EXTM3U\n", of: .main, now: now) == "#EXTM3U\n")
    }
}
