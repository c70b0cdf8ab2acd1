import HLS
import Testing

/// Each media playlist tag and attribute is decoded into its typed value.
@Suite("Media playlist tags")
struct MediaTagTests {
    // MARK: Media segment tags

    @Test func extinfDecodesDurationAndTitle() throws {
        #expect(try parseTag("#EXTINF:9.009,Opening titles, part 1") == .inf(Inf(duration: 9.009, title: "Opening titles, part 1")))
    }

    @Test func extinfWithoutTitleHasAnEmptyTitle() throws {
        #expect(try parseTag("#EXTINF:10,") == .inf(Inf(duration: 10, title: "")))
    }

    @Test func extinfWithoutCommaIsAWarning() throws {
        #expect(try parseTag("#EXTINF:10") == .inf(Inf(duration: 10)))
        #expect(try warnings(parsing: "#EXTINF:10").map(\.line) == [2])
    }

    @Test func byteRangeWithOffset() throws {
        #expect(try parseTag("#EXT-X-BYTERANGE:75232@1024") == .byteRange(ByteRange(length: 75232, offset: 1024)))
    }

    @Test func byteRangeWithoutOffset() throws {
        #expect(try parseTag("#EXT-X-BYTERANGE:82112") == .byteRange(ByteRange(length: 82112, offset: nil)))
    }

    @Test func discontinuityTakesNoValue() throws {
        #expect(try parseTag("#EXT-X-DISCONTINUITY") == .discontinuity)
    }

    @Test func keyDecodesEveryAttribute() throws {
        let tag = try parseTag(
            #"#EXT-X-KEY:METHOD=AES-128,URI="https://priv.example.com/key.php?r=52",IV=0X00000000000000000000000000001E72,KEYFORMAT="identity",KEYFORMATVERSIONS="1""#)
        var iv = [UInt8](repeating: 0, count: 16)
        iv[14] = 0x1E
        iv[15] = 0x72
        #expect(tag == .key(Key(method: .aes128, uri: "https://priv.example.com/key.php?r=52",
                                iv: HexSequence(bytes: iv), keyFormat: "identity", keyFormatVersions: "1")))
    }

    @Test(arguments: [("NONE", KeyMethod.none), ("AES-128", .aes128), ("SAMPLE-AES", .sampleAES), ("SAMPLE-AES-CTR", .sampleAESCTR)])
    func keyMethods(text: String, method: KeyMethod) throws {
        let uri = method == .none ? "" : #",URI="k""#
        guard case .key(let key) = try parseTag("#EXT-X-KEY:METHOD=\(text)\(uri)") else { Issue.record("not a key"); return }
        #expect(key.method == method)
        #expect(key.effectiveKeyFormat == "identity")
    }

    @Test func keyWithoutURIIsAnError() {
        expectPlaylistError(.missingValue, line: 2) { _ = try parseTag("#EXT-X-KEY:METHOD=AES-128") }
    }

    @Test func keyIVLongerThan128BitsIsAnError() {
        expectPlaylistError(.invalidValue, line: 2) {
            _ = try parseTag(#"#EXT-X-KEY:METHOD=AES-128,URI="k",IV=0x000102030405060708090A0B0C0D0E0F10"#)
        }
    }

    @Test func mapDecodesURIAndByteRange() throws {
        #expect(try parseTag(#"#EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0""#)
            == .map(Map(uri: "init.mp4", byteRange: ByteRange(length: 720, offset: 0))))
        #expect(try parseTag(#"#EXT-X-MAP:URI="init.mp4""#) == .map(Map(uri: "init.mp4")))
    }

    @Test func programDateTimeDecodesTheInstant() throws {
        guard case .programDateTime(let date) = try parseTag("#EXT-X-PROGRAM-DATE-TIME:2010-02-19T14:54:23.031+08:00") else {
            Issue.record("not a date"); return
        }
        #expect(date.text == "2010-02-19T14:54:23.031+08:00")
        #expect(abs(date.secondsSince1970 - 1_266_562_463.031) < 1e-6)
    }

    @Test func gapTakesNoValue() throws {
        #expect(try parseTag("#EXT-X-GAP") == .gap)
    }

    @Test func bitrateIsAnInteger() throws {
        #expect(try parseTag("#EXT-X-BITRATE:5000") == .bitrate(5000))
    }

    @Test func partDecodesEveryAttribute() throws {
        #expect(try parseTag(#"#EXT-X-PART:DURATION=0.33334,URI="p.mp4",INDEPENDENT=YES,BYTERANGE="1000@2000",GAP=YES"#)
            == .part(Part(uri: "p.mp4", duration: 0.33334, independent: true,
                          byteRange: ByteRange(length: 1000, offset: 2000), gap: true)))
    }

    @Test func partDefaults() throws {
        #expect(try parseTag(#"#EXT-X-PART:DURATION=1,URI="p.mp4""#) == .part(Part(uri: "p.mp4", duration: 1)))
    }

    @Test func partRequiresDurationAndURI() {
        expectPlaylistError(.missingValue, line: 2) { _ = try parseTag(#"#EXT-X-PART:URI="p.mp4""#) }
        expectPlaylistError(.missingValue, line: 2) { _ = try parseTag("#EXT-X-PART:DURATION=1") }
    }

    // MARK: Media playlist tags

    @Test func targetDurationIsAnInteger() throws {
        #expect(try parseTag("#EXT-X-TARGETDURATION:10") == .targetDuration(10))
    }

    @Test func fractionalTargetDurationIsRoundedUpWithAWarning() throws {
        #expect(try parseTag("#EXT-X-TARGETDURATION:9.5") == .targetDuration(10))
        #expect(try warnings(parsing: "#EXT-X-TARGETDURATION:9.5").map(\.line) == [2])
    }

    @Test func mediaSequenceAndDiscontinuitySequence() throws {
        #expect(try parseTag("#EXT-X-MEDIA-SEQUENCE:2680") == .mediaSequence(2680))
        #expect(try parseTag("#EXT-X-DISCONTINUITY-SEQUENCE:7") == .discontinuitySequence(7))
    }

    @Test func endListAndIFramesOnlyTakeNoValue() throws {
        #expect(try parseTag("#EXT-X-ENDLIST") == .endList)
        #expect(try parseTag("#EXT-X-I-FRAMES-ONLY") == .iFramesOnly)
    }

    @Test func valueOnAValuelessTagIsIgnoredWithAWarning() throws {
        #expect(try parseTag("#EXT-X-ENDLIST:YES") == .endList)
        #expect(try warnings(parsing: "#EXT-X-ENDLIST:YES").map(\.line) == [2])
    }

    @Test(arguments: [("VOD", PlaylistType.vod), ("EVENT", .event)])
    func playlistTypes(text: String, type: PlaylistType) throws {
        #expect(try parseTag("#EXT-X-PLAYLIST-TYPE:\(text)") == .playlistType(type))
    }

    @Test func partInfDecodesPartTarget() throws {
        #expect(try parseTag("#EXT-X-PART-INF:PART-TARGET=0.33334") == .partInf(PartInf(partTarget: 0.33334)))
    }

    @Test func serverControlDecodesEveryAttribute() throws {
        #expect(try parseTag("#EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL=36,CAN-SKIP-DATERANGES=YES,HOLD-BACK=12.5,PART-HOLD-BACK=1.2,CAN-BLOCK-RELOAD=YES")
            == .serverControl(ServerControl(canSkipUntil: 36, canSkipDateRanges: true, holdBack: 12.5,
                                            partHoldBack: 1.2, canBlockReload: true)))
    }

    @Test func serverControlFlagsDefaultToNo() throws {
        #expect(try parseTag("#EXT-X-SERVER-CONTROL:HOLD-BACK=9,CAN-BLOCK-RELOAD=NO")
            == .serverControl(ServerControl(holdBack: 9)))
    }

    // MARK: Media metadata tags

    @Test func dateRangeDecodesEveryAttribute() throws {
        let tag = try parseTag(
            #"#EXT-X-DATERANGE:ID="splice-6FFFFFF0",CLASS="com.example.ad",START-DATE="2014-03-05T11:15:00Z",CUE="PRE,ONCE",END-DATE="2014-03-05T11:16:00Z",DURATION=60.000,PLANNED-DURATION=59.993,SCTE35-CMD=0xFC01,SCTE35-OUT=0xFC002F0000000000FF000014056FFFFFF000E011622DCAFF000052636200000000000A0008029896F50000008700000000,SCTE35-IN=0xFC02,END-ON-NEXT=YES"#)
        guard case .dateRange(let range) = tag else { Issue.record("not a date range"); return }
        #expect(range.id == "splice-6FFFFFF0")
        #expect(range.class == "com.example.ad")
        #expect(range.startDate == DateTime("2014-03-05T11:15:00Z"))
        #expect(range.cue == "PRE,ONCE")
        #expect(range.endDate == DateTime("2014-03-05T11:16:00Z"))
        #expect(range.duration == 60)
        #expect(range.plannedDuration == 59.993)
        #expect(range.scte35Command == HexSequence(bytes: [0xFC, 0x01]))
        #expect(range.scte35Out?.bytes.count == 49)
        #expect(range.scte35Out?.bytes.prefix(3) == [0xFC, 0x00, 0x2F])
        #expect(range.scte35In == HexSequence(bytes: [0xFC, 0x02]))
        #expect(range.endOnNext)
        #expect(range.otherAttributes.isEmpty)
    }

    @Test func dateRangeKeepsClientAttributesInOrderWithoutWarnings() throws {
        let line = #"#EXT-X-DATERANGE:ID="ad",START-DATE="2024-05-01T10:00:00Z",X-AD-ID="1234",X-POSITION=2.5,X-DATA=0xABCD"#
        guard case .dateRange(let range) = try parseTag(line) else { Issue.record("not a date range"); return }
        #expect(range.clientAttributes == [
            Attribute(name: "X-AD-ID", value: .quoted("1234")),
            Attribute(name: "X-POSITION", value: .token("2.5")),
            Attribute(name: "X-DATA", value: .token("0xABCD")),
        ])
        #expect(try warnings(parsing: line).isEmpty)
    }

    @Test func dateRangeEndOnNextRequiresClass() {
        expectPlaylistError(.missingValue, line: 2) {
            _ = try parseTag(#"#EXT-X-DATERANGE:ID="a",START-DATE="2024-05-01T10:00:00Z",END-ON-NEXT=YES"#)
        }
    }

    @Test func dateRangeEndingBeforeItStartsIsAnError() {
        expectPlaylistError(.invalidValue, line: 2) {
            _ = try parseTag(#"#EXT-X-DATERANGE:ID="a",START-DATE="2024-05-01T10:00:00Z",END-DATE="2024-05-01T09:59:59Z""#)
        }
    }

    @Test func skipDecodesCountAndRemovedDateRanges() throws {
        #expect(try parseTag("#EXT-X-SKIP:SKIPPED-SEGMENTS=3,RECENTLY-REMOVED-DATERANGES=\"splice-1\tsplice-2\"")
            == .skip(Skip(skippedSegments: 3, recentlyRemovedDateRanges: ["splice-1", "splice-2"])))
        #expect(try parseTag("#EXT-X-SKIP:SKIPPED-SEGMENTS=12") == .skip(Skip(skippedSegments: 12)))
    }

    @Test func preloadHintDecodesEveryAttribute() throws {
        #expect(try parseTag(#"#EXT-X-PRELOAD-HINT:TYPE=PART,URI="p.mp4",BYTERANGE-START=2200,BYTERANGE-LENGTH=1000"#)
            == .preloadHint(PreloadHint(type: .part, uri: "p.mp4", byteRangeStart: 2200, byteRangeLength: 1000)))
        #expect(try parseTag(#"#EXT-X-PRELOAD-HINT:TYPE=MAP,URI="init.mp4""#)
            == .preloadHint(PreloadHint(type: .map, uri: "init.mp4")))
    }

    @Test func renditionReportDecodesEveryAttribute() throws {
        #expect(try parseTag(#"#EXT-X-RENDITION-REPORT:URI="../1M/w.m3u8",LAST-MSN=273,LAST-PART=2"#)
            == .renditionReport(RenditionReport(uri: "../1M/w.m3u8", lastMediaSequence: 273, lastPart: 2)))
    }

    // MARK: The fixture with every segment tag, resolved

    @Test func everySegmentTagFixtureResolvesPlaylistValues() throws {
        let playlist = try media(try Fixture.text("media-every-segment-tag"))
        #expect(playlist.version == 7)
        #expect(playlist.targetDuration == 6)
        #expect(playlist.mediaSequence == 100)
        #expect(playlist.discontinuitySequence == 3)
        #expect(playlist.playlistType == .vod)
        #expect(playlist.presentation == .vod)
        #expect(playlist.hasEndList)
        #expect(playlist.independentSegments)
        #expect(playlist.start == Start(timeOffset: 10, precise: false))
        #expect(playlist.segments.count == 5)
        #expect(abs(playlist.duration - 27.756) < 1e-9)
        #expect(playlist.dateRanges.map(\.id) == ["ad-1", "ad-1-in"])
        #expect(playlist.warnings.isEmpty, "\(playlist.warnings)")
    }

    @Test func everySegmentTagFixtureResolvesEachSegment() throws {
        let segments = try media(try Fixture.text("media-every-segment-tag")).segments
        #expect(segments.map(\.uri) == [
            "https://cdn.example.com/vod/segment-100.mp4",
            "https://cdn.example.com/vod/main.mp4",
            "https://cdn.example.com/vod/main.mp4",
            "https://cdn.example.com/vod/segment-103.mp4",
            "https://cdn.example.net/other/segment-104.mp4",
        ])
        #expect(segments.map(\.mediaSequence) == [100, 101, 102, 103, 104])
        #expect(segments.map(\.discontinuitySequence) == [3, 3, 3, 4, 4])
        #expect(segments.map(\.discontinuity) == [false, false, false, true, false])
        #expect(segments.map(\.isGap) == [false, false, false, true, false])
        #expect(segments.map(\.title) == ["Opening titles", "", "", "", ""])
        #expect(segments.map(\.byteRange) == [nil, ResolvedByteRange(offset: 720, length: 1000),
                                               ResolvedByteRange(offset: 1720, length: 2000), nil, nil])
        #expect(segments.map(\.bitrate) == [5000, nil, nil, 5000, 5000])
        #expect(segments.map(\.programDateTime) == [DateTime("2024-05-01T10:00:00.000Z"), nil, nil, nil, nil])
        for (segment, expected) in zip(segments, [0, 6.006, 12.006, 17.506, 23.506]) {
            #expect(abs(segment.startTime - expected) < 1e-9)
        }
        #expect(segments.map(\.line) == [15, 18, 21, 27, 30])
    }

    @Test func everySegmentTagFixtureCarriesKeysAndInitSections() throws {
        let segments = try media(try Fixture.text("media-every-segment-tag")).segments
        #expect(segments.map(\.keys.count) == [1, 1, 1, 0, 0])
        let key = try #require(segments[0].key)
        #expect(key.method == .sampleAES)
        #expect(key.uri == "skd://key-1")
        #expect(key.keyFormat == "com.apple.streamingkeydelivery")
        #expect(key.keyFormatVersions == "1")
        #expect(key.line == 10)
        #expect(segments.map { $0.initSection?.uri } == Array(repeating: "https://cdn.example.com/vod/init-a.mp4", count: 3)
            + Array(repeating: "https://cdn.example.com/vod/init-b.mp4", count: 2))
        #expect(segments[0].initSection?.byteRange == ResolvedByteRange(offset: 0, length: 720))
        // The first EXT-X-MAP stands before the first EXT-X-KEY, so it is in the clear.
        #expect(segments[0].initSection?.keys == [])
        #expect(segments[3].initSection?.byteRange == nil)
        #expect(segments[3].initSection?.line == 23)
    }

    @Test func lowLatencyFixtureResolvesPartsHintsAndReports() throws {
        let playlist = try media(try Fixture.text("media-low-latency"), url: "https://ll.example.com/2M/live.m3u8")
        #expect(playlist.presentation == .live)
        #expect(playlist.serverControl == ServerControl(canSkipUntil: 24, canSkipDateRanges: true, holdBack: 12,
                                                        partHoldBack: 1, canBlockReload: true))
        #expect(playlist.partInf == PartInf(partTarget: 0.33334))
        #expect(playlist.skip == Skip(skippedSegments: 3, recentlyRemovedDateRanges: ["splice-1", "splice-2"]))
        #expect(playlist.mediaSequence == 266)
        #expect(playlist.segments.map(\.mediaSequence) == [269, 270])
        #expect(playlist.segments[0].parts.isEmpty)
        #expect(playlist.segments[1].parts.map(\.uri) == [
            "https://ll.example.com/2M/filePart270.0.mp4",
            "https://ll.example.com/2M/filePart270.1.mp4",
            "https://ll.example.com/2M/filePart270.2.mp4",
        ])
        #expect(playlist.segments[1].parts.map(\.independent) == [true, false, false])
        #expect(playlist.segments[1].parts.map(\.isGap) == [false, false, true])
        #expect(playlist.trailingParts.map(\.byteRange) == [ResolvedByteRange(offset: 0, length: 1000),
                                                            ResolvedByteRange(offset: 1000, length: 1200)])
        #expect(playlist.preloadHints == [
            PreloadHint(type: .part, uri: "https://ll.example.com/2M/filePart271.mp4", byteRangeStart: 2200, byteRangeLength: 1000),
            PreloadHint(type: .map, uri: "https://ll.example.com/2M/init-next.mp4"),
        ])
        #expect(playlist.renditionReports == [
            RenditionReport(uri: "https://ll.example.com/1M/waitForMSN.php", lastMediaSequence: 271, lastPart: 2),
            RenditionReport(uri: "https://ll.example.com/4M/waitForMSN.php", lastMediaSequence: 271, lastPart: 1),
        ])
        #expect(playlist.warnings.isEmpty, "\(playlist.warnings)")
    }

    @Test func iFramesOnlyAndEventPlaylist() throws {
        let playlist = try media("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:EVENT\n#EXT-X-I-FRAMES-ONLY\n#EXTINF:2,\na.ts\n")
        #expect(playlist.iFramesOnly)
        #expect(playlist.playlistType == .event)
        #expect(playlist.presentation == .event)
    }

    @Test func segmentLongerThanTargetDurationIsAWarning() throws {
        let playlist = try media("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4.4,\na.ts\n#EXTINF:4.6,\nb.ts\n")
        #expect(playlist.warnings.map(\.line) == [6])
    }
}
