@testable import DASH
import Testing

/// SegmentList edge cases: counts, inheritance, a timeline beside the URLs.
@Suite("Segment addressing: SegmentList edge cases")
struct SegmentListEdgeCaseTests {
    @Test("@duration: each SegmentURL a segment from the Period's start, the last cut at the Period's end; numbers from @startNumber")
    func durationList() throws {
        let addressing = try AddressingFixture.addressing("""
            <Representation id="v" bandwidth="1"><SegmentList timescale="1" duration="4" startNumber="3">
              <SegmentURL media="a.m4s"/><SegmentURL media="b.m4s"/><SegmentURL media="c.m4s"/></SegmentList></Representation>
            """)
        #expect(addressing.mode == .list)
        #expect(addressing.segments.map(\.time) == [0, 4, 8])
        #expect(addressing.segments.map(\.duration) == [4, 4, 2])
        #expect(addressing.segments.map(\.number) == [3, 4, 5])
        #expect(addressing.segments.map(\.location.url) == ["https://cdn.example/show/a.m4s", "https://cdn.example/show/b.m4s",
                                                             "https://cdn.example/show/c.m4s"])
    }

    @Test("a SegmentTimeline gives the list's times; more SegmentURLs than timeline segments: the shorter is used, with a warning")
    func timelineList() throws {
        let addressing = try AddressingFixture.addressing("""
            <Representation id="v" bandwidth="1"><SegmentList timescale="1"><SegmentTimeline><S t="0" d="3"/><S d="5"/></SegmentTimeline>
              <SegmentURL media="a.m4s"/><SegmentURL media="b.m4s"/><SegmentURL media="c.m4s"/></SegmentList></Representation>
            """)
        #expect(addressing.segments.map(\.time) == [0, 3])
        #expect(addressing.segments.map(\.duration) == [3, 5])
        #expect(addressing.segments.map(\.location.url) == ["https://cdn.example/show/a.m4s", "https://cdn.example/show/b.m4s"])
        #expect(addressing.warnings.count == 1)
        #expect(addressing.warnings.first?.message.contains("3 SegmentURLs for 2 timeline segments") == true)
    }

    @Test("one SegmentURL without @duration lasts the whole Period; two are refused, naming the SegmentList's line")
    func listWithoutDuration() throws {
        let single = try AddressingFixture.addressing("""
            <Representation id="v" bandwidth="1"><SegmentList timescale="1000"><SegmentURL media="all.mp4"/></SegmentList></Representation>
            """)
        #expect(single.segments.map(\.duration) == [10_000])
        #expect(single.segments.map(\.time) == [0])
        let mpd = try AddressingFixture.read("""
            <MPD type="static" mediaPresentationDuration="PT10S"><Period><AdaptationSet mimeType="video/mp4">
            <Representation id="v" bandwidth="1">
            <SegmentList timescale="1000">
            <SegmentURL media="a.m4s"/><SegmentURL media="b.m4s"/>
            </SegmentList></Representation></AdaptationSet></Period></MPD>
            """)
        #expect {
            try AddressingFixture.addressing(mpd)
        } throws: { error in
            (error as? MPDError)?.line == 3 && "\(error)".contains("neither @duration nor a SegmentTimeline")
        }
    }

    @Test("a SegmentURL without @media is the BaseURL itself, with its @mediaRange; @Initialization without sourceURL likewise")
    func rangesOfTheBaseURL() throws {
        let addressing = try AddressingFixture.addressing("""
            <Representation id="v" bandwidth="1"><BaseURL>media/all.mp4</BaseURL><SegmentList timescale="1" duration="5">
              <Initialization range="0-499"/><SegmentURL mediaRange="500-1499"/><SegmentURL mediaRange="1500-2199"/></SegmentList></Representation>
            """)
        let url = "https://cdn.example/show/media/all.mp4"
        #expect(addressing.initialization == .init(url: url, range: ByteRange(first: 0, last: 499)))
        #expect(addressing.segments.map(\.location) == [.init(url: url, range: ByteRange(first: 500, last: 1499)),
                                                        .init(url: url, range: ByteRange(first: 1500, last: 2199))])
        #expect(addressing.segments.map(\.location.range?.length) == [1000, 700])
    }

    @Test("a SegmentList on the AdaptationSet is each Representation's, resolved against each one's BaseURL")
    func inheritedList() throws {
        let mpd = try AddressingFixture.read("""
            <MPD type="static" mediaPresentationDuration="PT10S"><Period><AdaptationSet mimeType="video/mp4">
            <SegmentList timescale="1" duration="5"><Initialization sourceURL="init.mp4"/><SegmentURL media="s1.m4s"/><SegmentURL media="s2.m4s"/></SegmentList>
            <Representation id="hi" bandwidth="2"><BaseURL>hi/</BaseURL></Representation>
            <Representation id="lo" bandwidth="1"><BaseURL>lo/</BaseURL></Representation>
            </AdaptationSet></Period></MPD>
            """)
        let high = try AddressingFixture.addressing(mpd, representation: 0)
        #expect(high.initialization?.url == "https://cdn.example/show/hi/init.mp4")
        #expect(high.segments.map(\.location.url) == ["https://cdn.example/show/hi/s1.m4s", "https://cdn.example/show/hi/s2.m4s"])
        let low = try AddressingFixture.addressing(mpd, representation: 1)
        #expect(low.segments.map(\.location.url) == ["https://cdn.example/show/lo/s1.m4s", "https://cdn.example/show/lo/s2.m4s"])
    }

    @Test("a Representation's SegmentList takes the timescale and @duration its AdaptationSet's declares")
    func attributeInheritance() throws {
        let mpd = try AddressingFixture.read("""
            <MPD type="static" mediaPresentationDuration="PT4S"><Period><AdaptationSet mimeType="video/mp4">
            <SegmentList timescale="1000" duration="2000"/>
            <Representation id="v" bandwidth="1"><SegmentList><SegmentURL media="a.m4s"/><SegmentURL media="b.m4s"/></SegmentList></Representation>
            </AdaptationSet></Period></MPD>
            """)
        let addressing = try AddressingFixture.addressing(mpd)
        #expect(addressing.timescale == 1000)
        #expect(addressing.segments.map(\.time) == [0, 2000])
        #expect(addressing.segments.map(\.duration) == [2000, 2000])
    }
}

/// SegmentBase: the index's location, a whole file without one, and `sidx` boxes of every shape.
@Suite("Segment addressing: SegmentBase and the segment index")
struct SegmentBaseEdgeCaseTests {
    /// A `sidx` box of `version` (0: 32-bit times, 1: 64-bit).
    static func sidx(version: UInt8 = 0, timescale: UInt32, earliest: UInt64 = 0, firstOffset: UInt64 = 0,
                     references: [(isIndex: Bool, size: UInt32, duration: UInt32)]) -> [UInt8] {
        var body: [UInt8] = []
        func u32(_ value: UInt32) { body += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func u64(_ value: UInt64) { u32(UInt32(value >> 32)); u32(UInt32(value & 0xFFFF_FFFF)) }
        u32(UInt32(version) << 24)
        u32(1)
        u32(timescale)
        if version == 0 {
            u32(UInt32(earliest)); u32(UInt32(firstOffset))
        } else {
            u64(earliest); u64(firstOffset)
        }
        body += [0, 0, UInt8(references.count >> 8), UInt8(references.count & 0xFF)]
        for reference in references {
            u32((reference.isIndex ? 0x8000_0000 : 0) | reference.size); u32(reference.duration); u32(0x9000_0000)
        }
        return box("sidx", body)
    }

    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let size = UInt32(body.count + 8)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8) + body
    }

    static func base(_ timescale: Int = 1000) throws -> SegmentAddressing {
        try AddressingFixture.addressing("""
            <Representation id="a" bandwidth="1"><BaseURL>/media/a.mp4</BaseURL><SegmentBase timescale="\(timescale)" indexRange="800-899">
              <Initialization range="0-799"/></SegmentBase></Representation>
            """)
    }

    @Test("indexRange: the index is that range of the BaseURL, the init section its Initialization range; no segment before the index is read")
    func indexRange() throws {
        let addressing = try Self.base()
        #expect(addressing.mode == .base)
        #expect(addressing.index == .init(url: "https://cdn.example/media/a.mp4", range: ByteRange(first: 800, last: 899)))
        #expect(addressing.initialization == .init(url: "https://cdn.example/media/a.mp4", range: ByteRange(first: 0, last: 799)))
        #expect(addressing.segments.isEmpty)
        #expect(addressing.duration == 0)
    }

    @Test("a RepresentationIndex names the index's own file and range")
    func representationIndex() throws {
        let addressing = try AddressingFixture.addressing("""
            <Representation id="a" bandwidth="1"><BaseURL>a.mp4</BaseURL><SegmentBase><RepresentationIndex sourceURL="idx/a.sidx" range="0-99"/></SegmentBase></Representation>
            """)
        #expect(addressing.mode == .base)
        #expect(addressing.index == .init(url: "https://cdn.example/show/idx/a.sidx", range: ByteRange(first: 0, last: 99)))
        #expect(addressing.initialization == nil)
    }

    @Test("a SegmentBase without an index is one whole-file segment lasting the Period, its Initialization kept")
    func noIndex() throws {
        let addressing = try AddressingFixture.addressing("""
            <Representation id="a" bandwidth="1"><BaseURL>a.mp4</BaseURL><SegmentBase timescale="1000"><Initialization range="0-99"/></SegmentBase></Representation>
            """)
        #expect(addressing.mode == .url)
        #expect(addressing.segments.map(\.location) == [.init(url: "https://cdn.example/show/a.mp4")])
        #expect(addressing.segments.map(\.duration) == [10_000])
        #expect(addressing.initialization == .init(url: "https://cdn.example/show/a.mp4", range: ByteRange(first: 0, last: 99)))
    }

    @Test("a sidx's first_offset and earliest time count, and its timescale is converted to the Representation's")
    func offsetsAndTimescale() throws {
        let addressing = try Self.base(1000)
        // 32 + 2 × 12 = 56 bytes at 800: the references start 44 bytes after its end (856).
        let bytes = Self.sidx(timescale: 90000, earliest: 90000, firstOffset: 44, references: [(false, 1000, 180_000), (false, 500, 90000)])
        #expect(bytes.count == 56)
        let reading = try addressing.reading(index: bytes, at: 800)
        #expect(reading.subindexes.isEmpty)
        #expect(reading.segments.map(\.location.range) == [ByteRange(first: 900, last: 1899), ByteRange(first: 1900, last: 2399)])
        #expect(reading.segments.map(\.time) == [1000, 3000])
        #expect(reading.segments.map(\.duration) == [2000, 1000])
        #expect(reading.segments.map(\.number) == [1, 2])
        #expect(reading.segments.allSatisfy { $0.location.url == "https://cdn.example/media/a.mp4" })
    }

    @Test("a version-1 sidx's 64-bit earliest time is exact")
    func version1() throws {
        let addressing = try Self.base(1000)
        let earliest: UInt64 = 1 << 40
        let bytes = Self.sidx(version: 1, timescale: 1000, earliest: earliest, references: [(false, 300, 4000)])
        #expect(bytes.count == 52)
        let reading = try addressing.reading(index: bytes, at: 0)
        #expect(reading.segments.map(\.time) == [Int64(earliest)])
        #expect(reading.segments.map(\.location.range) == [ByteRange(first: 52, last: 351)])
    }

    @Test("other boxes in the index range are skipped; the references start after the sidx, not after the range's start")
    func otherBoxes() throws {
        let free = Self.box("free", [UInt8](repeating: 0, count: 8))
        let sidx = Self.sidx(timescale: 1000, references: [(false, 100, 2000)])
        let reading = try Self.base().reading(index: free + sidx, at: 1000)
        // free: 16 bytes, sidx: 44 bytes; the media starts at 1000 + 60.
        #expect(reading.segments.map(\.location.range) == [ByteRange(first: 1060, last: 1159)])
    }

    @Test("an index range with no sidx, or a reference of 0 bytes, is an error saying so")
    func badIndexes() throws {
        let addressing = try Self.base()
        #expect {
            try addressing.reading(index: Self.box("free", [0, 0, 0, 0]), at: 0)
        } throws: { error in
            "\(error)".contains("no sidx")
        }
        #expect {
            try addressing.reading(index: Self.sidx(timescale: 1000, references: [(false, 0, 2000)]), at: 0)
        } throws: { error in
            "\(error)".contains("0 bytes")
        }
    }
}

/// BaseURL resolution at every level.
@Suite("Segment addressing: BaseURL resolution")
struct BaseURLResolutionTests {
    static func firstSegment(_ text: String, mpdURL: String = AddressingFixture.mpdURL) throws -> String? {
        try AddressingFixture.addressing(AddressingFixture.read(text), mpdURL: mpdURL).segments.first?.location.url
    }

    static func mpd(mpd: String = "", period: String = "", set: String = "", representation: String = "") -> String {
        """
        <MPD type="static" mediaPresentationDuration="PT2S">\(mpd)<Period>\(period)<AdaptationSet mimeType="video/mp4">\(set)
        <Representation id="v" bandwidth="1">\(representation)<SegmentTemplate timescale="1" duration="2" media="$Number$.m4s"/></Representation>
        </AdaptationSet></Period></MPD>
        """
    }

    @Test("relative BaseURLs chain through the MPD, Period, AdaptationSet and Representation levels")
    func fourLevels() throws {
        let text = Self.mpd(mpd: "<BaseURL>https://media.example/root/</BaseURL>", period: "<BaseURL>p1/</BaseURL>",
                            set: "<BaseURL>video/</BaseURL>", representation: "<BaseURL>720/</BaseURL>")
        #expect(try Self.firstSegment(text) == "https://media.example/root/p1/video/720/1.m4s")
    }

    @Test("an absolute BaseURL at a deeper level replaces the levels above; an absolute path keeps only the host")
    func absoluteOverrides() throws {
        let text = Self.mpd(mpd: "<BaseURL>https://a.example/x/</BaseURL>", period: "<BaseURL>https://b.example/y/</BaseURL>",
                            set: "<BaseURL>/z/</BaseURL>")
        #expect(try Self.firstSegment(text) == "https://b.example/z/1.m4s")
    }

    @Test("a BaseURL without a trailing slash is a file: the next level replaces its last segment; .. climbs")
    func withoutSlash() throws {
        #expect(try Self.firstSegment(Self.mpd(set: "<BaseURL>video</BaseURL>", representation: "<BaseURL>v1/</BaseURL>"))
            == "https://cdn.example/show/v1/1.m4s")
        #expect(try Self.firstSegment(Self.mpd(representation: "<BaseURL>../other/</BaseURL>")) == "https://cdn.example/other/1.m4s")
    }

    @Test("without a BaseURL, segments resolve against the MPD's URL; its query is not carried without a descriptor")
    func noBaseURL() throws {
        #expect(try Self.firstSegment(Self.mpd(), mpdURL: "https://cdn.example/show/main.mpd?token=1") == "https://cdn.example/show/1.m4s")
    }

    @Test("a network-path BaseURL takes the MPD's scheme")
    func networkPath() throws {
        #expect(try Self.firstSegment(Self.mpd(period: "<BaseURL>//mirror.example/m/</BaseURL>")) == "https://mirror.example/m/1.m4s")
        #expect(try Self.firstSegment(Self.mpd(period: "<BaseURL>//mirror.example/m/</BaseURL>"), mpdURL: "http://cdn.example/main.mpd")
            == "http://mirror.example/m/1.m4s")
    }

    @Test("a bare BaseURL with no segment information is one resource lasting the Period")
    func bareBaseURL() throws {
        let addressing = try AddressingFixture.addressing("<Representation id=\"t\" bandwidth=\"1\"><BaseURL>subs/en.vtt</BaseURL></Representation>")
        #expect(addressing.mode == .url)
        #expect(addressing.segments.map(\.location) == [.init(url: "https://cdn.example/show/subs/en.vtt")])
        #expect(addressing.segments.map(\.duration) == [10])
        #expect(addressing.initialization == nil)
    }

    @Test("several BaseURLs at the Period level are alternatives, each carried through the levels below")
    func periodAlternatives() throws {
        let mpd = try AddressingFixture.read(Self.mpd(period: "<BaseURL>https://a.example/</BaseURL><BaseURL>https://b.example/</BaseURL>",
                                                      representation: "<BaseURL>v/</BaseURL>"))
        let period = mpd.periods[0], set = period.adaptationSets[0]
        #expect(mpd.baseURLs(of: set.representations[0], in: set, of: period, mpdURL: AddressingFixture.mpdURL)
            == ["https://a.example/v/", "https://b.example/v/"])
        #expect(try AddressingFixture.addressing(mpd).segments.first?.location.url == "https://a.example/v/1.m4s")
    }
}

/// Period timing with `@start` omitted, and what it means for each Period's segments.
@Suite("Period timing")
struct PeriodTimingTests {
    static func periods(_ attributes: [String], mpd: String = "") throws -> MPD {
        let periods = attributes.map { "<Period \($0)><AdaptationSet mimeType=\"video/mp4\"><Representation id=\"v\" bandwidth=\"1\"><SegmentTemplate timescale=\"1\" duration=\"2\" media=\"$Number$.m4s\"/></Representation></AdaptationSet></Period>" }
        return try AddressingFixture.read("<MPD type=\"static\"\(mpd)>\(periods.joined())</MPD>")
    }

    @Test("Periods without @start follow each other; the last lasts to the presentation's end")
    func chained() throws {
        let mpd = try Self.periods(["duration=\"PT10S\"", "duration=\"PT5S\"", ""], mpd: " mediaPresentationDuration=\"PT20S\"")
        #expect(mpd.periodTimings.map(\.start.seconds) == [0, 10, 15])
        #expect(mpd.periodTimings.map { $0.duration?.seconds } == [10, 5, 5])
        #expect(mpd.duration?.seconds == 20)
    }

    @Test("a Period after one with @start and @duration starts at their sum; without mediaPresentationDuration the MPD ends with its last Period")
    func startPlusDuration() throws {
        let mpd = try Self.periods(["start=\"PT2S\" duration=\"PT3S\"", "duration=\"PT4S\""])
        #expect(mpd.periodTimings.map(\.start.seconds) == [2, 5])
        #expect(mpd.duration?.seconds == 9)
    }

    @Test("a Period without @duration lasts until the next one's @start; the last one, with no presentation duration, has none")
    func untilNextStart() throws {
        let mpd = try Self.periods(["", "start=\"PT8S\""])
        #expect(mpd.periodTimings[0].duration?.seconds == 8)
        #expect(mpd.periodTimings[1].start.seconds == 8)
        #expect(mpd.periodTimings[1].duration == nil)
        #expect(mpd.duration == nil)
    }

    @Test("each Period's segments are numbered from @startNumber again and timed on its own media timeline")
    func secondPeriodSegments() throws {
        let mpd = try Self.periods(["duration=\"PT10S\"", "duration=\"PT5S\""])
        let second = try AddressingFixture.addressing(mpd, period: 1)
        #expect(second.segments.map(\.time) == [0, 2, 4])
        #expect(second.segments.map(\.duration) == [2, 2, 1])
        #expect(second.segments.map(\.number) == [1, 2, 3])
        #expect(try AddressingFixture.addressing(mpd, period: 0).segments.count == 5)
    }
}

/// Numbers at the edge of Int64 in a hostile MPD.
@Suite("Segment addressing: hostile numbers")
struct HostileNumberTests {
    @Test("numbers whose sums overflow Int64 are refused with an MPDError, not a crash")
    func overflow() {
        let bodies = [
            // periodEnd = presentationTimeOffset + the Period's length.
            "<Representation id=\"v\" bandwidth=\"1\"><SegmentTemplate timescale=\"1\" presentationTimeOffset=\"9223372036854775807\" duration=\"2\" media=\"$Number$.m4s\"/></Representation>",
            // startNumber + index.
            "<Representation id=\"v\" bandwidth=\"1\"><SegmentTemplate timescale=\"1\" startNumber=\"9223372036854775807\" duration=\"2\" media=\"$Number$.m4s\"/></Representation>",
            // time += S@d.
            "<Representation id=\"v\" bandwidth=\"1\"><SegmentTemplate timescale=\"1\" media=\"$Time$.m4s\"><SegmentTimeline><S t=\"9223372036854775000\" d=\"1000\" r=\"1\"/></SegmentTimeline></SegmentTemplate></Representation>",
            // index × SegmentList@duration.
            "<Representation id=\"v\" bandwidth=\"1\"><SegmentList timescale=\"1\" duration=\"9223372036854775807\"><SegmentURL media=\"a\"/><SegmentURL media=\"b\"/><SegmentURL media=\"c\"/></SegmentList></Representation>",
        ]
        for body in bodies {
            #expect(throws: MPDError.self) { try AddressingFixture.addressing(body, duration: body.contains("$Time$") ? nil : "PT10S") }
        }
    }

    @Test("further sums past Int64 are refused too: S@r, @endNumber, S@n, a time before presentationTimeOffset, a byte range to Int64.max")
    func moreOverflows() {
        let bodies = [
            // S@r + 1.
            "<Representation id=\"v\" bandwidth=\"1\"><SegmentTemplate timescale=\"1\" media=\"$Number$.m4s\"><SegmentTimeline><S d=\"1\" r=\"9223372036854775807\"/></SegmentTimeline></SegmentTemplate></Representation>",
            // @endNumber - @startNumber + 1.
            "<Representation id=\"v\" bandwidth=\"1\"><SegmentTemplate timescale=\"1\" startNumber=\"9223372036854775807\" endNumber=\"-9223372036854775808\" duration=\"2\" media=\"$Number$.m4s\"/></Representation>",
            // number += 1 past S@n.
            "<Representation id=\"v\" bandwidth=\"1\"><SegmentTemplate timescale=\"1\" media=\"$Number$.m4s\"><SegmentTimeline><S n=\"9223372036854775807\" d=\"1\" r=\"1\"/></SegmentTimeline></SegmentTemplate></Representation>",
            // A segment time minus presentationTimeOffset (the plan's start times).
            "<Representation id=\"v\" bandwidth=\"1\"><SegmentTemplate timescale=\"1\" presentationTimeOffset=\"9223372036854775000\" media=\"$Time$.m4s\"><SegmentTimeline><S t=\"-9223372036854775000\" d=\"1\"/></SegmentTimeline></SegmentTemplate></Representation>",
            // A byte range whose length (last - first + 1) is past Int64.
            "<Representation id=\"v\" bandwidth=\"1\"><BaseURL>a.mp4</BaseURL><SegmentBase indexRange=\"0-9223372036854775807\"/></Representation>",
            "<Representation id=\"v\" bandwidth=\"1\"><SegmentList timescale=\"1\" duration=\"2\"><SegmentURL media=\"a\" mediaRange=\"0-9223372036854775807\"/></SegmentList></Representation>",
            // The Period's length at a huge timescale.
            "<Representation id=\"v\" bandwidth=\"1\"><SegmentTemplate timescale=\"9223372036854775807\" duration=\"2\" media=\"$Number$.m4s\"/></Representation>",
        ]
        for body in bodies {
            #expect(throws: MPDError.self, "\(body)") { try AddressingFixture.addressing(body) }
        }
    }

    @Test("a Period @start and @duration summing past Int64 microseconds is timed without a crash")
    func periodTimingOverflow() throws {
        let mpd = try AddressingFixture.read("""
            <MPD type="static"><Period start="PT9000000000000S" duration="PT9000000000000S"/><Period duration="PT5S"/></MPD>
            """)
        #expect(mpd.periodTimings.count == 2)
        #expect(mpd.duration != nil)
    }

    @Test("a sidx whose earliest time plus its durations is past Int64 is refused, not a crash")
    func sidxOverflow() throws {
        let addressing = try SegmentBaseEdgeCaseTests.base(1000)
        let bytes = SegmentBaseEdgeCaseTests.sidx(version: 1, timescale: 1000, earliest: UInt64(Int64.max) - 10,
                                                  references: [(false, 100, 2000), (false, 100, 2000)])
        #expect(throws: MPDError.self) { try addressing.reading(index: bytes, at: 0) }
        let far = SegmentBaseEdgeCaseTests.sidx(timescale: 1000, references: [(false, 100, 2000)])
        #expect(throws: MPDError.self) { try addressing.reading(index: far, at: Int64.max - 10) }
    }

    @Test("a number at the edge of Int64 that no sum needs is read")
    func edgeWithoutOverflow() throws {
        let addressing = try AddressingFixture.addressing(
            "<Representation id=\"v\" bandwidth=\"1\"><SegmentTemplate timescale=\"1\" startNumber=\"9223372036854775807\" media=\"$Number$.m4s\"><SegmentTimeline><S d=\"2\"/></SegmentTimeline></SegmentTemplate></Representation>")
        #expect(addressing.segments.map(\.number) == [Int64.max])
    }
}
