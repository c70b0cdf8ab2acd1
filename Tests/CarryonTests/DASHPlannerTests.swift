@testable import Carryon
import CarryonTestSupport
import DASH
import Foundation
import HLS
import Testing

/// Drives `DASHPlanner` without a network: the MPD is handed over as fetched (an https URL, for
/// what needs no further fetch), or lies in a temporary folder with what it names (segment
/// indexes, remote Periods), read through `file:` URLs as the HLS planner tests do.
enum DASHPlanFixture {
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
    @Test("time a timeline skips is an EXT-X-GAP in the HLS playlist, in pieces no longer than a segment; times at the ends of Int64 plan without a trap")
    func timelineGaps() async throws {
        func mpd(_ timeline: String) -> String {
            """
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT30S"><Period>
            <AdaptationSet mimeType="video/mp4"><Representation id="v" bandwidth="100000" codecs="avc1.42c00d" width="320" height="240">
            <SegmentTemplate timescale="1000" media="v-$Time$.m4s" initialization="v-init.m4s"><SegmentTimeline>\(timeline)</SegmentTimeline></SegmentTemplate>
            </Representation></AdaptationSet></Period></MPD>
            """
        }
        let (plan, _) = try await DASHPlanFixture.plan(mpd(#"<S t="0" d="2000" r="1"/><S t="9000" d="2000"/><S t="11100" d="2000"/>"#))
        let text = try plan.localText(try #require(plan.renditions.first).record.key)
        // 4 s to 9 s: 5 s in three pieces; 100 ms of jitter before 11.1 s is no gap.
        #expect(text.components(separatedBy: "#EXT-X-GAP").count - 1 == 3, "\(text)")
        #expect(text.contains("#EXT-X-TARGETDURATION:2"))
        let extremes = try await DASHPlanFixture.plan(mpd(#"<S t="-9000000000000000000" d="1"/><S t="9000000000000000000" d="1"/>"#))
        #expect(!extremes.plan.resources.isEmpty)
    }

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
