@testable import Carryon
import Testing

/// Adaptive concurrency, driven through model links with an injected clock: how many requests
/// a task keeps in flight as the link answers.
@Suite("Adaptive concurrency")
struct ConcurrencyControllerTests {
    let start = ContinuousClock().now

    /// Runs `windows` windows of one second on a link that completes `rate(limit)` bytes a
    /// second with `limit` requests in flight, reporting ten completions a window; the limits
    /// seen, one per window.
    func drive(_ controller: inout ConcurrencyController, windows: Int, rate: (Int) -> Double,
               pushBackAt: Set<Int> = []) -> [Int] {
        var now = start
        var limits: [Int] = []
        for window in 0..<windows {
            if pushBackAt.contains(window) { controller.throttled(at: now) }
            for _ in 0..<10 {
                now += .milliseconds(100)
                controller.completed(Int(rate(controller.limit) / 10), at: now)
            }
            limits.append(controller.limit)
        }
        return limits
    }

    @Test("a link that caps each connection: more requests bring more bytes, so it grows to the maximum and stays")
    func perConnectionCap() {
        var controller = ConcurrencyController(start: 8, maximum: 32, window: .seconds(1), now: start)
        let limits = drive(&controller, windows: 12) { Double($0) * 2_500_000 }
        #expect(limits.prefix(5) == [16, 16, 32, 32, 32] && limits.last == 32,
                "doubling to the maximum, a window to settle after each change, and staying: \(limits)")
        #expect(limits.allSatisfy { $0 <= 32 })
    }

    @Test("a link whose capacity is shared: more requests bring nothing, so after one window's try it goes back to where it began")
    func sharedCap() {
        var controller = ConcurrencyController(start: 8, maximum: 32, window: .seconds(1), now: start)
        let limits = drive(&controller, windows: 8) { min(Double($0) * 2_500_000, 20_000_000) }
        #expect(limits == [16, 16, 8, 8, 8, 8, 8, 8], "\(limits)")
    }

    @Test("a server that pushes back (503, 429, resets) halves the requests, and they do not grow again")
    func backsOff() {
        var controller = ConcurrencyController(start: 8, maximum: 32, window: .seconds(1), now: start)
        let limits = drive(&controller, windows: 10, rate: { Double($0) * 2_500_000 }, pushBackAt: [3, 5])
        #expect(limits[2] > 8, "it grew first: \(limits)")
        #expect(limits[3] == limits[2] / 2 && limits[5] == limits[3] / 2 && limits[5...].allSatisfy { $0 == limits[5] }, "\(limits)")
        var floor = ConcurrencyController(start: 2, maximum: 32, window: .seconds(1), now: start)
        for _ in 0..<5 { floor.throttled(at: start) }
        #expect(floor.limit == 1, "never below one request")
    }

    @Test("the maximum bounds the start too, and a measurement waits for its whole window")
    func bounds() {
        var controller = ConcurrencyController(start: 8, maximum: 4, window: .seconds(1), now: start)
        #expect(controller.limit == 4)
        controller.completed(1_000_000, at: start + .milliseconds(999))
        #expect(controller.limit == 4)
    }
}
