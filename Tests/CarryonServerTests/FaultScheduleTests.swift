@testable import CarryonServer
import Testing

@Suite("FaultSchedule: seeded, repeatable fault draws")
struct FaultScheduleTests {
    @Test("SplitMix64 gives the reference sequence for seed 0")
    func splitMixReference() {
        // The first outputs of SplitMix64 from 0, as the reference C implementation gives them.
        var generator = SplitMix64(seed: 0)
        #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
        #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(generator.next() == 0x06C4_5D18_8009_454F)
    }

    @Test("requests are numbered in order and the same seed draws the same faults")
    func repeatable() {
        let first = FaultSchedule(profile: .lossy)
        let second = FaultSchedule(profile: .lossy)
        let a = (0..<500).map { _ in first.next() }
        let b = (0..<500).map { _ in second.next() }
        #expect(a == b)
        #expect(a.map(\.sequence) == Array(0..<500))
        var other = LinkProfile.lossy
        other.seed = 1
        let c = FaultSchedule(profile: other)
        #expect((0..<500).map { _ in c.next().fault } != a.map(\.fault))
    }

    @Test("faults come at about their rates")
    func rates() {
        let schedule = FaultSchedule(profile: LinkProfile(failRate: 0.05, resetRate: 0.02, truncateRate: 0.02, seed: 3))
        let faults = (0..<10_000).map { _ in schedule.next().fault }
        let count = { (fault: LinkFault) in faults.filter { $0 == fault }.count }
        #expect((400...600).contains(count(.serviceUnavailable)))
        #expect((130...270).contains(count(.connectionReset)))
        #expect((130...270).contains(count(.truncatedBody)))
    }

    @Test("with the lossy rates, seed 8 draws every kind of fault among the first nine requests, as documented")
    func documentedSeed() {
        var profile = LinkProfile.lossy
        profile.seed = 8
        let schedule = FaultSchedule(profile: profile)
        let faults = (0..<9).compactMap { _ in schedule.next().fault }
        #expect(Set(faults) == Set(LinkFault.allCases))
    }

    @Test("rates of 0 never fault and a rate of 1 always does")
    func extremes() {
        let clean = FaultSchedule(profile: LinkProfile(seed: 9))
        #expect((0..<1000).allSatisfy { _ in clean.next().fault == nil })
        let failing = FaultSchedule(profile: LinkProfile(resetRate: 1, seed: 9))
        #expect((0..<1000).allSatisfy { _ in failing.next().fault == .connectionReset })
    }

    @Test("a cut falls strictly inside the body")
    func cutPoint() {
        for fraction in [0.0, 0.5, 0.999_999_999] {
            let draw = FaultDraw(sequence: 0, fault: .truncatedBody, cutFraction: fraction)
            for length in [2, 3, 10, 200_000] {
                #expect((1..<length).contains(draw.cutPoint(forBodyOf: length)))
            }
            #expect(draw.cutPoint(forBodyOf: 1) == 0)
        }
    }
}
