import HLS
import Testing

/// Each multivariant playlist tag and attribute is decoded into its typed value.
@Suite("Multivariant playlist tags")
struct MultivariantTagTests {
    // MARK: EXT-X-STREAM-INF

    @Test func streamInfDecodesEveryAttribute() throws {
        let tag = try parseTag(
            #"#EXT-X-STREAM-INF:BANDWIDTH=7680000,AVERAGE-BANDWIDTH=6000000,SCORE=2.5,CODECS="avc1.640028,ec-3",SUPPLEMENTAL-CODECS="dvh1.08.07/db4h",RESOLUTION=1920x1080,FRAME-RATE=59.940,HDCP-LEVEL=TYPE-1,ALLOWED-CPC="com.example.drm1:SMART-TV/PC",VIDEO-RANGE=PQ,REQ-VIDEO-LAYOUT="CH-STEREO,CH-MONO",STABLE-VARIANT-ID="hd-1080",AUDIO="aud",VIDEO="cam",SUBTITLES="subs",CLOSED-CAPTIONS="cc",PATHWAY-ID="CDN-A""#)
        guard case .streamInf(let stream) = tag else { Issue.record("not EXT-X-STREAM-INF: \(tag)"); return }
        #expect(stream.bandwidth == 7_680_000)
        #expect(stream.averageBandwidth == 6_000_000)
        #expect(stream.score == 2.5)
        #expect(stream.codecs == "avc1.640028,ec-3")
        #expect(stream.supplementalCodecs == "dvh1.08.07/db4h")
        #expect(stream.resolution == Resolution(width: 1920, height: 1080))
        #expect(stream.frameRate == 59.94)
        #expect(stream.hdcpLevel == .type1)
        #expect(stream.allowedCPC == "com.example.drm1:SMART-TV/PC")
        #expect(stream.videoRange == .pq)
        #expect(stream.requiredVideoLayout == "CH-STEREO,CH-MONO")
        #expect(stream.stableVariantID == "hd-1080")
        #expect(stream.audio == "aud")
        #expect(stream.video == "cam")
        #expect(stream.subtitles == "subs")
        #expect(stream.closedCaptions == .group("cc"))
        #expect(stream.pathwayID == "CDN-A")
        #expect(stream.uri == nil)
        #expect(stream.otherAttributes.isEmpty)
    }

    @Test func streamInfNeedsOnlyBandwidth() throws {
        let tag = try parseTag("#EXT-X-STREAM-INF:BANDWIDTH=65000")
        #expect(tag == .streamInf(StreamInf(bandwidth: 65000)))
    }

    @Test func closedCaptionsNoneIsAnEnumeratedString() throws {
        let tag = try parseTag("#EXT-X-STREAM-INF:BANDWIDTH=1,CLOSED-CAPTIONS=NONE")
        guard case .streamInf(let stream) = tag else { Issue.record("\(tag)"); return }
        #expect(stream.closedCaptions == StreamInf.ClosedCaptions.none)
    }

    @Test func closedCaptionsQuotedNoneIsAGroupNamedNone() throws {
        let tag = try parseTag(#"#EXT-X-STREAM-INF:BANDWIDTH=1,CLOSED-CAPTIONS="NONE""#)
        guard case .streamInf(let stream) = tag else { Issue.record("\(tag)"); return }
        #expect(stream.closedCaptions == .group("NONE"))
    }

    @Test func closedCaptionsOtherTokenIsAnError() {
        expectPlaylistError(.invalidValue, line: 2) {
            _ = try parseTag("#EXT-X-STREAM-INF:BANDWIDTH=1,CLOSED-CAPTIONS=cc", options: .strict)
        }
    }

    @Test(arguments: [("TYPE-0", HDCPLevel.type0), ("TYPE-1", .type1), ("NONE", .none)])
    func hdcpLevelValues(text: String, level: HDCPLevel) throws {
        let tag = try parseTag("#EXT-X-STREAM-INF:BANDWIDTH=1,HDCP-LEVEL=\(text)")
        guard case .streamInf(let stream) = tag else { Issue.record("\(tag)"); return }
        #expect(stream.hdcpLevel == level)
    }

    @Test(arguments: [("SDR", VideoRange.sdr, false), ("HLG", .hlg, true), ("PQ", .pq, true)])
    func videoRangeValues(text: String, range: VideoRange, isHDR: Bool) throws {
        let tag = try parseTag("#EXT-X-STREAM-INF:BANDWIDTH=1,VIDEO-RANGE=\(text)")
        guard case .streamInf(let stream) = tag else { Issue.record("\(tag)"); return }
        #expect(stream.videoRange == range)
        #expect(stream.videoRange?.isHDR == isHDR)
    }

    @Test func unknownVideoRangeIsKeptAsWritten() throws {
        let tag = try parseTag("#EXT-X-STREAM-INF:BANDWIDTH=1,VIDEO-RANGE=HDR10PLUS")
        guard case .streamInf(let stream) = tag else { Issue.record("\(tag)"); return }
        #expect(stream.videoRange?.rawValue == "HDR10PLUS")
        #expect(stream.videoRange?.isHDR == false)
    }

    @Test func programIDIsKeptWithoutWarning() throws {
        let parsed = try Playlist.parse("#EXTM3U\n#EXT-X-STREAM-INF:PROGRAM-ID=1,BANDWIDTH=1\nv.m3u8\n")
        guard case .streamInf(let stream) = parsed.playlist.lines[1].tag else { Issue.record("not a stream"); return }
        #expect(stream.otherAttributes == [Attribute(name: "PROGRAM-ID", value: .token("1"))])
        #expect(parsed.warnings.isEmpty)
    }

    @Test func frameRateAndScoreAcceptIntegers() throws {
        let tag = try parseTag("#EXT-X-STREAM-INF:BANDWIDTH=1,FRAME-RATE=30,SCORE=3")
        guard case .streamInf(let stream) = tag else { Issue.record("\(tag)"); return }
        #expect(stream.frameRate == 30)
        #expect(stream.score == 3)
    }

    // MARK: EXT-X-I-FRAME-STREAM-INF

    @Test func iFrameStreamInfDecodesItsAttributesAndURI() throws {
        let tag = try parseTag(
            #"#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=550000,AVERAGE-BANDWIDTH=500000,CODECS="avc1.640028",RESOLUTION=1920x1080,HDCP-LEVEL=TYPE-1,VIDEO-RANGE=PQ,STABLE-VARIANT-ID="if-1",VIDEO="cam",PATHWAY-ID="B",URI="iframes.m3u8""#)
        #expect(tag == .iFrameStreamInf(StreamInf(
            bandwidth: 550_000, averageBandwidth: 500_000, codecs: "avc1.640028",
            resolution: Resolution(width: 1920, height: 1080), hdcpLevel: .type1, videoRange: .pq,
            stableVariantID: "if-1", video: "cam", pathwayID: "B", uri: "iframes.m3u8")))
    }

    @Test func iFrameStreamInfRequiresURI() {
        expectPlaylistError(.missingValue, line: 2) {
            _ = try parseTag("#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=86000")
        }
    }

    // MARK: EXT-X-MEDIA

    @Test func mediaDecodesEveryAttribute() throws {
        let tag = try parseTag(
            #"#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Deutsch",LANGUAGE="de",ASSOC-LANGUAGE="en",STABLE-RENDITION-ID="de-1",DEFAULT=YES,AUTOSELECT=YES,FORCED=YES,CHARACTERISTICS="public.accessibility.transcribes-spoken-dialog,public.easy-to-read",URI="subs/de.m3u8""#)
        #expect(tag == .media(Rendition(
            type: .subtitles, uri: "subs/de.m3u8", groupID: "subs", language: "de", assocLanguage: "en",
            name: "Deutsch", stableRenditionID: "de-1", isDefault: true, autoselect: true, forced: true,
            characteristics: "public.accessibility.transcribes-spoken-dialog,public.easy-to-read")))
    }

    @Test func mediaDecodesAudioAttributes() throws {
        let tag = try parseTag(
            #"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",BIT-DEPTH=24,SAMPLE-RATE=48000,CHANNELS="6/JOC",URI="en.m3u8""#)
        guard case .media(let rendition) = tag else { Issue.record("\(tag)"); return }
        #expect(rendition.type == .audio)
        #expect(rendition.bitDepth == 24)
        #expect(rendition.sampleRate == 48000)
        #expect(rendition.channels == "6/JOC")
        #expect(rendition.channelCount == 6)
        #expect(rendition.isDefault == false)
        #expect(rendition.autoselect == false)
        #expect(rendition.forced == false)
    }

    @Test func mediaDecodesClosedCaptionsInstreamID() throws {
        let tag = try parseTag(#"#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="English",INSTREAM-ID="SERVICE7""#)
        #expect(tag == .media(Rendition(type: .closedCaptions, groupID: "cc", name: "English", instreamID: "SERVICE7")))
    }

    @Test func mediaDecodesVideoType() throws {
        let tag = try parseTag(#"#EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID="cam",NAME="Angle 2",URI="a2.m3u8""#)
        #expect(tag == .media(Rendition(type: .video, uri: "a2.m3u8", groupID: "cam", name: "Angle 2")))
    }

    @Test func subtitlesRenditionRequiresURI() {
        expectPlaylistError(.missingValue, line: 2) {
            _ = try parseTag(#"#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="s",NAME="English""#)
        }
    }

    @Test func closedCaptionsRenditionRequiresInstreamID() {
        expectPlaylistError(.missingValue, line: 2) {
            _ = try parseTag(#"#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="English""#)
        }
    }

    @Test func unknownMediaTypeIsAnError() {
        expectPlaylistError(.invalidValue, line: 2) {
            _ = try parseTag(#"#EXT-X-MEDIA:TYPE=HOLOGRAM,GROUP-ID="h",NAME="Main""#)
        }
    }

    @Test func defaultWithoutAutoselectIsAWarning() throws {
        let found = try warnings(parsing: #"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="Main",DEFAULT=YES,AUTOSELECT=NO"#)
        #expect(found.count == 1)
        #expect(found.first?.line == 2)
    }

    // MARK: EXT-X-SESSION-DATA

    @Test func sessionDataWithValueAndLanguage() throws {
        let tag = try parseTag(#"#EXT-X-SESSION-DATA:DATA-ID="com.example.title",VALUE="Example Movie",LANGUAGE="en""#)
        #expect(tag == .sessionData(SessionData(dataID: "com.example.title", value: "Example Movie", language: "en")))
    }

    @Test(arguments: [("JSON", SessionDataFormat.json), ("RAW", .raw)])
    func sessionDataWithURIAndFormat(text: String, format: SessionDataFormat) throws {
        let tag = try parseTag(#"#EXT-X-SESSION-DATA:DATA-ID="com.example.lyrics",URI="lyrics.bin",FORMAT="# + text)
        #expect(tag == .sessionData(SessionData(dataID: "com.example.lyrics", uri: "lyrics.bin", format: format)))
    }

    @Test func sessionDataNeedsExactlyOneOfValueAndURI() {
        expectPlaylistError(.invalidValue, line: 2) {
            _ = try parseTag(#"#EXT-X-SESSION-DATA:DATA-ID="a",VALUE="v",URI="u""#)
        }
        expectPlaylistError(.invalidValue, line: 2) {
            _ = try parseTag(#"#EXT-X-SESSION-DATA:DATA-ID="a""#)
        }
    }

    // MARK: EXT-X-SESSION-KEY

    @Test func sessionKeyDecodesLikeAKey() throws {
        let tag = try parseTag(
            #"#EXT-X-SESSION-KEY:METHOD=SAMPLE-AES,URI="skd://key-1",IV=0x0123456789abcdef0123456789ABCDEF,KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1/2""#)
        #expect(tag == .sessionKey(Key(
            method: .sampleAES, uri: "skd://key-1",
            iv: HexSequence(bytes: [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF]),
            keyFormat: "com.apple.streamingkeydelivery", keyFormatVersions: "1/2")))
    }

    @Test func sessionKeyMustNotBeMethodNone() {
        expectPlaylistError(.invalidValue, line: 2) {
            _ = try parseTag("#EXT-X-SESSION-KEY:METHOD=NONE")
        }
    }

    // MARK: EXT-X-CONTENT-STEERING

    @Test func contentSteeringDecodesServerURIAndPathway() throws {
        let tag = try parseTag(#"#EXT-X-CONTENT-STEERING:SERVER-URI="https://steer.example/m.json",PATHWAY-ID="CDN-A""#)
        #expect(tag == .contentSteering(ContentSteering(serverURI: "https://steer.example/m.json", pathwayID: "CDN-A")))
    }

    @Test func contentSteeringRequiresServerURI() {
        expectPlaylistError(.missingValue, line: 2) {
            _ = try parseTag(#"#EXT-X-CONTENT-STEERING:PATHWAY-ID="CDN-A""#)
        }
    }

    // MARK: The fixture with every attribute, resolved

    @Test func everyAttributeFixtureResolvesWithoutWarnings() throws {
        let main = try multivariant(try Fixture.text("multivariant-every-attribute"))
        #expect(main.warnings.isEmpty, "\(main.warnings)")
        #expect(main.version == 12)
        #expect(main.independentSegments)
        #expect(main.start == Start(timeOffset: -12.5, precise: true))
        #expect(main.variants.count == 3)
        #expect(main.iFrameVariants.count == 1)
        #expect(main.renditions.count == 6)
        #expect(main.sessionData.count == 3)
        #expect(main.sessionKeys.count == 2)
    }

    @Test func everyAttributeFixtureResolvesURIsAgainstThePlaylist() throws {
        let main = try multivariant(try Fixture.text("multivariant-every-attribute"))
        #expect(main.variants.map(\.uri) == [
            "https://cdn.example.com/vod/video/1080p.m3u8",
            "https://cdn.example.com/vod/video/360p.m3u8",
            "https://other.example.net/720p.m3u8",
        ])
        #expect(main.iFrameVariants.map(\.uri) == ["https://cdn.example.com/vod/video/1080p-iframes.m3u8"])
        #expect(main.renditions.compactMap(\.uri) == [
            "https://cdn.example.com/vod/audio/en.m3u8",
            "https://cdn.example.com/vod/audio/en-ad.m3u8",
            "https://cdn.example.com/vod/video/angle2.m3u8",
            "https://cdn.example.com/vod/subs/de-forced.m3u8",
        ])
        #expect(main.sessionData.map(\.uri) == [nil, "https://cdn.example.com/vod/lyrics.json", "https://data.example.org/blob.bin"])
        #expect(main.sessionKeys.map(\.uri) == ["skd://key-1", "https://cdn.example.com/keys/main.key"])
        #expect(main.contentSteering == ContentSteering(serverURI: "https://cdn.example.com/vod/steering/manifest.json", pathwayID: "CDN-A"))
    }

    @Test func everyAttributeFixtureGroupsRenditions() throws {
        let main = try multivariant(try Fixture.text("multivariant-every-attribute"))
        let best = try #require(main.variants.first)
        #expect(main.renditions(ofType: .audio, inGroup: best.audio).map(\.name) == ["English", "English (described)"])
        #expect(main.renditions(ofType: .video, inGroup: best.video).map(\.name) == ["Angle 2"])
        #expect(main.renditions(ofType: .subtitles, inGroup: best.subtitles).map(\.name) == ["Deutsch (forced)"])
        #expect(main.renditions(ofType: .closedCaptions, inGroup: "cc").map(\.instreamID) == ["CC1", "SERVICE7"])
        #expect(main.renditions(ofType: .audio, inGroup: nil).isEmpty)
        #expect(main.variants[1].closedCaptions == StreamInf.ClosedCaptions.none)
        #expect(main.variants.map(\.line) == [20, 22, 24])
    }

    @Test func variantNamingAMissingGroupIsAWarning() throws {
        let main = try multivariant("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,AUDIO=\"nowhere\"\nv.m3u8\n")
        #expect(main.warnings.map(\.line) == [2])
    }

    @Test func uriLineWithoutStreamInfIsIgnoredWithAWarning() throws {
        let main = try multivariant("#EXTM3U\n#EXT-X-INDEPENDENT-SEGMENTS\nstray.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n")
        #expect(main.variants.map(\.uri) == ["https://cdn.example.com/vod/v.m3u8"])
        #expect(main.warnings.map(\.line) == [3])
    }
}
