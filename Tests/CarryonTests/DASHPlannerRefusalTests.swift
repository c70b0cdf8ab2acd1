@testable import Carryon
import CarryonTestSupport
import DASH
import Foundation
import HLS
import Testing

@Suite("Planning DASH streams: refusals and content keys")
struct DASHPlannerRefusalTests {
    @Test("a dynamic (live) MPD is refused before anything is planned")
    func dynamic() async {
        let error = await DASHPlanFixture.failure(DASHPlanFixture.single().replacingOccurrences(of: "type=\"static\"", with: "type=\"dynamic\""))
        #expect(error?.code == .unsupported)
        #expect(error?.message.contains("dynamic (live)") == true)
    }

    @Test("text that is not an MPD is a playlist error naming the URL")
    func notAnMPD() async {
        let error = await DASHPlanFixture.failure("<html><body/></html>")
        #expect(error?.code == .playlist)
        #expect(error?.message.hasPrefix(DASHPlanFixture.url) == true && error?.message.contains("<html>") == true)
    }

    @Test("segments that cannot be worked out are refused naming the MPD and the line")
    func unaddressable() async {
        let text = """
            <MPD type="static"><Period id="p1">
            <AdaptationSet contentType="video" mimeType="video/mp4">
            <Representation id="v1" bandwidth="1">
            <SegmentTemplate duration="2" media="$Number$.m4s"/>
            </Representation></AdaptationSet></Period></MPD>
            """
        let error = await DASHPlanFixture.failure(text)
        #expect(error?.code == .playlist)
        #expect(error?.message.contains("\(DASHPlanFixture.url), line 4") == true, "\(String(describing: error))")
    }

    @Test("an MPD read over https naming file: or ftp: media is refused, naming the line and the Representation; nothing is read")
    func refusedLocations() async {
        for base in ["file:///etc/", "ftp://cdn.example/"] {
            let error = await DASHPlanFixture.failure(DASHPlanFixture.single(representationExtra: "<BaseURL>\(base)</BaseURL>"))
            #expect(error?.code == .refusedLocation)
            #expect(error?.message.contains("\(DASHPlanFixture.url), line 5 (Representation v1)") == true, "\(String(describing: error))")
        }
        // A SegmentBase index is refused before it is read.
        let index = DASHPlanFixture.segmentBase(indexRange: "0-99").replacingOccurrences(of: "media/a.mp4", with: "file:///etc/passwd")
        let error = await DASHPlanFixture.failure(index)
        #expect(error?.code == .refusedLocation)
        #expect(error?.message.contains("line 4") == true && error?.message.contains("file:///etc/passwd") == true, "\(String(describing: error))")
    }

    static let kid = "10000000-1000-1000-1000-100000000001"
    static let kidHex = "10000000100010001000100000000001"

    static func protected(_ protections: String, audio: String? = nil) -> String {
        """
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" xmlns:cenc="urn:mpeg:cenc:2013" xmlns:dashif="https://dashif.org/CPS" type="static" mediaPresentationDuration="PT4S">
        <Period id="p1">
        <AdaptationSet contentType="video" mimeType="video/mp4">
        \(protections)
        \(DASHPlanFixture.template(1000, 2000))
        <Representation id="v1" bandwidth="800000" width="640" height="360"/>
        </AdaptationSet>
        <AdaptationSet contentType="audio" lang="en" mimeType="audio/mp4">
        \(audio ?? protections)
        \(DASHPlanFixture.template(1000, 2000))
        <Representation id="a1" bandwidth="64000"/>
        </AdaptationSet>
        </Period>
        </MPD>
        """
    }

    @Test("Clear Key: one key for the KID video and audio share, named by it, asked of the licence URL; the local MPD keeps no licence URL")
    func clearKey() async throws {
        let protections = """
            <ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cenc" cenc:default_KID="\(Self.kid)"/>
            <ContentProtection schemeIdUri="urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e"><dashif:Laurl>../licence/ck</dashif:Laurl></ContentProtection>
            """
        let (plan, _) = try await DASHPlanFixture.plan(Self.protected(protections))
        #expect(plan.keys.count == 1)
        let key = try #require(plan.keys.first)
        #expect(key.id == "kid-\(Self.kidHex)")
        #expect(key.uri == "https://cdn.example/licence/ck")
        #expect(key.method == "cenc")
        #expect(key.keyFormat == "org.w3.clearkey")
        #expect(key.keyID == Self.kid)
        for rendition in ["video", "audio-en"] {
            let text = try plan.localText(rendition)
            #expect(text.contains("METHOD=SAMPLE-AES-CTR") && text.contains("URI=\"../keys/kid-\(Self.kidHex)\""), "\(text)")
        }
        let local = try #require(plan.localManifests["main.mpd"])
        #expect(local.contains(Self.kid))
        #expect(!local.contains("licence/ck"))
    }

    @Test("a DRM system other than Clear Key: the key is its URN's, with its pssh; cbcs is SAMPLE-AES in the HLS playlists")
    func otherSystem() async throws {
        let protections = """
            <ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cbcs" cenc:default_KID="\(Self.kid)"/>
            <ContentProtection schemeIdUri="urn:uuid:EDEF8BA9-79D6-4ACE-A3C8-27DCD51D21ED"><cenc:pssh>AAECAw==</cenc:pssh></ContentProtection>
            """
        let (plan, _) = try await DASHPlanFixture.plan(Self.protected(protections))
        let key = try #require(plan.keys.first)
        #expect(key.uri == "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed")
        #expect(key.keyFormat == "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed")
        #expect(key.method == "cbcs")
        #expect(key.initData == [0, 1, 2, 3])
        #expect(try plan.localText("video").contains("METHOD=SAMPLE-AES,"))
    }

    @Test("video and audio under different KIDs: two keys, each Part under its own")
    func twoKeys() async throws {
        let other = "20000000-2000-2000-2000-200000000002"
        let video = "<ContentProtection schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\" value=\"cenc\" cenc:default_KID=\"\(Self.kid)\"/>"
        let audio = video.replacingOccurrences(of: Self.kid, with: other)
        let (plan, _) = try await DASHPlanFixture.plan(Self.protected(video, audio: audio))
        #expect(plan.keys.map(\.id) == ["kid-\(Self.kidHex)", "kid-20000000200020002000200000000002"])
        #expect(try plan.localText("audio-en").contains("kid-20000000200020002000200000000002"))
        #expect(try !plan.localText("video").contains("kid-2000"))
    }

    @Test("an encrypted Representation without a usable KID is refused, naming the line and the Representation")
    func unusableKID() async {
        let noKID = "<ContentProtection schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\" value=\"cenc\"/>"
        let missing = await DASHPlanFixture.failure(Self.protected(noKID))
        #expect(missing?.code == .unsupported)
        #expect(missing?.message.contains("line 6: Representation v1") == true && missing?.message.contains("default_KID") == true,
                "\(String(describing: missing))")
        let short = "<ContentProtection schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\" value=\"cenc\" cenc:default_KID=\"1234\"/>"
        let malformed = await DASHPlanFixture.failure(Self.protected(short))
        #expect(malformed?.code == .unsupported)
        #expect(malformed?.message.contains("\"1234\"") == true && malformed?.message.contains("16-byte") == true)
    }
}

/// Several Periods and remote elements.
