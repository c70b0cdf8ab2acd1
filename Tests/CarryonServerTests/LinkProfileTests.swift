import CarryonServer
import Foundation
import Testing

@Suite("LinkProfile: presets, validation, coding")
struct LinkProfileTests {
    @Test("the presets carry the documented numbers")
    func presets() {
        #expect(LinkProfile.threeG == LinkProfile(latency: .milliseconds(100), bandwidth: 97_500))
        #expect(LinkProfile.lte == LinkProfile(latency: .milliseconds(50), bandwidth: 6_250_000))
        #expect(LinkProfile.wifi == LinkProfile(latency: .milliseconds(1), bandwidth: 5_000_000))
        #expect(LinkProfile.lossy == LinkProfile(
            latency: .milliseconds(40), failRate: 0.05, resetRate: 0.02, truncateRate: 0.02))
        #expect(LinkProfile.perfect.isPerfect)
        #expect(LinkProfile.presets.map(\.name) == ["3g", "lte", "wifi", "lossy"])
        #expect(LinkProfile.preset(named: "LTE") == .lte)
        #expect(LinkProfile.preset(named: "5g") == nil)
        for (_, profile) in LinkProfile.presets { #expect(throws: Never.self) { try profile.validate() } }
    }

    @Test("values that cannot be used are refused with their name", arguments: [
        (LinkProfile(latency: .milliseconds(-1)), "latency"),
        (LinkProfile(bandwidth: 0), "bandwidth"),
        (LinkProfile(failRate: 1.5), "failRate"),
        (LinkProfile(resetRate: -0.1), "resetRate"),
        (LinkProfile(truncateRate: .nan), "truncateRate"),
        (LinkProfile(retryAfterSeconds: -1), "retryAfterSeconds"),
        (LinkProfile(failRate: 0.5, resetRate: 0.3, truncateRate: 0.3), "must not exceed 1"),
    ])
    func invalid(profile: LinkProfile, named: String) {
        #expect {
            try profile.validate()
        } throws: { error in
            "\(error)".contains(named)
        }
    }

    @Test("rates written as decimals that add up to exactly 1 are accepted")
    func ratesAddingToOne() throws {
        try LinkProfile(failRate: 0.7, resetRate: 0.2, truncateRate: 0.1).validate()
    }

    @Test("a profile round-trips through JSON with units in its keys, and missing keys take defaults")
    func coding() throws {
        var profile = LinkProfile.lossy
        profile.bandwidth = 125_000
        profile.seed = 7
        profile.faultsOnPlaylists = false
        let data = try JSONEncoder().encode(profile)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["latencyMilliseconds"] as? Double == 40)
        #expect(object["bandwidthBytesPerSecond"] as? Int == 125_000)
        #expect(try JSONDecoder().decode(LinkProfile.self, from: data) == profile)
        let partial = try JSONDecoder().decode(LinkProfile.self, from: Data(#"{"failRate": 0.1}"#.utf8))
        #expect(partial == LinkProfile(failRate: 0.1))
    }

    @Test("the description reads as one line for people")
    func description() {
        #expect(LinkProfile.lossy.description
            == "latency 40 ms, bandwidth unlimited, 503s 5% (Retry-After 1 s), resets 2%, truncations 2%, seed 0")
        #expect(LinkProfile.threeG.description.hasPrefix("latency 100 ms, bandwidth 780 kbit/s per connection,"))
    }
}
