import HLS
import Testing

/// `EXT-X-DEFINE` and `{$name}` references (RFC 8216bis section 4.3).
@Suite("Variable substitution")
struct VariableSubstitutionTests {
    @Test func uriLinesAreSubstituted() throws {
        let playlist = try media("""
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-DEFINE:NAME="host",VALUE="https://edge.example.org"
            #EXT-X-DEFINE:NAME="n",VALUE="42"
            #EXTINF:6,
            {$host}/seg-{$n}-{$n}.ts
            """)
        #expect(playlist.segments.map(\.uri) == ["https://edge.example.org/seg-42-42.ts"])
        #expect(playlist.variables == ["host": "https://edge.example.org", "n": "42"])
    }

    @Test func quotedStringAttributesAreSubstituted() throws {
        let playlist = try media("""
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-DEFINE:NAME="k",VALUE="keys"
            #EXT-X-DEFINE:NAME="ad",VALUE="ad-7"
            #EXT-X-KEY:METHOD=AES-128,URI="{$k}/1.key",KEYFORMATVERSIONS="{$ad}"
            #EXT-X-MAP:URI="{$k}/../init.mp4"
            #EXT-X-DATERANGE:ID="{$ad}",CLASS="c-{$ad}",START-DATE="2024-01-01T00:00:00Z",X-AD-ID="id-{$ad}"
            #EXTINF:6,
            s.ts
            """)
        let segment = try #require(playlist.segments.first)
        #expect(segment.key?.uri == "https://cdn.example.com/vod/keys/1.key")
        #expect(segment.key?.keyFormatVersions == "ad-7")
        #expect(segment.initSection?.uri == "https://cdn.example.com/vod/init.mp4")
        #expect(playlist.dateRanges.first?.id == "ad-7")
        #expect(playlist.dateRanges.first?.class == "c-ad-7")
        #expect(playlist.dateRanges.first?.clientAttributes == [Attribute(name: "X-AD-ID", value: .quoted("id-ad-7"))])
    }

    @Test func multivariantAttributesAndURIsAreSubstituted() throws {
        let main = try multivariant("""
            #EXTM3U
            #EXT-X-DEFINE:NAME="codec",VALUE="avc1.64001f"
            #EXT-X-DEFINE:NAME="lang",VALUE="en"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a-{$lang}",NAME="Main {$lang}",LANGUAGE="{$lang}",URI="audio/{$lang}.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=1,CODECS="{$codec},mp4a.40.2",AUDIO="a-{$lang}"
            video/{$codec}.m3u8
            #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1,URI="iframes/{$codec}.m3u8"
            """)
        #expect(main.renditions.first == Rendition(type: .audio, uri: "https://cdn.example.com/vod/audio/en.m3u8",
                                                   groupID: "a-en", language: "en", name: "Main en"))
        #expect(main.variants.first?.codecs == "avc1.64001f,mp4a.40.2")
        #expect(main.variants.first?.audio == "a-en")
        #expect(main.variants.first?.uri == "https://cdn.example.com/vod/video/avc1.64001f.m3u8")
        #expect(main.iFrameVariants.first?.uri == "https://cdn.example.com/vod/iframes/avc1.64001f.m3u8")
        #expect(main.warnings.isEmpty)
    }

    @Test func theSyntaxLayerKeepsReferencesAsWritten() throws {
        let text = "#EXTM3U\n#EXT-X-DEFINE:NAME=\"a\",VALUE=\"b\"\n#EXT-X-MAP:URI=\"{$a}.mp4\"\n"
        let playlist = try Playlist(parsing: text)
        #expect(playlist.lines[2].tag == .map(Map(uri: "{$a}.mp4")))
        #expect(try playlist.write() == text)
    }

    @Test func importTakesTheMultivariantPlaylistsValue() throws {
        let main = try multivariant("""
            #EXTM3U
            #EXT-X-DEFINE:NAME="cdn",VALUE="https://cdn2.example.com"
            #EXT-X-DEFINE:QUERYPARAM="token"
            #EXT-X-STREAM-INF:BANDWIDTH=1
            {$cdn}/v.m3u8?token={$token}
            """, url: "https://cdn.example.com/main.m3u8?token=s3cr3t")
        #expect(main.variables == ["cdn": "https://cdn2.example.com", "token": "s3cr3t"])
        let variant = try #require(main.variants.first)
        #expect(variant.uri == "https://cdn2.example.com/v.m3u8?token=s3cr3t")
        let playlist = try media("""
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-DEFINE:IMPORT="cdn"
            #EXT-X-DEFINE:IMPORT="token"
            #EXTINF:6,
            {$cdn}/0.ts?t={$token}
            """, url: variant.uri, imports: main.variables)
        #expect(playlist.segments.map(\.uri) == ["https://cdn2.example.com/0.ts?t=s3cr3t"])
    }

    @Test func importWithoutAMultivariantPlaylistIsAnError() {
        expectPlaylistError(.variable, line: 3) {
            _ = try media("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-DEFINE:IMPORT=\"cdn\"\n")
        }
    }

    @Test func importOfAVariableTheMultivariantLacksIsAnError() {
        expectPlaylistError(.variable, line: 3) {
            _ = try media("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-DEFINE:IMPORT=\"cdn\"\n", imports: ["other": "x"])
        }
    }

    @Test func importInAMultivariantPlaylistIsAnError() {
        expectPlaylistError(.variable, line: 2) {
            _ = try multivariant("#EXTM3U\n#EXT-X-DEFINE:IMPORT=\"cdn\"\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n")
        }
    }

    @Test func queryParameterIsPercentDecoded() throws {
        let playlist = try media("""
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-DEFINE:QUERYPARAM="path"
            #EXT-X-DEFINE:QUERYPARAM="sig"
            #EXTINF:6,
            https://media.example.com/{$path}/0.ts?sig={$sig}
            """, url: "https://cdn.example.com/v.m3u8?x=1&path=live%2Fchannel%201&sig=a%3Db%26c")
        #expect(playlist.variables == ["path": "live/channel 1", "sig": "a=b&c"])
        #expect(playlist.segments.first?.uri == "https://media.example.com/live/channel 1/0.ts?sig=a=b&c")
    }

    @Test func missingQueryParameterIsAnError() {
        expectPlaylistError(.variable, line: 3) {
            _ = try media("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-DEFINE:QUERYPARAM=\"token\"\n",
                          url: "https://cdn.example.com/v.m3u8?other=1")
        }
    }

    @Test func undefinedVariableInAURILineNamesThatLine() throws {
        let error = expectPlaylistError(.variable, line: 4) {
            _ = try media("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\n{$missing}/0.ts\n")
        }
        #expect(error?.message.contains("missing") == true)
        #expect(error?.lineText == "{$missing}/0.ts")
    }

    @Test func undefinedVariableInAnAttributeNamesThatLine() {
        expectPlaylistError(.variable, line: 3) {
            _ = try media("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-KEY:METHOD=AES-128,URI=\"{$k}\"\n#EXTINF:6,\na.ts\n")
        }
        expectPlaylistError(.variable, line: 3) {
            _ = try multivariant("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n{$v}.m3u8\n")
        }
        expectPlaylistError(.variable, line: 2) {
            _ = try multivariant("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"{$g}\",NAME=\"a\"\n")
        }
    }

    @Test func variableUsedBeforeItsDefinitionIsUndefined() {
        expectPlaylistError(.variable, line: 4) {
            _ = try media("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\n{$a}.ts\n#EXT-X-DEFINE:NAME=\"a\",VALUE=\"b\"\n")
        }
    }

    @Test func definingAVariableTwiceIsAnError() {
        expectPlaylistError(.variable, line: 4) {
            _ = try media("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-DEFINE:NAME=\"a\",VALUE=\"1\"\n#EXT-X-DEFINE:NAME=\"a\",VALUE=\"2\"\n")
        }
        expectPlaylistError(.variable, line: 3) {
            _ = try multivariant("#EXTM3U\n#EXT-X-DEFINE:NAME=\"a\",VALUE=\"1\"\n#EXT-X-DEFINE:QUERYPARAM=\"a\"\n",
                                 url: "https://cdn.example.com/main.m3u8?a=2")
        }
    }

    @Test func variableNamesAreCaseSensitive() {
        expectPlaylistError(.variable, line: 5) {
            _ = try media("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-DEFINE:NAME=\"Host\",VALUE=\"h\"\n#EXTINF:6,\n{$host}.ts\n")
        }
    }

    @Test func textThatIsNotAReferenceIsLeftAlone() throws {
        let playlist = try media("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\nseg-{1}-$2-{$.ts\n")
        #expect(playlist.segments.first?.uri == "https://cdn.example.com/vod/seg-{1}-$2-{$.ts")
    }
}
