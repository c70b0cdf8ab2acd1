@testable import DASH
import Testing

/// Builds MPDs for the addressing edge cases and works out one Representation's addressing.
enum AddressingFixture {
    static let mpdURL = "https://cdn.example/show/main.mpd"

    static func read(_ text: String) throws -> MPD {
        try MPD.read(Array(text.utf8))
    }

    /// The addressing of Representation `representation` of set `set` of Period `period`.
    static func addressing(_ mpd: MPD, period: Int = 0, set: Int = 0, representation: Int = 0,
                           mpdURL: String = mpdURL) throws -> SegmentAddressing {
        let thePeriod = mpd.periods[period], theSet = thePeriod.adaptationSets[set]
        return try SegmentAddressing(theSet.representations[representation], in: theSet, of: thePeriod,
                                     timing: mpd.periodTimings[period], mpd: mpd, mpdURL: mpdURL)
    }

    /// The first Representation of `body`, an AdaptationSet's content, in the one Period of a
    /// static MPD of `duration` (none when nil).
    static func addressing(_ body: String, duration: String? = "PT10S", mpdURL: String = mpdURL) throws -> SegmentAddressing {
        let attribute = duration.map { " mediaPresentationDuration=\"\($0)\"" } ?? ""
        let mpd = try read("<MPD type=\"static\"\(attribute)><Period><AdaptationSet mimeType=\"video/mp4\">\(body)</AdaptationSet></Period></MPD>")
        return try addressing(mpd, mpdURL: mpdURL)
    }

    /// A Representation `v` with a SegmentTemplate of `attributes` and the `S` elements `entries`.
    static func timeline(_ attributes: String, _ entries: String, duration: String? = "PT10S") throws -> SegmentAddressing {
        try addressing("<Representation id=\"v\" bandwidth=\"1\"><SegmentTemplate \(attributes)><SegmentTimeline>\(entries)</SegmentTimeline></SegmentTemplate></Representation>",
                       duration: duration)
    }

    /// A Representation `v` with a SegmentTemplate of `attributes` and no timeline.
    static func template(_ attributes: String, duration: String? = "PT10S") throws -> SegmentAddressing {
        try addressing("<Representation id=\"v\" bandwidth=\"500\"><SegmentTemplate \(attributes)/></Representation>", duration: duration)
    }
}

/// SegmentTimeline edge cases: `@r="-1"`, `@n`, gaps, `startNumber` and a timeline running past
/// its Period.
@Suite("Segment addressing: SegmentTimeline edge cases")
struct TimelineEdgeCaseTests {
    @Test("S@r=-1 as the last S repeats to the Period's end, which mediaPresentationDuration gives; the last segment may overrun it")
    func repeatToPresentationEnd() throws {
        // 10 s at 1000/s: ceil(10000 / 4000) = 3 segments, at 0, 4000, 8000.
        let addressing = try AddressingFixture.timeline("timescale=\"1000\" media=\"$Time$.m4s\"", "<S t=\"0\" d=\"4000\" r=\"-1\"/>")
        #expect(addressing.mode == .timeline)
        #expect(addressing.segments.map(\.time) == [0, 4000, 8000])
        #expect(addressing.segments.map(\.duration) == [4000, 4000, 4000])
        #expect(addressing.segments.map(\.number) == [1, 2, 3])
        #expect(addressing.segments.map(\.location.url) == ["https://cdn.example/show/0.m4s", "https://cdn.example/show/4000.m4s",
                                                             "https://cdn.example/show/8000.m4s"])
    }

    @Test("S@r=-1 repeats to the end of its own Period: Period@duration for the first, the presentation's end for the second")
    func repeatToPeriodDuration() throws {
        let mpd = try AddressingFixture.read("""
            <MPD type="static" mediaPresentationDuration="PT20S">
            <Period id="a" duration="PT6S"><AdaptationSet mimeType="video/mp4"><Representation id="v" bandwidth="1">
              <SegmentTemplate timescale="1" media="a-$Number$.m4s"><SegmentTimeline><S d="2" r="-1"/></SegmentTimeline></SegmentTemplate>
            </Representation></AdaptationSet></Period>
            <Period id="b"><AdaptationSet mimeType="video/mp4"><Representation id="v" bandwidth="1">
              <SegmentTemplate timescale="1" media="b-$Number$.m4s"><SegmentTimeline><S d="5" r="-1"/></SegmentTimeline></SegmentTemplate>
            </Representation></AdaptationSet></Period>
            </MPD>
            """)
        let first = try AddressingFixture.addressing(mpd, period: 0)
        // 6 s of 2 s segments, the first S without @t starting at 0.
        #expect(first.segments.map(\.time) == [0, 2, 4])
        #expect(first.segments.map(\.location.url).last == "https://cdn.example/show/a-3.m4s")
        // The second Period starts at 6 s and lasts 14 s: ceil(14 / 5) = 3 segments.
        let second = try AddressingFixture.addressing(mpd, period: 1)
        #expect(second.segments.map(\.time) == [0, 5, 10])
        #expect(second.segments.map(\.location.url) == ["https://cdn.example/show/b-1.m4s", "https://cdn.example/show/b-2.m4s",
                                                          "https://cdn.example/show/b-3.m4s"])
    }

    @Test("S@r=-1 followed by an S@t repeats up to that time: a duration that does not divide it gives one segment over it")
    func repeatUntilNextTime() throws {
        // (10 - 0) / 3 rounded up: 4 segments at 0, 3, 6, 9, then the S at 10.
        let addressing = try AddressingFixture.timeline("timescale=\"1\" media=\"$Time$.m4s\"",
                                                        "<S t=\"0\" d=\"3\" r=\"-1\"/><S t=\"10\" d=\"5\"/>", duration: "PT15S")
        #expect(addressing.segments.map(\.time) == [0, 3, 6, 9, 10])
        #expect(addressing.segments.map(\.duration) == [3, 3, 3, 3, 5])
        #expect(addressing.segments.map(\.number) == [1, 2, 3, 4, 5])
    }

    @Test("S@r=-1 with a presentationTimeOffset: the Period's end is the offset plus its length, in the timescale")
    func repeatWithOffset() throws {
        // 5 s at 10/s after the offset 100: the end is 150; segments at 100, 120, 140.
        let addressing = try AddressingFixture.timeline("timescale=\"10\" presentationTimeOffset=\"100\" media=\"t$Time$.m4s\"",
                                                        "<S t=\"100\" d=\"20\" r=\"-1\"/>", duration: "PT5S")
        #expect(addressing.presentationTimeOffset == 100)
        #expect(addressing.segments.map(\.location.url) == ["https://cdn.example/show/t100.m4s", "https://cdn.example/show/t120.m4s",
                                                             "https://cdn.example/show/t140.m4s"])
        #expect(addressing.duration == 6)
    }

    @Test("S@r=-1 in a Period whose end the MPD does not give is refused, naming the S element's line")
    func repeatToUnknownEnd() throws {
        let mpd = try AddressingFixture.read("""
            <MPD type="static">
            <Period>
            <AdaptationSet mimeType="video/mp4">
            <Representation id="v" bandwidth="1">
            <SegmentTemplate media="$Time$.m4s">
            <SegmentTimeline>
            <S t="0" d="2" r="-1"/>
            </SegmentTimeline>
            </SegmentTemplate>
            </Representation>
            </AdaptationSet>
            </Period>
            </MPD>
            """)
        #expect(mpd.periodTimings[0].duration == nil)
        #expect {
            try AddressingFixture.addressing(mpd)
        } throws: { error in
            let mpdError = error as? MPDError
            return mpdError?.line == 7 && mpdError?.message.contains("S@r=-1") == true
        }
        // Counting them cannot either.
        let period = mpd.periods[0], set = period.adaptationSets[0]
        #expect(SegmentAddressing.segmentCount(set.representations[0], in: set, of: period, timing: mpd.periodTimings[0], mpd: mpd) == nil)
    }

    @Test("explicit repeats that run past the Period's end stop there")
    func repeatsPastPeriodEnd() throws {
        // r=9 asks for 10 segments of 2 s; the Period has 10 s: 5 of them.
        let addressing = try AddressingFixture.timeline("timescale=\"1\" media=\"$Number$.m4s\"", "<S t=\"0\" d=\"2\" r=\"9\"/>")
        #expect(addressing.segments.map(\.time) == [0, 2, 4, 6, 8])
        #expect(addressing.segments.map(\.location.url).last == "https://cdn.example/show/5.m4s")
    }

    @Test("S@n renumbers from its segment on; $Number$ and $Time$ in one template")
    func sNumber() throws {
        let addressing = try AddressingFixture.timeline("timescale=\"1\" media=\"$Number$-$Time$.m4s\"",
                                                        "<S t=\"0\" n=\"10\" d=\"2\" r=\"1\"/><S n=\"20\" d=\"2\"/>", duration: "PT6S")
        #expect(addressing.segments.map(\.number) == [10, 11, 20])
        #expect(addressing.segments.map(\.location.url) == ["https://cdn.example/show/10-0.m4s", "https://cdn.example/show/11-2.m4s",
                                                             "https://cdn.example/show/20-4.m4s"])
    }

    @Test("a timeline's numbers start at @startNumber; a width pads them")
    func timelineStartNumber() throws {
        let addressing = try AddressingFixture.timeline("timescale=\"1\" startNumber=\"5\" media=\"seg-$Number%03d$.m4s\"",
                                                        "<S d=\"2\" r=\"2\"/>", duration: "PT6S")
        #expect(addressing.segments.map(\.number) == [5, 6, 7])
        #expect(addressing.segments.map(\.location.url) == ["https://cdn.example/show/seg-005.m4s", "https://cdn.example/show/seg-006.m4s",
                                                             "https://cdn.example/show/seg-007.m4s"])
    }

    @Test("an S@t later than the end of the S before leaves a gap: its segment starts at its @t")
    func gap() throws {
        let addressing = try AddressingFixture.timeline("timescale=\"1\" media=\"$Time$.m4s\"", "<S t=\"0\" d=\"2\"/><S t=\"5\" d=\"2\"/>")
        #expect(addressing.segments.map(\.time) == [0, 5])
        #expect(addressing.segments.map(\.duration) == [2, 2])
        #expect(addressing.segments.map(\.number) == [1, 2])
    }

    @Test("@endNumber ends a timeline at that number")
    func timelineEndNumber() throws {
        let addressing = try AddressingFixture.timeline("timescale=\"1\" endNumber=\"3\" media=\"$Number$.m4s\"", "<S d=\"2\" r=\"4\"/>")
        #expect(addressing.segments.map(\.number) == [1, 2, 3])
        #expect(addressing.segments.map(\.time) == [0, 2, 4])
    }

    @Test("an S without a positive @d is read past with a warning naming its line; S@r below -1 is read as 0")
    func malformedEntries() throws {
        let mpd = try AddressingFixture.read("""
            <MPD type="static" mediaPresentationDuration="PT10S"><Period><AdaptationSet mimeType="video/mp4">
            <Representation id="v" bandwidth="1"><SegmentTemplate timescale="1" media="$Time$.m4s"><SegmentTimeline>
            <S t="0" d="0"/>
            <S t="0" d="2" r="-5"/>
            <S d="3"/>
            </SegmentTimeline></SegmentTemplate></Representation></AdaptationSet></Period></MPD>
            """)
        #expect(mpd.warnings.contains { $0.line == 3 && $0.message.contains("@d") })
        #expect(mpd.warnings.contains { $0.line == 4 && $0.message.contains("-5") })
        let addressing = try AddressingFixture.addressing(mpd)
        #expect(addressing.segments.map(\.time) == [0, 2])
        #expect(addressing.segments.map(\.duration) == [2, 3])
    }

    @Test("the shortest timeline of segments: runs of one duration become @r, a jump gets its own @t")
    func timelineCovering() throws {
        let segment = { (time: Int64, duration: Int64) in
            SegmentAddressing.Segment(location: .init(url: "x"), time: time, duration: duration, number: 1)
        }
        let timeline = SegmentTimeline(covering: [segment(10, 2), segment(12, 2), segment(14, 2), segment(20, 3), segment(23, 1)])
        #expect(timeline.entries.map(\.time) == [10, 20, nil])
        #expect(timeline.entries.map(\.duration) == [2, 3, 1])
        #expect(timeline.entries.map(\.repeatCount) == [2, 0, 0])
    }
}

/// SegmentTemplate with `@duration`: counts from the Period's length, `startNumber`,
/// `presentationTimeOffset`, widths and identifiers.
@Suite("Segment addressing: SegmentTemplate edge cases")
struct TemplateEdgeCaseTests {
    @Test("$Time$ with a width is zero-padded to it")
    func timeWidth() throws {
        let addressing = try AddressingFixture.timeline("timescale=\"90000\" media=\"t$Time%010d$.m4s\"",
                                                        "<S t=\"90000\" d=\"180000\" r=\"1\"/>", duration: "PT4S")
        #expect(addressing.segments.map(\.location.url) == ["https://cdn.example/show/t0000090000.m4s", "https://cdn.example/show/t0000270000.m4s"])
    }

    @Test("$Number%05d$ pads to five digits, and a number wider than that is written whole")
    func numberWiderThanWidth() throws {
        let addressing = try AddressingFixture.template("timescale=\"1\" duration=\"1\" startNumber=\"99998\" media=\"seg-$Number%05d$.m4s\"",
                                                        duration: "PT3S")
        #expect(addressing.segments.map(\.location.url) == ["https://cdn.example/show/seg-99998.m4s", "https://cdn.example/show/seg-99999.m4s",
                                                             "https://cdn.example/show/seg-100000.m4s"])
        let padded = try AddressingFixture.template("timescale=\"1\" duration=\"1\" startNumber=\"0\" media=\"seg-$Number%05d$.m4s\"",
                                                    duration: "PT2S")
        #expect(padded.segments.map(\.location.url) == ["https://cdn.example/show/seg-00000.m4s", "https://cdn.example/show/seg-00001.m4s"])
    }

    @Test("every identifier expands: RepresentationID (never padded), Bandwidth and Time with widths, SubNumber, $$")
    func everyIdentifier() {
        let template = TemplateString("$RepresentationID%05d$/$Bandwidth%08d$-$SubNumber$-$Time%02d$-$Number$$$.m4s")
        #expect(template.problems.isEmpty)
        #expect(template.usesTime)
        #expect(template.expand(.init(representationID: "v1", number: 3, time: 123, bandwidth: 500, subNumber: 2))
            == "v1/00000500-2-123-3$.m4s")
        #expect(!TemplateString("$Number$.m4s").usesTime)
    }

    @Test("what is not an identifier or a %0<width>d format is kept as written, with a problem each")
    func oddIdentifiers() throws {
        let addressing = try AddressingFixture.template("timescale=\"1\" duration=\"1\" startNumber=\"7\" media=\"s$Number%5x$-$Foo$.m4s\"",
                                                        duration: "PT1S")
        #expect(addressing.segments.map(\.location.url) == ["https://cdn.example/show/s7-$Foo$.m4s"])
        #expect(addressing.warnings.count == 2)
        #expect(addressing.warnings.contains { $0.message.contains("%5x") })
        #expect(addressing.warnings.contains { $0.message.contains("$Foo$") })
        let unclosed = TemplateString("seg-$Number.m4s")
        #expect(unclosed.problems.count == 1 && unclosed.problems[0].contains("unclosed"))
        #expect(unclosed.expand(.init(representationID: "v", number: 4)) == "seg-$Number.m4s")
        #expect(TemplateString("$Number%d$").expand(.init(representationID: "v", number: 4)) == "4")
    }

    @Test("@startNumber numbers @duration segments from it; the times still start at the Period's start")
    func startNumber() throws {
        let addressing = try AddressingFixture.template("timescale=\"1\" duration=\"2\" startNumber=\"10\" media=\"$Number$.m4s\"",
                                                        duration: "PT6S")
        #expect(addressing.segments.map(\.number) == [10, 11, 12])
        #expect(addressing.segments.map(\.time) == [0, 2, 4])
        #expect(addressing.segments.map(\.location.url).first == "https://cdn.example/show/10.m4s")
    }

    @Test("@endNumber ends a @duration template before the Period does")
    func endNumber() throws {
        let addressing = try AddressingFixture.template("timescale=\"1\" duration=\"2\" endNumber=\"2\" media=\"$Number$.m4s\"")
        #expect(addressing.segments.map(\.number) == [1, 2])
        #expect(addressing.segments.map(\.duration) == [2, 2])
    }

    @Test("@presentationTimeOffset: @duration segments start at the offset, the last cut at offset plus the Period's length")
    func durationWithOffset() throws {
        // 5 s at 1000/s from 5000: segments at 5000, 7000, 9000, the last 1000 long (up to 10000).
        let addressing = try AddressingFixture.template("timescale=\"1000\" presentationTimeOffset=\"5000\" duration=\"2000\" media=\"$Time$-$Number$.m4s\"",
                                                        duration: "PT5S")
        #expect(addressing.segments.map(\.time) == [5000, 7000, 9000])
        #expect(addressing.segments.map(\.duration) == [2000, 2000, 1000])
        #expect(addressing.segments.map(\.location.url) == ["https://cdn.example/show/5000-1.m4s", "https://cdn.example/show/7000-2.m4s",
                                                             "https://cdn.example/show/9000-3.m4s"])
        #expect(addressing.duration == 5)
    }

    @Test("@duration alone: ceil(Period / duration) segments, the last partial; none partial when it divides")
    func durationCount() throws {
        // 5 s at 90 kHz is 450000: 180000, 180000, then 90000.
        let partial = try AddressingFixture.template("timescale=\"90000\" duration=\"180000\" media=\"$Number$.m4s\"", duration: "PT5S")
        #expect(partial.segments.map(\.duration) == [180_000, 180_000, 90_000])
        #expect(partial.segments.map(\.time) == [0, 180_000, 360_000])
        let whole = try AddressingFixture.template("timescale=\"90000\" duration=\"180000\" media=\"$Number$.m4s\"", duration: "PT6S")
        #expect(whole.segments.map(\.duration) == [180_000, 180_000, 180_000])
        // No timescale: 1 unit a second.
        let seconds = try AddressingFixture.template("duration=\"4\" media=\"$Number$.m4s\"", duration: "PT1M")
        #expect(seconds.timescale == 1 && seconds.segments.count == 15)
    }

    @Test("a Period without @duration lasts until the next Period's @start: its @duration template counts to there")
    func durationFromNextStart() throws {
        let mpd = try AddressingFixture.read("""
            <MPD type="static" mediaPresentationDuration="PT10S">
            <Period start="PT0S"><AdaptationSet mimeType="video/mp4"><SegmentTemplate timescale="1" duration="2" media="a$Number$.m4s"/>
              <Representation id="v" bandwidth="1"/></AdaptationSet></Period>
            <Period start="PT7S"><AdaptationSet mimeType="video/mp4"><SegmentTemplate timescale="1" duration="2" media="b$Number$.m4s"/>
              <Representation id="v" bandwidth="1"/></AdaptationSet></Period>
            </MPD>
            """)
        // 7 s: 2, 2, 2, 1. Then 3 s: 2, 1.
        #expect(try AddressingFixture.addressing(mpd, period: 0).segments.map(\.duration) == [2, 2, 2, 1])
        #expect(try AddressingFixture.addressing(mpd, period: 1).segments.map(\.duration) == [2, 1])
    }

    @Test("a Period of a fraction of a second more than a whole number of segments gets that last partial segment too")
    func fractionalPeriodEnd() throws {
        let template = try AddressingFixture.template("duration=\"2\" media=\"$Number$.m4s\"", duration: "PT4.5S")
        #expect(template.segments.map(\.time) == [0, 2, 4])
        let timeline = try AddressingFixture.timeline("media=\"$Number$.m4s\"", "<S d=\"2\" r=\"-1\"/>", duration: "PT4.5S")
        #expect(timeline.segments.map(\.time) == [0, 2, 4])
    }

    @Test("SegmentTemplate attributes are inherited one by one from the AdaptationSet and the Period")
    func inheritance() throws {
        let mpd = try AddressingFixture.read("""
            <MPD type="static" mediaPresentationDuration="PT4S"><Period>
            <SegmentTemplate timescale="1000" media="$RepresentationID$/$Number$.m4s" initialization="$RepresentationID$/init.mp4"/>
            <AdaptationSet mimeType="video/mp4"><SegmentTemplate duration="2000"/>
              <Representation id="v1" bandwidth="1"><SegmentTemplate startNumber="3"/></Representation>
              <Representation id="v2" bandwidth="1"/>
            </AdaptationSet></Period></MPD>
            """)
        let first = try AddressingFixture.addressing(mpd, representation: 0)
        #expect(first.timescale == 1000)
        #expect(first.initialization?.url == "https://cdn.example/show/v1/init.mp4")
        #expect(first.segments.map(\.location.url) == ["https://cdn.example/show/v1/3.m4s", "https://cdn.example/show/v1/4.m4s"])
        let second = try AddressingFixture.addressing(mpd, representation: 1)
        #expect(second.segments.map(\.location.url) == ["https://cdn.example/show/v2/1.m4s", "https://cdn.example/show/v2/2.m4s"])
    }

    @Test("an Initialization element stands for @initialization, with its byte range")
    func initializationElement() throws {
        let addressing = try AddressingFixture.addressing("""
            <Representation id="v" bandwidth="1"><SegmentTemplate timescale="1" duration="5" media="$Number$.m4s">
              <Initialization sourceURL="init-v.mp4" range="0-599"/></SegmentTemplate></Representation>
            """)
        #expect(addressing.initialization == .init(url: "https://cdn.example/show/init-v.mp4", range: ByteRange(first: 0, last: 599)))
        #expect(addressing.segments.count == 2)
    }

    @Test("a SegmentTemplate without @media is refused, naming its line")
    func noMedia() throws {
        let mpd = try AddressingFixture.read("""
            <MPD type="static" mediaPresentationDuration="PT4S"><Period><AdaptationSet mimeType="video/mp4">
            <Representation id="v" bandwidth="1">
            <SegmentTemplate duration="2"/>
            </Representation></AdaptationSet></Period></MPD>
            """)
        #expect {
            try AddressingFixture.addressing(mpd)
        } throws: { error in
            (error as? MPDError)?.line == 3 && "\(error)".contains("no @media")
        }
    }

    @Test("segment counts without URLs: a template's, a list's, none for SegmentBase, one for a bare BaseURL")
    func segmentCounts() throws {
        let mpd = try AddressingFixture.read("""
            <MPD type="static" mediaPresentationDuration="PT10S"><Period><AdaptationSet mimeType="video/mp4">
            <Representation id="template" bandwidth="1"><SegmentTemplate timescale="1" duration="4" media="$Number$.m4s"/></Representation>
            <Representation id="list" bandwidth="1"><SegmentList timescale="1" duration="5"><SegmentURL media="a"/><SegmentURL media="b"/></SegmentList></Representation>
            <Representation id="base" bandwidth="1"><BaseURL>b.mp4</BaseURL><SegmentBase indexRange="0-99"/></Representation>
            <Representation id="url" bandwidth="1"><BaseURL>b.vtt</BaseURL></Representation>
            <Representation id="listTimeline" bandwidth="1"><SegmentList timescale="1"><SegmentTimeline><S d="2" r="4"/></SegmentTimeline>
              <SegmentURL media="a"/><SegmentURL media="b"/></SegmentList></Representation>
            </AdaptationSet></Period></MPD>
            """)
        let period = mpd.periods[0], set = period.adaptationSets[0]
        let counts = set.representations.map {
            SegmentAddressing.segmentCount($0, in: set, of: period, timing: mpd.periodTimings[0], mpd: mpd)
        }
        #expect(counts == [3, 2, nil, 1, 2])
        let modes = set.representations.map { SegmentAddressing.mode(of: mpd.segmentInformation(of: $0, in: set, of: period)) }
        #expect(modes == [.template, .list, .base, .url, .list])
    }
}
