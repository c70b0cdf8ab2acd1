import Testing
@testable import CarryonServer

/// The playback server's pure parts: the session prefix written into a multivariant playlist,
/// range bounds read before a file's size is known, the token, the allowed hosts.
@Suite("The playback server's parts")
struct PlaybackResponderTests {
    @Test("every relative URI of the multivariant playlist goes under the session's folder; absolute ones do not")
    func sessionPrefix() throws {
        let text = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="English",URI="audio-en/index.m3u8"
            #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="CC",INSTREAM-ID="CC1"
            #EXT-X-STREAM-INF:BANDWIDTH=1000,AUDIO="a"
            video/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000
            https://cdn.example/other.m3u8

            """
        #expect(try PlaybackResponder.prefix(text, with: "s-1/") == """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="English",URI="s-1/audio-en/index.m3u8"
            #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="CC",INSTREAM-ID="CC1"
            #EXT-X-STREAM-INF:BANDWIDTH=1000,AUDIO="a"
            s-1/video/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2000
            https://cdn.example/other.m3u8

            """)
    }

    @Test("range bounds before the size is known", arguments: [
        ("bytes=0-99", 0...99), ("bytes=100-", 100...Int.max), ("bytes = 5 - 9", nil), ("bytes=5-9", 5...9), ("bytes=-100", nil),
        ("bytes=9-5", nil), ("items=0-1", nil), ("bytes=0-1,4-5", nil), ("bytes=x-1", nil),
    ] as [(String, ClosedRange<Int>?)])
    func bounds(header: String, expected: ClosedRange<Int>?) {
        #expect(HTTPRange.bounds(header: header) == expected)
    }

    @Test("tokens are 32 hexadecimal digits and differ from run to run")
    func tokens() {
        let tokens = (0..<100).map { _ in PlaybackServer.makeToken() }
        #expect(tokens.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
        #expect(Set(tokens).count == 100)
    }

    @Test("the token comparison needs every character")
    func tokenComparison() {
        #expect(PlaybackResponder.constantTimeEqual("abcdef0123456789", "abcdef0123456789"))
        #expect(!PlaybackResponder.constantTimeEqual("abcdef0123456789", "abcdef012345678"))
        #expect(!PlaybackResponder.constantTimeEqual("abcdef0123456789", "bbcdef0123456789"))
        #expect(!PlaybackResponder.constantTimeEqual("", "a"))
    }

    @Test("only the server's own loopback address and port is an allowed Host")
    func hosts() {
        let hosts = AllowedHosts()
        #expect(!hosts.allows("127.0.0.1:0"))
        hosts.set(port: 8080)
        for host in ["127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080", "[::1]:8080"] { #expect(hosts.allows(host)) }
        for host in ["127.0.0.1", "127.0.0.1:8081", "evil.example:8080", "127.0.0.2:8080", "", "localhost.evil.example:8080"] {
            #expect(!hosts.allows(host))
        }
        #expect(!hosts.allows(nil))
    }
}
