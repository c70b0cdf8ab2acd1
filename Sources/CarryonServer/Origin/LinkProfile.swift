import Foundation

/// How the conditioned origin degrades the link it serves over: a delay before every response,
/// a bandwidth cap per connection, and faults — 503s, connections reset mid-body, bodies cut
/// short — drawn from a seeded generator so that a run can be repeated exactly.
///
/// The default profile is a perfect link: no delay, no cap, no faults. Start from a preset and
/// change what you need:
///
/// ```swift
/// var profile = LinkProfile.lossy          // 40 ms, 5 % 503s, 2 % resets, 2 % truncations
/// profile.bandwidth = 500_000              // and 4 Mbit/s per connection
/// profile.seed = 42                        // another, equally repeatable, run of faults
/// try await Origin(root: folder, profile: profile).withRunning { origin in … }
/// ```
///
/// ## Which request gets which fault
///
/// Requests are numbered in the order they arrive, from 0. Each takes the next two numbers of a
/// SplitMix64 generator started from ``seed``: the first picks the fault, the second where a
/// cut body stops. One draw decides between the faults, so their rates are shares of all
/// requests and add up to at most 1: with the ``lossy`` rates, a number below 0.05 answers
/// 503, one in [0.05, 0.07) resets the connection, one in [0.07, 0.09) truncates the body and
/// the rest are served clean. The same seed and the same order of requests give the same faults.
///
/// Concurrent requests arrive in an order the scheduler picks, so only a client that makes its
/// requests one after another gets the same faults on the same resources from run to run. What
/// concurrency cannot change is the faults drawn for the first n requests — how many of each —
/// since they depend on the seed alone. Each run of an ``Origin`` starts again from the seed, so
/// several runs with one seed draw the same faults; and a short run may, by chance, draw none of
/// a rare kind: to be sure a test meets every fault, pick a seed whose first requests do (with
/// ``lossy``, seed 8 draws a reset, a truncation and a 503 among the first nine), or set a rate
/// to 1.
///
/// A response without a body (`HEAD`, `404`, `416`, an empty file) has nothing to cut: a reset or
/// truncation drawn for it is not applied, and it is served clean.
public struct LinkProfile: Sendable, Hashable, Codable {
    /// The delay before every response head, 503s included: the time to first byte the link
    /// adds to each request (not to each round trip). Other requests are not held up by it.
    public var latency: Duration
    /// The cap on body bytes per second for each connection; `nil` for no cap. HTTP/1.1 sends
    /// one response at a time on a connection, so each response body is paced at this rate.
    public var bandwidth: Int?
    /// The share of requests, 0…1, answered `503 Service Unavailable` with a `Retry-After`
    /// header, instead of the resource.
    public var failRate: Double
    /// The `Retry-After` the injected 503s carry, in whole seconds (0 means "retry now").
    public var retryAfterSeconds: Int
    /// The share of requests, 0…1, whose connection is reset (TCP RST) after part of the body
    /// has been sent.
    public var resetRate: Double
    /// The share of requests, 0…1, whose body stops short of its `Content-Length`, after which
    /// the connection is closed in an orderly way (TCP FIN).
    public var truncateRate: Double
    /// Where the fault generator starts. The same seed and the same request order give the same
    /// faults.
    public var seed: UInt64
    /// Whether playlists (`.m3u8`, `.m3u`) get faults too. They do by default, since a
    /// downloader has to retry playlists as well; latency and bandwidth apply to them either way.
    public var faultsOnPlaylists: Bool

    /// Creates a profile. The defaults make a perfect link: no delay, no cap, no faults. Injected
    /// 503s carry `Retry-After: 1` unless told otherwise, and playlists get faults like other
    /// resources.
    ///
    /// The values are not checked here: ``validate()`` checks them, and ``Origin`` calls it before
    /// it listens.
    public init(
        latency: Duration = .zero,
        bandwidth: Int? = nil,
        failRate: Double = 0,
        retryAfterSeconds: Int = 1,
        resetRate: Double = 0,
        truncateRate: Double = 0,
        seed: UInt64 = 0,
        faultsOnPlaylists: Bool = true
    ) {
        self.latency = latency
        self.bandwidth = bandwidth
        self.failRate = failRate
        self.retryAfterSeconds = retryAfterSeconds
        self.resetRate = resetRate
        self.truncateRate = truncateRate
        self.seed = seed
        self.faultsOnPlaylists = faultsOnPlaylists
    }

    /// Whether the profile changes anything at all.
    public var isPerfect: Bool {
        latency == .zero && bandwidth == nil && failRate == 0 && resetRate == 0 && truncateRate == 0
    }

    /// Throws ``LinkProfileError`` naming the first value that cannot be used: a negative
    /// latency or Retry-After, a bandwidth below 1 byte per second, a rate outside 0…1, or rates
    /// adding up to more than 1.
    public func validate() throws(LinkProfileError) {
        if latency < .zero { throw LinkProfileError("latency must not be negative (got \(latency))") }
        if let bandwidth, bandwidth < 1 {
            throw LinkProfileError("bandwidth must be at least 1 byte per second, or nil for no cap (got \(bandwidth))")
        }
        if retryAfterSeconds < 0 {
            throw LinkProfileError("retryAfterSeconds must not be negative (got \(retryAfterSeconds))")
        }
        for (name, rate) in [("failRate", failRate), ("resetRate", resetRate), ("truncateRate", truncateRate)]
        where !(0...1).contains(rate) {
            throw LinkProfileError("\(name) must be between 0 and 1 (got \(rate))")
        }
        // A little slack, so that rates written as decimals (0.7 + 0.2 + 0.1) still add up to 1.
        if failRate + resetRate + truncateRate > 1 + 1e-9 {
            throw LinkProfileError(
                "failRate + resetRate + truncateRate must not exceed 1, as a request gets at most one fault (got \(failRate + resetRate + truncateRate))")
        }
    }
}

/// A ``LinkProfile`` value that cannot be used, and why.
public struct LinkProfileError: Error, Hashable, CustomStringConvertible {
    public var description: String
    /// Creates an error that says, in words, which value cannot be used.
    public init(_ description: String) { self.description = description }
}

// MARK: - Presets

extension LinkProfile {
    /// No delay, no cap, no faults: the origin as a plain file server.
    public static let perfect = LinkProfile()

    /// A 3G mobile link, as Apple's Network Link Conditioner has it: 100 ms before each
    /// response, 780 kbit/s (97 500 bytes per second) per connection, no faults.
    public static let threeG = LinkProfile(latency: .milliseconds(100), bandwidth: 97_500)

    /// An LTE mobile link, as the Network Link Conditioner has it: 50 ms before each response,
    /// 50 Mbit/s (6 250 000 bytes per second) per connection, no faults.
    public static let lte = LinkProfile(latency: .milliseconds(50), bandwidth: 6_250_000)

    /// A home Wi-Fi link, as the Network Link Conditioner has it: 1 ms before each response,
    /// 40 Mbit/s (5 000 000 bytes per second) per connection, no faults.
    public static let wifi = LinkProfile(latency: .milliseconds(1), bandwidth: 5_000_000)

    /// A fast link that misbehaves: 40 ms before each response, no bandwidth cap, and 5 % of
    /// requests answered 503 (`Retry-After: 1`), 2 % reset mid-body and 2 % cut short — what a
    /// downloader must come through with byte-identical results.
    public static let lossy = LinkProfile(
        latency: .milliseconds(40), failRate: 0.05, resetRate: 0.02, truncateRate: 0.02)

    /// The presets by the names `carryon origin --profile` takes: `3g`, `lte`, `wifi`, `lossy`.
    public static let presets: [(name: String, profile: LinkProfile)] = [
        ("3g", .threeG), ("lte", .lte), ("wifi", .wifi), ("lossy", .lossy),
    ]

    /// The preset called `name` (`3g`, `lte`, `wifi` or `lossy`, in any case), or nil.
    public static func preset(named name: String) -> LinkProfile? {
        presets.first { $0.name == name.lowercased() }?.profile
    }
}

// MARK: - Description

extension LinkProfile: CustomStringConvertible {
    /// One line for people, e.g. `latency 40 ms, bandwidth unlimited, 503s 5% (Retry-After 1 s),
    /// resets 2%, truncations 2%, seed 0`.
    public var description: String {
        var parts = ["latency \(Self.milliseconds(latency)) ms"]
        if let bandwidth {
            parts.append("bandwidth \(Self.number(Double(bandwidth) * 8 / 1000)) kbit/s per connection")
        } else {
            parts.append("bandwidth unlimited")
        }
        parts.append("503s \(Self.percent(failRate)) (Retry-After \(retryAfterSeconds) s)")
        parts.append("resets \(Self.percent(resetRate))")
        parts.append("truncations \(Self.percent(truncateRate))")
        parts.append("seed \(seed)")
        if !faultsOnPlaylists { parts.append("no faults on playlists") }
        return parts.joined(separator: ", ")
    }

    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return number(Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }

    private static func percent(_ rate: Double) -> String { number(rate * 100) + "%" }

    /// `40`, `2.5`, `0.125`: whole numbers without a fraction, others with what they need.
    private static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}

// MARK: - Codable

extension LinkProfile {
    // Units in the key names, and every key optional when decoding, so that a hand-written
    // `{"failRate": 0.05}` is a whole profile.
    private enum CodingKeys: String, CodingKey {
        case latencyMilliseconds, bandwidthBytesPerSecond, failRate, retryAfterSeconds
        case resetRate, truncateRate, seed, faultsOnPlaylists
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = LinkProfile()
        let milliseconds = try container.decodeIfPresent(Double.self, forKey: .latencyMilliseconds) ?? 0
        self.latency = .microseconds(Int64((milliseconds * 1000).rounded()))
        self.bandwidth = try container.decodeIfPresent(Int.self, forKey: .bandwidthBytesPerSecond)
        self.failRate = try container.decodeIfPresent(Double.self, forKey: .failRate) ?? defaults.failRate
        self.retryAfterSeconds = try container.decodeIfPresent(Int.self, forKey: .retryAfterSeconds)
            ?? defaults.retryAfterSeconds
        self.resetRate = try container.decodeIfPresent(Double.self, forKey: .resetRate) ?? defaults.resetRate
        self.truncateRate = try container.decodeIfPresent(Double.self, forKey: .truncateRate) ?? defaults.truncateRate
        self.seed = try container.decodeIfPresent(UInt64.self, forKey: .seed) ?? defaults.seed
        self.faultsOnPlaylists = try container.decodeIfPresent(Bool.self, forKey: .faultsOnPlaylists)
            ?? defaults.faultsOnPlaylists
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let (seconds, attoseconds) = latency.components
        try container.encode(Double(seconds) * 1000 + Double(attoseconds) / 1e15, forKey: .latencyMilliseconds)
        try container.encodeIfPresent(bandwidth, forKey: .bandwidthBytesPerSecond)
        try container.encode(failRate, forKey: .failRate)
        try container.encode(retryAfterSeconds, forKey: .retryAfterSeconds)
        try container.encode(resetRate, forKey: .resetRate)
        try container.encode(truncateRate, forKey: .truncateRate)
        try container.encode(seed, forKey: .seed)
        try container.encode(faultsOnPlaylists, forKey: .faultsOnPlaylists)
    }
}
