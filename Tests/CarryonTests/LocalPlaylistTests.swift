@testable import Carryon
import HLS
import Testing

/// The playlists a bundle is played from: the origin's playlists rewritten to point at the
/// bundle's files, with what an offline player cannot use left out.
@Suite("Writing a bundle's local playlists")
struct LocalPlaylistTests {
    // MARK: Media playlists

    @Test("a local media playlist names the rendition's own files relative to its folder and keeps the rest of the playlist")
    func localNames() throws {
        let origin = """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:4
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-MAP:URI="https://cdn.example/v/init.mp4?sig=1"
            #EXTINF:4.000,first
            s1.m4s?sig=1
            #EXT-X-DISCONTINUITY
            #EXTINF:3.5,
            /v/s2.m4s
            #EXT-X-ENDLIST

            """
        let plan = try PlanFixture.plan(PlanFixture.input("v/index.m3u8", origin))
        #expect(try plan.localText("video") == """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:4
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-MAP:URI="init1.mp4"
            #EXTINF:4.000,first
            00001.m4s
            #EXT-X-DISCONTINUITY
            #EXTINF:3.5,
            00002.m4s
            #EXT-X-ENDLIST

            """)
        #expect(plan.renditions[0].originText == Array(origin.utf8))
    }

    @Test("a local playlist longer than the room first given to it is written again, whole, with the room it needs")
    func longerThanTheRoomGiven() throws {
        let origin = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na\n#EXTINF:4,\nb\n#EXT-X-ENDLIST\n"
        let input = try PlanFixture.input("v/index.m3u8", origin)
        let names = ["video/00001.bin", "video/00002.bin"]
        func local(capacity: Int?) throws -> String {
            try DownloadPlan.localMediaPlaylist(media: input.media, fetched: input.fetched, key: "video",
                                                segmentFile: { $0 < names.count ? names[$0] : nil }, mapFile: { _ in nil },
                                                capacity: capacity)
        }
        let expected = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\n00001.bin\n#EXTINF:4,\n00002.bin\n#EXT-X-ENDLIST\n"
        #expect(try local(capacity: nil) == expected)
        // Room for less than the header: all of it written the second time.
        #expect(try local(capacity: 8) == expected)
        #expect(try local(capacity: 0) == expected)
    }

    @Test("a local media playlist keeps EXT-X-BYTERANGE, pointing at the shared local file")
    func keepsByteRanges() throws {
        let plan = try PlanFixture.plan(PlanFixture.input("v/index.m3u8", """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:4
            #EXT-X-MAP:URI="main.mp4",BYTERANGE="720@0"
            #EXT-X-BYTERANGE:1000@720
            #EXTINF:4,
            main.mp4
            #EXT-X-BYTERANGE:1200
            #EXTINF:4,
            main.mp4
            #EXT-X-ENDLIST

            """))
        let local = try plan.localText("video")
        #expect(local.contains("#EXT-X-MAP:URI=\"file1.mp4\",BYTERANGE=\"720@0\"\n"))
        #expect(local.contains("#EXT-X-BYTERANGE:1000@720\n"))
        #expect(local.contains("#EXT-X-BYTERANGE:1200\n"))
        let resolved = try MediaPlaylist(parsing: local, url: "file:///bundle/video/index.m3u8")
        #expect(resolved.segments.map(\.byteRange) == [ResolvedByteRange(offset: 720, length: 1000),
                                                        ResolvedByteRange(offset: 1720, length: 1200)])
        #expect(resolved.segments.map(\.uri) == ["file:///bundle/video/file1.mp4", "file:///bundle/video/file1.mp4"])
        #expect(resolved.segments[0].initSection?.byteRange == ResolvedByteRange(offset: 0, length: 720))
    }

    @Test("the low-latency parts, preload hints and rendition reports are left out; no part is fetched")
    func dropsLowLatencyTags() throws {
        let plan = try PlanFixture.plan(PlanFixture.input("v/index.m3u8", """
            #EXTM3U
            #EXT-X-VERSION:9
            #EXT-X-TARGETDURATION:4
            #EXT-X-PART-INF:PART-TARGET=2
            #EXT-X-MAP:URI="init.mp4"
            #EXT-X-PART:DURATION=2,URI="s1.p1.m4s",INDEPENDENT=YES
            #EXT-X-PART:DURATION=2,URI="s1.p2.m4s"
            #EXTINF:4,
            s1.m4s
            #EXT-X-PART:DURATION=2,URI="s2.p1.m4s",INDEPENDENT=YES
            #EXT-X-PRELOAD-HINT:TYPE=PART,URI="s2.p2.m4s"
            #EXT-X-RENDITION-REPORT:URI="../a/index.m3u8",LAST-MSN=1,LAST-PART=0
            #EXT-X-ENDLIST

            """))
        let local = try plan.localText("video")
        #expect(!local.contains("#EXT-X-PART:"))
        #expect(!local.contains("#EXT-X-PRELOAD-HINT"))
        #expect(!local.contains("#EXT-X-RENDITION-REPORT"))
        #expect(!local.contains(".p1.m4s") && !local.contains(".p2.m4s"))
        #expect(plan.resources.map { $0.uri.split(separator: "/").last! } == ["init.mp4", "s1.m4s"])
        let resolved = try MediaPlaylist(parsing: local, url: "file:///bundle/video/index.m3u8")
        #expect(resolved.segments.map(\.uri) == ["file:///bundle/video/00001.m4s"])
        #expect(resolved.segments.allSatisfy(\.parts.isEmpty) && resolved.trailingParts.isEmpty)
        #expect(resolved.preloadHints.isEmpty && resolved.renditionReports.isEmpty)
    }

    @Test("EXT-X-DEFINE IMPORT and QUERYPARAM become NAME and VALUE, so the local playlist resolves on its own")
    func definesMadeExplicit() throws {
        let plan = try PlanFixture.plan(PlanFixture.input("v/index.m3u8?token=t0k", """
            #EXTM3U
            #EXT-X-VERSION:11
            #EXT-X-TARGETDURATION:4
            #EXT-X-DEFINE:IMPORT="cdn"
            #EXT-X-DEFINE:QUERYPARAM="token"
            #EXT-X-DEFINE:NAME="title",VALUE="Example"
            #EXT-X-DATERANGE:ID="ad",START-DATE="2024-01-01T00:00:00Z",X-TITLE="{$title}",X-TOKEN="{$token}"
            #EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00Z
            #EXTINF:4,
            {$cdn}/v/s1.ts?token={$token}
            #EXT-X-ENDLIST

            """, imports: ["cdn": "https://edge.example"]))
        #expect(plan.resources.map(\.uri) == ["https://edge.example/v/s1.ts?token=t0k"])
        let local = try plan.localText("video")
        #expect(local.contains("#EXT-X-DEFINE:NAME=\"cdn\",VALUE=\"https://edge.example\"\n"))
        #expect(local.contains("#EXT-X-DEFINE:NAME=\"token\",VALUE=\"t0k\"\n"))
        #expect(local.contains("#EXT-X-DEFINE:NAME=\"title\",VALUE=\"Example\"\n"))
        #expect(!local.contains("IMPORT=") && !local.contains("QUERYPARAM="))
        // No imports, no query: everything it needs is in the file.
        let resolved = try MediaPlaylist(parsing: local, url: "file:///bundle/video/index.m3u8")
        #expect(resolved.variables == ["cdn": "https://edge.example", "token": "t0k", "title": "Example"])
        #expect(resolved.segments.map(\.uri) == ["file:///bundle/video/00001.ts"])
    }

    @Test("every local media playlist parses again and resolves to files inside the bundle")
    func mediaPlaylistsParse() throws {
        let plan = try DownloadPlan.make(assetID: "asset", inputs: [
            PlanFixture.input("v/index.m3u8", DownloadPlanTests.videoFMP4),
            PlanFixture.input("a/en.m3u8", DownloadPlanTests.audioFMP4, type: "AUDIO", name: "English", language: "en"),
            PlanFixture.input("s/de.m3u8", DownloadPlanTests.subtitles, type: "SUBTITLES", name: "Deutsch", language: "de",
                              isMain: false),
        ], main: nil, selection: nil)
        for rendition in plan.renditions {
            let key = rendition.record.key
            let parsed = try Playlist.parse(rendition.localText)
            #expect(parsed.warnings.isEmpty, "\(key)")
            let media = try MediaPlaylist(parsed.playlist, url: "file:///bundle/\(key)/index.m3u8")
            let files = media.segments.map(\.uri) + media.segments.compactMap(\.initSection?.uri)
            #expect(files.allSatisfy { $0.hasPrefix("file:///bundle/\(key)/") }, "\(files)")
            #expect(media.segments.count == 2 && media.hasEndList)
        }
    }

    // MARK: A single media playlist

    @Test("a stream given by its media playlist gets a local multivariant playlist naming that playlist, with a bandwidth from the estimate")
    func singleMediaPlaylist() throws {
        let plan = try PlanFixture.plan(PlanFixture.input("v/index.m3u8", DownloadPlanTests.videoFMP4, type: "MEDIA", name: "media",
                                                          bitrate: 1_000_000))
        #expect(plan.renditions.map(\.record.key) == ["media"])
        #expect(plan.originMain == nil)
        let main = try MultivariantPlaylist(parsing: plan.localMain, url: "file:///bundle/main.m3u8")
        #expect(main.variants.map(\.uri) == ["file:///bundle/media/index.m3u8"])
        // Two 4 s segments estimated at 500 000 bytes and a 2 000-byte init section, over 8 s.
        #expect(main.variants[0].bandwidth == 1_002_000)
    }

    // MARK: The multivariant playlist

    static let main = """
        #EXTM3U
        #EXT-X-VERSION:6
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-DEFINE:QUERYPARAM="token"
        #EXT-X-SESSION-KEY:METHOD=SAMPLE-AES,URI="skd://key",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"
        #EXT-X-SESSION-DATA:DATA-ID="com.example.title",VALUE="Example"
        #EXT-X-SESSION-DATA:DATA-ID="com.example.lyrics",URI="lyrics.json"
        #EXT-X-CONTENT-STEERING:SERVER-URI="https://steer.example/manifest.json"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="a/en.m3u8?token={$token}"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="Deutsch",LANGUAGE="de",AUTOSELECT=YES,URI="a/de.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud-lo",NAME="English",LANGUAGE="en",URI="a/en-lo.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Deutsch",LANGUAGE="de",URI="s/de.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",URI="s/en.m3u8"
        #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="English CC",LANGUAGE="en",INSTREAM-ID="CC1"
        #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc-lo",NAME="English CC",LANGUAGE="en",INSTREAM-ID="CC1"
        #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,AUDIO="aud-lo",SUBTITLES="subs",CLOSED-CAPTIONS="cc-lo"
        v/360.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=2500000,RESOLUTION=1280x720,AUDIO="aud",SUBTITLES="subs",CLOSED-CAPTIONS="cc"
        v/720.m3u8?token={$token}
        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=100000,RESOLUTION=1280x720,URI="v/720-iframes.m3u8"

        """

    /// Plans `Self.main` (read with `?token=abc`) with the 720p variant and the renditions at
    /// `renditions`.
    func planMain(renditions: [String], text: String = Self.main) throws -> DownloadPlan {
        let main = try PlanFixture.main("main.m3u8?token=abc", text)
        let selection = try PlanFixture.selection(in: main.resolved, variant: "v/720.m3u8?token=abc", renditions: renditions)
        var inputs = [try PlanFixture.input("v/720.m3u8?token=abc", DownloadPlanTests.subtitles)]
        for rendition in selection.renditions {
            inputs.append(try PlanFixture.input(String(rendition.uri.dropFirst(PlanFixture.base.count)), DownloadPlanTests.subtitles,
                                                type: rendition.type, name: rendition.name, language: rendition.language,
                                                isMain: rendition.isMain))
        }
        return try DownloadPlan.make(assetID: "asset", inputs: inputs, main: main, selection: selection)
    }

    func resolvedMain(_ plan: DownloadPlan) throws -> MultivariantPlaylist {
        let parsed = try Playlist.parse(plan.localMain)
        #expect(parsed.warnings.isEmpty)
        return try MultivariantPlaylist(parsed.playlist, url: "file:///bundle/main.m3u8", warnings: parsed.warnings)
    }

    @Test("the local multivariant playlist keeps only the chosen variant, pointing at the video folder")
    func onlyChosenVariant() throws {
        let plan = try planMain(renditions: ["a/en.m3u8?token=abc", "s/de.m3u8"])
        let main = try resolvedMain(plan)
        #expect(main.variants.map(\.uri) == ["file:///bundle/video/index.m3u8"])
        #expect(main.variants[0].bandwidth == 2_500_000)
        #expect(main.variants[0].resolution?.description == "1280x720")
        #expect(main.independentSegments)
        #expect(plan.originMain == Array(Self.main.utf8))
    }

    @Test("the chosen renditions point at their folders; the others are left out")
    func onlyChosenRenditions() throws {
        let plan = try planMain(renditions: ["a/en.m3u8?token=abc", "s/de.m3u8"])
        let main = try resolvedMain(plan)
        let renditions = main.renditions.map { "\($0.type.rawValue) \($0.groupID) \($0.name) \($0.uri ?? "-")" }
        #expect(renditions == [
            "AUDIO aud English file:///bundle/audio-en/index.m3u8",
            "SUBTITLES subs Deutsch file:///bundle/subtitles-de/index.m3u8",
            "CLOSED-CAPTIONS cc English CC -",
        ])
        #expect(main.variants[0].audio == "aud")
        #expect(main.variants[0].subtitles == "subs")
        #expect(main.variants[0].closedCaptions == .group("cc"))
        #expect(main.warnings.isEmpty)
    }

    @Test("I-frame variants, session keys, content steering and session data read from a URI are left out; inline session data stays")
    func leavesOutOnlineOnlyTags() throws {
        let plan = try planMain(renditions: ["a/en.m3u8?token=abc"])
        let main = try resolvedMain(plan)
        #expect(main.iFrameVariants.isEmpty)
        #expect(main.sessionKeys.isEmpty)
        #expect(main.contentSteering == nil)
        #expect(main.sessionData.map(\.dataID) == ["com.example.title"])
        #expect(!plan.localMain.contains("iframes") && !plan.localMain.contains("skd://") && !plan.localMain.contains("steer."))
    }

    @Test("a QUERYPARAM variable of the multivariant playlist becomes NAME and VALUE")
    func multivariantDefinesMadeExplicit() throws {
        let plan = try planMain(renditions: ["a/en.m3u8?token=abc"])
        #expect(plan.localMain.contains("#EXT-X-DEFINE:NAME=\"token\",VALUE=\"abc\"\n"))
        #expect(!plan.localMain.contains("QUERYPARAM"))
        #expect(try resolvedMain(plan).variables == ["token": "abc"])
    }

    @Test("a SUBTITLES attribute whose group lost every rendition is removed")
    func removesEmptiedSubtitleGroup() throws {
        let plan = try planMain(renditions: ["a/en.m3u8?token=abc"])
        let main = try resolvedMain(plan)
        #expect(main.variants[0].subtitles == nil)
        #expect(main.variants[0].audio == "aud")
        #expect(!plan.localMain.contains("SUBTITLES"))
        #expect(main.warnings.isEmpty)
    }

    @Test("an AUDIO attribute whose group lost every rendition is removed")
    func removesEmptiedAudioGroup() throws {
        let plan = try planMain(renditions: ["s/en.m3u8"])
        let main = try resolvedMain(plan)
        #expect(main.variants[0].audio == nil)
        #expect(main.renditions.allSatisfy { $0.type != .audio })
        #expect(main.warnings.isEmpty)
    }

    @Test("renditions carried in the variant (no URI) stay with their group, though nothing was downloaded for them")
    func keepsRenditionsWithoutURI() throws {
        let plan = try planMain(renditions: [], text: """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="Deutsch",LANGUAGE="de",URI="a/de.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="other",NAME="English",LANGUAGE="en"
            #EXT-X-STREAM-INF:BANDWIDTH=2500000,AUDIO="aud"
            v/720.m3u8?token=abc

            """)
        let main = try resolvedMain(plan)
        #expect(main.renditions.map { "\($0.groupID) \($0.name) \($0.uri ?? "-")" } == ["aud English -"])
        #expect(main.variants[0].audio == "aud")
    }

    @Test("a group is judged by its type: keeping a SUBTITLES group does not keep an emptied AUDIO group of the same GROUP-ID")
    func groupIDsAreScopedByType() throws {
        let plan = try planMain(renditions: ["s/en.m3u8"], text: """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="main",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="a/en.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="main",NAME="English",LANGUAGE="en",URI="s/en.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=2500000,AUDIO="main",SUBTITLES="main"
            v/720.m3u8?token=abc

            """)
        let main = try resolvedMain(plan)
        #expect(main.renditions.map { "\($0.type.rawValue) \($0.groupID)" } == ["SUBTITLES main"])
        #expect(main.variants[0].subtitles == "main")
        #expect(main.variants[0].audio == nil)
        #expect(main.warnings.isEmpty)
    }
}
