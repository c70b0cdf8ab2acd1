@testable import Carryon
import CarryonTestSupport
import Testing

/// `--limit-rate`: how a task's chunks are paced, and what the stall watch makes of the wait.
@Suite("Rate limit")
struct RateLimitTests {
    let start = ContinuousClock().now

    @Test("chunks that arrive together are written one after another at the rate")
    func pacedTogether() {
        var pacer = RatePacer(bytesPerSecond: 100_000)
        let delays = (0..<10).map { _ in pacer.delay(for: 10_000, at: start) }
        #expect(delays == (1...10).map { .milliseconds(100 * $0) })
    }

    @Test("a pause earns no credit: after it, bytes are paced from then")
    func noCredit() {
        var pacer = RatePacer(bytesPerSecond: 100_000)
        #expect(pacer.delay(for: 50_000, at: start) == .milliseconds(500))
        #expect(pacer.delay(for: 50_000, at: start + .seconds(10)) == .milliseconds(500))
    }

    @Test("whatever the arrivals, no window of time carries more than the rate's worth and one chunk")
    func anyWindow() {
        var random = SeededGenerator(seed: 18)
        let rate = 250_000
        var pacer = RatePacer(bytesPerSecond: rate)
        var now = start
        var written: [(at: ContinuousClock.Instant, bytes: Int)] = []
        for _ in 0..<2_000 {
            now += .milliseconds(Int64.random(in: 0...40, using: &random))
            let bytes = Int.random(in: 1...16_384, using: &random)
            written.append((now + pacer.delay(for: bytes, at: now), bytes))
        }
        written.sort { $0.at < $1.at }
        for (index, first) in written.enumerated() {
            for window in [Duration.seconds(1), .seconds(10)] {
                let inWindow = written[index...].prefix { $0.at - first.at < window }.reduce(0) { $0 + $1.bytes }
                let seconds = Double(window.components.seconds)
                #expect(Double(inWindow) <= Double(rate) * seconds + 16_384, "\(inWindow) bytes within \(window) of write \(index)")
            }
        }
        let total = written.reduce(0) { $0 + $1.bytes }
        let span = written.last!.at - start
        let spanSeconds = Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18
        #expect(Double(total) / spanSeconds > Double(rate) * 0.95, "and the link is used: \(Double(total) / spanSeconds) bytes/s")
    }

    @Test("a transfer holding itself back for the rate limit is not a stall, however late it wakes; silence after the hold is")
    func holdIsNotAStall() {
        var watch = StallWatch(timeout: .seconds(1), now: start)
        watch.hold()
        #expect(watch.check(at: start + .seconds(3)) == nil)
        #expect(watch.check(at: start + .seconds(10)) == nil, "the holder has not woken yet")
        watch.release(at: start + .seconds(10))
        #expect(watch.check(at: start + .milliseconds(10_900)) == nil)
        #expect(watch.check(at: start + .milliseconds(11_100)) == .silent(.seconds(1)))
    }
}
