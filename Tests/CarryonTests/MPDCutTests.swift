@testable import Carryon
import DASH
import Foundation
import Testing

/// Builds local `main.mpd` texts as `DASHPlan` writes them: each Representation a SegmentList of
/// bundle files with a SegmentTimeline of the origin's times.
private enum LocalMPD {
    static func name(_ folder: String, _ number: Int) -> String {
        let digits = String(number)
        return "\(folder)/\(String(repeating: "0", count: max(0, 5 - digits.count)))\(digits).m4s"
    }

    /// A Representation of `count` segments of `duration` units from `offset`, in `folder`.
    static func list(_ id: String, folder: String, count: Int, duration: Int = 2000, timescale: Int = 1000, offset: Int = 0) -> String {
        let urls = (1...count).map { "<SegmentURL media=\"\(name(folder, $0))\"/>" }.joined()
        let pto = offset == 0 ? "" : " presentationTimeOffset=\"\(offset)\""
        return """
            <Representation id="\(id)" bandwidth="1000"><SegmentList timescale="\(timescale)"\(pto)><Initialization sourceURL="\(folder)/init1.mp4"/>
            <SegmentTimeline><S t="\(offset)" d="\(duration)" r="\(count - 1)"/></SegmentTimeline>\(urls)</SegmentList></Representation>
            """
    }

    static func set(_ contentType: String, lang: String? = nil, _ representations: String...) -> String {
        "<AdaptationSet contentType=\"\(contentType)\"\(lang.map { " lang=\"\($0)\"" } ?? "") mimeType=\"\(contentType)/mp4\">\(representations.joined())</AdaptationSet>\n"
    }

    static func period(_ id: String, start: Int, duration: Int, _ sets: String...) -> String {
        "<Period id=\"\(id)\" start=\"PT\(start)S\" duration=\"PT\(duration)S\">\n\(sets.joined())</Period>\n"
    }

    static func mpd(duration: Int, type: String = "static", _ periods: String...) -> String {
        "<?xml version=\"1.0\"?>\n<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" type=\"\(type)\" mediaPresentationDuration=\"PT\(duration)S\" minBufferTime=\"PT2S\">\n\(periods.joined())</MPD>\n"
    }

    /// The init section and segments `numbers` of `folder`.
    static func files(_ folder: String, _ numbers: some Sequence<Int>, initSection: Bool = true) -> [String] {
        (initSection ? ["\(folder)/init1.mp4"] : []) + numbers.map { name(folder, $0) }
    }

    /// One Period of 10 s: video and English audio, 5 segments of 2 s each.
    static let oneperiod = mpd(duration: 10, period("p1", start: 0, duration: 10,
                                                     set("video", list("v", folder: "video", count: 5)),
                                                     set("audio", lang: "en", list("a", folder: "audio-en", count: 5))))

    static func cut(_ text: String, onDisk: [String]) throws -> MPD {
        try MPD.read(Array(MPDCut.cut(text, onDisk: Set(onDisk)).utf8))
    }
}

private extension MPD {
    func representation(_ period: Int, _ set: Int, _ representation: Int = 0) -> Representation {
        periods[period].adaptationSets[set].representations[representation]
    }

    /// The SegmentURLs' media of a Representation's SegmentList.
    func media(_ period: Int, _ set: Int, _ representation: Int = 0) -> [String] {
        self.representation(period, set, representation).segments.list?.segmentURLs?.compactMap(\.media) ?? []
    }
}

/// Cutting a local `main.mpd` to what is on disk (`MPDCut`): each Representation's SegmentList
/// ends before its first segment (or init section) not on disk; of one AdaptationSet only the
/// Representations that play as far as its longest stay; the first Period whose video or audio
/// (each in its longest Representation) stops short, and the MPD, end there; later Periods are
/// dropped; subtitles and a text file not on disk shorten nothing.
@Suite("Cutting a local MPD to what is on disk")
struct MPDCutTests {
    @Test("with everything on disk, every Representation keeps every segment and the durations stay")
    func everythingOnDisk() throws {
        let cut = try LocalMPD.cut(LocalMPD.oneperiod, onDisk: LocalMPD.files("video", 1...5) + LocalMPD.files("audio-en", 1...5))
        #expect(cut.periods.count == 1)
        #expect(cut.media(0, 0) == (1...5).map { LocalMPD.name("video", $0) })
        #expect(cut.media(0, 1).count == 5)
        #expect(cut.mediaPresentationDuration?.seconds == 10)
        #expect(cut.periods[0].duration?.seconds == 10)
        #expect(cut.warnings.isEmpty, "\(cut.warnings)")
    }

    @Test("a timeline cut in the middle of a repeat: the SegmentURLs before the first missing segment, the repeat shortened, the durations with them")
    func cutMidRepeat() throws {
        let cut = try LocalMPD.cut(LocalMPD.oneperiod, onDisk: LocalMPD.files("video", 1...3) + LocalMPD.files("audio-en", 1...5))
        #expect(cut.media(0, 0) == (1...3).map { LocalMPD.name("video", $0) })
        let timeline = try #require(cut.representation(0, 0).segments.list?.timeline)
        // One `S` a segment (issue 32: GStreamer pairs SegmentURLs with `S` elements one to one).
        #expect(timeline.entries.map(\.time) == [0, nil, nil])
        #expect(timeline.entries.map(\.duration) == [2000, 2000, 2000])
        #expect(timeline.entries.map(\.repeatCount) == [0, 0, 0])
        #expect(cut.media(0, 1).count == 5, "the audio, all on disk, keeps every segment")
        #expect(cut.periods[0].duration?.seconds == 6)
        #expect(cut.mediaPresentationDuration?.seconds == 6)
        #expect(cut.warnings.isEmpty, "\(cut.warnings)")
        // The cut MPD addresses what is on disk, at the origin's times.
        let period = cut.periods[0], set = period.adaptationSets[0]
        let addressing = try SegmentAddressing(set.representations[0], in: set, of: period, timing: cut.periodTimings[0], mpd: cut,
                                               mpdURL: "carryon-bundle:///main.mpd")
        #expect(addressing.segments.map(\.time) == [0, 2000, 4000])
        #expect(addressing.initialization?.url == "carryon-bundle:///video/init1.mp4")
    }

    @Test("a missing segment ends the list even when later ones are on disk")
    func firstMissingEndsIt() throws {
        let cut = try LocalMPD.cut(LocalMPD.oneperiod, onDisk: LocalMPD.files("video", [1, 2, 4, 5]) + LocalMPD.files("audio-en", 1...5))
        #expect(cut.media(0, 0) == [LocalMPD.name("video", 1), LocalMPD.name("video", 2)])
        #expect(cut.mediaPresentationDuration?.seconds == 4)
    }

    @Test("a Representation whose init section is missing is left out, its empty AdaptationSet too, and the Period ends at 0")
    func initMissing() throws {
        let cut = try LocalMPD.cut(LocalMPD.oneperiod, onDisk: LocalMPD.files("video", 1...5, initSection: false) + LocalMPD.files("audio-en", 1...5))
        #expect(cut.periods.count == 1)
        #expect(cut.periods[0].adaptationSets.map(\.contentType) == ["audio"])
        #expect(cut.periods[0].duration?.seconds == 0)
        #expect(cut.mediaPresentationDuration?.seconds == 0)
    }

    @Test("an audio Representation with nothing on disk, an extra language not reached yet, is left out without shortening the Period: another audio is on disk")
    func audioWithNothing() throws {
        let text = LocalMPD.mpd(duration: 10, LocalMPD.period("p1", start: 0, duration: 10,
                                                              LocalMPD.set("video", LocalMPD.list("v", folder: "video", count: 5)),
                                                              LocalMPD.set("audio", lang: "en", LocalMPD.list("a", folder: "audio-en", count: 5)),
                                                              LocalMPD.set("audio", lang: "de", LocalMPD.list("d", folder: "audio-de", count: 5))))
        let cut = try LocalMPD.cut(text, onDisk: LocalMPD.files("video", 1...5) + LocalMPD.files("audio-en", 1...5))
        #expect(cut.periods[0].adaptationSets.map(\.language) == [nil, "en"])
        #expect(cut.media(0, 0).count == 5 && cut.media(0, 1).count == 5)
        // Issue 32: a paused download with a second language played 0 s from main.mpd (its
        // main.m3u8 played all that was on disk); it now plays the 10 s there are.
        #expect(cut.mediaPresentationDuration?.seconds == 10)
    }

    @Test("a second language cut short shortens nothing while the first is whole; it keeps what it has")
    func extraLanguageCutShort() throws {
        let text = LocalMPD.mpd(duration: 10, LocalMPD.period("p1", start: 0, duration: 10,
                                                              LocalMPD.set("video", LocalMPD.list("v", folder: "video", count: 5)),
                                                              LocalMPD.set("audio", lang: "en", LocalMPD.list("a", folder: "audio-en", count: 5)),
                                                              LocalMPD.set("audio", lang: "de", LocalMPD.list("d", folder: "audio-de", count: 5))))
        let cut = try LocalMPD.cut(text, onDisk: LocalMPD.files("video", 1...5) + LocalMPD.files("audio-en", 1...5) + LocalMPD.files("audio-de", 1...2))
        #expect(cut.periods[0].adaptationSets.map(\.language) == [nil, "en", "de"])
        #expect(cut.media(0, 2) == [LocalMPD.name("audio-de", 1), LocalMPD.name("audio-de", 2)])
        #expect(cut.mediaPresentationDuration?.seconds == 10)
    }

    @Test("of one AdaptationSet's Representations (a variant added beside the main one), only those that play as far as its longest stay")
    func switchingSetKeepsTheLongest() throws {
        let text = LocalMPD.mpd(duration: 10, LocalMPD.period("p1", start: 0, duration: 10,
                                                              LocalMPD.set("video", LocalMPD.list("v", folder: "video", count: 5),
                                                                           LocalMPD.list("w", folder: "video-2", count: 5)),
                                                              LocalMPD.set("audio", lang: "en", LocalMPD.list("a", folder: "audio-en", count: 5))))
        let whole = try LocalMPD.cut(text, onDisk: LocalMPD.files("video", 1...5) + LocalMPD.files("video-2", 1...2) + LocalMPD.files("audio-en", 1...5))
        #expect(whole.periods[0].adaptationSets[0].representations.map(\.id) == ["v"])
        #expect(whole.mediaPresentationDuration?.seconds == 10)
        // Both cut short: the longer stays, and the Period ends where it does.
        let short = try LocalMPD.cut(text, onDisk: LocalMPD.files("video", 1...3) + LocalMPD.files("video-2", 1...2) + LocalMPD.files("audio-en", 1...5))
        #expect(short.periods[0].adaptationSets[0].representations.map(\.id) == ["v"])
        #expect(short.mediaPresentationDuration?.seconds == 6)
    }

    @Test("subtitles in a SegmentList cut short shorten nothing")
    func subtitlesShortenNothing() throws {
        let text = LocalMPD.mpd(duration: 10, LocalMPD.period("p1", start: 0, duration: 10,
                                                              LocalMPD.set("video", LocalMPD.list("v", folder: "video", count: 5)),
                                                              LocalMPD.set("text", lang: "en", LocalMPD.list("t", folder: "subtitles-en", count: 5))))
        let cut = try LocalMPD.cut(text, onDisk: LocalMPD.files("video", 1...5) + LocalMPD.files("subtitles-en", 1...1))
        #expect(cut.mediaPresentationDuration?.seconds == 10)
        #expect(cut.media(0, 1) == [LocalMPD.name("subtitles-en", 1)])
    }

    @Test("a SegmentList of @duration without a timeline is cut too, and gets the timeline of what is left")
    func numberList() throws {
        let urls = (1...5).map { "<SegmentURL media=\"\(LocalMPD.name("video", $0))\"/>" }.joined()
        let representation = "<Representation id=\"v\" bandwidth=\"1\"><SegmentList timescale=\"1\" duration=\"2\" startNumber=\"1\"><Initialization sourceURL=\"video/init1.mp4\"/>\(urls)</SegmentList></Representation>"
        let text = LocalMPD.mpd(duration: 10, LocalMPD.period("p1", start: 0, duration: 10, LocalMPD.set("video", representation)))
        let cut = try LocalMPD.cut(text, onDisk: LocalMPD.files("video", 1...2))
        #expect(cut.media(0, 0) == [LocalMPD.name("video", 1), LocalMPD.name("video", 2)])
        let list = try #require(cut.representation(0, 0).segments.list)
        #expect(list.timeline?.entries.map(\.time) == [0, nil])
        #expect(list.timeline?.entries.map(\.repeatCount) == [0, 0])
        #expect(cut.mediaPresentationDuration?.seconds == 4)
    }

    @Test("with a presentationTimeOffset the Period ends at the last segment's end less the offset")
    func presentationTimeOffset() throws {
        let text = LocalMPD.mpd(duration: 8, LocalMPD.period("p1", start: 0, duration: 8,
                                                             LocalMPD.set("video", LocalMPD.list("v", folder: "video", count: 4, offset: 5000))))
        let cut = try LocalMPD.cut(text, onDisk: LocalMPD.files("video", 1...2))
        let list = try #require(cut.representation(0, 0).segments.list)
        #expect(list.presentationTimeOffset == 5000)
        #expect(list.timeline?.entries.first?.time == 5000)
        // (5000 + 2 × 2000) − 5000 = 4000: 4 s.
        #expect(cut.periods[0].duration?.seconds == 4)
        #expect(cut.mediaPresentationDuration?.seconds == 4)
    }

    @Test("byte ranges of one file are on disk by their offsets: the file's name alone does not make a range present")
    func byteRanges() throws {
        let representation = """
            <Representation id="v" bandwidth="1"><SegmentList timescale="1" duration="2"><Initialization sourceURL="video/file1.mp4" range="0-99"/>
            <SegmentURL media="video/file1.mp4" mediaRange="100-199"/><SegmentURL media="video/file1.mp4" mediaRange="200-299"/>
            <SegmentURL media="video/file1.mp4" mediaRange="300-399"/></SegmentList></Representation>
            """
        let text = LocalMPD.mpd(duration: 6, LocalMPD.period("p1", start: 0, duration: 6, LocalMPD.set("video", representation)))
        let cut = try LocalMPD.cut(text, onDisk: ["video/file1.mp4@0", "video/file1.mp4@100", "video/file1.mp4@200", "video/file1.mp4"])
        let urls = try #require(cut.representation(0, 0).segments.list?.segmentURLs)
        #expect(urls.map(\.mediaRange) == [ByteRange(first: 100, last: 199), ByteRange(first: 200, last: 299)])
        #expect(cut.representation(0, 0).segments.list?.initialization?.range == ByteRange(first: 0, last: 99))
        #expect(cut.mediaPresentationDuration?.seconds == 4)
    }

    @Test("video and audio cut at different points: each keeps its own segments, the Period ends at the earlier end")
    func differentCutPoints() throws {
        let cut = try LocalMPD.cut(LocalMPD.oneperiod, onDisk: LocalMPD.files("video", 1...3) + LocalMPD.files("audio-en", 1...4))
        #expect(cut.media(0, 0).count == 3)
        #expect(cut.media(0, 1).count == 4)
        #expect(cut.periods[0].duration?.seconds == 6)
        #expect(cut.mediaPresentationDuration?.seconds == 6)
    }

    @Test("a text file (a bare BaseURL) not on disk is left out without shortening anything; on disk it is kept")
    func textFile() throws {
        let text = LocalMPD.mpd(duration: 10, LocalMPD.period("p1", start: 0, duration: 10,
                                                              LocalMPD.set("video", LocalMPD.list("v", folder: "video", count: 5)),
                                                              LocalMPD.set("text", lang: "en", "<Representation id=\"t\" bandwidth=\"1\"><BaseURL>subtitles-en/file1.vtt</BaseURL></Representation>")))
        let without = try LocalMPD.cut(text, onDisk: LocalMPD.files("video", 1...5))
        #expect(without.periods[0].adaptationSets.map(\.contentType) == ["video"])
        #expect(without.mediaPresentationDuration?.seconds == 10)
        #expect(without.periods[0].duration?.seconds == 10)
        let with = try LocalMPD.cut(text, onDisk: LocalMPD.files("video", 1...5) + ["subtitles-en/file1.vtt"])
        #expect(with.periods[0].adaptationSets.map(\.contentType) == ["video", "text"])
        #expect(with.representation(0, 1).baseURLs.map(\.url) == ["subtitles-en/file1.vtt"])
    }

    static let threePeriods = LocalMPD.mpd(duration: 30,
                                           LocalMPD.period("p1", start: 0, duration: 10, LocalMPD.set("video", LocalMPD.list("v", folder: "video", count: 5))),
                                           LocalMPD.period("p2", start: 10, duration: 10, LocalMPD.set("video", LocalMPD.list("v", folder: "video-p2", count: 5))),
                                           LocalMPD.period("p3", start: 20, duration: 10, LocalMPD.set("video", LocalMPD.list("v", folder: "video-p3", count: 5))))

    @Test("a later Period cut: the Periods before whole, it shortened, the ones after dropped, the MPD ending with it")
    func laterPeriodCut() throws {
        let cut = try LocalMPD.cut(Self.threePeriods, onDisk: LocalMPD.files("video", 1...5) + LocalMPD.files("video-p2", 1...2)
                                   + LocalMPD.files("video-p3", 1...5))
        #expect(cut.periods.map(\.id) == ["p1", "p2"])
        #expect(cut.periods[0].duration?.seconds == 10)
        #expect(cut.periods[1].start?.seconds == 10)
        #expect(cut.periods[1].duration?.seconds == 4)
        #expect(cut.media(1, 0).count == 2)
        #expect(cut.mediaPresentationDuration?.seconds == 14)
    }

    @Test("the first Period cut: the later ones are dropped though they are on disk")
    func firstPeriodCut() throws {
        let cut = try LocalMPD.cut(Self.threePeriods, onDisk: LocalMPD.files("video", 1...1) + LocalMPD.files("video-p2", 1...5)
                                   + LocalMPD.files("video-p3", 1...5))
        #expect(cut.periods.map(\.id) == ["p1"])
        #expect(cut.mediaPresentationDuration?.seconds == 2)
    }

    @Test("a Period with nothing on disk stays, without AdaptationSets and lasting 0 s; the MPD ends at its start")
    func periodWithNothing() throws {
        let cut = try LocalMPD.cut(Self.threePeriods, onDisk: LocalMPD.files("video", 1...5))
        #expect(cut.periods.map(\.id) == ["p1", "p2"])
        #expect(cut.periods[1].adaptationSets.isEmpty)
        #expect(cut.periods[1].duration?.seconds == 0)
        #expect(cut.mediaPresentationDuration?.seconds == 10)
    }

    @Test("a Representation not addressed by its own SegmentList (a template, which Carryon never writes locally) is left as it is")
    func templateLeftAlone() throws {
        let representation = "<Representation id=\"v\" bandwidth=\"1\"><SegmentTemplate timescale=\"1\" duration=\"2\" media=\"video/$Number%05d$.m4s\"/></Representation>"
        let text = LocalMPD.mpd(duration: 10, LocalMPD.period("p1", start: 0, duration: 10, LocalMPD.set("video", representation)))
        let cut = try LocalMPD.cut(text, onDisk: [LocalMPD.name("video", 1)])
        #expect(cut.representation(0, 0).segments.template?.media == "video/$Number%05d$.m4s")
        #expect(cut.mediaPresentationDuration?.seconds == 10)
    }

    @Test("an MPD that is not static is cut the same and keeps its type; an unknown @type is read, and written, as static")
    func notStatic() throws {
        let dynamic = LocalMPD.oneperiod.replacingOccurrences(of: "type=\"static\"", with: "type=\"dynamic\"")
        let cut = try LocalMPD.cut(dynamic, onDisk: LocalMPD.files("video", 1...2) + LocalMPD.files("audio-en", 1...5))
        #expect(cut.type == .dynamic)
        #expect(cut.media(0, 0).count == 2)
        #expect(cut.mediaPresentationDuration?.seconds == 4)
        let unknown = LocalMPD.oneperiod.replacingOccurrences(of: "type=\"static\"", with: "type=\"live\"")
        let read = try LocalMPD.cut(unknown, onDisk: LocalMPD.files("video", 1...5) + LocalMPD.files("audio-en", 1...5))
        #expect(read.type == .static)
        #expect(read.mediaPresentationDuration?.seconds == 10)
    }

    @Test("a segment outside the bundle is never on disk, whatever its path: the list ends before it")
    func outsideTheBundle() throws {
        let text = LocalMPD.oneperiod.replacingOccurrences(of: "media=\"video/00002.m4s\"", with: "media=\"https://evil.example/video/00002.m4s\"")
        #expect(text != LocalMPD.oneperiod)
        let cut = try LocalMPD.cut(text, onDisk: LocalMPD.files("video", 1...5) + LocalMPD.files("audio-en", 1...5))
        #expect(cut.media(0, 0) == [LocalMPD.name("video", 1)])
        #expect(cut.mediaPresentationDuration?.seconds == 2)
    }

    @Test("text that is not an MPD, or declares entities, is refused as a playlist error before anything is cut")
    func unreadable() throws {
        for text in ["not xml at all", "<html><body/></html>",
                     "<!DOCTYPE MPD [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><MPD><BaseURL>&x;</BaseURL></MPD>"] {
            #expect {
                try MPDCut.cut(text, onDisk: [])
            } throws: { error in
                (error as? CarryonError)?.code == .playlist && "\(error)".contains("cannot be read")
            }
        }
    }

    @Test("an MPD whose segments cannot be worked out is refused: too many segments, a $Number$ template of unknown length")
    func unaddressable() throws {
        let huge = "<Representation id=\"v\" bandwidth=\"1\"><SegmentList timescale=\"1\"><SegmentTimeline><S d=\"1\" r=\"2500000\"/></SegmentTimeline><SegmentURL media=\"a\"/></SegmentList></Representation>"
        let hugeText = LocalMPD.mpd(duration: 3_000_000, LocalMPD.period("p1", start: 0, duration: 3_000_000, LocalMPD.set("video", huge)))
        #expect {
            try MPDCut.cut(hugeText, onDisk: [])
        } throws: { error in
            (error as? CarryonError)?.code == .playlist && "\(error)".contains("cannot be addressed") && "\(error)".contains("2000000")
        }
        let unknownLength = "<MPD type=\"static\"><Period><AdaptationSet mimeType=\"video/mp4\"><Representation id=\"v\" bandwidth=\"1\"><SegmentTemplate duration=\"2\" media=\"$Number$.m4s\"/></Representation></AdaptationSet></Period></MPD>"
        #expect {
            try MPDCut.cut(unknownLength, onDisk: [])
        } throws: { error in
            "\(error)".contains("cannot be addressed") && "\(error)".contains("length")
        }
    }
}
