@testable import Carryon
import CarryonTestSupport
import DASH
import Foundation
import HLS
import Testing

@Suite("Planning DASH streams: Periods and remote elements")
struct DASHPlannerPeriodTests {
    static func period(_ id: String, duration: Int, video: [(String, Int)], audioID: String = "a") -> String {
        let representations = video.map { "<Representation id=\"\($0.0)\" bandwidth=\"\($0.1)\"/>" }.joined()
        return """
            <Period id="\(id)" duration="PT\(duration)S">
            <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.64001f">
            <SegmentTemplate timescale="1000" duration="2000" media="\(id)/$RepresentationID$/$Number$.m4s" initialization="\(id)/$RepresentationID$/init.mp4"/>
            \(representations)
            </AdaptationSet>
            <AdaptationSet contentType="audio" lang="en" mimeType="audio/mp4">
            <SegmentTemplate timescale="1000" duration="2000" media="\(id)/$RepresentationID$/$Number$.m4s" initialization="\(id)/$RepresentationID$/init.mp4"/>
            <Representation id="\(audioID)" bandwidth="64000"/>
            </AdaptationSet>
            </Period>
            """
    }

    @Test("a Representation followed through two Periods by its id: one track, a discontinuity and a new init section at the boundary")
    func twoPeriods() async throws {
        let text = "<MPD type=\"static\" mediaPresentationDuration=\"PT8S\">"
            + Self.period("one", duration: 4, video: [("v1", 1_000_000)]) + Self.period("two", duration: 4, video: [("v1", 1_000_000)]) + "</MPD>"
        let (plan, _) = try await DASHPlanFixture.plan(text)
        #expect(plan.renditions.map(\.record.key) == ["video", "audio-en"])
        #expect(plan.renditions.map(\.record.duration) == [8, 8])
        let video = plan.resources.filter { $0.renditionKey == "video" }
        #expect(video.map(\.uri) == ["one/v1/init.mp4", "one/v1/1.m4s", "one/v1/2.m4s", "two/v1/init.mp4", "two/v1/1.m4s", "two/v1/2.m4s"]
            .map { "https://cdn.example/show/\($0)" })
        #expect(video.map(\.startTime) == [0, 0, 2, 4, 4, 6])
        let playlist = try plan.localText("video")
        #expect(playlist.components(separatedBy: "#EXT-X-DISCONTINUITY\n").count == 2)
        #expect(playlist.components(separatedBy: "#EXT-X-MAP").count == 3)
        let local = try MPD.read(Array(try #require(plan.localManifests["main.mpd"]).utf8))
        #expect(local.periods.map(\.id) == ["one", "two"])
        #expect(local.periods.map { $0.start?.seconds } == [0, 4])
    }

    @Test("in a Period without the chosen id: the video nearest at or below its bandwidth, the audio of the same language")
    func counterparts() async throws {
        let text = "<MPD type=\"static\" mediaPresentationDuration=\"PT8S\">"
            + Self.period("one", duration: 4, video: [("v-lo", 1_000_000), ("v-hi", 3_000_000)])
            + Self.period("two", duration: 4, video: [("x-lo", 1_000_000), ("x-mid", 2_500_000), ("x-hi", 4_000_000)], audioID: "b")
            + "</MPD>"
        let (plan, selection) = try await DASHPlanFixture.plan(text)
        #expect(selection.variant.uri == DASHPlanFixture.uri("v-hi", period: "one"))
        let uris = plan.resources.map(\.uri)
        #expect(uris.contains("https://cdn.example/show/two/x-mid/1.m4s"))
        #expect(!uris.contains { $0.contains("x-hi") || $0.contains("x-lo") })
        #expect(uris.contains("https://cdn.example/show/two/b/1.m4s"))
    }

    @Test("a Period whose xlink resolves to zero is dropped without a fetch")
    func resolveToZero() async throws {
        let text = "<MPD xmlns:xlink=\"http://www.w3.org/1999/xlink\" type=\"static\" mediaPresentationDuration=\"PT4S\">"
            + Self.period("one", duration: 4, video: [("v1", 1_000_000)])
            + "<Period xlink:href=\"urn:mpeg:dash:resolve-to-zero:2013\" xlink:actuate=\"onLoad\"/></MPD>"
        let (plan, _) = try await DASHPlanFixture.plan(text)
        let local = try MPD.read(Array(try #require(plan.localManifests["main.mpd"]).utf8))
        #expect(local.periods.map(\.id) == ["one"])
        #expect(plan.resources.count == 6)
    }

    @Test("a remote Period (xlink:actuate onLoad) is read in the place of its element and planned")
    func remotePeriod() async throws {
        let text = "<MPD xmlns:xlink=\"http://www.w3.org/1999/xlink\" type=\"static\" mediaPresentationDuration=\"PT8S\">"
            + Self.period("one", duration: 4, video: [("v1", 1_000_000)])
            + "<Period xlink:href=\"remote/period.xml\" xlink:actuate=\"onLoad\"/></MPD>"
        let remote = Self.period("two", duration: 4, video: [("v1", 1_000_000)])
        try await DASHPlanFixture.planFromDisk(text, files: ["remote/period.xml": Array(remote.utf8)]) { url, result in
            let plan = try result.get().plan
            let folder = url.replacingOccurrences(of: "main.mpd", with: "")
            #expect(plan.resources.contains { $0.uri == folder + "two/v1/2.m4s" }, "\(plan.resources.map(\.uri))")
            #expect(plan.renditions.first?.record.duration == 8)
        }
    }
}
