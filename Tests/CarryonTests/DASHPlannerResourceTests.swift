@testable import Carryon
import CarryonTestSupport
import DASH
import Foundation
import HLS
import Testing

@Suite("Planning DASH streams: resources, keys and refusals")
struct DASHPlannerResourceTests {
    @Test("a template: init section and segments, named in the rendition's folder, timed and estimated from the bandwidth")
    func templateResources() async throws {
        let (plan, _) = try await DASHPlanFixture.plan(DASHPlanFixture.ladder)
        let video = plan.resources.filter { $0.renditionKey == "video" }
        #expect(video.map(\.uri) == ["https://cdn.example/show/v1080/init.mp4"] + (1...3).map { "https://cdn.example/show/v1080/\($0).m4s" })
        #expect(video.map(\.kind) == [.initSection, .segment, .segment, .segment])
        #expect(video.map(\.fileName) == ["video/init1.mp4", "video/00001.m4s", "video/00002.m4s", "video/00003.m4s"])
        #expect(video.map(\.startTime) == [0, 0, 2, 4])
        #expect(video.map(\.duration) == [0, 2, 2, 2])
        // 5 Mbit/s × 2 s / 8 = 1,250,000 bytes; an init section 2,000.
        #expect(video.map(\.expectedBytes) == [2000, 1_250_000, 1_250_000, 1_250_000])
        #expect(video.allSatisfy { !$0.exactSize && $0.rangeOffset == nil })
        // 48 kHz audio, 96000-unit segments: 2 s at 128 kbit/s = 32,000 bytes.
        let audio = plan.resources.filter { $0.renditionKey == "audio-en" }
        #expect(audio.map(\.expectedBytes) == [2000, 32000, 32000, 32000])
        #expect(audio.map(\.startTime) == [0, 0, 2, 4])
        // The WebVTT file: one resource of the whole presentation, 1000 bit/s × 6 s / 8.
        let subtitles = plan.resources.filter { $0.renditionKey == "subtitles-en" }
        #expect(subtitles.map(\.fileName) == ["subtitles-en/00001.vtt"])
        #expect(subtitles.map(\.expectedBytes) == [750])
        #expect(subtitles.map(\.duration) == [6])
    }

    @Test("resources in playback order: the main selection interleaved by time, init sections first; the extra subtitles last")
    func playbackOrder() async throws {
        let (plan, _) = try await DASHPlanFixture.plan(DASHPlanFixture.ladder)
        #expect(plan.resources.map(\.fileName) == [
            "video/init1.mp4", "audio-en/init1.mp4", "video/00001.m4s", "audio-en/00001.m4s", "video/00002.m4s", "audio-en/00002.m4s",
            "video/00003.m4s", "audio-en/00003.m4s", "subtitles-en/00001.vtt",
        ])
        #expect(plan.resources.map(\.ordinal) == Array(0..<9))
    }

    @Test("the local HLS playlists: the init section as EXT-X-MAP, the segments by their local names; main.m3u8 adds the audio's bandwidth and codecs")
    func localHLS() async throws {
        let (plan, _) = try await DASHPlanFixture.plan(DASHPlanFixture.ladder)
        #expect(try plan.localURIs("video") == ["00001.m4s", "00002.m4s", "00003.m4s"])
        let video = try plan.localText("video")
        #expect(video.contains("#EXT-X-MAP:URI=\"init1.mp4\""))
        #expect(video.contains("#EXT-X-TARGETDURATION:2"))
        #expect(video.contains("#EXT-X-ENDLIST"))
        #expect(try plan.localURIs("subtitles-en") == ["00001.vtt"])
        // 5,000,000 + 128,000.
        #expect(plan.localMain.contains("BANDWIDTH=5128000"))
        #expect(plan.localMain.contains("RESOLUTION=1920x1080"))
        #expect(plan.localMain.contains("avc1.64001f,mp4a.40.2"))
        #expect(plan.localMain.contains("audio-en/index.m3u8") && plan.localMain.contains("LANGUAGE=\"en\""))
    }

    @Test("the local main.mpd: static, the chosen Representations only, SegmentLists of the bundle's files at the origin's times")
    func localMPD() async throws {
        let (plan, _) = try await DASHPlanFixture.plan(DASHPlanFixture.ladder)
        let local = try MPD.read(Array(try #require(plan.localManifests["main.mpd"]).utf8))
        #expect(local.type == .static)
        #expect(local.mediaPresentationDuration?.seconds == 6)
        #expect(local.periods.map(\.id) == ["p1"])
        let sets = local.periods[0].adaptationSets
        #expect(sets.map { $0.representations.map(\.id) } == [["v1080"], ["a-en-128"], ["t-en"]])
        let list = try #require(sets[0].representations[0].segments.list)
        #expect(list.initialization?.sourceURL == "video/init1.mp4")
        #expect(list.segmentURLs?.compactMap(\.media) == ["video/00001.m4s", "video/00002.m4s", "video/00003.m4s"])
        // One `S` a segment, never a repeat: GStreamer plays an `S` of `r="2"` as its first URL thrice.
        #expect(list.timeline?.entries.map(\.repeatCount) == [0, 0, 0])
        #expect(list.timeline?.entries.map(\.duration) == [2000, 2000, 2000])
        #expect(sets[0].segments.template == nil, "the origin's template is not kept")
        #expect(sets[2].representations[0].baseURLs.map(\.url) == ["subtitles-en/00001.vtt"])
        #expect(local.warnings.isEmpty, "\(local.warnings)")
    }

    @Test("SegmentBase: the sidx is read from its range; the segments are exact byte ranges of one local file, which the sidx completes")
    func segmentBase() async throws {
        // Init 0-799, the sidx 800-855 (two references), then 1000 and 500 bytes of media.
        let sidx = DASHPlanFixture.sidx(references: [(false, 1000, 2000), (false, 500, 2000)])
        #expect(sidx.count == 56)
        let file = [UInt8](repeating: 1, count: 800) + sidx + [UInt8](repeating: 2, count: 1500)
        try await DASHPlanFixture.planFromDisk(DASHPlanFixture.segmentBase(indexRange: "800-855"), files: ["media/a.mp4": file]) { url, result in
            let plan = try result.get().plan
            let media = url.replacingOccurrences(of: "main.mpd", with: "media/a.mp4")
            #expect(plan.resources.map(\.uri) == [media, media, media, media])
            // The init section, the sidx (no range names it, but the file is the origin's byte for byte), the two segments.
            #expect(plan.resources.map(\.rangeOffset) == [0, 800, 856, 1856])
            #expect(plan.resources.map(\.rangeLength) == [800, 56, 1000, 500])
            #expect(plan.resources.map(\.kind) == [.initSection, .initSection, .segment, .segment])
            #expect(plan.resources.allSatisfy { $0.exactSize && $0.fileName == "video/file1.mp4" })
            #expect(plan.resources.map(\.expectedBytes) == [800, 56, 1000, 500])
            #expect(plan.resources.map(\.startTime) == [0, 0, 0, 2])
            let playlist = try plan.localText("video")
            #expect(playlist.contains("#EXT-X-MAP:URI=\"file1.mp4\",BYTERANGE=\"800@0\""), "\(playlist)")
            #expect(playlist.contains("#EXT-X-BYTERANGE:1000@856") && playlist.contains("#EXT-X-BYTERANGE:500@1856"), "\(playlist)")
            #expect(!playlist.contains("56@800"), "the sidx is no segment")
            let local = try MPD.read(Array(try #require(plan.localManifests["main.mpd"]).utf8))
            let list = try #require(local.periods[0].adaptationSets[0].representations[0].segments.list)
            #expect(list.segmentURLs?.map(\.mediaRange) == [ByteRange(first: 856, last: 1855), ByteRange(first: 1856, last: 2355)])
            #expect(list.initialization?.range == ByteRange(first: 0, last: 799))
        }
    }

    @Test("SegmentBase: bytes after the last fragment (an mfra) are planned too, up to the file's size")
    func segmentBaseTail() async throws {
        let sidx = DASHPlanFixture.sidx(references: [(false, 1000, 2000), (false, 500, 2000)])
        let file = [UInt8](repeating: 1, count: 800) + sidx + [UInt8](repeating: 2, count: 1500) + [UInt8](repeating: 3, count: 200)
        try await DASHPlanFixture.planFromDisk(DASHPlanFixture.segmentBase(indexRange: "800-855"), files: ["media/a.mp4": file]) { _, result in
            let plan = try result.get().plan
            // 2356 + 200 bytes: the tail is 2356-2555.
            #expect(plan.resources.contains { $0.rangeOffset == 2356 && $0.rangeLength == 200 && $0.fileName == "video/file1.mp4" })
            #expect(plan.resources.count == 5)
            #expect(plan.resources.compactMap(\.rangeLength).reduce(0, +) == file.count, "every byte of the file, once")
        }
    }

    @Test("a hierarchical segment index: the sidx it points at is read in turn")
    func hierarchicalIndex() async throws {
        // The top sidx (800-843) points at a second (844-899), whose media starts at 900.
        let top = DASHPlanFixture.sidx(references: [(true, 56, 4000)])
        let sub = DASHPlanFixture.sidx(references: [(false, 1000, 2000), (false, 500, 2000)])
        #expect(top.count == 44 && sub.count == 56)
        let file = [UInt8](repeating: 1, count: 800) + top + sub + [UInt8](repeating: 2, count: 1500)
        try await DASHPlanFixture.planFromDisk(DASHPlanFixture.segmentBase(indexRange: "800-843"), files: ["media/a.mp4": file]) { _, result in
            let resources = try result.get().plan.resources
            let segments = resources.filter { $0.kind == .segment }
            #expect(segments.map(\.rangeOffset) == [900, 1900])
            #expect(segments.map(\.rangeLength) == [1000, 500])
            // Both indexes, 800-899, are one gap of the file, planned with the init section.
            #expect(resources.filter { $0.kind == .initSection }.map(\.rangeOffset) == [0, 800])
            #expect(resources.filter { $0.kind == .initSection }.map(\.rangeLength) == [800, 100])
        }
    }

    @Test("a segment index that names no segment, or is not a sidx, is refused naming the file and the range")
    func badIndex() async throws {
        let empty = [UInt8](repeating: 1, count: 800) + DASHPlanFixture.sidx(references: []) + [UInt8](repeating: 2, count: 100)
        try await DASHPlanFixture.planFromDisk(DASHPlanFixture.segmentBase(indexRange: "800-831"), files: ["media/a.mp4": empty]) { _, result in
            guard case .failure(let error) = result else { Issue.record("an empty index was planned"); return }
            #expect(error.code == .playlist && error.message.contains("names no segment"), "\(error)")
        }
        let garbage = [UInt8](repeating: 0, count: 900)
        try await DASHPlanFixture.planFromDisk(DASHPlanFixture.segmentBase(indexRange: "800-855"), files: ["media/a.mp4": garbage]) { _, result in
            guard case .failure(let error) = result else { Issue.record("a file without a sidx was planned"); return }
            #expect(error.code == .playlist && error.message.contains("bytes 800-855"), "\(error)")
        }
    }

    @Test("several BaseURLs: the first is fetched from, the others are its fallback")
    func baseURLFallbacks() async throws {
        let text = DASHPlanFixture.single(mpdExtra: "<BaseURL>https://a.example/show/</BaseURL><BaseURL>https://b.example/show/</BaseURL>")
        let (plan, _) = try await DASHPlanFixture.plan(text)
        #expect(plan.resources.first?.uri == "https://a.example/show/v1/init.mp4")
        #expect(plan.fallbacks.contains(Fallback(prefix: "https://a.example/show/", alternatives: ["https://b.example/show/"])))
        #expect(!plan.fallbacks.contains { $0.query != nil }, "the MPD URL has no query to carry")
    }

    @Test("the MPD URL's query: a fallback for media when the MPD does not say; on every request when a URL query descriptor does")
    func mpdQuery() async throws {
        let signed = "https://cdn.example/show/main.mpd?token=abc"
        let (plain, _) = try await DASHPlanFixture.plan(DASHPlanFixture.single(), url: signed)
        #expect(plain.resources.first?.uri == "https://cdn.example/show/v1/init.mp4")
        #expect(plain.fallbacks.contains(.carrying("token=abc")))
        let descriptor = """
            <SupplementalProperty schemeIdUri="urn:mpeg:dash:urlparam:2014"><up:UrlQueryInfo queryTemplate="$querypart$" useMPDUrlQuery="true"/></SupplementalProperty>
            """
        let text = DASHPlanFixture.single(setExtra: descriptor, namespaces: " xmlns:up=\"urn:mpeg:dash:schema:urlparam:2014\"")
        let (declared, _) = try await DASHPlanFixture.plan(text, url: signed)
        #expect(declared.resources.map(\.uri).allSatisfy { $0.hasSuffix("?token=abc") }, "\(declared.resources.map(\.uri))")
        #expect(!declared.fallbacks.contains { $0.query != nil })
        let local = try #require(declared.localManifests["main.mpd"])
        #expect(!local.contains("urlparam") && !local.contains("token=abc"), "the origin's token is nothing to local files")
    }

    @Test("the MPD's deviations are the plan's warnings, naming the MPD and the line")
    func warnings() async throws {
        let text = """
            <MPD type="static" mediaPresentationDuration="PT4S"><Period id="p1">
            <AdaptationSet contentType="video" mimeType="video/mp4">
            <SegmentTemplate timescale="1000" duration="2000" media="$RepresentationID$/$Number$-$Foo$.m4s"/>
            <Representation id="v1" bandwidth="800000"/>
            <Representation id="v2"/>
            </AdaptationSet></Period></MPD>
            """
        let (plan, _) = try await DASHPlanFixture.plan(text)
        #expect(plan.warnings.allSatisfy { $0.playlist == DASHPlanFixture.url })
        #expect(plan.warnings.contains { $0.warning.line == 5 && $0.warning.message.contains("no bandwidth") })
        #expect(plan.warnings.contains { $0.warning.line == 3 && $0.warning.message.contains("$Foo$") })
    }
}

/// What `DASHPlanner` refuses, and the keys it plans.
