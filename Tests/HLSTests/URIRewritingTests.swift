import HLS
import Testing

/// Changing a playlist's locations through the model: every kind of line that names one, and
/// every other line written back exactly as it was read.
@Suite("Rewriting the URIs a playlist names")
struct URIRewritingTests {
    @Test("every location a multivariant playlist names passes through the transform; what it keeps, and every other line, is left byte for byte")
    func multivariant() throws {
        let text = """
            #EXTM3U
            # a comment,   kept as it is
            #EXT-X-SESSION-KEY:METHOD=AES-128,URI="keys/s"
            #EXT-X-SESSION-DATA:DATA-ID="com.example",URI="data.json"
            #EXT-X-CONTENT-STEERING:SERVER-URI="steering.json"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="English",URI="audio/index.m3u8"
            #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="CC",INSTREAM-ID="CC1"
            #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=100,URI="iframes.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=1000,   AUDIO="a"
            video/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000
            https://cdn.example/other.m3u8

            """
        var playlist = try Playlist.parse(text).playlist
        var seen: [String] = []
        playlist.rewriteURIs { uri in
            seen.append(uri)
            return uri.contains("://") ? nil : "p/" + uri
        }
        #expect(seen == ["keys/s", "data.json", "steering.json", "audio/index.m3u8", "iframes.m3u8", "video/index.m3u8",
                         "https://cdn.example/other.m3u8"])
        let written = try playlist.write()
        for line in ["# a comment,   kept as it is", "#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID=\"cc\",NAME=\"CC\",INSTREAM-ID=\"CC1\"",
                     "#EXT-X-STREAM-INF:BANDWIDTH=1000,   AUDIO=\"a\"", "https://cdn.example/other.m3u8", "p/video/index.m3u8"] {
            #expect(written.contains(line + "\n"), "\(line) in \(written)")
        }
        let reread = try Playlist.parse(written).playlist
        #expect(reread.lines.compactMap { $0.tag?.uri } == ["p/keys/s", "p/data.json", "p/steering.json", "p/audio/index.m3u8", "p/iframes.m3u8"])
    }

    @Test("a media playlist's segments, keys, maps and parts are rewritten; a transform that keeps everything changes nothing")
    func media() throws {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-KEY:METHOD=AES-128,URI=\"k1\"\n#EXT-X-MAP:URI=\"init.mp4\"\n"
            + "#EXT-X-PART:DURATION=1,URI=\"p1.mp4\"\n#EXTINF:4,\n00001.m4s\n#EXT-X-ENDLIST\n"
        var playlist = try Playlist.parse(text).playlist
        playlist.rewriteURIs { _ in nil }
        #expect(try playlist.write() == text)
        playlist.rewriteURIs { "x/" + $0 }
        let written = try playlist.write()
        #expect(["URI=\"x/k1\"", "URI=\"x/init.mp4\"", "URI=\"x/p1.mp4\"", "\nx/00001.m4s\n"].allSatisfy(written.contains), "\(written)")
        #expect(written.hasPrefix("#EXTM3U\n#EXT-X-TARGETDURATION:4\n") && written.hasSuffix("#EXT-X-ENDLIST\n"))
    }
}
