@testable import Carryon
import HLS
import Testing

/// The `EXT-X-KEY` lines of the HLS playlists Carryon writes for an encrypted DASH asset: each
/// Part says how it is encrypted, and where the playback server gives the key.
@Suite("The HLS key tags of an encrypted DASH asset")
struct DASHKeyTagTests {
    static func key(_ id: String, scheme: String) -> DownloadPlan.PlannedKey {
        DownloadPlan.PlannedKey(id: id, uri: "https://licence.example/", method: scheme, keyFormat: "org.w3.clearkey", keyFormatVersions: nil)
    }

    @Test("common encryption's cenc scheme is SAMPLE-AES-CTR, cbcs is SAMPLE-AES; the key's raw bytes are at the playback server's keys/<id>")
    func methods() throws {
        let cenc = try #require(DASHPlan.keyTag(for: Self.key("kid-01", scheme: "cenc"), after: nil))
        #expect(cenc == Key(method: .sampleAESCTR, uri: "../keys/kid-01", keyFormat: "identity"))
        let cbcs = try #require(DASHPlan.keyTag(for: Self.key("kid-02", scheme: "cbcs"), after: nil))
        #expect(cbcs.method == .sampleAES && cbcs.uri == "../keys/kid-02")
    }

    @Test("a Part under the same key as the one before adds no tag; another key does; a clear Part after an encrypted one says NONE")
    func betweenParts() {
        let first = Self.key("kid-01", scheme: "cenc"), second = Self.key("kid-02", scheme: "cenc")
        #expect(DASHPlan.keyTag(for: first, after: first) == nil)
        #expect(DASHPlan.keyTag(for: second, after: first)?.uri == "../keys/kid-02")
        #expect(DASHPlan.keyTag(for: nil, after: first) == Key(method: .none))
        #expect(DASHPlan.keyTag(for: nil, after: nil) == nil)
    }
}
