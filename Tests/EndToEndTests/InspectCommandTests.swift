import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// `carryon inspect` as a user runs it: the real binary against the origin on loopback.
@Suite("carryon inspect", .heavy)
struct InspectCommandTests {
    static let main = """
        #EXTM3U
        #EXT-X-VERSION:6
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio/en.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="Deutsch",LANGUAGE="de",AUTOSELECT=YES,CHANNELS="6",URI="audio/de.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",FORCED=YES,AUTOSELECT=YES,URI="subs/en.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=1280000,AVERAGE-BANDWIDTH=1000000,RESOLUTION=640x360,FRAME-RATE=29.970,CODECS="avc1.4d401e,mp4a.40.2",AUDIO="aud",SUBTITLES="subs",CLOSED-CAPTIONS=NONE
        v360/index.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=5000000,RESOLUTION=1920x1080,FRAME-RATE=30,CODECS="hvc1.2.4.L123.B0,mp4a.40.2",VIDEO-RANGE=PQ,AUDIO="aud",SUBTITLES="subs"
        v1080/index.m3u8
        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=86000,URI="v360/iframe.m3u8",RESOLUTION=640x360
        #EXT-X-SESSION-KEY:METHOD=AES-128,URI="https://keys.example/k1"
        #EXT-X-SESSION-DATA:DATA-ID="com.example.title",VALUE="Example",LANGUAGE="en"

        """

    static let media = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:6
        #EXT-X-MEDIA-SEQUENCE:3
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0"
        #EXT-X-KEY:METHOD=AES-128,URI="/keys/k1",IV=0x000102030405060708090a0b0c0d0e0f
        #EXT-X-PROGRAM-DATE-TIME:2026-11-21T10:00:00.000Z
        #EXTINF:6.006,
        #EXT-X-BYTERANGE:50000@720
        main.mp4
        #EXTINF:6.006,
        #EXT-X-BYTERANGE:48000
        main.mp4
        #EXT-X-DISCONTINUITY
        #EXT-X-KEY:METHOD=NONE
        #EXTINF:2.5,
        tail.mp4
        #EXT-X-ENDLIST

        """

    static let iptv = """
        #EXTM3U x-tvg-url="http://epg.example.com/guide.xml"
        #EXTINF:-1 tvg-id="news.example" group-title="News",News Channel
        http://stream.example.com/news.ts

        """

    static let lowLatency = """
        #EXTM3U
        #EXT-X-TARGETDURATION:4
        #EXT-X-PART-INF:PART-TARGET=2.0
        #EXT-X-PART:DURATION=2.0,URI="s1.part1.mp4",INDEPENDENT=YES
        #EXT-X-PART:DURATION=2.0,URI="s1.part2.mp4"
        #EXTINF:4,
        s1.mp4
        #EXT-X-PRELOAD-HINT:TYPE=PART,URI="s2.part1.mp4"
        #EXT-X-ENDLIST

        """

    private func withServedStream(_ body: @Sendable (String) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            try folder.write(Self.main, to: "main.m3u8")
            try folder.write(Self.media, to: "v360/index.m3u8")
            try folder.write("#EXTM3U\n#EXT-X-STREAM-INF:RESOLUTION=1x1\nv.m3u8\n", to: "broken.m3u8")
            try folder.write(Self.iptv, to: "iptv.m3u8")
            try folder.write(Self.lowLatency, to: "ll.m3u8")
            try await Origin(root: folder.path).withRunning { origin in try await body(origin.baseURL) }
        }
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("--json describes a multivariant playlist's variants, renditions, keys and data")
    func multivariantJSON() async throws {
        try await withServedStream { base in
            let result = try await runCarryon(["inspect", base + "/main.m3u8", "--json"])
            #expect(result.status == 0, "\(result.standardError)")
            let object = try json(result.standardOutput)
            #expect(object["type"] as? String == "multivariant")
            let variants = try #require(object["variants"] as? [[String: Any]])
            #expect(variants.count == 2)
            #expect(variants[0]["uri"] as? String == base + "/v360/index.m3u8")
            #expect(variants[0]["bandwidth"] as? Int == 1_280_000)
            #expect(variants[0]["averageBandwidth"] as? Int == 1_000_000)
            #expect(variants[0]["resolution"] as? String == "640x360")
            #expect(variants[0]["frameRate"] as? Double == 29.97)
            #expect(variants[0]["codecs"] as? String == "avc1.4d401e,mp4a.40.2")
            #expect(variants[0]["audio"] as? String == "aud")
            #expect(variants[0]["subtitles"] as? String == "subs")
            #expect(variants[0]["closedCaptions"] as? String == "NONE")
            #expect(variants[0]["videoRange"] == nil)
            #expect(variants[1]["videoRange"] as? String == "PQ")
            #expect(variants[1]["averageBandwidth"] == nil)
            let renditions = try #require(object["renditions"] as? [[String: Any]])
            #expect(renditions.map { $0["language"] as? String } == ["en", "de", "en"])
            #expect(renditions[0]["default"] as? Bool == true)
            #expect(renditions[1]["default"] as? Bool == false)
            #expect(renditions[1]["channels"] as? String == "6")
            #expect(renditions[2]["type"] as? String == "SUBTITLES")
            #expect(renditions[2]["forced"] as? Bool == true)
            #expect(renditions[2]["uri"] as? String == base + "/subs/en.m3u8")
            let iframes = try #require(object["iframeVariants"] as? [[String: Any]])
            #expect(iframes.first?["uri"] as? String == base + "/v360/iframe.m3u8")
            let keys = try #require(object["sessionKeys"] as? [[String: Any]])
            #expect(keys.first?["method"] as? String == "AES-128")
            let data = try #require(object["sessionData"] as? [[String: Any]])
            #expect(data.first?["value"] as? String == "Example")
        }
    }

    @Test("--json describes a media playlist's segments with absolute URIs, ranges, keys and maps")
    func mediaJSON() async throws {
        try await withServedStream { base in
            let result = try await runCarryon(["inspect", base + "/v360/index.m3u8", "--json"])
            #expect(result.status == 0, "\(result.standardError)")
            let object = try json(result.standardOutput)
            #expect(object["type"] as? String == "media")
            #expect(object["targetDuration"] as? Int == 6)
            #expect(object["mediaSequence"] as? Int == 3)
            #expect(object["playlistType"] as? String == "VOD")
            #expect(object["endList"] as? Bool == true)
            #expect(abs((object["duration"] as? Double ?? 0) - 14.512) < 1e-9)
            let segments = try #require(object["segments"] as? [[String: Any]])
            #expect(segments.count == 3)
            #expect(segments[0]["uri"] as? String == base + "/v360/main.mp4")
            let second = try #require(segments[1]["byteRange"] as? [String: Any])
            #expect(second["offset"] as? Int == 50_720)
            #expect(second["length"] as? Int == 48_000)
            let key = try #require(segments[0]["key"] as? [String: Any])
            #expect(key["method"] as? String == "AES-128")
            #expect(key["uri"] as? String == base + "/keys/k1")
            #expect(key["iv"] as? String == "0x000102030405060708090A0B0C0D0E0F")
            let map = try #require(segments[0]["map"] as? [String: Any])
            #expect(map["uri"] as? String == base + "/v360/init.mp4")
            #expect(segments[0]["programDateTime"] as? String == "2026-11-21T10:00:00.000Z")
            #expect(segments[1]["programDateTime"] == nil)
            #expect(segments[2]["discontinuity"] as? Bool == true)
            #expect(segments[2]["key"] == nil)
            #expect(segments[2]["byteRange"] == nil)
        }
    }

    @Test("text output lists variants and renditions by group")
    func multivariantText() async throws {
        try await withServedStream { base in
            let result = try await runCarryon(["inspect", base + "/main.m3u8"])
            #expect(result.status == 0)
            #expect(result.standardOutput.contains("Multivariant playlist"))
            #expect(result.standardOutput.contains("1920x1080"))
            #expect(result.standardOutput.contains("AUDIO group \"aud\""))
            #expect(result.standardOutput.contains("Deutsch"))
            #expect(result.standardOutput.contains("SUBTITLES group \"subs\""))
        }
    }

    @Test("text output summarises a media playlist's encryption, init sections, ranges and discontinuities")
    func mediaText() async throws {
        try await withServedStream { base in
            let result = try await runCarryon(["inspect", base + "/v360/index.m3u8"])
            #expect(result.status == 0)
            #expect(result.standardOutput.contains("VOD"))
            #expect(result.standardOutput.contains("AES-128: 2 of 3 segments"))
            #expect(result.standardOutput.contains("Init sections   init.mp4 [720@0]"))
            #expect(result.standardOutput.contains("Byte ranges     2 segments in 1 file"))
            #expect(result.standardOutput.contains("Discontinuities 1"))
        }
    }

    @Test("a 404 exits 1 with the URL and status on stderr")
    func notFound() async throws {
        try await withServedStream { base in
            let result = try await runCarryon(["inspect", base + "/missing.m3u8"])
            #expect(result.status == 1)
            #expect(result.standardOutput.isEmpty)
            #expect(result.standardError.contains(base + "/missing.m3u8"))
            #expect(result.standardError.contains("404"))
        }
    }

    @Test("an IPTV list shows each entry's attributes and title and its unknown duration, with the warnings")
    func iptvList() async throws {
        try await withServedStream { base in
            let result = try await runCarryon(["inspect", base + "/iptv.m3u8"])
            #expect(result.status == 0, "\(result.standardError)")
            let out = result.standardOutput
            #expect(out.contains("tvg-id=\"news.example\" group-title=\"News\" News Channel"), "\(out)")
            #expect(out.contains("unknown"), "\(out)")
            #expect(out.contains("line 1: #EXTM3U carries attributes"), "\(out)")
            let report = try json(try await runCarryon(["inspect", base + "/iptv.m3u8", "--json"]).standardOutput)
            let segment = try #require((report["segments"] as? [[String: Any]])?.first)
            #expect(segment["durationKnown"] as? Bool == false)
            #expect((segment["attributes"] as? [String: String])?["tvg-id"] == "news.example")
        }
    }

    @Test("partial segments beside full segments are shown, and said not to be downloaded")
    func lowLatencyParts() async throws {
        try await withServedStream { base in
            let result = try await runCarryon(["inspect", base + "/ll.m3u8"])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.contains("Partial segments 2, 1 preload hint (low-latency HLS; a download takes the full segments)"),
                    "\(result.standardOutput)")
            #expect(result.standardOutput.contains("2 parts"))
            let report = try json(try await runCarryon(["inspect", base + "/ll.m3u8", "--json"]).standardOutput)
            let segment = try #require((report["segments"] as? [[String: Any]])?.first)
            #expect((segment["parts"] as? [[String: Any]])?.count == 2)
        }
    }

    @Test("a deviation is a warning naming the line; with --strict it exits 1 naming the line and what is wrong")
    func malformed() async throws {
        try await withServedStream { base in
            let result = try await runCarryon(["inspect", base + "/broken.m3u8", "--strict"])
            #expect(result.status == 1)
            #expect(result.standardError.contains("line 2"))
            #expect(result.standardError.contains("BANDWIDTH"))
            #expect(result.standardError.contains("hint: --strict refuses every deviation from RFC 8216bis; without it Carryon reads past this one"))
            let lenient = try await runCarryon(["inspect", base + "/broken.m3u8"])
            #expect(lenient.status == 0, "\(lenient.standardError)")
            #expect(lenient.standardOutput.contains("line 2: EXT-X-STREAM-INF lacks the required attribute BANDWIDTH; the bandwidth is unknown"))
            #expect(lenient.standardOutput.contains("    #EXT-X-STREAM-INF:RESOLUTION=1x1"))
            #expect(lenient.standardOutput.contains("unknown bitrate"))
        }
    }

    @Test("bad usage exits 64")
    func usage() async throws {
        let missing = try await runCarryon(["inspect"])
        #expect(missing.status == 64)
        let badHeader = try await runCarryon(["inspect", "x.m3u8", "--header", "no colon"])
        #expect(badHeader.status == 64)
        #expect(badHeader.standardError.contains("--header"))
    }
}
