@testable import Carryon
import Testing

/// How long a failed request waits before the next attempt: exponential backoff, capped,
/// scaled by jitter, and never shorter than the server's `Retry-After` (up to a limit).
@Suite("Waiting before a retry")
struct RetryPolicyTests {
    /// 100 ms doubling up to 2 s, no jitter, `Retry-After` honoured up to 30 s.
    let policy = RetryPolicy(maximumAttempts: 8, baseDelay: .milliseconds(100), maximumDelay: .seconds(2), jitter: 0,
                             maximumRetryAfter: .seconds(30))

    // MARK: Backoff

    @Test("the wait doubles after each failed attempt, starting at the base delay")
    func backoffDoubles() {
        let delays = (1...5).map { policy.delay(afterAttempt: $0, randomUnit: 0) }
        #expect(delays == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600)])
    }

    @Test("the wait stops growing at the maximum delay, however many attempts failed",
          arguments: [6, 7, 31, 32, 64, 1_000, Int.max])
    func backoffCaps(attempt: Int) {
        #expect(policy.delay(afterAttempt: attempt, randomUnit: 0) == .seconds(2))
    }

    @Test("an attempt number below 1 waits the base delay", arguments: [0, -1, Int.min])
    func attemptBelowOne(attempt: Int) {
        #expect(policy.delay(afterAttempt: attempt, randomUnit: 0) == .milliseconds(100))
    }

    // MARK: Jitter

    @Test("jitter scales the wait by 1 - jitter × the random unit")
    func jitterScales() {
        var policy = self.policy
        policy.jitter = 0.5
        #expect(policy.delay(afterAttempt: 3, randomUnit: 0) == .milliseconds(400))
        #expect(policy.delay(afterAttempt: 3, randomUnit: 0.5) == .milliseconds(300))
        #expect(policy.delay(afterAttempt: 3, randomUnit: 1) == .milliseconds(200))
    }

    @Test("with jitter every wait lies within [1 - jitter, 1] of the backoff", arguments: [0.1, 0.5, 1.0])
    func jitterBounds(jitter: Double) {
        var policy = self.policy
        policy.jitter = jitter
        var generator = SystemRandomNumberGenerator()
        for attempt in 1...8 {
            let backoff = min(Duration.seconds(2), .milliseconds(100) * (1 << (attempt - 1)))
            for _ in 0..<50 {
                let delay = policy.delay(afterAttempt: attempt, randomUnit: Double.random(in: 0...1, using: &generator))
                #expect(delay >= backoff * (1 - jitter) && delay <= backoff, "attempt \(attempt): \(delay)")
            }
        }
    }

    @Test("a random unit outside 0…1 is clamped, so the wait stays within the jitter bounds")
    func randomUnitClamped() {
        var policy = self.policy
        policy.jitter = 0.5
        #expect(policy.delay(afterAttempt: 1, randomUnit: -3) == .milliseconds(100))
        #expect(policy.delay(afterAttempt: 1, randomUnit: 7) == .milliseconds(50))
    }

    // MARK: Retry-After

    @Test("a Retry-After longer than the backoff is waited in full")
    func retryAfterIsAFloor() {
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(5), randomUnit: 0) == .seconds(5))
    }

    @Test("a Retry-After shorter than the backoff does not shorten it")
    func retryAfterShorterThanBackoff() {
        #expect(policy.delay(afterAttempt: 4, retryAfter: .milliseconds(50), randomUnit: 0) == .milliseconds(800))
        #expect(policy.delay(afterAttempt: 4, retryAfter: .zero, randomUnit: 0) == .milliseconds(800))
    }

    @Test("a Retry-After is honoured past the maximum delay, up to the maximum Retry-After")
    func retryAfterCapped() {
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(10), randomUnit: 0) == .seconds(10))
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(3_600), randomUnit: 0) == .seconds(30))
    }

    @Test("jitter never takes a wait below the Retry-After")
    func jitterAboveRetryAfter() {
        var policy = self.policy
        policy.jitter = 1
        #expect(policy.delay(afterAttempt: 8, retryAfter: .seconds(1), randomUnit: 1) == .seconds(1))
    }

    // MARK: Reading Retry-After

    /// Wed, 21 Oct 2015 07:28:00 GMT.
    static let date = 1_445_412_480.0

    @Test("Retry-After in seconds", arguments: [("120", 120), ("0", 0), (" 5 ", 5), ("86400", 86_400)])
    func retryAfterSeconds(header: String, seconds: Int) {
        #expect(RetryPolicy.retryAfter(header, now: 0) == .seconds(seconds))
    }

    @Test("Retry-After as an HTTP date is the time from now until then")
    func retryAfterDate() {
        #expect(RetryPolicy.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: Self.date - 30) == .seconds(30))
        #expect(RetryPolicy.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: Self.date - 0.25) == .milliseconds(250))
    }

    @Test("Retry-After as an HTTP date in the past means no wait")
    func retryAfterPastDate() {
        #expect(RetryPolicy.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: Self.date + 600) == .zero)
    }

    @Test("Retry-After in the obsolete HTTP date formats, which RFC 9110 section 5.6.7 says recipients must accept",
          arguments: ["Wednesday, 21-Oct-15 07:28:00 GMT", "Wed Oct 21 07:28:00 2015"])
    func retryAfterObsoleteDates(header: String) {
        #expect(RetryPolicy.retryAfter(header, now: Self.date - 30) == .seconds(30))
    }

    @Test("Retry-After in RFC 9110's own examples of the three date formats, a one-digit day padded with a space in asctime",
          arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"])
    func retryAfterRFCExamples(header: String) {
        #expect(RetryPolicy.retryAfter(header, now: 784_111_777 - 2) == .seconds(2))
    }

    @Test("a missing or unreadable Retry-After is ignored",
          arguments: [nil, "", "  ", "soon", "-5", "1.5", "5s", "0x10", "Wed, 32 Oct 2015 07:28:00 GMT", "21 Oct 2015",
                      "99999999999999999999999"])
    func retryAfterUnreadable(header: String?) {
        #expect(RetryPolicy.retryAfter(header, now: Self.date) == nil)
    }

    @Test("an unreadable Retry-After leaves the backoff as it is")
    func unreadableRetryAfterKeepsBackoff() {
        let retryAfter = RetryPolicy.retryAfter("whenever", now: Self.date)
        #expect(policy.delay(afterAttempt: 2, retryAfter: retryAfter, randomUnit: 0) == .milliseconds(200))
    }
}
