import Carryon

/// A fault the conditioned origin put into a response on purpose.
public enum LinkFault: String, Sendable, Hashable, Codable, CaseIterable {
    /// Answered `503 Service Unavailable` with a `Retry-After` header instead of the resource.
    case serviceUnavailable
    /// The connection was reset (TCP RST) after part of the body had been sent.
    case connectionReset
    /// The body stopped short of its `Content-Length`, then the connection was closed (TCP FIN).
    case truncatedBody
}

/// What the fault generator decided for one request.
struct FaultDraw: Sendable, Equatable {
    /// The request's number in order of arrival, from 0.
    var sequence: Int
    /// The fault drawn, if any; whether it can be applied depends on the response.
    var fault: LinkFault?
    /// Where a cut body stops, as a share of the body, in [0, 1).
    var cutFraction: Double

    /// How many bytes of a body of `length` bytes are sent before a reset or truncation: at
    /// least one (so that the cut is mid-body) and at most `length - 1` (so that it is a cut).
    func cutPoint(forBodyOf length: Int) -> Int {
        guard length > 1 else { return 0 }
        return 1 + min(length - 2, Int(cutFraction * Double(length - 1)))
    }
}

/// Numbers requests as they arrive and draws each one's fault from a generator seeded by the
/// profile, two numbers per request whatever the outcome, so that the n-th request's fault
/// depends only on the seed and n.
final class FaultSchedule: Sendable {
    private let failRate: Double
    private let resetRate: Double
    private let truncateRate: Double
    private let state: Locked<(next: Int, generator: SplitMix64)>

    init(profile: LinkProfile) {
        failRate = profile.failRate
        resetRate = profile.resetRate
        truncateRate = profile.truncateRate
        state = Locked((0, SplitMix64(seed: profile.seed)))
    }

    /// The decision for the next request to arrive.
    func next() -> FaultDraw {
        let (sequence, choice, cut) = state.withLock { state in
            defer { state.next += 1 }
            return (state.next, state.generator.nextUnitInterval(), state.generator.nextUnitInterval())
        }
        let fault: LinkFault? =
            if choice < failRate { .serviceUnavailable }
            else if choice < failRate + resetRate { .connectionReset }
            else if choice < failRate + resetRate + truncateRate { .truncatedBody }
            else { nil }
        return FaultDraw(sequence: sequence, fault: fault, cutFraction: cut)
    }
}

/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny, fast generator whose whole state is one
/// integer, so a seed fixes every number it gives. Not for cryptography.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in [0, 1) from the top 53 bits, every value equally likely.
    mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
