import HLS
import Testing

/// Tags allowed in both kinds of playlist, and how the kind of a playlist is decided.
@Suite("Tags of either kind of playlist")
struct CommonTagTests {
    @Test func firstLineIsTheEXTM3UTag() throws {
        let playlist = try Playlist(parsing: "#EXTM3U\n")
        #expect(playlist.lines == [Line(tag: .m3u)])
    }

    @Test func versionIsAnInteger() throws {
        #expect(try parseTag("#EXT-X-VERSION:7") == .version(7))
    }

    @Test func versionThatIsNotAnIntegerIsAnError() {
        expectPlaylistError(.invalidValue, line: 2) { _ = try parseTag("#EXT-X-VERSION:seven") }
    }

    @Test func independentSegmentsTakesNoValue() throws {
        #expect(try parseTag("#EXT-X-INDEPENDENT-SEGMENTS") == .independentSegments)
    }

    @Test func startDecodesASignedOffsetAndPrecise() throws {
        #expect(try parseTag("#EXT-X-START:TIME-OFFSET=-12.5,PRECISE=YES") == .start(Start(timeOffset: -12.5, precise: true)))
        #expect(try parseTag("#EXT-X-START:TIME-OFFSET=25") == .start(Start(timeOffset: 25, precise: false)))
    }

    @Test func startRequiresTimeOffset() {
        expectPlaylistError(.missingValue, line: 2) { _ = try parseTag("#EXT-X-START:PRECISE=YES") }
    }

    @Test func startPreciseMustBeYesOrNo() {
        expectPlaylistError(.invalidValue, line: 2) { _ = try parseTag("#EXT-X-START:TIME-OFFSET=1,PRECISE=MAYBE") }
    }

    @Test func defineNameAndValue() throws {
        #expect(try parseTag(#"#EXT-X-DEFINE:NAME="cdn-host_1",VALUE="https://cdn.example.com""#)
            == .define(.value(name: "cdn-host_1", value: "https://cdn.example.com")))
    }

    @Test func defineImport() throws {
        #expect(try parseTag(#"#EXT-X-DEFINE:IMPORT="token""#) == .define(.import(name: "token")))
    }

    @Test func defineQueryParameter() throws {
        #expect(try parseTag(#"#EXT-X-DEFINE:QUERYPARAM="token""#) == .define(.queryParameter(name: "token")))
    }

    @Test func defineNameWithoutValueIsAVariableError() {
        expectPlaylistError(.variable, line: 2) { _ = try parseTag(#"#EXT-X-DEFINE:NAME="a""#) }
    }

    @Test func defineWithTwoKindsIsAVariableError() {
        expectPlaylistError(.variable, line: 2) { _ = try parseTag(#"#EXT-X-DEFINE:NAME="a",VALUE="b",IMPORT="a""#) }
    }

    @Test func defineWithAnInvalidNameIsAVariableError() {
        expectPlaylistError(.variable, line: 2) { _ = try parseTag(#"#EXT-X-DEFINE:NAME="a b",VALUE="c""#) }
    }

    @Test func unknownTagIsKeptWithItsValue() throws {
        #expect(try parseTag("#EXT-X-FUTURE-TAG:A=1,B=\"x\"") == .unknown(name: "EXT-X-FUTURE-TAG", value: "A=1,B=\"x\""))
        #expect(try parseTag("#EXT-X-FUTURE-FLAG") == .unknown(name: "EXT-X-FUTURE-FLAG", value: nil))
        #expect(try parseTag("#EXT-X-FUTURE-FLAG:") == .unknown(name: "EXT-X-FUTURE-FLAG", value: ""))
        #expect(try parseTag("#EXT") == .unknown(name: "EXT", value: nil))
    }

    @Test func commentsAndBlankLinesAreKept() throws {
        let playlist = try Playlist(parsing: "#EXTM3U\n# a comment\n\n  \t\n#EX-NOT-A-TAG\n")
        #expect(playlist.lines.map(\.content) == [.tag(.m3u), .comment(" a comment"), .blank, .blank,
                                                  .comment("EX-NOT-A-TAG")])
    }

    @Test func tagNamesAreCaseSensitive() throws {
        #expect(try parseTag("#EXTINF:1,") == .inf(Inf(duration: 1)))
        #expect(try Playlist(parsing: "#EXTM3U\n#extinf:1,\n").lines[1].content == .comment("extinf:1,"))
        #expect(try parseTag("#EXT-x-ENDLIST") == .unknown(name: "EXT-x-ENDLIST", value: nil))
    }

    @Test func playlistWithVariantTagsIsMultivariant() throws {
        #expect(try Playlist(parsing: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n").kind == .multivariant)
        #expect(try Playlist(parsing: "#EXTM3U\n#EXT-X-SESSION-DATA:DATA-ID=\"a\",VALUE=\"b\"\n").kind == .multivariant)
    }

    @Test func playlistWithoutVariantTagsIsMedia() throws {
        #expect(try Playlist(parsing: "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-INDEPENDENT-SEGMENTS\n").kind == .media)
        #expect(try Playlist(parsing: "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:1,\na.ts\n").kind == .media)
    }

    @Test func tagsListsEveryTagWithItsLineNumber() throws {
        let playlist = try Playlist(parsing: "#EXTM3U\n# comment\n#EXT-X-TARGETDURATION:2\n#EXTINF:1,\na.ts\n")
        #expect(playlist.tags.map(\.line) == [1, 3, 4])
        #expect(playlist.tags.map(\.tag.name) == ["EXTM3U", "EXT-X-TARGETDURATION", "EXTINF"])
    }

    @Test func attributeListAcceptsSpacesAfterCommasAndATrailingComma() throws {
        #expect(try parseTag(#"#EXT-X-MAP:URI="init.mp4", BYTERANGE="10@0","#)
            == .map(Map(uri: "init.mp4", byteRange: ByteRange(length: 10, offset: 0))))
    }

    @Test func quotedStringsMayHoldCommasAndEqualsSigns() throws {
        #expect(try parseTag(#"#EXT-X-SESSION-DATA:DATA-ID="a",VALUE="x=1,y=2""#)
            == .sessionData(SessionData(dataID: "a", value: "x=1,y=2")))
    }

    @Test func startAndDefineResolveInAMultivariantPlaylist() throws {
        let main = try multivariant("#EXTM3U\n#EXT-X-START:TIME-OFFSET=5\n#EXT-X-DEFINE:NAME=\"a\",VALUE=\"b\"\n#EXT-X-STREAM-INF:BANDWIDTH=1\n{$a}.m3u8\n")
        #expect(main.start?.timeOffset == 5)
        #expect(main.variables == ["a": "b"])
        #expect(main.variants.first?.uri == "https://cdn.example.com/vod/b.m3u8")
    }
}
