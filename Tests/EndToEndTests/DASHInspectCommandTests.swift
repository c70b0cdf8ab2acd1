import CarryonTestSupport
import Foundation
import Testing

/// `carryon inspect` on an MPD: the JSON shape README.md gives, and the text form.
@Suite("carryon inspect on MPEG-DASH")
struct DASHInspectCommandTests {
    @Test("inspect --json prints type dash, the Periods, AdaptationSets and Representations with their addressing and segment counts")
    func json() async throws {
        let result = try await runCarryon(["inspect", dashSampleMedia.appendingPathComponent("timeline/main.mpd").path, "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(report["type"] as? String == "dash" && report["presentation"] as? String == "static")
        #expect(report["duration"] as? Double == 8)
        let periods = try #require(report["periods"] as? [[String: Any]])
        let sets = try #require(periods.first?["adaptationSets"] as? [[String: Any]])
        #expect(sets.map { $0["contentType"] as? String } == ["video", "audio", "audio", "text"])
        let video = try #require(sets[0]["representations"] as? [[String: Any]])
        #expect(video.map { $0["width"] as? Int } == [192, 320])
        #expect(video.map { $0["addressing"] as? String } == ["timeline", "timeline"])
        #expect(video.map { $0["segmentCount"] as? Int } == [4, 4])
        let text = try #require(sets[3]["representations"] as? [[String: Any]])
        #expect(text.first?["addressing"] as? String == "url")
    }

    @Test("inspect of a SegmentBase MPD names the addressing and leaves the count to the index")
    func text() async throws {
        let result = try await runCarryon(["inspect", dashSampleMedia.appendingPathComponent("base/main.mpd").path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("MPEG-DASH, static, 8 s"))
        #expect(result.standardOutput.contains("1  120 kb/s  320x180  avc1.4d400c  base\n"), "\(result.standardOutput)")
    }
}
