@testable import Carryon
import HLS
import Testing

/// A stream read leniently still gets strict playlists in its bundle: what the reader assumed is
/// written out, what it ignored is left out, and the result passes `.strict` with no warning.
@Suite("Strict local playlists from lenient reading")
struct LenientLocalPlaylistTests {
    /// Media playlists each with one deviation, and how many segments each has.
    static let media: [(deviation: String, text: String, segments: Int)] = [
        ("lines before #EXTM3U and a byte order mark", "\u{FEFF}\n# old tool\n#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\ns1.ts\n#EXT-X-ENDLIST\n", 1),
        ("no EXT-X-TARGETDURATION", "#EXTM3U\n#EXTINF:6.5,\ns1.ts\n#EXTINF:4,\ns2.ts\n#EXT-X-ENDLIST\n", 2),
        ("a negative media sequence and a spaced version", "#EXTM3U\n#EXT-X-VERSION: 3\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:-4\n#EXTINF:6,\ns1.ts\n#EXT-X-ENDLIST\n", 1),
        ("a media sequence after the first segment", "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:5\n#EXTINF:6,\ns1.ts\n#EXT-X-MEDIA-SEQUENCE:50\n#EXTINF:6,\ns2.ts\n#EXT-X-ENDLIST\n", 2),
        ("empty and unknown values", "#EXTM3U\n#EXT-X-VERSION:\n#EXT-X-PLAYLIST-TYPE:LIVE\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\ns1.ts\n#EXT-X-ENDLIST\n", 1),
        ("quoted and malformed SCTE-35 messages", "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2024-07-01T12:00:00Z\",SCTE35-OUT=\"0xFC30\",SCTE35-IN=0xZZ\n#EXTINF:6,\ns1.ts\n#EXT-X-ENDLIST\n", 1),
        ("a session key in a media playlist, a lower-case method", "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-SESSION-KEY:METHOD=aes-128,URI=\"k.bin\"\n#EXTINF:6,\ns1.ts\n#EXT-X-ENDLIST\n", 1),
        ("IPTV attributes and an unknown duration", "#EXTM3U x-tvg-url=\"http://e.example/g.xml\"\n#EXT-X-TARGETDURATION:6\n#EXTINF:-1 tvg-id=\"n\" group-title=\"News\",News\nn.ts\n#EXT-X-ENDLIST\n", 1),
        ("one URI line and no EXTINF", "#EXTM3U\nmovie.ts\n", 1),
        ("lone CRs and trailing white space", "#EXTM3U\r#EXT-X-TARGETDURATION:6\r#EXTINF:6,\rs1.ts  \r#EXT-X-ENDLIST \r", 1),
        ("multivariant tags in a media playlist", "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"x\",URI=\"a.m3u8\"\n#EXTINF:6,\ns1.ts\n#EXT-X-ENDLIST\n", 1),
    ]

    @Test("each local media playlist passes the strict reading, with every segment", arguments: media.indices)
    func mediaPlaylist(_ index: Int) throws {
        let (deviation, text, segments) = Self.media[index]
        let input = try PlanFixture.input("v/index.m3u8", text)
        #expect(!input.media.warnings.isEmpty, "\(deviation): the fixture deviates")
        let local = try PlanFixture.plan(input).localText("video")
        let strict = try MediaPlaylist(parsing: local, url: "file:///bundle/video/index.m3u8", options: .strict)
        #expect(strict.warnings.isEmpty, "\(deviation): \(strict.warnings)\n\(local)")
        #expect(strict.segments.count == segments, "\(deviation)\n\(local)")
        #expect(strict.targetDuration == input.media.targetDuration, "\(deviation): the assumed target duration is written out")
        #expect(strict.segments.map(\.mediaSequence) == input.media.segments.map(\.mediaSequence), "\(deviation)")
        #expect(strict.segments.map { $0.key?.method } == input.media.segments.map { $0.key?.method }, "\(deviation): the keys applied")
    }

    @Test("the local multivariant playlist of a leniently read one passes the strict reading")
    func multivariantPlaylist() throws {
        let main = try PlanFixture.main("main.m3u8", """
            # packaged by hand
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-MEDIA:TYPE=audio,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=yes,AUTOSELECT=YES,URI="a/en.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=500000
            #EXT-X-STREAM-INF:RESOLUTION=640X360,AUDIO="aud"
            v/index.m3u8

            """)
        #expect(!main.resolved.warnings.isEmpty)
        let selection = try PlanFixture.selection(in: main.resolved, variant: "v/index.m3u8", renditions: ["a/en.m3u8"])
        let media = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\ns1.ts\n#EXT-X-ENDLIST\n"
        let plan = try DownloadPlan.make(assetID: "asset", inputs: [
            PlanFixture.input("v/index.m3u8", media),
            PlanFixture.input("a/en.m3u8", media, type: "AUDIO", name: "English", language: "en", isMain: true),
        ], main: main, selection: selection)
        let strict = try MultivariantPlaylist(parsing: plan.localMain, url: "file:///bundle/main.m3u8", options: .strict)
        #expect(strict.warnings.isEmpty, "\(strict.warnings)\n\(plan.localMain)")
        let variant = try #require(strict.variants.first)
        #expect(strict.variants.count == 1)
        #expect(variant.resolution == Resolution(width: 640, height: 360))
        #expect(variant.bandwidth != nil, "a variant without BANDWIDTH gets the bandwidth of what was planned")
        #expect(strict.renditions.map(\.type) == [.audio])
        #expect(strict.renditions.first?.isDefault == true)
    }
}
