/// When and how long to wait before trying a failed request again: exponential backoff with
/// jitter, capped, and the server's `Retry-After` honoured.
///
/// Attempt *n* (1-based) that failed waits `min(maximumDelay, baseDelay × 2ⁿ⁻¹)` scaled by a
/// random factor in `1 - jitter … 1`, unless the server asked for a longer wait with
/// `Retry-After`.
public struct RetryPolicy: Sendable, Hashable {
    /// How many times a request is tried in all, the first included.
    public var maximumAttempts: Int
    /// The wait after the first failure, before jitter.
    public var baseDelay: Duration
    /// The longest wait between two attempts (a `Retry-After` may ask for longer, up to
    /// ``maximumRetryAfter``).
    public var maximumDelay: Duration
    /// The share of each wait that is random (0 none, 1 "full jitter").
    public var jitter: Double
    /// The longest `Retry-After` honoured; a server asking for more fails the request.
    public var maximumRetryAfter: Duration

    /// A policy with the given bounds; each parameter sets the property of the same name. The
    /// defaults try a request up to 8 times in all, waiting 200 ms after the first failure and
    /// doubling up to 20 seconds, take up to half of each wait off at random, and honour a
    /// `Retry-After` of up to 120 seconds.
    public init(maximumAttempts: Int = 8, baseDelay: Duration = .milliseconds(200), maximumDelay: Duration = .seconds(20),
                jitter: Double = 0.5, maximumRetryAfter: Duration = .seconds(120)) {
        self.maximumAttempts = maximumAttempts
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.maximumRetryAfter = maximumRetryAfter
    }

    /// The wait after failed attempt `attempt` (1-based); `randomUnit` is a number in 0…1.
    public func delay(afterAttempt attempt: Int, retryAfter: Duration? = nil, randomUnit: Double) -> Duration {
        let exponent = min(max(attempt, 1), 31) - 1
        let backoff = min(maximumDelay, baseDelay * (1 << exponent))
        let factor = 1 - jitter * min(max(randomUnit, 0), 1)
        let jittered = backoff * factor
        if let retryAfter { return max(jittered, min(retryAfter, maximumRetryAfter)) }
        return jittered
    }

    /// What to do after a failed attempt.
    public enum Decision: Sendable, Hashable {
        /// Try again after this wait.
        case retry(after: Duration)
        /// Every attempt has been made.
        case attemptsUsed
        /// The server asks for a longer wait than ``maximumRetryAfter``: give up now rather
        /// than retry early, against its word, until the attempts run out.
        case retryAfterTooLong(Duration)
    }

    /// What to do after failed attempt `attempt` (1-based) whose response asked for
    /// `retryAfter`: the one rule for playlists, keys and media alike. `randomUnit` is a number
    /// in 0…1.
    public func decision(afterAttempt attempt: Int, retryAfter: Duration? = nil, randomUnit: Double) -> Decision {
        guard attempt < maximumAttempts else { return .attemptsUsed }
        if let retryAfter, retryAfter > maximumRetryAfter { return .retryAfterTooLong(retryAfter) }
        return .retry(after: delay(afterAttempt: attempt, retryAfter: retryAfter, randomUnit: randomUnit))
    }

    /// Why `decision` gives up on `uri`, after `attempts` attempts whose last failed with
    /// `lastCause`.
    func reason(_ decision: Decision, uri: String, attempts: Int, lastCause: String) -> String {
        switch decision {
        case .retryAfterTooLong(let wait):
            return "\(uri): \(lastCause), \(tooLong(wait))"
        case .attemptsUsed, .retry:
            return "\(uri): failed after \(attempts) attempts; last: \(lastCause)"
        }
    }

    /// Why a `Retry-After` of `wait` is not waited for.
    func tooLong(_ wait: Duration) -> String {
        "and the server asks to retry after \(Self.seconds(wait)), longer than the \(Self.seconds(maximumRetryAfter)) Carryon waits"
    }

    /// `wait` in seconds as a person writes them: `3600 s`, `1.5 s`.
    static func seconds(_ wait: Duration) -> String {
        let value = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
        return (value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)) + " s"
    }

    /// Reads a `Retry-After` header: delay-seconds, or an HTTP date relative to `now`
    /// (seconds since 1970). Nil when absent or unreadable.
    static func retryAfter(_ header: String?, now: Double) -> Duration? {
        guard let header = header?.trimmingCharacters(in: .whitespaces), !header.isEmpty else { return nil }
        if let seconds = Int(header), seconds >= 0 { return .seconds(seconds) }
        if let date = HTTPDate.parse(header) { return .milliseconds(max(0, Int((date - now) * 1000))) }
        return nil
    }
}

import Foundation

/// HTTP-date parsing (RFC 9110 section 5.6.7), for `Retry-After`: IMF-fixdate, and the obsolete
/// RFC 850 and asctime forms, which a recipient must accept too.
enum HTTPDate {
    private static let formats = ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"]

    static func parse(_ text: String) -> Double? {
        // asctime pads a one-digit day with a space: "Sun Nov  6 08:49:37 1994".
        let text = text.split(separator: " ").joined(separator: " ")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in formats {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date.timeIntervalSince1970 }
        }
        return nil
    }
}
