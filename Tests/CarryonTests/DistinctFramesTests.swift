import CarryonTestSupport
import Testing

/// How the GStreamer judge counts frames: each timestamp once a Period, so that a segment played
/// twice does not stand in for one skipped.
@Suite("Counting played frames")
struct DistinctFramesTests {
    /// `count` frames of 25 a second from `start` seconds, as fakesink prints their timestamps.
    func stamps(from start: Double, count: Int) -> [String] {
        (0..<count).map { index in
            let seconds = start + Double(index) * 0.04
            return "0:00:" + (seconds < 10 ? "0" : "") + String(format: "%.9f", seconds)
        }
    }

    @Test("two Periods each from 0: every frame counts")
    func periods() {
        #expect(distinctFrames(stamps(from: 0.08, count: 100) + stamps(from: 0.08, count: 100)) == 200)
    }

    @Test("a segment played again, or frames stamped alike, count once")
    func replays() {
        // Segments 1 and 2, then 2 again, then 4: the skipped segment 3 is not made up for.
        let played = stamps(from: 0.08, count: 50) + stamps(from: 2.08, count: 50) + stamps(from: 2.08, count: 50) + stamps(from: 6.08, count: 50)
        #expect(distinctFrames(played) == 150)
        // Frames after a discontinuity stamped with the last one's time (hlsdemux): none counts again.
        #expect(distinctFrames(stamps(from: 0.08, count: 50) + Array(repeating: "0:00:02.040000000", count: 50)) == 50)
        #expect(distinctFrames(["none", "none"]) == 2)
    }
}
