@testable import DASH
import HLS
import Testing

/// Segment addressing: every mode worked out into URLs, ranges, exact times and numbers.
@Suite("Segment addressing")
struct SegmentAddressingTests {
    static func addressing(_ body: String, duration: String = "PT8S") throws -> SegmentAddressing {
        let text = """
        <MPD type="static" mediaPresentationDuration="\(duration)"><Period>
        <AdaptationSet mimeType="video/mp4">\(body)</AdaptationSet></Period></MPD>
        """
        let mpd = try MPD.read(Array(text.utf8))
        let period = mpd.periods[0], set = period.adaptationSets[0]
        return try SegmentAddressing(set.representations[0], in: set, of: period, timing: mpd.periodTimings[0], mpd: mpd,
                                     mpdURL: "https://cdn.example/show/main.mpd")
    }

    @Test("$Number$ with @duration: a segment per duration over the Period, the last cut at its end, widths and $$")
    func numberTemplate() throws {
        let addressing = try Self.addressing("""
            <Representation id="v1" bandwidth="500"><SegmentTemplate timescale="1000" duration="3000" startNumber="0"
              media="$RepresentationID$/$Bandwidth$/s$Number%03d$$$.m4s" initialization="$RepresentationID$/init.mp4"/></Representation>
            """)
        #expect(addressing.mode == .template)
        #expect(addressing.initialization?.url == "https://cdn.example/show/v1/init.mp4")
        #expect(addressing.segments.map(\.location.url) == (0...2).map { "https://cdn.example/show/v1/500/s00\($0)$.m4s" })
        #expect(addressing.segments.map(\.duration) == [3000, 3000, 2000])
    }

    @Test("$Number$ in a dynamic MPD is timed by the clock: the segments ended by now since availabilityStartTime and the Period's start, back to timeShiftBufferDepth, at most the last maximumLiveWindow; without now, refused as a Period of unknown length")
    func clockTimedTemplate() throws {
        func addressing(_ depth: String?, now: Double?, holdingBack: Int = 0, endNumber: Int? = nil) throws -> SegmentAddressing {
            let text = """
            <MPD type="dynamic" availabilityStartTime="2026-01-01T00:00:00Z"\(depth.map { " timeShiftBufferDepth=\"\($0)\"" } ?? "")><Period start="PT10S">
            <AdaptationSet mimeType="video/mp4"><Representation id="v" bandwidth="1">
            <SegmentTemplate timescale="1000" duration="2000" startNumber="5" presentationTimeOffset="700" media="s$Number$.m4s"\(endNumber.map { " endNumber=\"\($0)\"" } ?? "")/>
            </Representation></AdaptationSet></Period></MPD>
            """
            let mpd = try MPD.read(Array(text.utf8))
            let period = mpd.periods[0], set = period.adaptationSets[0]
            return try SegmentAddressing(set.representations[0], in: set, of: period, timing: mpd.periodTimings[0], mpd: mpd,
                                         mpdURL: "https://cdn.example/live/main.mpd", now: now, holdingBack: holdingBack)
        }
        let start = 1_767_225_600.0
        // 10 s into the Period at 20 s: positions 0 to 4 have ended (numbers 5 to 9); 6 s deep:
        // 1 to 4 (position 1 ended 6 s ago, at the buffer's edge).
        let windowed = try addressing("PT6S", now: start + 20)
        #expect(windowed.segments.map(\.number) == [6, 7, 8, 9] && windowed.segments.map(\.time) == [2700, 4700, 6700, 8700])
        #expect(windowed.segments.last?.location.url == "https://cdn.example/live/s9.m4s")
        #expect(try addressing("PT6S", now: start + 11).segments.isEmpty)
        // A recorder's margin leaves the newest out; an @endNumber bounds what is available.
        #expect(try addressing("PT6S", now: start + 20, holdingBack: 1).segments.map(\.number) == [6, 7, 8])
        #expect(try addressing("PT6S", now: start + 20, endNumber: 7).segments.map(\.number) == [6, 7])
        #expect(try addressing("PT6S", now: start + 200, endNumber: 7).segments.isEmpty)
        let unbounded = try addressing(nil, now: start + 20)
        #expect(unbounded.segments.map(\.number) == [5, 6, 7, 8, 9])
        // A year on, with no depth: the last ten thousand.
        let yearOn = try addressing(nil, now: start + 365 * 86_400)
        #expect(yearOn.segments.count == SegmentAddressing.maximumLiveWindow)
        #expect(yearOn.segments.last?.number == 5 + Int64((365 * 86_400 - 10) / 2) - 1)
        #expect(throws: MPDError.self) { try addressing("PT6S", now: nil) }
    }

    @Test("SegmentTimeline: @t, @d, @r, a first S without @t, and @r=-1 up to the next S@t and to the Period's end")
    func timeline() throws {
        let addressing = try Self.addressing("""
            <Representation id="a" bandwidth="1"><SegmentTemplate timescale="10" media="$Time$.m4s">
              <SegmentTimeline><S d="20" r="1"/><S t="50" d="10" r="-1"/><S t="70" d="5" r="-1"/></SegmentTimeline>
            </SegmentTemplate></Representation>
            """)
        #expect(addressing.mode == .timeline)
        #expect(addressing.segments.map(\.time) == [0, 20, 50, 60, 70, 75])
        #expect(addressing.segments.map(\.location.url).last == "https://cdn.example/show/75.m4s")
        #expect(addressing.segments.map(\.number) == [1, 2, 3, 4, 5, 6])
    }

    @Test("$Time$ values past 2^53 are exact")
    func largeTimes() throws {
        let start: Int64 = 9_007_199_254_740_993
        let addressing = try Self.addressing("""
            <Representation id="a" bandwidth="1"><SegmentTemplate timescale="90000" presentationTimeOffset="\(start)" media="$Time$.m4s">
              <SegmentTimeline><S t="\(start)" d="180000" r="1"/></SegmentTimeline></SegmentTemplate></Representation>
            """)
        #expect(addressing.segments.map(\.location.url) == ["https://cdn.example/show/\(start).m4s", "https://cdn.example/show/\(start + 180_000).m4s"])
    }

    @Test("SegmentList: SegmentURLs with media and byte ranges, an Initialization range on the BaseURL")
    func list() throws {
        let addressing = try Self.addressing("""
            <Representation id="a" bandwidth="1"><BaseURL>media.mp4</BaseURL><SegmentList timescale="1000" duration="4000">
              <Initialization range="0-99"/><SegmentURL mediaRange="100-199"/><SegmentURL media="other.mp4" mediaRange="200-299"/>
            </SegmentList></Representation>
            """)
        #expect(addressing.mode == .list)
        #expect(addressing.initialization == .init(url: "https://cdn.example/show/media.mp4", range: ByteRange(first: 0, last: 99)))
        #expect(addressing.segments.map(\.location) == [.init(url: "https://cdn.example/show/media.mp4", range: ByteRange(first: 100, last: 199)),
                                                        .init(url: "https://cdn.example/show/other.mp4", range: ByteRange(first: 200, last: 299))])
    }

    @Test("SegmentBase: the segments come from the sidx, a hierarchical one read in turn")
    func segmentBase() throws {
        var addressing = try Self.addressing("""
            <Representation id="a" bandwidth="1"><BaseURL>a.mp4</BaseURL><SegmentBase timescale="1000" indexRange="1000-1099">
              <Initialization range="0-999"/></SegmentBase></Representation>
            """)
        #expect(addressing.mode == .base && addressing.segments.isEmpty)
        #expect(addressing.index == .init(url: "https://cdn.example/show/a.mp4", range: ByteRange(first: 1000, last: 1099)))
        // A top sidx of one index reference and one media reference, then the index it points at.
        let top = Self.sidx(timescale: 1000, references: [(true, 56, 4000), (false, 5000, 4000)])
        let reading = try addressing.reading(index: top, at: 1000)
        #expect(reading.subindexes == [.init(url: "https://cdn.example/show/a.mp4", range: ByteRange(first: 1056, last: 1111))])
        #expect(reading.segments.map(\.location.range) == [ByteRange(first: 1112, last: 6111)])
        let sub = Self.sidx(timescale: 1000, references: [(false, 700, 2000), (false, 800, 2000)])
        let inner = try addressing.reading(index: sub, at: 1056)
        #expect(inner.segments.map(\.location.range) == [ByteRange(first: 1112, last: 1811), ByteRange(first: 1812, last: 2611)])
        addressing.segments = inner.segments + reading.segments
        #expect(addressing.duration == 8)
    }

    @Test("a template of $Number$ in a Period of unknown length is refused with its line")
    func unknownLength() {
        #expect {
            try MPD.read(Array("<MPD><Period><AdaptationSet><Representation id=\"a\" bandwidth=\"1\"><SegmentTemplate duration=\"2\" media=\"$Number$\"/></Representation></AdaptationSet></Period></MPD>".utf8))
                .periods.first.map { period in
                    try SegmentAddressing(period.adaptationSets[0].representations[0], in: period.adaptationSets[0], of: period,
                                          timing: MPD.PeriodTiming(start: .zero, duration: nil), mpd: MPD(), mpdURL: "https://x/")
                }
        } throws: { error in
            "\(error)".contains("Period whose length")
        }
    }

    @Test("a few bytes that describe more segments than Carryon plans are refused with the line; counting them makes none")
    func tooManySegments() throws {
        let body = """
            <Representation id="a" bandwidth="1"><SegmentTemplate timescale="1000" media="$Number$.m4s">
              <SegmentTimeline><S d="1" r="2500000"/></SegmentTimeline></SegmentTemplate></Representation>
            """
        #expect {
            try Self.addressing(body, duration: "PT1H")
        } throws: { error in
            "\(error)".contains("more than 2000000 segments") && "\(error)".hasPrefix("line 3:")
        }
        let text = "<MPD mediaPresentationDuration=\"PT1H\"><Period><AdaptationSet mimeType=\"video/mp4\">\(body)</AdaptationSet></Period></MPD>"
        let mpd = try MPD.read(Array(text.utf8))
        let period = mpd.periods[0], set = period.adaptationSets[0]
        let counted = SegmentAddressing.segmentCount(set.representations[0], in: set, of: period, timing: mpd.periodTimings[0], mpd: mpd)
        #expect(counted == nil, "more than the maximum: not counted either")
    }

    @Test("a URL query parameter descriptor carries the MPD URL's query to the init section and every segment")
    func mpdQueryCarried() throws {
        let text = """
        <MPD type="static" mediaPresentationDuration="PT4S" xmlns:up="urn:mpeg:dash:schema:urlparam:2014"><Period>
        <AdaptationSet mimeType="video/mp4">
          <EssentialProperty schemeIdUri="urn:mpeg:dash:urlparam:2014"><up:UrlQueryInfo queryTemplate="$querypart$" useMPDUrlQuery="true"/></EssentialProperty>
          <Representation id="a" bandwidth="1"><SegmentTemplate timescale="1" duration="2" media="s$Number$.m4s?v=2" initialization="i.mp4"/></Representation>
        </AdaptationSet></Period></MPD>
        """
        let mpd = try MPD.read(Array(text.utf8))
        let period = mpd.periods[0], set = period.adaptationSets[0]
        #expect(set.representations.count == 1, "the urlparam EssentialProperty is understood, not a reason to drop the set")
        let addressing = try SegmentAddressing(set.representations[0], in: set, of: period, timing: mpd.periodTimings[0], mpd: mpd,
                                               mpdURL: "https://cdn.example/show/main.mpd?hdnts=exp=1~hmac=ab")
        #expect(addressing.initialization?.url == "https://cdn.example/show/i.mp4?hdnts=exp=1~hmac=ab")
        #expect(addressing.segments.map(\.location.url) == ["https://cdn.example/show/s1.m4s?v=2&hdnts=exp=1~hmac=ab",
                                                              "https://cdn.example/show/s2.m4s?v=2&hdnts=exp=1~hmac=ab"])
        // Without the descriptor, nothing is added.
        let plain = try Self.addressing("<Representation id=\"a\" bandwidth=\"1\"><SegmentTemplate timescale=\"1\" duration=\"2\" media=\"s$Number$.m4s\"/></Representation>", duration: "PT2S")
        #expect(plain.segments.map(\.location.url) == ["https://cdn.example/show/s1.m4s"])
    }

    @Test("a sidx cut short is an error, not a crash")
    func truncatedIndex() throws {
        let whole = Self.sidx(timescale: 1000, references: [(false, 700, 2000), (false, 800, 2000)])
        for length in [8, 20, 40, whole.count - 1] {
            #expect(throws: MPDError.self) { try SegmentIndex.parse(Array(whole.prefix(length)), at: 0) }
        }
    }

    /// A version-0 `sidx` box.
    static func sidx(timescale: UInt32, references: [(Bool, UInt32, UInt32)]) -> [UInt8] {
        var body: [UInt8] = []
        func u32(_ value: UInt32) { body += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        u32(0); u32(1); u32(timescale); u32(0); u32(0)
        body += [0, 0, 0, UInt8(references.count)]
        for (isIndex, size, duration) in references {
            u32((isIndex ? 0x8000_0000 : 0) | size); u32(duration); u32(0x9000_0000)
        }
        let size = UInt32(body.count + 8)
        return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array("sidx".utf8) + body
    }
}

/// The fast path of resolving many segment URLs against one BaseURL gives exactly what RFC 3986
/// resolution gives.
@Suite("Resolving segment URLs")
struct SegmentURLResolutionTests {
    @Test("every reference resolves as URIReference.resolve does, plain ones by appending to the base's folder")
    func sameAsRFC3986() {
        let bases = ["https://cdn.example/show/main.mpd", "https://cdn.example/show/main.mpd?token=abc", "https://cdn.example",
                     "https://cdn.example/a/b/", "file:///srv/media/main.mpd", "https://cdn.example/a/..//b/c.mpd"]
        let references = ["seg-1.m4s", "v1/seg-1.m4s", "seg.m4s?t=1&u=2", "../seg.m4s", "./seg.m4s", "a/./b.m4s", "a/../b.m4s",
                          "/abs/seg.m4s", "//other.example/seg.m4s", "https://x.example/s.m4s", "?only=query", "#frag", "a//b.m4s",
                          "seg%20one.m4s", "a/b/", "..", ".", "seg.m4s#f", "c:d", "", "...", "a/.../b.m4s", ".hidden.m4s"]
        for base in bases {
            let resolver = SegmentAddressing.Resolver(base: base)
            for reference in references {
                #expect(resolver.resolve(reference) == URIReference.resolve(reference, against: base), "\(reference) against \(base)")
            }
        }
    }
}
