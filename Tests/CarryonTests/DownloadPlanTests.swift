@testable import Carryon
import HLS
import Testing

/// What ``DownloadPlan`` fetches and where it puts it: resources in playback order, each
/// (URI, byte range) once, in files whose names stay inside the rendition's folder.
@Suite("Planning the resources of a download")
struct DownloadPlanTests {
    static let videoFMP4 = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:4
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-MAP:URI="init.mp4"
        #EXTINF:4,
        s1.m4s
        #EXTINF:4,
        s2.m4s
        #EXT-X-ENDLIST

        """
    static let audioFMP4 = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:4
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-MAP:URI="init.mp4"
        #EXTINF:4,
        s1.m4s
        #EXTINF:4,
        s2.m4s
        #EXT-X-ENDLIST

        """
    static let subtitles = """
        #EXTM3U
        #EXT-X-TARGETDURATION:4
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXTINF:4,
        1.vtt
        #EXTINF:4,
        2.vtt
        #EXT-X-ENDLIST

        """

    func inputs() throws -> [DownloadPlan.Input] {
        [try PlanFixture.input("v/index.m3u8", Self.videoFMP4),
         try PlanFixture.input("a/en.m3u8", Self.audioFMP4, type: "AUDIO", name: "English", language: "en"),
         try PlanFixture.input("s/de.m3u8", Self.subtitles, type: "SUBTITLES", name: "Deutsch", language: "de", isMain: false)]
    }

    // MARK: Order

    @Test("resources come in playback order: the main selection first, interleaved by time, each init section before its segments")
    func playbackOrder() throws {
        let plan = try DownloadPlan.make(assetID: "asset", inputs: inputs(), main: nil, selection: nil)
        let order = plan.resources.map { "\($0.renditionKey) \($0.uri.dropFirst(PlanFixture.base.count))" }
        #expect(order == [
            "video v/init.mp4", "audio-en a/init.mp4",
            "video v/s1.m4s", "audio-en a/s1.m4s",
            "video v/s2.m4s", "audio-en a/s2.m4s",
            "subtitles-de s/1.vtt", "subtitles-de s/2.vtt",
        ])
        #expect(plan.resources.map(\.ordinal) == Array(0..<8))
        #expect(plan.resources.map(\.kind) == [.initSection, .initSection] + Array(repeating: .segment, count: 6))
    }

    @Test("an init section that changes mid-stream is fetched just before the segment it starts")
    func initSectionMidStream() throws {
        let plan = try PlanFixture.plan(PlanFixture.input("v/index.m3u8", """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:4
            #EXT-X-MAP:URI="a.mp4"
            #EXTINF:4,
            a1.m4s
            #EXTINF:4,
            a2.m4s
            #EXT-X-DISCONTINUITY
            #EXT-X-MAP:URI="b.mp4"
            #EXTINF:4,
            b1.m4s
            #EXT-X-ENDLIST

            """))
        #expect(plan.resources.map { $0.uri.split(separator: "/").last! } == ["a.mp4", "a1.m4s", "a2.m4s", "b.mp4", "b1.m4s"])
        #expect(plan.resources[3].kind == .initSection)
        #expect(plan.resources[3].startTime == 8)
    }

    @Test("resources carry their place in the presentation and a size estimate from the bitrate")
    func timesAndEstimates() throws {
        let plan = try PlanFixture.plan(PlanFixture.input("v/index.m3u8", Self.videoFMP4, bitrate: 800_000))
        let segments = plan.resources.filter { $0.kind == .segment }
        #expect(segments.map(\.startTime) == [0, 4])
        #expect(segments.map(\.duration) == [4, 4])
        #expect(segments.map(\.expectedBytes) == [400_000, 400_000])   // 800 kbit/s × 4 s / 8
        #expect(segments.allSatisfy { !$0.exactSize && $0.state == .pending && $0.assetID == "asset" })
        #expect(plan.duration == 8)
    }

    // MARK: Each resource once

    @Test("an init section named again by a later EXT-X-MAP is fetched once, and both tags point at it")
    func sharedInitSection() throws {
        let plan = try PlanFixture.plan(PlanFixture.input("v/index.m3u8", """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:4
            #EXT-X-MAP:URI="init.mp4"
            #EXTINF:4,
            s1.m4s
            #EXT-X-DISCONTINUITY
            #EXT-X-MAP:URI="init.mp4"
            #EXTINF:4,
            s2.m4s
            #EXT-X-ENDLIST

            """))
        #expect(plan.resources.filter { $0.kind == .initSection }.map(\.fileName) == ["video/init1.mp4"])
        let local = try plan.localText("video")
        #expect(local.components(separatedBy: "#EXT-X-MAP:URI=\"init1.mp4\"").count - 1 == 2)
    }

    @Test("byte ranges of one origin file share one local file, at the same offsets, with exact sizes")
    func byteRangesShareAFile() throws {
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
        #expect(plan.resources.count == 3)
        #expect(plan.resources.allSatisfy { $0.fileName == "video/file1.mp4" && $0.exactSize })
        #expect(plan.resources.map(\.rangeOffset) == [0, 720, 1720])
        #expect(plan.resources.map(\.rangeLength) == [720, 1000, 1200])
        #expect(plan.resources.map(\.expectedBytes) == [720, 1000, 1200])
        #expect(plan.resources.map(\.byteRange) == [0...719, 720...1719, 1720...2919])
    }

    @Test("ranges of two origin files go to two local files")
    func twoRangedFiles() throws {
        let plan = try PlanFixture.plan(PlanFixture.input("v/index.m3u8", """
            #EXTM3U
            #EXT-X-VERSION:4
            #EXT-X-TARGETDURATION:4
            #EXT-X-BYTERANGE:1000@0
            #EXTINF:4,
            part1.ts
            #EXT-X-BYTERANGE:1000@0
            #EXTINF:4,
            part2.ts
            #EXT-X-ENDLIST

            """))
        #expect(plan.resources.map(\.fileName) == ["video/file1.ts", "video/file2.ts"])
        #expect(try plan.localURIs("video") == ["file1.ts", "file2.ts"])
    }

    @Test("a segment two renditions reference is planned once, and the second rendition points into the first one's folder")
    func sharedAcrossRenditions() throws {
        let shared = """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXTINF:4,
            ../audio/s1.aac
            #EXTINF:4,
            ../audio/s2.aac
            #EXT-X-ENDLIST

            """
        let plan = try PlanFixture.plan(
            PlanFixture.input("a/en.m3u8", shared, type: "AUDIO", name: "English", language: "en"),
            PlanFixture.input("b/en.m3u8", shared, type: "AUDIO", name: "English (described)", language: "en", isMain: false))
        #expect(plan.resources.map(\.fileName) == ["audio-en/00001.aac", "audio-en/00002.aac"])
        #expect(try plan.localURIs("audio-en") == ["00001.aac", "00002.aac"])
        #expect(try plan.localURIs("audio-en-2") == ["../audio-en/00001.aac", "../audio-en/00002.aac"])
    }

    @Test("the same byte range of the same file in two renditions is planned once; a different range of it shares its file")
    func sharedRangesAcrossRenditions() throws {
        let first = """
            #EXTM3U
            #EXT-X-VERSION:4
            #EXT-X-TARGETDURATION:4
            #EXT-X-BYTERANGE:500@0
            #EXTINF:4,
            ../muxed.ts
            #EXT-X-ENDLIST

            """
        let second = """
            #EXTM3U
            #EXT-X-VERSION:4
            #EXT-X-TARGETDURATION:4
            #EXT-X-BYTERANGE:500@0
            #EXTINF:4,
            ../muxed.ts
            #EXT-X-BYTERANGE:300@500
            #EXTINF:4,
            ../muxed.ts
            #EXT-X-ENDLIST

            """
        let plan = try PlanFixture.plan(
            PlanFixture.input("v/index.m3u8", first),
            PlanFixture.input("a/en.m3u8", second, type: "AUDIO", name: "English", language: "en"))
        #expect(plan.resources.count == 2)
        #expect(plan.resources.allSatisfy { $0.fileName == "video/file1.ts" })
        #expect(try plan.localURIs("audio-en") == ["../video/file1.ts", "../video/file1.ts"])
    }

    @Test("gap segments are not fetched; their URI lines keep a name inside the bundle")
    func gapSegments() throws {
        let plan = try PlanFixture.plan(PlanFixture.input("v/index.m3u8", """
            #EXTM3U
            #EXT-X-VERSION:8
            #EXT-X-TARGETDURATION:4
            #EXTINF:4,
            s1.ts
            #EXT-X-GAP
            #EXTINF:4,
            missing.ts
            #EXTINF:4,
            s3.ts
            #EXT-X-ENDLIST

            """))
        #expect(plan.resources.map { $0.uri.split(separator: "/").last! } == ["s1.ts", "s3.ts"])
        #expect(plan.resources.map(\.startTime) == [0, 8])
        #expect(try plan.localURIs("video") == ["00001.ts", "gap-1.ts", "00002.ts"])
        #expect(try plan.localText("video").contains("#EXT-X-GAP\n"))
    }

    @Test("a stream whose variant is also one of its audio renditions (an audio-only variant) is planned, its media fetched once")
    func variantSharedWithRendition() throws {
        let audio = """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXTINF:4,
            s1.aac
            #EXT-X-ENDLIST

            """
        let main = try PlanFixture.main("main.m3u8", """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="a/en.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS="mp4a.40.2",AUDIO="aud"
            a/en.m3u8

            """)
        let selection = try PlanFixture.selection(in: main.resolved, variant: "a/en.m3u8", renditions: ["a/en.m3u8"])
        let plan = try DownloadPlan.make(
            assetID: "asset",
            inputs: [try PlanFixture.input("a/en.m3u8", audio),
                     try PlanFixture.input("a/en.m3u8", audio, type: "AUDIO", name: "English", language: "en")],
            main: main, selection: selection)
        #expect(plan.resources.count == 1)
        let local = try MultivariantPlaylist(parsing: plan.localMain, url: "file:///bundle/main.m3u8")
        #expect(local.variants.map(\.uri) == ["file:///bundle/video/index.m3u8"])
        #expect(local.renditions.count == 1)
        #expect(local.warnings.isEmpty)
    }

    // MARK: Names

    @Test("rendition folders are named for their type and language, unique within the asset")
    func renditionKeys() throws {
        let text = Self.subtitles
        let plan = try PlanFixture.plan(
            PlanFixture.input("v/index.m3u8", text),
            PlanFixture.input("a/en.m3u8", text, type: "AUDIO", name: "English", language: "en"),
            PlanFixture.input("a/en51.m3u8", text, type: "AUDIO", name: "English 5.1", language: "en"),
            PlanFixture.input("s/de.m3u8", text, type: "SUBTITLES", name: "Deutsch", language: "de"),
            PlanFixture.input("m/index.m3u8", text, type: "MEDIA", name: "media"))
        #expect(plan.renditions.map(\.record.key) == ["video", "audio-en", "audio-en-2", "subtitles-de", "media"])
        #expect(plan.renditions.map(\.record.position) == [0, 1, 2, 3, 4])
    }

    @Test("a rendition without a language is named from its NAME, reduced to letters, digits and dashes")
    func keysFromHostileNames() throws {
        let text = Self.subtitles
        let plan = try PlanFixture.plan(
            PlanFixture.input("a/1.m3u8", text, type: "AUDIO", name: "../../Director's Cut/..", language: nil),
            PlanFixture.input("a/2.m3u8", text, type: "AUDIO", name: "Ünïcødé ☃", language: nil),
            PlanFixture.input("a/3.m3u8", text, type: "AUDIO", name: "☃", language: nil),
            PlanFixture.input("s/1.m3u8", text, type: "SUBTITLES", name: "x", language: "pt_BR/../.."),
            PlanFixture.input("c/1.m3u8", text, type: "CLOSED-CAPTIONS", name: "cc"))
        let keys = plan.renditions.map(\.record.key)
        #expect(keys == ["audio-director-s-cut", "audio-n-c-d", "audio", "subtitles-pt-br", "rendition"])
        #expect(Set(keys).count == keys.count)
        for key in keys {
            #expect(key.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }, "\(key)")
        }
    }

    @Test("a file keeps its origin extension when it is 1 to 5 letters or digits, lowercased",
          arguments: [("seg.ts", "ts"), ("seg.M4S", "m4s"), ("seg.aac?token=a.b.c", "aac"), ("seg.vtt#t=1.txt", "vtt"),
                      ("a.b/seg.mp4", "mp4"), ("seg.3gp", "3gp")])
    func extensionKept(uri: String, ext: String) {
        #expect(DownloadPlan.fileExtension(of: "https://cdn.example/" + uri, kind: .segment) == ext)
    }

    @Test("any other extension is replaced by bin for segments and mp4 for init sections",
          arguments: ["seg", "seg.", "seg.toolong", "seg.t-s", "seg.t%20s", "seg.ｔｓ", "seg.webvtt", "dir.ts/seg", "seg.ts/../../x",
                      "../../etc/passwd?x=.sh", "seg.ts%2F..%2F..%2Fx"])
    func extensionReplaced(uri: String) {
        #expect(DownloadPlan.fileExtension(of: uri, kind: .segment) == "bin")
        #expect(DownloadPlan.fileExtension(of: uri, kind: .initSection) == "mp4")
    }

    @Test("no URI, however hostile, names a file outside its rendition's folder")
    func hostileURIsStayInside() throws {
        let plan = try PlanFixture.plan(
            PlanFixture.input("v/index.m3u8", """
                #EXTM3U
                #EXT-X-VERSION:7
                #EXT-X-TARGETDURATION:4
                #EXT-X-MAP:URI="../../../../init/..%2F..%2Fx"
                #EXTINF:4,
                ../../etc/passwd?x=.sh
                #EXTINF:4,
                seg.ts/../../x
                #EXTINF:4,
                /abs/../../../x.ts
                #EXTINF:4,
                seg.ts%2F..%2F..%2Fx
                #EXTINF:4,
                https://other.example/../../../x.sh/..
                #EXT-X-BYTERANGE:10@0
                #EXTINF:4,
                ../../../../x/..
                #EXT-X-ENDLIST

                """),
            PlanFixture.input("a/index.m3u8", "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\n../../..\n#EXT-X-ENDLIST\n",
                              type: "AUDIO", name: "..", language: "../.."))
        #expect(plan.resources.count == 8)
        for resource in plan.resources {
            let components = resource.fileName.split(separator: "/", omittingEmptySubsequences: false)
            #expect(components.count == 2, "\(resource.fileName)")
            #expect(components.first.map(String.init) == resource.renditionKey, "\(resource.fileName)")
            #expect(!components.contains { $0 == ".." || $0 == "." || $0.isEmpty }, "\(resource.fileName)")
        }
    }
}
