@testable import Carryon
import DASH
import Testing

/// The bytes of a SegmentBase file that no range names — its `sidx`, boxes between fragments,
/// the tail — are fetched too, so that a bundle's file is the origin's byte for byte.
@Suite("DASH file gaps")
struct DASHFileGapsTests {
    func location(_ url: String, _ first: Int64, _ last: Int64) -> SegmentAddressing.Location {
        .init(url: url, range: ByteRange(first: first, last: last))
    }

    func ranges(_ gaps: [SegmentAddressing.Location]) -> [String] {
        gaps.map { "\($0.url) \($0.range!.first)-\($0.range!.last)" }
    }

    @Test("the index between the init section and the first fragment, and the tail when the size is known")
    func indexAndTail() {
        // ffmpeg's onDemand layout: ftyp+moov 0-795, sidx 796-883, fragments, mfra to 64412.
        let named = [location("v.mp4", 0, 795), location("v.mp4", 884, 13403), location("v.mp4", 13404, 64288)]
        #expect(ranges(DASHPlan.gaps(in: named)) == ["v.mp4 796-883"])
        #expect(ranges(DASHPlan.gaps(in: named, sizes: ["v.mp4": 64413])) == ["v.mp4 796-883", "v.mp4 64289-64412"])
    }

    @Test("holes anywhere, ranges out of order or overlapping, one file apart from another")
    func holes() {
        let named = [location("b.mp4", 500, 599), location("a.mp4", 10, 19), location("a.mp4", 0, 4),
                     location("a.mp4", 15, 29), location("a.mp4", 40, 49), SegmentAddressing.Location(url: "whole.mp4")]
        #expect(ranges(DASHPlan.gaps(in: named)) == ["a.mp4 5-9", "a.mp4 30-39", "b.mp4 0-499"])
        #expect(DASHPlan.gaps(in: [location("a.mp4", 0, 9), location("a.mp4", 10, 19)], sizes: ["a.mp4": 20]).isEmpty)
    }

    @Test("a size far past what the index names is not believed: no gigabytes of tail")
    func hugeTail() {
        let named = [location("v.mp4", 0, 99)]
        #expect(DASHPlan.gaps(in: named, sizes: ["v.mp4": 100 + DASHPlan.maximumTail]).count == 1)
        #expect(DASHPlan.gaps(in: named, sizes: ["v.mp4": 101 + DASHPlan.maximumTail]).isEmpty)
        #expect(DASHPlan.gaps(in: named, sizes: ["v.mp4": 50]).isEmpty)
        // An index whose fragments begin a terabyte on (its first_offset): the gap is not fetched.
        let far = [location("v.mp4", 0, 99), location("v.mp4", 1 << 40, (1 << 40) + 999)]
        #expect(DASHPlan.gaps(in: far).isEmpty)
        let near = [location("v.mp4", 0, 99), location("v.mp4", 100 + DASHPlan.maximumTail, 200 + DASHPlan.maximumTail)]
        #expect(ranges(DASHPlan.gaps(in: near)) == ["v.mp4 100-\(99 + DASHPlan.maximumTail)"])
    }
}
