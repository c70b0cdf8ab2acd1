@testable import HLS
import Testing

/// A parsed line whose text is exactly the canonical text of what it says keeps no copy of the
/// text, and gives the same text back: the rules that decide it must never say "canonical" of a
/// line that would be written otherwise.
@Suite("Lines kept as their canonical text")
struct CanonicalLineTests {
    @Test(arguments: ["0", "7", "10", "3.904", "0.5", "6.006", "0.00005", "123456789012345",
                      "12345678901234.5", "0.00000000000001", "99999.99999", "1.1"])
    func canonicalNumbersAreWrittenAsRead(text: String) throws {
        var copy = text
        let canonical = copy.withUTF8 { Number.isCanonical($0) }
        #expect(canonical)
        let value = try #require(Number.decimalFloat(text))
        #expect(Number.format(value) == text)
    }

    @Test(arguments: ["", "00", "01", "1.", ".5", "1.0", "10.000000", "-1", "+1", "1e3", "1,5",
                      "1234567890123456", "0.1234567890123456", "1.20", " 1"])
    func otherNumbersAreNot(text: String) {
        var copy = text
        #expect(!copy.withUTF8 { Number.isCanonical($0) })
    }

    /// Every decimal of up to 15 digits that the rule calls canonical is written back as read,
    /// over a sweep of magnitudes and fraction lengths.
    @Test func canonicalRuleHoldsOverASweep() throws {
        var generator = SystemRandomNumberGenerator()
        var checked = 0
        for _ in 0..<20_000 {
            let integerDigits = Int.random(in: 1...15, using: &generator)
            let fractionDigits = Int.random(in: 0...(15 - integerDigits), using: &generator)
            var text = String(Int.random(in: 1...9, using: &generator))
            for _ in 1..<integerDigits { text += String(Int.random(in: 0...9, using: &generator)) }
            if Bool.random(using: &generator) && fractionDigits > 0 { text = "0" }
            if fractionDigits > 0 {
                text += "."
                for _ in 1..<fractionDigits { text += String(Int.random(in: 0...9, using: &generator)) }
                text += String(Int.random(in: 1...9, using: &generator))
            }
            var copy = text
            guard copy.withUTF8({ Number.isCanonical($0) }) else { continue }
            let value = try #require(Number.decimalFloat(text))
            #expect(Number.format(value) == text, "\(text)")
            checked += 1
        }
        #expect(checked > 10_000)
    }

    @Test func canonicalLinesGiveTheirTextAsSource() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-PROGRAM-DATE-TIME:2022-06-10T03:31:00.189Z
            #EXTINF:3.904,
            seg-1.mp4
            #EXT-X-PROGRAM-DATE-TIME:2022-06-10T03:31:04.093+00:00
            #EXTINF:3.904000,title with spaces
            seg-2.mp4
            #EXT-X-PROGRAM-DATE-TIME:2022-06-10T03:31:07.997Z
            #EXTINF:4,a title
            \tseg-3.mp4
            #EXTINF:4

            """
        let playlist = try Playlist(parsing: text)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(playlist.lines.count == lines.count)
        for (line, written) in zip(playlist.lines, lines) {
            #expect(line.source.map(String.init) == String(written))
        }
        // Which lines keep their text, and which are made from what they say.
        #expect(playlist.lines.map(\.sourceIsCanonical) == [false, false, true, true, true, false, false, true, true, true, false, false])
        #expect(try playlist.write() == text)
    }

    @Test(arguments: [
        ("2022-06-10T03:31:00.189Z", true),
        ("1970-01-01T00:00:00.000Z", true),
        ("0001-01-01T00:00:00.000Z", true),
        ("9999-12-31T23:59:59.999Z", true),
        ("2022-06-10T03:31:00.189z", false),
        ("2022-06-10t03:31:00.189Z", false),
        ("2022-06-10 03:31:00.189Z", false),
        ("2022-06-10T03:31:00.18Z", false),
        ("2022-06-10T03:31:00.1890Z", false),
        ("2022-06-10T03:31:00,189Z", false),
        ("2022-06-10T03:31:00Z", false),
        ("2022-06-10T03:31Z", false),
        ("2022-06-10T03:31:00.189+00:00", false),
        ("2022-06-10T24:00:00.000Z", false),
        ("2016-12-31T23:59:60.000Z", false),
    ])
    func datesKeepTheirTextOnlyWhenNotCanonical(text: String, canonical: Bool) throws {
        let date = try #require(DateTime(text))
        #expect(date.isCanonical == canonical)
        #expect(date.text == text)
        if canonical {
            #expect(date == DateTime(secondsSince1970: date.secondsSince1970))
        }
    }

    @Test func everyTagNameIsFoundAndNoNearMiss() {
        for name in TagName.allCases {
            var text = name.rawValue
            #expect(text.withUTF8 { TagName.lookup($0) } == name)
            for variant in [String(name.rawValue.dropLast()) + "X", name.rawValue + "S", name.rawValue.lowercased()] {
                var copy = variant
                #expect(copy.withUTF8 { TagName.lookup($0) } == nil, "\(variant)")
            }
        }
    }

    @Test func segmentsKeepTheirDatesRangesAndBitrates() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-BITRATE:800
            #EXT-X-PROGRAM-DATE-TIME:2022-06-10T03:31:00.189Z
            #EXTINF:4,
            #EXT-X-BYTERANGE:100@0
            a.ts
            #EXT-X-PROGRAM-DATE-TIME:2022-06-10T05:31:04.189+02:00
            #EXTINF:4,
            b.ts
            #EXTINF:4,
            #EXT-X-BYTERANGE:0@0
            c.ts
            #EXT-X-ENDLIST

            """
        let media = try MediaPlaylist(Playlist(parsing: text), url: "https://example.com/v/index.m3u8")
        var segments = media.segments
        #expect(segments.map(\.programDateTime?.text) == ["2022-06-10T03:31:00.189Z", "2022-06-10T05:31:04.189+02:00", nil])
        #expect(segments.map(\.byteRange) == [ResolvedByteRange(offset: 0, length: 100), nil, ResolvedByteRange(offset: 0, length: 0)])
        #expect(segments.map(\.bitrate) == [nil, 800, nil])
        segments[2].programDateTime = DateTime("2022-06-10T03:31:08.000-01:00")
        segments[1].programDateTime = nil
        segments[0].byteRange = nil
        segments[1].bitrate = nil
        #expect(segments.map(\.programDateTime?.text) == ["2022-06-10T03:31:00.189Z", nil, "2022-06-10T03:31:08.000-01:00"])
        #expect(segments[0].byteRange == nil && segments[1].bitrate == nil)
        segments[2].programDateTime = DateTime(secondsSince1970: 0)
        #expect(segments[2].programDateTime?.text == "1970-01-01T00:00:00.000Z")
        #expect(segments[2].title == "" && segments[2] == { var copy = segments[2]; copy.title = "x"; copy.title = ""; return copy }())
    }
}
