import HLS
import Testing

/// Writing is lossless: unchanged lines come back byte for byte, edited lines in canonical form
/// that reads back to the same value.
@Suite("Round trips")
struct RoundTripTests {
    @Test(arguments: Fixture.all)
    func unchangedFixtureIsWrittenBackByteForByte(name: String) throws {
        let text = try Fixture.text(name)
        #expect(try Playlist(parsing: text).write() == text)
    }

    @Test(arguments: Fixture.all)
    func unchangedFixtureParsedFromBytesIsWrittenBackByteForByte(name: String) throws {
        let bytes = try Fixture.bytes(name)
        #expect(Array(try Playlist.parse(bytes: bytes).playlist.write().utf8) == bytes)
    }

    @Test func fixturesAreFound() {
        #expect(Fixture.all.count >= 10)
    }

    @Test func crlfLineEndsAreWrittenAsLF() throws {
        let text = "#EXTM3U\r\n#EXT-X-TARGETDURATION:10\r\n#EXTINF:9.009,\r\nfirst.ts\r\n"
        let playlist = try Playlist(parsing: text)
        #expect(try playlist.write() == text.replacingOccurrences(of: "\r\n", with: "\n"))
        #expect(playlist.lines[3].content == .uri("first.ts"))
        #expect(playlist == (try Playlist(parsing: text.replacingOccurrences(of: "\r\n", with: "\n"))))
    }

    @Test func mixedLineEndsAreAllWrittenAsLF() throws {
        let playlist = try Playlist(parsing: "#EXTM3U\r\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\r\n")
        #expect(try playlist.write() == "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n")
    }

    @Test func missingFinalNewlineIsKept() throws {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\na.ts"
        let playlist = try Playlist(parsing: text)
        #expect(!playlist.endsWithNewline)
        #expect(try playlist.write() == text)
    }

    @Test func loneCRAfterTheLastLineFeedIsNotALine() throws {
        let playlist = try Playlist(parsing: "#EXTM3U\n#EXT-X-VERSION:3\n\r")
        #expect(playlist.lines.count == 2)
        #expect(playlist.endsWithNewline)
        #expect(try playlist.write() == "#EXTM3U\n#EXT-X-VERSION:3\n")
        #expect(try Playlist(parsing: playlist.write()) == playlist)
    }

    @Test func trailingBlankLinesAreKept() throws {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:10\n\n\n"
        #expect(try Playlist(parsing: text).write() == text)
    }

    @Test func oddSpacingIsKeptOnUnchangedLines() throws {
        let text = "#EXTM3U\n#EXT-X-MAP:URI=\"init.mp4\", BYTERANGE=\"1@0\",\n  \t\n#EXTINF:10.000,title\n  a.ts  \n"
        #expect(try Playlist(parsing: text).write() == text)
    }

    @Test func newPlaylistEndsWithANewline() throws {
        #expect(try Playlist().write() == "#EXTM3U\n")
    }

    // MARK: Edits

    /// Parses `text`, applies `edit`, writes, and checks that the text reads back as the edited
    /// playlist. Returns the written text.
    private func edited(_ text: String, sourceLocation: SourceLocation = #_sourceLocation,
                        _ edit: (inout Playlist) throws -> Void) throws -> String {
        var playlist = try Playlist(parsing: text)
        let original = playlist
        try edit(&playlist)
        #expect(playlist != original, "the edit changed nothing", sourceLocation: sourceLocation)
        let written = try playlist.write()
        #expect(try Playlist(parsing: written) == playlist, sourceLocation: sourceLocation)
        return written
    }

    /// The lines of `text`.
    private func lines(_ text: String) -> [Substring] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    @Test func editedStreamInfIsWrittenCanonicallyAndOtherLinesUnchanged() throws {
        let text = try Fixture.text("multivariant-every-attribute")
        let written = try edited(text) { playlist in
            guard case .streamInf(var stream) = playlist.lines[19].tag else { Issue.record("line 20"); return }
            stream.bandwidth = 8_000_000
            stream.closedCaptions = StreamInf.ClosedCaptions.none
            playlist.lines[19].content = .tag(.streamInf(stream))
        }
        let before = lines(text)
        let after = lines(written)
        #expect(after.count == before.count)
        for index in before.indices where index != 19 {
            #expect(after[index] == before[index])
        }
        #expect(after[19] == #"#EXT-X-STREAM-INF:BANDWIDTH=8000000,AVERAGE-BANDWIDTH=6000000,SCORE=2.5,CODECS="avc1.640028,ec-3",SUPPLEMENTAL-CODECS="dvh1.08.07/db4h",RESOLUTION=1920x1080,FRAME-RATE=59.94,HDCP-LEVEL=TYPE-1,ALLOWED-CPC="com.example.drm1:SMART-TV/PC,com.example.drm2:HW",VIDEO-RANGE=PQ,REQ-VIDEO-LAYOUT="CH-STEREO,CH-MONO",STABLE-VARIANT-ID="hd-1080",AUDIO="aud",VIDEO="cam",SUBTITLES="subs",PATHWAY-ID="CDN-A",CLOSED-CAPTIONS=NONE"#)
    }

    @Test func editedRenditionAndSessionTagsReadBack() throws {
        let written = try edited(try Fixture.text("multivariant-every-attribute")) { playlist in
            for index in playlist.lines.indices {
                switch playlist.lines[index].tag {
                case .media(var rendition)?:
                    rendition.name += " (edited)"
                    rendition.forced.toggle()
                    playlist.lines[index].content = .tag(.media(rendition))
                case .sessionData(var data)?:
                    data.language = "fr"
                    playlist.lines[index].content = .tag(.sessionData(data))
                case .sessionKey(var key)?:
                    key.keyFormatVersions = "1/2/5"
                    playlist.lines[index].content = .tag(.sessionKey(key))
                case .contentSteering(var steering)?:
                    steering.pathwayID = nil
                    playlist.lines[index].content = .tag(.contentSteering(steering))
                case .iFrameStreamInf(var stream)?:
                    stream.resolution = Resolution(width: 3840, height: 2160)
                    playlist.lines[index].content = .tag(.iFrameStreamInf(stream))
                default: break
                }
            }
        }
        #expect(written.contains(#"#EXT-X-CONTENT-STEERING:SERVER-URI="steering/manifest.json""# + "\n"))
        #expect(written.contains(#"#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="Service 7 (edited)",FORCED=YES,INSTREAM-ID="SERVICE7""#))
    }

    @Test func editedMediaSegmentTagsReadBack() throws {
        let written = try edited(try Fixture.text("media-every-segment-tag")) { playlist in
            for index in playlist.lines.indices {
                switch playlist.lines[index].content {
                case .tag(.inf(var inf)):
                    inf.duration *= 2
                    inf.title = "edited, with a comma"
                    playlist.lines[index].content = .tag(.inf(inf))
                case .tag(.byteRange(var range)):
                    range.length += 1
                    playlist.lines[index].content = .tag(.byteRange(range))
                case .tag(.key(var key)) where key.method != .none:
                    key.iv = HexSequence(bytes: Array(repeating: 0xAB, count: 16))
                    playlist.lines[index].content = .tag(.key(key))
                case .tag(.map(var map)):
                    map.uri = "edited-" + map.uri
                    playlist.lines[index].content = .tag(.map(map))
                case .tag(.programDateTime):
                    playlist.lines[index].content = .tag(.programDateTime(DateTime(secondsSince1970: 1_714_557_600.25)))
                case .tag(.dateRange(var range)):
                    range.otherAttributes.append(Attribute(name: "X-EDITED", value: .quoted("yes")))
                    range.plannedDuration = 12.75
                    playlist.lines[index].content = .tag(.dateRange(range))
                case .tag(.bitrate(let value)):
                    playlist.lines[index].content = .tag(.bitrate(value * 2))
                case .uri(let uri):
                    playlist.lines[index].content = .uri("https://mirror.example.org/" + uri)
                default: break
                }
            }
        }
        #expect(written.contains("#EXT-X-PROGRAM-DATE-TIME:2024-05-01T10:00:00.250Z\n"))
        #expect(written.contains("#EXT-X-BITRATE:10000\n"))
        #expect(written.contains("#EXTINF:12.012,edited, with a comma\n"))
        #expect(written.contains(#"#EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://key-1",IV=0xABABABABABABABABABABABABABABABAB,KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1""#))
        #expect(written.contains(#",SCTE35-OUT=0xFC002F0000000000FF,X-AD-ID="1234",X-COM-EXAMPLE-BEACON="https://t.example/1",X-POSITION=2.5,X-EDITED="yes""#))
    }

    @Test func editedLowLatencyTagsReadBack() throws {
        let written = try edited(try Fixture.text("media-low-latency")) { playlist in
            for index in playlist.lines.indices {
                switch playlist.lines[index].tag {
                case .part(var part)?:
                    part.independent.toggle()
                    playlist.lines[index].content = .tag(.part(part))
                case .serverControl(var control)?:
                    control.canSkipUntil = nil
                    playlist.lines[index].content = .tag(.serverControl(control))
                case .skip(var skip)?:
                    skip.recentlyRemovedDateRanges?.append("splice-3")
                    playlist.lines[index].content = .tag(.skip(skip))
                case .preloadHint(var hint)?:
                    hint.byteRangeStart = (hint.byteRangeStart ?? 0) + 1
                    playlist.lines[index].content = .tag(.preloadHint(hint))
                case .renditionReport(var report)?:
                    report.lastPart = nil
                    playlist.lines[index].content = .tag(.renditionReport(report))
                case .partInf(var partInf)?:
                    partInf.partTarget = 0.5
                    playlist.lines[index].content = .tag(.partInf(partInf))
                default: break
                }
            }
        }
        #expect(written.contains("#EXT-X-SKIP:SKIPPED-SEGMENTS=3,RECENTLY-REMOVED-DATERANGES=\"splice-1\tsplice-2\tsplice-3\"\n"))
        #expect(written.contains("#EXT-X-SERVER-CONTROL:CAN-SKIP-DATERANGES=YES,HOLD-BACK=12,PART-HOLD-BACK=1,CAN-BLOCK-RELOAD=YES\n"))
        #expect(written.contains(#"#EXT-X-PART:DURATION=0.33334,URI="filePart270.1.mp4",INDEPENDENT=YES"#))
    }

    @Test func insertedAndRemovedLinesReadBack() throws {
        let written = try edited(try Fixture.text("rfc8216-8.1-simple-media")) { playlist in
            playlist.lines.remove(at: 2)  // EXT-X-VERSION
            playlist.lines.insert(Line(.comment(" inserted")), at: 1)
            playlist.lines.insert(contentsOf: [Line(tag: .discontinuity), Line(tag: .inf(Inf(duration: 1.5))),
                                               Line(uri: "fourth.ts"), Line(.blank)], at: playlist.lines.count - 1)
            playlist.lines.append(Line(tag: .unknown(name: "EXT-X-VENDOR-THING", value: "A=1")))
        }
        #expect(written == """
            #EXTM3U
            # inserted
            #EXT-X-TARGETDURATION:10
            #EXTINF:9.009,
            http://media.example.com/first.ts
            #EXTINF:9.009,
            http://media.example.com/second.ts
            #EXTINF:3.003,
            http://media.example.com/third.ts
            #EXT-X-DISCONTINUITY
            #EXTINF:1.5,
            fourth.ts

            #EXT-X-ENDLIST
            #EXT-X-VENDOR-THING:A=1

            """)
    }

    @Test func editedCommonTagsReadBack() throws {
        let text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-START:TIME-OFFSET=1\n#EXT-X-DEFINE:NAME=\"a\",VALUE=\"b\"\n#EXT-X-TARGETDURATION:10\n#EXT-X-PLAYLIST-TYPE:EVENT\n#EXT-X-MEDIA-SEQUENCE:1\n#EXT-X-DISCONTINUITY-SEQUENCE:1\n"
        let written = try edited(text) { playlist in
            playlist.lines[1].content = .tag(.version(9))
            playlist.lines[2].content = .tag(.start(Start(timeOffset: -0.25, precise: true)))
            playlist.lines[3].content = .tag(.define(.queryParameter(name: "token")))
            playlist.lines[4].content = .tag(.targetDuration(4))
            playlist.lines[5].content = .tag(.playlistType(.vod))
            playlist.lines[6].content = .tag(.mediaSequence(2))
            playlist.lines[7].content = .tag(.discontinuitySequence(3))
            playlist.lines.append(Line(tag: .iFramesOnly))
            playlist.lines.append(Line(tag: .gap))
            playlist.lines.append(Line(tag: .independentSegments))
        }
        #expect(written == "#EXTM3U\n#EXT-X-VERSION:9\n#EXT-X-START:TIME-OFFSET=-0.25,PRECISE=YES\n#EXT-X-DEFINE:QUERYPARAM=\"token\"\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-MEDIA-SEQUENCE:2\n#EXT-X-DISCONTINUITY-SEQUENCE:3\n#EXT-X-I-FRAMES-ONLY\n#EXT-X-GAP\n#EXT-X-INDEPENDENT-SEGMENTS\n")
    }

    @Test func settingALineToItsOwnValueWritesItCanonically() throws {
        var playlist = try Playlist(parsing: "#EXTM3U\n#EXTINF:10.000,\n")
        playlist.lines[1].content = playlist.lines[1].content
        #expect(playlist.lines[1].source == nil)
        #expect(try playlist.write() == "#EXTM3U\n#EXTINF:10,\n")
    }

    @Test func unknownAttributesAreWrittenAfterKnownOnes() throws {
        var playlist = try Playlist(parsing: "#EXTM3U\n#EXT-X-MAP:FUTURE=1,URI=\"init.mp4\",X-CLIENT=\"c\"\n")
        guard case .map(var map) = playlist.lines[1].tag else { Issue.record("not a map"); return }
        map.uri = "other.mp4"
        playlist.lines[1].content = .tag(.map(map))
        #expect(try playlist.write() == "#EXTM3U\n#EXT-X-MAP:URI=\"other.mp4\",FUTURE=1,X-CLIENT=\"c\"\n")
    }

    // MARK: Values with no M3U8 form

    @Test func quotedStringWithAQuoteIsUnwritable() {
        let playlist = Playlist(lines: [Line(tag: .m3u), Line(tag: .map(Map(uri: #"a"b.mp4"#)))])
        expectPlaylistError(.unwritable, line: 2) { _ = try playlist.write() }
    }

    @Test func quotedStringWithALineBreakIsUnwritable() {
        let playlist = Playlist(lines: [Line(tag: .m3u), Line(tag: .version(3)),
                                        Line(tag: .sessionData(SessionData(dataID: "a", value: "x\ny")))])
        expectPlaylistError(.unwritable, line: 3) { _ = try playlist.write() }
    }

    @Test func nonFiniteNumberIsUnwritable() {
        expectPlaylistError(.unwritable, line: 2) {
            _ = try Playlist(lines: [Line(tag: .m3u), Line(tag: .inf(Inf(duration: .infinity)))]).write()
        }
        expectPlaylistError(.unwritable, line: 2) {
            _ = try Playlist(lines: [Line(tag: .m3u), Line(tag: .start(Start(timeOffset: .nan)))]).write()
        }
    }

    @Test func negativeIntegerIsUnwritable() {
        expectPlaylistError(.unwritable, line: 2) {
            _ = try Playlist(lines: [Line(tag: .m3u), Line(tag: .mediaSequence(-1))]).write()
        }
    }

    @Test func uriLineThatWouldReadAsSomethingElseIsUnwritable() {
        for uri in ["", "#not-a-uri", " padded", "a\nb"] {
            expectPlaylistError(.unwritable, line: 2) {
                _ = try Playlist(lines: [Line(tag: .m3u), Line(uri: uri)]).write()
            }
        }
    }

    @Test func streamInfWithAURIAttributeIsUnwritable() {
        // A variant's URI is the line after EXT-X-STREAM-INF; writing it nowhere would lose it.
        expectPlaylistError(.unwritable, line: 2) {
            _ = try Playlist(lines: [Line(tag: .m3u), Line(tag: .streamInf(StreamInf(bandwidth: 1, uri: "v.m3u8"))),
                                     Line(uri: "v.m3u8")]).write()
        }
    }

    @Test func iFrameStreamInfWithClosedCaptionsIsUnwritable() {
        expectPlaylistError(.unwritable, line: 2) {
            _ = try Playlist(lines: [Line(tag: .m3u), Line(tag: .iFrameStreamInf(StreamInf(
                bandwidth: 1, closedCaptions: .group("cc"), uri: "i.m3u8")))]).write()
        }
    }

    @Test func tagsWhoseAttributesAreAllOptionalReadBackWithNone() throws {
        let playlist = Playlist(lines: [Line(tag: .m3u), Line(tag: .serverControl(ServerControl())),
                                        Line(tag: .renditionReport(RenditionReport()))])
        let text = try playlist.write()
        #expect(text == "#EXTM3U\n#EXT-X-SERVER-CONTROL:\n#EXT-X-RENDITION-REPORT:\n")
        #expect(try Playlist(parsing: text) == playlist)
        #expect(try parseTag("#EXT-X-SERVER-CONTROL") == .serverControl(ServerControl()))
    }

    @Test func commentWithALineBreakIsUnwritable() {
        expectPlaylistError(.unwritable, line: 2) {
            _ = try Playlist(lines: [Line(tag: .m3u), Line(.comment("a\r\nb"))]).write()
        }
    }
}
