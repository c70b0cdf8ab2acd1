@testable import Carryon
import CarryonTestSupport
import DASH
import Foundation
import HLS
import Testing

/// Drives `DASHPlanner` without a network: the MPD is handed over as fetched (an https URL, for
/// what needs no further fetch), or lies in a temporary folder with what it names (segment
/// indexes, remote Periods), read through `file:` URLs as the HLS planner tests do.
private enum DASHPlanFixture {
    static let url = "https://cdn.example/show/main.mpd"

    static func options(audio: DownloadOptions.RenditionChoice = .automatic, subtitles: DownloadOptions.RenditionChoice = .automatic,
                        _ configure: (inout DownloadOptions) -> Void = { _ in }) -> DownloadOptions {
        var options = DownloadOptions(audio: audio, subtitles: subtitles, preferredLanguages: ["en"])
        configure(&options)
        return options
    }

    static func plan(_ text: String, url: String = url, options: DownloadOptions = options(), pinned: String? = nil,
                     additional: [MediaSelection.Variant] = []) async throws -> (plan: DownloadPlan, selection: MediaSelection) {
        let planner = DASHPlanner(fetcher: PlaylistFetcher(client: PlaylistFetcher.sharedClient), options: options)
        return try await planner.plan(assetID: "asset", manifest: FetchedManifest(url: url, bytes: Array(text.utf8)), pinnedVariant: pinned,
                                      additionalVariants: additional)
    }

    /// The error planning `text` fails with, or nil when it does not fail.
    static func failure(_ text: String, url: String = url, options: DownloadOptions = options()) async -> CarryonError? {
        do {
            _ = try await plan(text, url: url, options: options)
            return nil
        } catch let error as CarryonError {
            return error
        } catch {
            Issue.record("not a CarryonError: \(error)")
            return nil
        }
    }

    static func template(_ timescale: Int, _ duration: Int) -> String {
        "<SegmentTemplate timescale=\"\(timescale)\" duration=\"\(duration)\" media=\"$RepresentationID$/$Number$.m4s\" initialization=\"$RepresentationID$/init.mp4\"/>"
    }

    /// Four video Representations, English (main), German and French audio, English and German
    /// WebVTT subtitles; 6 s of 2 s segments.
    static let ladder = """
        <?xml version="1.0"?>
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT6S" minBufferTime="PT2S">
        <Period id="p1">
        <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.64001f">
        \(template(1000, 2000))
        <Representation id="v240" bandwidth="400000" width="426" height="240"/>
        <Representation id="v480" bandwidth="1000000" width="854" height="480"/>
        <Representation id="v720" bandwidth="2500000" width="1280" height="720"/>
        <Representation id="v1080" bandwidth="5000000" width="1920" height="1080"/>
        </AdaptationSet>
        <AdaptationSet contentType="audio" lang="en" mimeType="audio/mp4" codecs="mp4a.40.2">
        <Role schemeIdUri="urn:mpeg:dash:role:2011" value="main"/>
        \(template(48000, 96000))
        <Representation id="a-en-64" bandwidth="64000"/>
        <Representation id="a-en-128" bandwidth="128000"/>
        </AdaptationSet>
        <AdaptationSet contentType="audio" lang="de" mimeType="audio/mp4" codecs="mp4a.40.2">
        \(template(48000, 96000))
        <Representation id="a-de" bandwidth="96000"/>
        </AdaptationSet>
        <AdaptationSet contentType="audio" lang="fr" mimeType="audio/mp4" codecs="mp4a.40.2">
        \(template(48000, 96000))
        <Representation id="a-fr" bandwidth="96000"/>
        </AdaptationSet>
        <AdaptationSet contentType="text" lang="en" mimeType="text/vtt">
        <Representation id="t-en" bandwidth="1000"><BaseURL>subs/en.vtt</BaseURL></Representation>
        </AdaptationSet>
        <AdaptationSet contentType="text" lang="de" mimeType="text/vtt">
        <Representation id="t-de" bandwidth="1000"><BaseURL>subs/de.vtt</BaseURL></Representation>
        </AdaptationSet>
        </Period>
        </MPD>
        """

    static func uri(_ representation: String, period: String = "p1", url: String = url) -> String {
        "\(url)#period=\(period)&rep=\(representation)"
    }

    /// One video Representation `v1` (2 s segments over `duration` s), with `extra` in its set.
    static func single(duration: Int = 4, setExtra: String = "", representationExtra: String = "", mpdExtra: String = "",
                       namespaces: String = "") -> String {
        """
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011"\(namespaces) type="static" mediaPresentationDuration="PT\(duration)S">\(mpdExtra)
        <Period id="p1">
        <AdaptationSet contentType="video" mimeType="video/mp4">\(setExtra)
        \(template(1000, 2000))
        <Representation id="v1" bandwidth="800000" width="640" height="360">\(representationExtra)</Representation>
        </AdaptationSet>
        </Period>
        </MPD>
        """
    }

    /// A version-0 `sidx` box.
    static func sidx(references: [(isIndex: Bool, size: UInt32, duration: UInt32)], timescale: UInt32 = 1000) -> [UInt8] {
        var body: [UInt8] = []
        func u32(_ value: UInt32) { body += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        u32(0); u32(1); u32(timescale); u32(0); u32(0)
        body += [0, 0, 0, UInt8(references.count)]
        for reference in references {
            u32((reference.isIndex ? 0x8000_0000 : 0) | reference.size); u32(reference.duration); u32(0x9000_0000)
        }
        let size = UInt32(body.count + 8)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array("sidx".utf8) + body
    }

    /// An MPD of one SegmentBase Representation of `media/a.mp4`, its index at `indexRange`.
    static func segmentBase(indexRange: String, duration: Int = 4) -> String {
        """
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT\(duration)S">
        <Period id="p1">
        <AdaptationSet contentType="video" mimeType="video/mp4">
        <Representation id="v1" bandwidth="800000" width="640" height="360">
        <BaseURL>media/a.mp4</BaseURL>
        <SegmentBase timescale="1000" indexRange="\(indexRange)"><Initialization range="0-799"/></SegmentBase>
        </Representation>
        </AdaptationSet>
        </Period>
        </MPD>
        """
    }

    /// `text` as `main.mpd` beside `files` in a temporary folder, planned from its `file:` URL.
    static func planFromDisk(_ text: String, files: [String: [UInt8]],
                             _ body: (String, Result<(plan: DownloadPlan, selection: MediaSelection), CarryonError>) throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            for (name, bytes) in files { try folder.write(bytes: bytes, to: name) }
            let url = try folder.write(text, to: "main.mpd").absoluteString
            let result: Result<(plan: DownloadPlan, selection: MediaSelection), CarryonError>
            do {
                result = .success(try await plan(text, url: url))
            } catch let error as CarryonError {
                result = .failure(error)
            }
            try body(url, result)
        }
    }
}

/// What `DASHPlanner` chooses by the options.
@Suite("Planning DASH streams: choosing Representations")
struct DASHPlannerChoiceTests {
    @Test("by default: the highest video, the preferred language's best audio Representation (main), its subtitles (extra)")
    func defaults() async throws {
        let (plan, selection) = try await DASHPlanFixture.plan(DASHPlanFixture.ladder)
        #expect(selection.variant.uri == DASHPlanFixture.uri("v1080"))
        #expect(selection.variant.resolution == "1920x1080")
        #expect(selection.renditions.map(\.uri) == [DASHPlanFixture.uri("a-en-128"), DASHPlanFixture.uri("t-en")])
        #expect(selection.renditions.map(\.isMain) == [true, false])
        #expect(plan.renditions.map(\.record.key) == ["video", "audio-en", "subtitles-en"])
        #expect(plan.renditions.map(\.record.type.rawValue) == ["VIDEO", "AUDIO", "SUBTITLES"])
        #expect(plan.renditions.map(\.record.isMain) == [true, true, false])
        #expect(plan.renditions.map(\.record.duration) == [6, 6, 6])
    }

    @Test("the bitrate and resolution bounds choose the video Representation as they choose an HLS variant",
          arguments: [
              (DownloadOptions(maximumBitrate: 2_000_000), "v480"),
              (DownloadOptions(minimumBitrate: 900_000), "v480"),
              (DownloadOptions(maximumResolution: Resolution(width: 1280, height: 720)), "v720"),
              (DownloadOptions(minimumResolution: Resolution(width: 800, height: 400)), "v480"),
              (DownloadOptions(maximumBitrate: 100_000), "v240"),
              (DownloadOptions(minimumBitrate: 10_000_000), "v1080"),
              (DownloadOptions(minimumBitrate: 900_000, maximumBitrate: 3_000_000, maximumResolution: Resolution(width: 1000, height: 600)), "v480"),
          ])
    func bounds(options: DownloadOptions, expected: String) async throws {
        var options = options
        options.preferredLanguages = ["en"]
        let (plan, selection) = try await DASHPlanFixture.plan(DASHPlanFixture.ladder, options: options)
        #expect(selection.variant.uri == DASHPlanFixture.uri(expected))
        let video = plan.resources.filter { $0.renditionKey == "video" }
        #expect(video.allSatisfy { $0.uri.hasPrefix("https://cdn.example/show/\(expected)/") }, "\(video.map(\.uri))")
        #expect(video.count == 4)
    }

    @Test("audio by languages: each language's set, the first main; subtitles none")
    func audioLanguages() async throws {
        let (plan, selection) = try await DASHPlanFixture.plan(DASHPlanFixture.ladder,
                                                              options: DASHPlanFixture.options(audio: .languages(["de", "fr"]), subtitles: .none))
        #expect(selection.renditions.map(\.uri) == [DASHPlanFixture.uri("a-de"), DASHPlanFixture.uri("a-fr")])
        #expect(plan.renditions.map(\.record.key) == ["video", "audio-de", "audio-fr"])
        #expect(plan.renditions.map(\.record.isMain) == [true, true, false])
        #expect(plan.resources.contains { $0.uri == "https://cdn.example/show/a-fr/3.m4s" })
        #expect(!plan.resources.contains { $0.uri.contains("subs/") })
    }

    @Test("an audio language the MPD does not offer is refused, listing what it offers")
    func missingLanguage() async throws {
        let error = await DASHPlanFixture.failure(DASHPlanFixture.ladder, options: DASHPlanFixture.options(audio: .languages(["ja"])))
        #expect(error?.code == .selection)
        #expect(error?.message.contains("\"ja\"") == true)
        #expect(error?.message.contains("en (en)") == true && error?.message.contains("de (de)") == true, "\(String(describing: error))")
    }

    @Test("all subtitles, no audio: the video and both WebVTT files, which the local main.m3u8 offers as subtitles")
    func allSubtitles() async throws {
        let (plan, _) = try await DASHPlanFixture.plan(DASHPlanFixture.ladder, options: DASHPlanFixture.options(audio: .none, subtitles: .all))
        #expect(plan.renditions.map(\.record.key) == ["video", "subtitles-en", "subtitles-de"])
        let subtitles = plan.resources.filter { $0.renditionKey.hasPrefix("subtitles") }
        #expect(subtitles.map(\.uri) == ["https://cdn.example/show/subs/en.vtt", "https://cdn.example/show/subs/de.vtt"])
        #expect(plan.localMain.contains("TYPE=SUBTITLES") && plan.localMain.contains("subtitles-de/index.m3u8"))
        #expect(!plan.localMain.contains("TYPE=AUDIO"))
    }

    @Test("no audio and no subtitles: the video alone")
    func videoAlone() async throws {
        let (plan, selection) = try await DASHPlanFixture.plan(DASHPlanFixture.ladder, options: DASHPlanFixture.options(audio: .none, subtitles: .none))
        #expect(selection.renditions.isEmpty)
        #expect(plan.renditions.map(\.record.key) == ["video"])
        #expect(!plan.localMain.contains("EXT-X-MEDIA"))
        #expect(plan.localMain.contains("BANDWIDTH=5000000"))
    }

    @Test("an MPD without video: its audio Representations are the variants, the highest chosen and offered as the variant")
    func audioOnly() async throws {
        let text = """
            <MPD type="static" mediaPresentationDuration="PT4S"><Period id="p1">
            <AdaptationSet contentType="audio" mimeType="audio/mp4" codecs="mp4a.40.2">\(DASHPlanFixture.template(1000, 2000))
            <Representation id="lo" bandwidth="64000"/><Representation id="hi" bandwidth="192000"/>
            </AdaptationSet></Period></MPD>
            """
        let (plan, selection) = try await DASHPlanFixture.plan(text)
        #expect(selection.variant.uri == DASHPlanFixture.uri("hi"))
        #expect(selection.renditions.isEmpty)
        #expect(plan.renditions.map(\.record.type.rawValue) == ["AUDIO"])
        #expect(plan.renditions.first?.record.isMain == true)
        #expect(plan.localMain.contains("EXT-X-STREAM-INF") && plan.localMain.contains("BANDWIDTH=192000"))
        #expect(plan.resources.map(\.uri) == ["https://cdn.example/show/hi/init.mp4", "https://cdn.example/show/hi/1.m4s",
                                              "https://cdn.example/show/hi/2.m4s"])
    }

    @Test("HDR (transfer characteristics 16) is preferred by default, SDR when prefersHDR is false; a trick-mode set is never the variant")
    func dynamicRangeAndTrickMode() async throws {
        let text = """
            <MPD type="static" mediaPresentationDuration="PT2S"><Period id="p1">
            <AdaptationSet contentType="video" mimeType="video/mp4">\(DASHPlanFixture.template(1000, 2000))
            <Representation id="sdr" bandwidth="6000000" width="1920" height="1080"/>
            <Representation id="hdr" bandwidth="4000000" width="1920" height="1080">
              <EssentialProperty schemeIdUri="urn:mpeg:mpegB:cicp:TransferCharacteristics" value="16"/></Representation>
            </AdaptationSet>
            <AdaptationSet contentType="video" mimeType="video/mp4">\(DASHPlanFixture.template(1000, 2000))
            <EssentialProperty schemeIdUri="http://dashif.org/guidelines/trickmode" value="1"/>
            <Representation id="trick" bandwidth="9000000" width="1920" height="1080"/>
            </AdaptationSet></Period></MPD>
            """
        let (_, preferred) = try await DASHPlanFixture.plan(text)
        #expect(preferred.variant.uri == DASHPlanFixture.uri("hdr"))
        #expect(preferred.variant.videoRange == "PQ")
        let (plan, sdr) = try await DASHPlanFixture.plan(text, options: DASHPlanFixture.options { $0.prefersHDR = false })
        #expect(sdr.variant.uri == DASHPlanFixture.uri("sdr"))
        #expect(!plan.resources.contains { $0.uri.contains("trick") })
    }

    @Test("a pinned Representation is taken whatever the options; one the MPD no longer has is refused")
    func pinned() async throws {
        let (plan, selection) = try await DASHPlanFixture.plan(DASHPlanFixture.ladder, pinned: DASHPlanFixture.uri("v240"))
        #expect(selection.variant.uri == DASHPlanFixture.uri("v240"))
        #expect(plan.resources.first?.uri == "https://cdn.example/show/v240/init.mp4")
        do {
            _ = try await DASHPlanFixture.plan(DASHPlanFixture.ladder, pinned: DASHPlanFixture.uri("v4k"))
            Issue.record("a Representation the MPD does not have was planned")
        } catch let error as CarryonError {
            #expect(error.code == .selection && error.message.contains("v4k"), "\(error)")
        }
    }

    @Test("a Representation id with an & (XML's &amp;) is found again from its track URI and planned")
    func ampersandInID() async throws {
        let text = DASHPlanFixture.single().replacingOccurrences(of: "id=\"v1\"", with: "id=\"v&amp;1\"")
        let (plan, selection) = try await DASHPlanFixture.plan(text)
        #expect(selection.variant.uri.hasSuffix("rep=v&1") || selection.variant.uri.hasSuffix("rep=v%261"))
        #expect(plan.resources.map(\.uri) == ["https://cdn.example/show/v&1/init.mp4", "https://cdn.example/show/v&1/1.m4s",
                                              "https://cdn.example/show/v&1/2.m4s"])
    }

    @Test("a pinned track URI (as the index stores it) whose Representation id holds an & is found again")
    func pinnedAmpersandID() async throws {
        let text = DASHPlanFixture.single().replacingOccurrences(of: "id=\"v1\"", with: "id=\"v&amp;1\"")
        let (plan, _) = try await DASHPlanFixture.plan(text, pinned: DASHPlanFixture.uri("v&1"))
        #expect(plan.resources.first?.uri == "https://cdn.example/show/v&1/init.mp4")
    }

    @Test("an additional variant is planned as a second video track, offered beside the first")
    func additionalVariant() async throws {
        let extra = MediaSelection.Variant(uri: DASHPlanFixture.uri("v480"), bandwidth: 1_000_000, averageBandwidth: nil, resolution: "854x480",
                                           codecs: nil, videoRange: nil, frameRate: nil)
        let (plan, _) = try await DASHPlanFixture.plan(DASHPlanFixture.ladder, options: DASHPlanFixture.options(audio: .none, subtitles: .none),
                                                       additional: [extra])
        #expect(plan.renditions.map(\.record.key) == ["video", "video-2"])
        #expect(plan.renditions.map(\.record.isMain) == [true, false])
        #expect(plan.resources.filter { $0.renditionKey == "video-2" }.map(\.uri).first == "https://cdn.example/show/v480/init.mp4")
        #expect(plan.localMain.components(separatedBy: "#EXT-X-STREAM-INF").count == 3)
    }
}

/// The resources and local manifests `DASHPlanner` plans.
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
@Suite("Planning DASH streams: refusals and content keys")
struct DASHPlannerRefusalTests {
    @Test("a dynamic (live) MPD is refused before anything is planned")
    func dynamic() async {
        let error = await DASHPlanFixture.failure(DASHPlanFixture.single().replacingOccurrences(of: "type=\"static\"", with: "type=\"dynamic\""))
        #expect(error?.code == .unsupported)
        #expect(error?.message.contains("dynamic (live)") == true)
    }

    @Test("text that is not an MPD is a playlist error naming the URL")
    func notAnMPD() async {
        let error = await DASHPlanFixture.failure("<html><body/></html>")
        #expect(error?.code == .playlist)
        #expect(error?.message.hasPrefix(DASHPlanFixture.url) == true && error?.message.contains("<html>") == true)
    }

    @Test("segments that cannot be worked out are refused naming the MPD and the line")
    func unaddressable() async {
        let text = """
            <MPD type="static"><Period id="p1">
            <AdaptationSet contentType="video" mimeType="video/mp4">
            <Representation id="v1" bandwidth="1">
            <SegmentTemplate duration="2" media="$Number$.m4s"/>
            </Representation></AdaptationSet></Period></MPD>
            """
        let error = await DASHPlanFixture.failure(text)
        #expect(error?.code == .playlist)
        #expect(error?.message.contains("\(DASHPlanFixture.url), line 4") == true, "\(String(describing: error))")
    }

    @Test("an MPD read over https naming file: or ftp: media is refused, naming the line and the Representation; nothing is read")
    func refusedLocations() async {
        for base in ["file:///etc/", "ftp://cdn.example/"] {
            let error = await DASHPlanFixture.failure(DASHPlanFixture.single(representationExtra: "<BaseURL>\(base)</BaseURL>"))
            #expect(error?.code == .refusedLocation)
            #expect(error?.message.contains("\(DASHPlanFixture.url), line 5 (Representation v1)") == true, "\(String(describing: error))")
        }
        // A SegmentBase index is refused before it is read.
        let index = DASHPlanFixture.segmentBase(indexRange: "0-99").replacingOccurrences(of: "media/a.mp4", with: "file:///etc/passwd")
        let error = await DASHPlanFixture.failure(index)
        #expect(error?.code == .refusedLocation)
        #expect(error?.message.contains("line 4") == true && error?.message.contains("file:///etc/passwd") == true, "\(String(describing: error))")
    }

    static let kid = "10000000-1000-1000-1000-100000000001"
    static let kidHex = "10000000100010001000100000000001"

    static func protected(_ protections: String, audio: String? = nil) -> String {
        """
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" xmlns:cenc="urn:mpeg:cenc:2013" xmlns:dashif="https://dashif.org/CPS" type="static" mediaPresentationDuration="PT4S">
        <Period id="p1">
        <AdaptationSet contentType="video" mimeType="video/mp4">
        \(protections)
        \(DASHPlanFixture.template(1000, 2000))
        <Representation id="v1" bandwidth="800000" width="640" height="360"/>
        </AdaptationSet>
        <AdaptationSet contentType="audio" lang="en" mimeType="audio/mp4">
        \(audio ?? protections)
        \(DASHPlanFixture.template(1000, 2000))
        <Representation id="a1" bandwidth="64000"/>
        </AdaptationSet>
        </Period>
        </MPD>
        """
    }

    @Test("Clear Key: one key for the KID video and audio share, named by it, asked of the licence URL; the local MPD keeps no licence URL")
    func clearKey() async throws {
        let protections = """
            <ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cenc" cenc:default_KID="\(Self.kid)"/>
            <ContentProtection schemeIdUri="urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e"><dashif:Laurl>../licence/ck</dashif:Laurl></ContentProtection>
            """
        let (plan, _) = try await DASHPlanFixture.plan(Self.protected(protections))
        #expect(plan.keys.count == 1)
        let key = try #require(plan.keys.first)
        #expect(key.id == "kid-\(Self.kidHex)")
        #expect(key.uri == "https://cdn.example/licence/ck")
        #expect(key.method == "cenc")
        #expect(key.keyFormat == "org.w3.clearkey")
        #expect(key.keyID == Self.kid)
        for rendition in ["video", "audio-en"] {
            let text = try plan.localText(rendition)
            #expect(text.contains("METHOD=SAMPLE-AES-CTR") && text.contains("URI=\"../keys/kid-\(Self.kidHex)\""), "\(text)")
        }
        let local = try #require(plan.localManifests["main.mpd"])
        #expect(local.contains(Self.kid))
        #expect(!local.contains("licence/ck"))
    }

    @Test("a DRM system other than Clear Key: the key is its URN's, with its pssh; cbcs is SAMPLE-AES in the HLS playlists")
    func otherSystem() async throws {
        let protections = """
            <ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cbcs" cenc:default_KID="\(Self.kid)"/>
            <ContentProtection schemeIdUri="urn:uuid:EDEF8BA9-79D6-4ACE-A3C8-27DCD51D21ED"><cenc:pssh>AAECAw==</cenc:pssh></ContentProtection>
            """
        let (plan, _) = try await DASHPlanFixture.plan(Self.protected(protections))
        let key = try #require(plan.keys.first)
        #expect(key.uri == "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed")
        #expect(key.keyFormat == "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed")
        #expect(key.method == "cbcs")
        #expect(key.initData == [0, 1, 2, 3])
        #expect(try plan.localText("video").contains("METHOD=SAMPLE-AES,"))
    }

    @Test("video and audio under different KIDs: two keys, each Part under its own")
    func twoKeys() async throws {
        let other = "20000000-2000-2000-2000-200000000002"
        let video = "<ContentProtection schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\" value=\"cenc\" cenc:default_KID=\"\(Self.kid)\"/>"
        let audio = video.replacingOccurrences(of: Self.kid, with: other)
        let (plan, _) = try await DASHPlanFixture.plan(Self.protected(video, audio: audio))
        #expect(plan.keys.map(\.id) == ["kid-\(Self.kidHex)", "kid-20000000200020002000200000000002"])
        #expect(try plan.localText("audio-en").contains("kid-20000000200020002000200000000002"))
        #expect(try !plan.localText("video").contains("kid-2000"))
    }

    @Test("an encrypted Representation without a usable KID is refused, naming the line and the Representation")
    func unusableKID() async {
        let noKID = "<ContentProtection schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\" value=\"cenc\"/>"
        let missing = await DASHPlanFixture.failure(Self.protected(noKID))
        #expect(missing?.code == .unsupported)
        #expect(missing?.message.contains("line 6: Representation v1") == true && missing?.message.contains("default_KID") == true,
                "\(String(describing: missing))")
        let short = "<ContentProtection schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\" value=\"cenc\" cenc:default_KID=\"1234\"/>"
        let malformed = await DASHPlanFixture.failure(Self.protected(short))
        #expect(malformed?.code == .unsupported)
        #expect(malformed?.message.contains("\"1234\"") == true && malformed?.message.contains("16-byte") == true)
    }
}

/// Several Periods and remote elements.
@Suite("Planning DASH streams: Periods and remote elements")
struct DASHPlannerPeriodTests {
    static func period(_ id: String, duration: Int, video: [(String, Int)], audioID: String = "a") -> String {
        let representations = video.map { "<Representation id=\"\($0.0)\" bandwidth=\"\($0.1)\"/>" }.joined()
        return """
            <Period id="\(id)" duration="PT\(duration)S">
            <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.64001f">
            <SegmentTemplate timescale="1000" duration="2000" media="\(id)/$RepresentationID$/$Number$.m4s" initialization="\(id)/$RepresentationID$/init.mp4"/>
            \(representations)
            </AdaptationSet>
            <AdaptationSet contentType="audio" lang="en" mimeType="audio/mp4">
            <SegmentTemplate timescale="1000" duration="2000" media="\(id)/$RepresentationID$/$Number$.m4s" initialization="\(id)/$RepresentationID$/init.mp4"/>
            <Representation id="\(audioID)" bandwidth="64000"/>
            </AdaptationSet>
            </Period>
            """
    }

    @Test("a Representation followed through two Periods by its id: one track, a discontinuity and a new init section at the boundary")
    func twoPeriods() async throws {
        let text = "<MPD type=\"static\" mediaPresentationDuration=\"PT8S\">"
            + Self.period("one", duration: 4, video: [("v1", 1_000_000)]) + Self.period("two", duration: 4, video: [("v1", 1_000_000)]) + "</MPD>"
        let (plan, _) = try await DASHPlanFixture.plan(text)
        #expect(plan.renditions.map(\.record.key) == ["video", "audio-en"])
        #expect(plan.renditions.map(\.record.duration) == [8, 8])
        let video = plan.resources.filter { $0.renditionKey == "video" }
        #expect(video.map(\.uri) == ["one/v1/init.mp4", "one/v1/1.m4s", "one/v1/2.m4s", "two/v1/init.mp4", "two/v1/1.m4s", "two/v1/2.m4s"]
            .map { "https://cdn.example/show/\($0)" })
        #expect(video.map(\.startTime) == [0, 0, 2, 4, 4, 6])
        let playlist = try plan.localText("video")
        #expect(playlist.components(separatedBy: "#EXT-X-DISCONTINUITY\n").count == 2)
        #expect(playlist.components(separatedBy: "#EXT-X-MAP").count == 3)
        let local = try MPD.read(Array(try #require(plan.localManifests["main.mpd"]).utf8))
        #expect(local.periods.map(\.id) == ["one", "two"])
        #expect(local.periods.map { $0.start?.seconds } == [0, 4])
    }

    @Test("in a Period without the chosen id: the video nearest at or below its bandwidth, the audio of the same language")
    func counterparts() async throws {
        let text = "<MPD type=\"static\" mediaPresentationDuration=\"PT8S\">"
            + Self.period("one", duration: 4, video: [("v-lo", 1_000_000), ("v-hi", 3_000_000)])
            + Self.period("two", duration: 4, video: [("x-lo", 1_000_000), ("x-mid", 2_500_000), ("x-hi", 4_000_000)], audioID: "b")
            + "</MPD>"
        let (plan, selection) = try await DASHPlanFixture.plan(text)
        #expect(selection.variant.uri == DASHPlanFixture.uri("v-hi", period: "one"))
        let uris = plan.resources.map(\.uri)
        #expect(uris.contains("https://cdn.example/show/two/x-mid/1.m4s"))
        #expect(!uris.contains { $0.contains("x-hi") || $0.contains("x-lo") })
        #expect(uris.contains("https://cdn.example/show/two/b/1.m4s"))
    }

    @Test("a Period whose xlink resolves to zero is dropped without a fetch")
    func resolveToZero() async throws {
        let text = "<MPD xmlns:xlink=\"http://www.w3.org/1999/xlink\" type=\"static\" mediaPresentationDuration=\"PT4S\">"
            + Self.period("one", duration: 4, video: [("v1", 1_000_000)])
            + "<Period xlink:href=\"urn:mpeg:dash:resolve-to-zero:2013\" xlink:actuate=\"onLoad\"/></MPD>"
        let (plan, _) = try await DASHPlanFixture.plan(text)
        let local = try MPD.read(Array(try #require(plan.localManifests["main.mpd"]).utf8))
        #expect(local.periods.map(\.id) == ["one"])
        #expect(plan.resources.count == 6)
    }

    @Test("a remote Period (xlink:actuate onLoad) is read in the place of its element and planned")
    func remotePeriod() async throws {
        let text = "<MPD xmlns:xlink=\"http://www.w3.org/1999/xlink\" type=\"static\" mediaPresentationDuration=\"PT8S\">"
            + Self.period("one", duration: 4, video: [("v1", 1_000_000)])
            + "<Period xlink:href=\"remote/period.xml\" xlink:actuate=\"onLoad\"/></MPD>"
        let remote = Self.period("two", duration: 4, video: [("v1", 1_000_000)])
        try await DASHPlanFixture.planFromDisk(text, files: ["remote/period.xml": Array(remote.utf8)]) { url, result in
            let plan = try result.get().plan
            let folder = url.replacingOccurrences(of: "main.mpd", with: "")
            #expect(plan.resources.contains { $0.uri == folder + "two/v1/2.m4s" }, "\(plan.resources.map(\.uri))")
            #expect(plan.renditions.first?.record.duration == 8)
        }
    }
}
