import DASH
import Testing

/// Reading MPDs: the model, inheritance, lenient recovery with warnings, and what is refused.
@Suite("Reading an MPD")
struct MPDReadingTests {
    static let twoPeriods = """
    <?xml version="1.0" encoding="utf-8"?>
    <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" xmlns:cenc="urn:mpeg:cenc:2013" type="static" mediaPresentationDuration="PT1M0.5S">
      <BaseURL>https://cdn.example/show/</BaseURL>
      <Period id="one" duration="PT30S">
        <BaseURL>p1/</BaseURL>
        <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.64001f" frameRate="30000/1001">
          <SegmentTemplate timescale="90000" media="$RepresentationID$/$Number%05d$.m4s" initialization="$RepresentationID$/init.mp4" duration="180000"/>
          <Representation id="720p" bandwidth="3000000" width="1280" height="720"/>
          <Representation id="1080p" bandwidth="6000000" width="1920" height="1080" codecs="avc1.640028">
            <EssentialProperty schemeIdUri="urn:mpeg:mpegB:cicp:TransferCharacteristics" value="16"/>
          </Representation>
          <Representation id="future" bandwidth="9000000">
            <EssentialProperty schemeIdUri="urn:example:unknown" value="1"/>
          </Representation>
        </AdaptationSet>
        <AdaptationSet contentType="audio" lang="de" mimeType="audio/mp4">
          <Label>Deutsch</Label>
          <Role schemeIdUri="urn:mpeg:dash:role:2011" value="main"/>
          <AudioChannelConfiguration schemeIdUri="urn:mpeg:dash:23003:3:audio_channel_configuration:2011" value="6"/>
          <ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cenc" cenc:default_KID="10000000-1000-1000-1000-100000000001"/>
          <Representation id="de" bandwidth="128000"><BaseURL>audio/de.mp4</BaseURL>
            <SegmentBase indexRange="800-899"><Initialization range="0-799"/></SegmentBase>
          </Representation>
        </AdaptationSet>
      </Period>
      <Period id="two"/>
    </MPD>
    """

    @Test("every level is read, and a Representation inherits what its AdaptationSet declares")
    func modelAndInheritance() throws {
        let mpd = try MPD.read(Array(Self.twoPeriods.utf8))
        #expect(mpd.type == .static)
        #expect(mpd.mediaPresentationDuration == MediaTime(60_500, timescale: 1000))
        #expect(mpd.periods.count == 2 && mpd.periods[0].id == "one")
        let video = mpd.periods[0].adaptationSets[0]
        #expect(video.representations.map(\.id) == ["720p", "1080p"], "an unknown EssentialProperty drops its Representation")
        let hd = mpd.effective(video.representations[0], in: video)
        #expect(hd.mimeType == "video/mp4" && hd.codecs == "avc1.64001f" && hd.frameRate?.description == "30000/1001")
        let fullHD = mpd.effective(video.representations[1], in: video)
        #expect(fullHD.codecs == "avc1.640028" && fullHD.transferCharacteristics == 16)
        let audio = mpd.periods[0].adaptationSets[1]
        #expect(audio.language == "de" && audio.labels == ["Deutsch"] && audio.roles.first?.value == "main")
        #expect(mpd.effective(audio.representations[0], in: audio).channels == 6)
        #expect(audio.common.contentProtections.first?.defaultKID == "10000000-1000-1000-1000-100000000001")
        #expect(mpd.warnings.contains { $0.line == 12 && $0.message.contains("urn:example:unknown") })
    }

    @Test("a dynamic MPD's clock: availabilityStartTime and publishTime (one without a time zone read as UTC, with a warning; one garbled ignored, named), UTCTiming in order; written back")
    func dynamicTiming() throws {
        let mpd = try MPD.read(Array("""
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="dynamic" availabilityStartTime="2026-11-28T06:00:00" publishTime="yesterday" timeShiftBufferDepth="PT30S">
              <UTCTiming schemeIdUri="urn:mpeg:dash:utc:http-xsdate:2014" value="https://time.example/now"/>
              <UTCTiming schemeIdUri="urn:mpeg:dash:utc:direct:2014" value="2026-11-28T06:00:01Z"/>
              <Period id="0" start="PT0S"/>
            </MPD>
            """.utf8))
        #expect(mpd.availabilityStartTime?.secondsSince1970 == 1_795_845_600)
        #expect(mpd.publishTime == nil)
        #expect(mpd.utcTimings.map(\.schemeIdUri) == ["urn:mpeg:dash:utc:http-xsdate:2014", "urn:mpeg:dash:utc:direct:2014"])
        #expect(mpd.warnings.map(\.description) == [
            "line 1: MPD@availabilityStartTime \"2026-11-28T06:00:00\" gives no time zone; read as UTC",
            "line 1: MPD@publishTime \"yesterday\" is not an xs:dateTime; ignored",
        ])
        let written = try MPD.read(Array(mpd.written().utf8))
        #expect(written.type == .dynamic && written.availabilityStartTime?.secondsSince1970 == 1_795_845_600)
        #expect(written.timeShiftBufferDepth?.seconds == 30)
    }

    @Test("Period timing: a Period without @start begins where the one before ends; the last runs to the presentation's end")
    func periodTiming() throws {
        let mpd = try MPD.read(Array(Self.twoPeriods.utf8))
        let timings = mpd.periodTimings
        #expect(timings[0].start == .zero && timings[0].duration?.seconds == 30)
        #expect(timings[1].start.seconds == 30 && timings[1].duration?.seconds == 30.5)
    }

    @Test("BaseURLs chain from the MPD's URL through every level")
    func baseURLChain() throws {
        let mpd = try MPD.read(Array(Self.twoPeriods.utf8))
        let period = mpd.periods[0], audio = period.adaptationSets[1]
        #expect(mpd.baseURL(of: audio.representations[0], in: audio, of: period, mpdURL: "https://origin.example/a/manifest.mpd")
            == "https://cdn.example/show/p1/audio/de.mp4")
    }

    @Test("several BaseURLs at a level are alternative locations: the first chain, then each other choice, deeper levels first; no warning")
    func severalBaseURLs() throws {
        let text = """
            <MPD>
            <BaseURL>https://a.example/</BaseURL>
            <BaseURL>https://b.example/</BaseURL>
            <Period><AdaptationSet><Representation id="v" bandwidth="1"><BaseURL>v/</BaseURL><BaseURL>https://c.example/v/</BaseURL></Representation></AdaptationSet></Period>
            </MPD>
            """
        let mpd = try MPD.read(Array(text.utf8))
        #expect(mpd.baseURLs.map(\.url) == ["https://a.example/", "https://b.example/"])
        #expect(mpd.warnings.isEmpty, "\(mpd.warnings)")
        let period = mpd.periods[0], set = period.adaptationSets[0], representation = set.representations[0]
        #expect(mpd.baseURLs(of: representation, in: set, of: period, mpdURL: "https://origin.example/m.mpd")
            == ["https://a.example/v/", "https://c.example/v/", "https://b.example/v/"])
        #expect(mpd.baseURL(of: representation, in: set, of: period, mpdURL: "https://origin.example/m.mpd") == "https://a.example/v/")
        #expect(mpd.baseURLs(of: representation, in: set, of: period, mpdURL: "https://origin.example/m.mpd", limit: 2).count == 2)
    }

    @Test("a DOCTYPE that declares entities is refused before anything is read: external and expanding alike")
    func entitiesRefused() {
        let external = "<?xml version=\"1.0\"?><!DOCTYPE MPD [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><MPD><BaseURL>&x;</BaseURL></MPD>"
        let laughs = "<!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">]>\n<MPD>&lol2;</MPD>"
        for text in [external, laughs] {
            #expect {
                try MPD.read(Array(text.utf8))
            } throws: { error in
                "\(error)".contains("declares entities")
            }
        }
    }

    @Test("what players read past is read past with a warning naming the line: a mismatched end tag, an unquoted value, an unknown entity")
    func lenient() throws {
        let text = "<MPD type=static>\n<Period>\n<AdaptationSet mimeType=\"video/mp4\">\n<Representation id=\"a\" bandwidth=\"1\">&nbsp;<BaseURL>a.mp4</BaseURL>\n</AdaptationSet>\n</Period>\n</MPD>"
        let mpd = try MPD.read(Array(text.utf8))
        #expect(mpd.periods[0].adaptationSets[0].representations[0].baseURLs.first?.url == "a.mp4")
        #expect(mpd.warnings.contains { $0.line == 1 && $0.message.contains("not quoted") })
        #expect(mpd.warnings.contains { $0.line == 4 && $0.message.contains("&nbsp;") })
        #expect(mpd.warnings.contains { $0.line == 5 && $0.message.contains("<Representation>") })
    }

    @Test("a dynamic MPD is recognised as one; text that is not an MPD says what its root is")
    func dynamicAndNotAnMPD() throws {
        #expect(try MPD.read(Array("<MPD type=\"dynamic\"/>".utf8)).type == .dynamic)
        #expect {
            try MPD.read(Array("<html><body/></html>".utf8))
        } throws: { error in
            "\(error)".contains("<html>")
        }
    }

    @Test("the written MPD reads back to the same model")
    func roundTrip() throws {
        let mpd = try MPD.read(Array(Self.twoPeriods.utf8))
        let again = try MPD.read(Array(mpd.written().utf8))
        #expect(again.mediaPresentationDuration == mpd.mediaPresentationDuration)
        #expect(again.periods[0].adaptationSets[0].representations.map(\.id) == ["720p", "1080p"])
        #expect(again.periods[0].adaptationSets[1].common.contentProtections == mpd.periods[0].adaptationSets[1].common.contentProtections)
        #expect(again.periods[0].adaptationSets[0].segments.template?.media == "$RepresentationID$/$Number%05d$.m4s")
    }

    @Test("ISO 8601 durations are read exactly")
    func durations() throws {
        let mpd = try MPD.read(Array("<MPD mediaPresentationDuration=\"P1DT1H2M3.456789S\" minBufferTime=\"PT1.5S\"/>".utf8))
        let microseconds: Int64 = (86_400 + 3_723) * 1_000_000 + 456_789
        #expect(mpd.mediaPresentationDuration?.converted(to: 1_000_000) == microseconds)
        #expect(mpd.minBufferTime?.converted(to: 10) == 15)
    }
}
