import HLS
import Testing

/// Where a strict read is expected to fail: on the line the lenient read warned about, on
/// another, or on none (a fault of the whole playlist).
enum StrictLine {
    case same
    case line(Int)
    case none
}

private let mediaURL = "https://cdn.example.com/vod/video.m3u8"
private let mainURL = "https://cdn.example.com/vod/main.m3u8"

/// Reads a media playlist leniently, expecting a warning on `line` that says `says`; then
/// strictly, expecting a ``PlaylistError`` with `code`. Returns the lenient result.
@discardableResult
private func lenientMedia(_ text: String, warnsOn line: Int, _ says: String, strict code: PlaylistError.Code,
                          strictLine: StrictLine = .same, sourceLocation: SourceLocation = #_sourceLocation) throws -> MediaPlaylist {
    let media = try MediaPlaylist(parsing: text, url: mediaURL)
    #expect(media.warnings.contains { $0.line == line && $0.message.contains(says) }, "\(media.warnings)",
            sourceLocation: sourceLocation)
    expectStrictError(code, line: line, strictLine, sourceLocation: sourceLocation) {
        _ = try MediaPlaylist(parsing: text, url: mediaURL, options: .strict)
    }
    return media
}

/// ``lenientMedia(_:warnsOn:_:strict:strictLine:sourceLocation:)`` for a multivariant playlist.
@discardableResult
private func lenientMultivariant(_ text: String, warnsOn line: Int, _ says: String, strict code: PlaylistError.Code,
                                 strictLine: StrictLine = .same,
                                 sourceLocation: SourceLocation = #_sourceLocation) throws -> MultivariantPlaylist {
    let main = try MultivariantPlaylist(parsing: text, url: mainURL)
    #expect(main.warnings.contains { $0.line == line && $0.message.contains(says) }, "\(main.warnings)",
            sourceLocation: sourceLocation)
    expectStrictError(code, line: line, strictLine, sourceLocation: sourceLocation) {
        _ = try MultivariantPlaylist(parsing: text, url: mainURL, options: .strict)
    }
    return main
}

private func expectStrictError(_ code: PlaylistError.Code, line: Int, _ strictLine: StrictLine,
                               sourceLocation: SourceLocation, _ body: () throws -> Void) {
    let expectedLine: Int? = switch strictLine {
    case .same: line
    case .line(let other): other
    case .none: nil
    }
    expectPlaylistError(code, line: expectedLine, sourceLocation: sourceLocation, body)
}

/// A playlist that players play is read, with a warning that names the line, says what was
/// wrong and what was assumed; read with `.strict`, the same deviation is an error on that line.
@Suite("Lenient reading")
struct LenientReadingTests {
    // MARK: Attribute values in the wrong form

    @Test("a quoted hexadecimal SCTE-35 message is read as the hexadecimal sequence")
    func quotedHexadecimal() throws {
        let media = try lenientMedia("""
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-DATERANGE:ID="ad1",START-DATE="2024-07-01T12:00:00Z",SCTE35-OUT="0xFC30AB"
            #EXTINF:6,
            s1.ts
            #EXT-X-ENDLIST
            """, warnsOn: 3, "SCTE35-OUT is a hexadecimal-sequence, written quoted", strict: .invalidValue)
        #expect(media.dateRanges.first?.scte35Out == HexSequence(bytes: [0xFC, 0x30, 0xAB]))
    }

    @Test("a malformed SCTE-35 message is kept as written, an attribute the tag does not decode")
    func malformedHexadecimal() throws {
        let media = try lenientMedia("""
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-DATERANGE:ID="ad1",START-DATE="2024-07-01T12:00:00Z",SCTE35-OUT=0xFC3Z
            #EXTINF:6,
            s1.ts
            #EXT-X-ENDLIST
            """, warnsOn: 3, "is not a hexadecimal sequence (0x…); kept as written", strict: .invalidValue)
        let range = try #require(media.dateRanges.first)
        #expect(range.scte35Out == nil)
        #expect(range.otherAttributes == [Attribute(name: "SCTE35-OUT", value: .token("0xFC3Z"))])
    }

    @Test("a quoted-string written bare (BYTERANGE=20000@0 on EXT-X-PART) is read as its text")
    func bareQuotedString() throws {
        let media = try lenientMedia("""
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-PART-INF:PART-TARGET=1.0
            #EXT-X-PART:DURATION=1.0,URI="s1.mp4",BYTERANGE=20000@0
            #EXTINF:4,
            s1.mp4
            #EXT-X-ENDLIST
            """, warnsOn: 4, "BYTERANGE=20000@0 is a quoted-string written without quotes", strict: .invalidValue)
        let part = try #require(media.segments.first?.parts.first)
        #expect(part.byteRange?.offset == 0 && part.byteRange?.length == 20000)
    }

    @Test("a decimal integer written as a decimal number (BANDWIDTH=1280000.0) is read as the integer")
    func integerWrittenAsDecimal() throws {
        let main = try lenientMultivariant("""
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=1280000.0,RESOLUTION=640x360
            low.m3u8
            """, warnsOn: 2, "1280000.0 is not a decimal integer; read as 1280000", strict: .invalidValue)
        #expect(main.variants.first?.bandwidth == 1_280_000)
    }

    @Test("white space around a decimal integer (EXT-X-VERSION: 3) is ignored")
    func spaceAroundInteger() throws {
        let media = try lenientMedia("""
            #EXTM3U
            #EXT-X-VERSION: 3
            #EXT-X-TARGETDURATION:6
            #EXTINF:6,
            s1.ts
            #EXT-X-ENDLIST
            """, warnsOn: 2, "white space around the value 3 is ignored", strict: .invalidValue)
        #expect(media.version == 3)
    }

    @Test("enumerated values in lower case (TYPE=audio, DEFAULT=yes) are read as their upper-case values")
    func lowerCaseEnumerated() throws {
        let main = try lenientMultivariant("""
            #EXTM3U
            #EXT-X-MEDIA:TYPE=audio,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=yes,AUTOSELECT=YES,URI="en.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=800000,AUDIO="aud"
            low.m3u8
            """, warnsOn: 2, "TYPE=audio is written in lower case; read as AUDIO", strict: .invalidValue)
        let rendition = try #require(main.renditions.first)
        #expect(rendition.type == .audio)
        #expect(rendition.isDefault)
        #expect(main.warnings.contains { $0.line == 2 && $0.message.contains("DEFAULT=yes is written in lower case; read as YES") })
    }

    @Test("a resolution written with a capital X (1280X720) is read as WIDTHxHEIGHT")
    func resolutionWithCapitalX() throws {
        let main = try lenientMultivariant("""
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=1280X720
            hd.m3u8
            """, warnsOn: 2, "RESOLUTION=1280X720 is not written WIDTHxHEIGHT; read as 1280x720", strict: .invalidValue)
        #expect(main.variants.first?.resolution == Resolution(width: 1280, height: 720))
    }

    // MARK: Media sequence, target duration, empty and unknown values

    @Test("a negative EXT-X-MEDIA-SEQUENCE is read as 0")
    func negativeMediaSequence() throws {
        let media = try lenientMedia("""
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-MEDIA-SEQUENCE:-5
            #EXTINF:6,
            s1.ts
            #EXT-X-ENDLIST
            """, warnsOn: 3, "-5 is negative; 0 is assumed", strict: .invalidValue)
        #expect(media.mediaSequence == 0)
        #expect(media.segments.map(\.mediaSequence) == [0])
    }

    @Test("an EXT-X-MEDIA-SEQUENCE after the first segment is ignored: the segments keep their numbers")
    func mediaSequenceAfterFirstSegment() throws {
        let media = try lenientMedia("""
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-MEDIA-SEQUENCE:7
            #EXTINF:6,
            s1.ts
            #EXT-X-MEDIA-SEQUENCE:100
            #EXTINF:6,
            s2.ts
            #EXT-X-ENDLIST
            """, warnsOn: 6, "must come before the first segment; ignored", strict: .structure)
        #expect(media.segments.map(\.mediaSequence) == [7, 8])
    }

    @Test("a second EXT-X-MEDIA-SEQUENCE before the segments is ignored: the first one wins")
    func repeatedMediaSequence() throws {
        let media = try lenientMedia("""
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-MEDIA-SEQUENCE:7
            #EXT-X-MEDIA-SEQUENCE:9
            #EXTINF:6,
            s1.ts
            #EXT-X-ENDLIST
            """, warnsOn: 4, "the one on line 3 applies", strict: .structure)
        #expect(media.mediaSequence == 7)
    }

    @Test("a missing EXT-X-TARGETDURATION is taken as the longest segment, rounded up")
    func missingTargetDuration() throws {
        let media = try lenientMedia("""
            #EXTM3U
            #EXTINF:4.2,
            s1.ts
            #EXTINF:6.5,
            s2.ts
            #EXT-X-ENDLIST
            """, warnsOn: 1, "the longest segment, 7 s (rounded up), is assumed", strict: .structure, strictLine: .none)
        #expect(media.targetDuration == 7)
    }

    @Test("a missing EXT-X-TARGETDURATION beside a segment of absurd length is assumed without overflowing (found by fuzzing)")
    func missingTargetDurationWithHugeSegment() throws {
        let media = try MediaPlaylist(parsing: "#EXTM3U\n#EXTINF:66666646666666666662.833,\ns1.ts\n#EXT-X-ENDLIST\n", url: mediaURL)
        #expect(media.targetDuration == 1 << 62)
        #expect(media.warnings.contains { $0.message.contains("no EXT-X-TARGETDURATION") })
    }

    @Test("a tag with nothing after its colon (EXT-X-VERSION:) is ignored")
    func emptyValueAfterColon() throws {
        let media = try lenientMedia("""
            #EXTM3U
            #EXT-X-VERSION:
            #EXT-X-TARGETDURATION:6
            #EXTINF:6,
            s1.ts
            #EXT-X-ENDLIST
            """, warnsOn: 2, "EXT-X-VERSION has no value after its colon; the tag is ignored", strict: .missingValue)
        #expect(media.version == nil)
        #expect(media.segments.count == 1)
    }

    @Test("an empty EXT-X-PLAYLIST-TYPE is ignored")
    func emptyPlaylistType() throws {
        let media = try lenientMedia("""
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-PLAYLIST-TYPE:
            #EXTINF:6,
            s1.ts
            #EXT-X-ENDLIST
            """, warnsOn: 3, "EXT-X-PLAYLIST-TYPE has no value after its colon; the tag is ignored", strict: .missingValue)
        #expect(media.playlistType == nil)
        #expect(media.hasEndList)
    }

    @Test("an unknown EXT-X-PLAYLIST-TYPE (LIVE) is ignored; a lower-case one (vod) is read")
    func unknownPlaylistType() throws {
        let unknown = try lenientMedia("""
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-PLAYLIST-TYPE:LIVE
            #EXTINF:6,
            s1.ts
            """, warnsOn: 3, "\"LIVE\" is neither EVENT nor VOD; the tag is ignored", strict: .invalidValue)
        #expect(unknown.playlistType == nil)
        let lower = try lenientMedia("""
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-PLAYLIST-TYPE:vod
            #EXTINF:6,
            s1.ts
            """, warnsOn: 3, "vod is written in lower case; read as VOD", strict: .invalidValue)
        #expect(lower.playlistType == .vod)
    }

    // MARK: Variants

    @Test("an EXT-X-STREAM-INF without BANDWIDTH has an unknown bandwidth")
    func streamInfWithoutBandwidth() throws {
        let main = try lenientMultivariant("""
            #EXTM3U
            #EXT-X-STREAM-INF:RESOLUTION=640x360
            low.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=960x540
            mid.m3u8
            """, warnsOn: 2, "lacks the required attribute BANDWIDTH; the bandwidth is unknown", strict: .missingValue)
        #expect(main.variants.map(\.bandwidth) == [nil, 900_000])
    }

    @Test("two EXT-X-STREAM-INF in a row: the first, which has no URI, is dropped")
    func twoStreamInfInARow() throws {
        let main = try lenientMultivariant("""
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=500000
            #EXT-X-STREAM-INF:BANDWIDTH=900000
            mid.m3u8
            """, warnsOn: 3, "follows the one on line 2, which has no URI line; that one is dropped", strict: .structure)
        #expect(main.variants.map(\.uri) == ["https://cdn.example.com/vod/mid.m3u8"])
        #expect(main.variants.map(\.bandwidth) == [900_000])
    }

    // MARK: Tags in the other kind of playlist

    @Test("an EXT-X-SESSION-KEY in a media playlist is applied as a key for every segment after it")
    func sessionKeyInMediaPlaylist() throws {
        let media = try lenientMedia("""
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXTINF:6,
            clear.ts
            #EXT-X-SESSION-KEY:METHOD=AES-128,URI="key.bin"
            #EXTINF:6,
            s1.ts
            #EXTINF:6,
            s2.ts
            #EXT-X-ENDLIST
            """, warnsOn: 5, "applied as an EXT-X-KEY to the segments after it", strict: .mixedPlaylist)
        #expect(media.segments.map { $0.key?.uri } == [nil, "https://cdn.example.com/vod/key.bin", "https://cdn.example.com/vod/key.bin"])
        #expect(media.segments[1].key?.method == .aes128)
    }

    @Test("media playlist tags in a multivariant playlist are ignored")
    func mediaTagsInMultivariantPlaylist() throws {
        let main = try lenientMultivariant("""
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXT-X-STREAM-INF:BANDWIDTH=900000
            mid.m3u8
            #EXT-X-ENDLIST
            """, warnsOn: 2, "EXT-X-TARGETDURATION belongs in a media playlist, not a multivariant playlist; ignored",
            strict: .mixedPlaylist, strictLine: .line(3))
        #expect(main.variants.count == 1)
        #expect(main.warnings.contains { $0.line == 5 && $0.message.contains("EXT-X-ENDLIST belongs in a media playlist") })
    }

    // MARK: IPTV-style playlists

    static let iptv = """
        #EXTM3U x-tvg-url="http://epg.example.com/guide.xml"
        #EXTINF:-1 tvg-id="news.example" tvg-logo="http://logo.example.com/news.png" group-title="News",News Channel
        #EXTVLCOPT:network-caching=1000
        http://stream.example.com/news.ts
        #EXTINF:-1 tvg-id="sport.example" group-title="Sport",Sport
        http://stream.example.com/sport.ts
        """

    @Test("IPTV EXTINF attributes are kept, and a duration of -1 is read as unknown")
    func iptvAttributesAndUnknownDuration() throws {
        let media = try lenientMedia(Self.iptv, warnsOn: 2, "an IPTV extension; they are kept", strict: .structure, strictLine: .line(1))
        #expect(media.segments.count == 2)
        let news = media.segments[0]
        #expect(!news.isDurationKnown && news.duration == 0)
        #expect(news.title == "News Channel")
        #expect(news.attributes == [
            Attribute(name: "tvg-id", value: .quoted("news.example")),
            Attribute(name: "tvg-logo", value: .quoted("http://logo.example.com/news.png")),
            Attribute(name: "group-title", value: .quoted("News")),
        ])
        #expect(media.segments[1].attributes.map(\.value.text) == ["sport.example", "Sport"])
        #expect(media.warnings.contains { $0.line == 2 && $0.message.contains("-1 is negative, which IPTV playlists write for an unknown duration") })
    }

    @Test("attributes on #EXTM3U (x-tvg-url) are ignored, and a custom tag is kept as written")
    func iptvHeaderAndCustomTags() throws {
        let parsed = try Playlist.parse(Self.iptv)
        #expect(parsed.warnings.contains { $0.line == 1 && $0.message.contains("#EXTM3U carries attributes") })
        #expect(parsed.playlist.lines[2].tag == .unknown(name: "EXTVLCOPT", value: "network-caching=1000"))
        #expect(!parsed.warnings.contains { $0.line == 3 }, "a custom tag is no deviation")
        expectPlaylistError(.structure, line: 1) { _ = try Playlist.parse(Self.iptv, options: .strict) }
    }

    @Test("a URI line without EXTINF in a playlist with no other segment is a single resource")
    func singleResource() throws {
        let media = try lenientMedia("""
            #EXTM3U
            http://media.example.com/movie.mp4
            """, warnsOn: 2, "read as a single resource of unknown duration", strict: .structure)
        #expect(media.segments.map(\.uri) == ["http://media.example.com/movie.mp4"])
        #expect(media.segments.first?.isDurationKnown == false)
    }

    // MARK: Lines and characters

    @Test("blank lines and comments before #EXTM3U are ignored")
    func linesBeforeHeader() throws {
        let media = try lenientMedia("""

            # packaged by an old tool
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXTINF:6,
            s1.ts
            #EXT-X-ENDLIST
            """, warnsOn: 2, "a comment before #EXTM3U is ignored", strict: .missingHeader, strictLine: .line(1))
        #expect(media.segments.count == 1)
        #expect(media.warnings.contains { $0.line == 1 && $0.message.contains("a blank line before #EXTM3U is ignored") })
    }

    @Test("a UTF-8 byte order mark is skipped")
    func byteOrderMark() throws {
        let media = try lenientMedia("\u{FEFF}#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\ns1.ts\n#EXT-X-ENDLIST\n",
                                     warnsOn: 1, "starts with a byte order mark", strict: .structure)
        #expect(media.segments.count == 1)
    }

    @Test("CRLF line ends are read without a warning, and a missing final newline too")
    func crlfAndNoFinalNewline() throws {
        let text = "#EXTM3U\r\n#EXT-X-TARGETDURATION:6\r\n#EXTINF:6,\r\ns1.ts\r\n#EXT-X-ENDLIST"
        let media = try MediaPlaylist(parsing: text, url: mediaURL, options: .strict)
        #expect(media.warnings.isEmpty)
        #expect(media.segments.map(\.uri) == ["https://cdn.example.com/vod/s1.ts"])
        #expect(media.hasEndList)
    }

    @Test("lone CR line ends (old Mac files) are read as line ends")
    func loneCarriageReturns() throws {
        let media = try lenientMedia("#EXTM3U\r#EXT-X-TARGETDURATION:6\r#EXTINF:6,\rs1.ts\r#EXT-X-ENDLIST\r",
                                     warnsOn: 1, "ends in a carriage return without a line feed", strict: .structure)
        #expect(media.segments.map(\.uri) == ["https://cdn.example.com/vod/s1.ts"])
        #expect(media.targetDuration == 6 && media.hasEndList)
    }

    @Test("white space after a tag or around a URI line is ignored")
    func trailingWhiteSpace() throws {
        let media = try lenientMedia("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\ns1.ts  \n#EXT-X-ENDLIST \n",
                                     warnsOn: 4, "white space around a URI is ignored", strict: .structure)
        #expect(media.segments.map(\.uri) == ["https://cdn.example.com/vod/s1.ts"])
        #expect(media.hasEndList)
        #expect(media.warnings.contains { $0.line == 5 && $0.message.contains("white space after the tag is ignored") })
    }

    @Test("a URI attribute with a space in it is read, and fetched with the space as %20")
    func spaceInURIAttribute() throws {
        let media = try lenientMedia("""
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-KEY:METHOD=AES-128,URI="my key.bin"
            #EXTINF:6,
            s1.ts
            #EXT-X-ENDLIST
            """, warnsOn: 3, "has a space in it; read as %20", strict: .invalidValue)
        let uri = try #require(media.segments.first?.key?.uri)
        #expect(uri == "https://cdn.example.com/vod/my key.bin")
        #expect(URIReference.encodingSpaces(uri) == "https://cdn.example.com/vod/my%20key.bin")
    }

    // MARK: Low-latency HLS in a VOD playlist

    @Test("partial segments and preload hints beside full segments are read, and need no strict exception")
    func lowLatencyPartsBesideSegments() throws {
        let text = """
            #EXTM3U
            #EXT-X-VERSION:9
            #EXT-X-TARGETDURATION:4
            #EXT-X-PART-INF:PART-TARGET=2.0
            #EXT-X-PART:DURATION=2.0,URI="s1.part1.mp4",INDEPENDENT=YES
            #EXT-X-PART:DURATION=2.0,URI="s1.part2.mp4"
            #EXTINF:4,
            s1.mp4
            #EXT-X-PART:DURATION=2.0,URI="s2.part1.mp4",INDEPENDENT=YES
            #EXT-X-PRELOAD-HINT:TYPE=PART,URI="s2.part2.mp4"
            #EXT-X-ENDLIST
            """
        let media = try MediaPlaylist(parsing: text, url: mediaURL, options: .strict)
        #expect(media.segments.map(\.uri) == ["https://cdn.example.com/vod/s1.mp4"])
        #expect(media.segments[0].parts.map(\.uri) == ["https://cdn.example.com/vod/s1.part1.mp4", "https://cdn.example.com/vod/s1.part2.mp4"])
        #expect(media.trailingParts.count == 1)
        #expect(media.preloadHints.count == 1)
    }

    // MARK: What no safe reading exists for, in either mode

    @Test("no #EXTM3U before the first tag or URI is refused, leniently too")
    func noHeader() {
        expectPlaylistError(.missingHeader, line: 1) { _ = try Playlist.parse("#EXTINF:6,\ns1.ts\n") }
        expectPlaylistError(.missingHeader, line: 2) { _ = try Playlist.parse("# a comment\ns1.ts\n") }
        expectPlaylistError(.missingHeader, line: 2) { _ = try Playlist.parse("\n\n") }
    }

    @Test("a variant or a segment without its URI is refused, leniently too")
    func missingURIs() {
        expectPlaylistError(.structure, line: 2) {
            _ = try MultivariantPlaylist(parsing: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n", url: mainURL)
        }
        expectPlaylistError(.structure, line: 3) {
            _ = try MediaPlaylist(parsing: "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\n#EXT-X-ENDLIST\n", url: mediaURL)
        }
        expectPlaylistError(.structure, line: 5) {
            _ = try MediaPlaylist(parsing: "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\ns1.ts\ns2.ts\n", url: mediaURL)
        }
    }

    @Test("an EXTINF duration that is not a number is refused, leniently too")
    func durationNotANumber() {
        expectPlaylistError(.invalidValue, line: 3) {
            _ = try MediaPlaylist(parsing: "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:six,\ns1.ts\n", url: mediaURL)
        }
    }

    @Test("a byte range without a usable offset is refused, and one overlapping the previous range is never guessed")
    func unusableByteRanges() {
        expectPlaylistError(.byteRange, line: 3) {
            _ = try MediaPlaylist(parsing: "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-BYTERANGE:1000\n#EXTINF:6,\nall.ts\n", url: mediaURL)
        }
        expectPlaylistError(.byteRange, line: 6) {
            _ = try MediaPlaylist(parsing: """
                #EXTM3U
                #EXT-X-TARGETDURATION:6
                #EXT-X-BYTERANGE:1000@0
                #EXTINF:6,
                all.ts
                #EXT-X-BYTERANGE:1000@500
                #EXTINF:6,
                all.ts
                """, url: mediaURL)
        }
    }

    // MARK: Many deviations of one kind

    @Test("a deviation on thousands of lines shows its first lines and counts the rest")
    func repeatedDeviationIsCounted() throws {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n"
        for index in 0..<2000 {
            text += "#EXT-X-DATERANGE:ID=\"ad\(index)\",START-DATE=\"2024-07-01T12:00:00Z\",SCTE35-OUT=\"0xFC30\"\n#EXTINF:6,\ns\(index).ts\n"
        }
        let media = try MediaPlaylist(parsing: text, url: mediaURL)
        #expect(media.dateRanges.count == 2000)
        let quoted = media.warnings.filter { $0.message.contains("written quoted") }
        #expect(quoted.count == 5)
        let summary = try #require(media.warnings.last)
        #expect(summary.message.contains("1995 more lines have the deviation warned about above (quoted-value)"), "\(summary)")
        #expect(summary.line == 2 + 3 * 1999 + 1, "the summary names the last line with the deviation")
    }

    // MARK: What Carryon writes

    @Test("a playlist read leniently and written canonically passes the strict reading")
    func canonicalWritingIsStrict() throws {
        let parsed = try Playlist.parse("""
            #EXTM3U
            #EXT-X-VERSION: 3
            #EXT-X-TARGETDURATION:6
            #EXT-X-DATERANGE:ID="ad1",START-DATE="2024-07-01T12:00:00Z",SCTE35-OUT="0xFC30AB"
            #EXT-X-KEY:METHOD=aes-128,URI="key.bin"
            #EXTINF:6,
            s1.ts
            #EXT-X-ENDLIST
            """)
        #expect(!parsed.warnings.isEmpty)
        var playlist = parsed.playlist
        for index in playlist.lines.indices { playlist.lines[index].makeCanonical() }
        let written = try playlist.write()
        let strict = try MediaPlaylist(parsing: written, url: mediaURL, options: .strict)
        #expect(strict.warnings.isEmpty, "\(strict.warnings)")
        #expect(strict.version == 3)
        #expect(strict.dateRanges.first?.scte35Out == HexSequence(bytes: [0xFC, 0x30, 0xAB]))
        #expect(strict.segments.first?.key?.method == .aes128)
    }
}
