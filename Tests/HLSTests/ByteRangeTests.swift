import HLS
import Testing

/// Byte ranges of segments, init sections and partial segments, with implicit offsets resolved
/// (RFC 8216bis sections 4.4.4.2, 4.4.4.5 and 4.4.4.9).
@Suite("Byte ranges")
struct ByteRangeTests {
    private let header = "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-VERSION:4\n"

    @Test func explicitOffsetsAreUsedAsGiven() throws {
        let playlist = try media(header + """
            #EXT-X-BYTERANGE:1000@5000
            #EXTINF:10,
            all.ts
            #EXT-X-BYTERANGE:500@0
            #EXTINF:10,
            all.ts
            """)
        #expect(playlist.segments.map(\.byteRange) == [ResolvedByteRange(offset: 5000, length: 1000),
                                                       ResolvedByteRange(offset: 0, length: 500)])
    }

    @Test func implicitOffsetContinuesThePreviousSegmentOfTheSameResource() throws {
        let playlist = try media(header + """
            #EXT-X-BYTERANGE:75232@0
            #EXTINF:10,
            all.ts
            #EXT-X-BYTERANGE:82112
            #EXTINF:10,
            all.ts
            #EXT-X-BYTERANGE:69864
            #EXTINF:10,
            all.ts
            """)
        #expect(playlist.segments.map(\.byteRange) == [
            ResolvedByteRange(offset: 0, length: 75232),
            ResolvedByteRange(offset: 75232, length: 82112),
            ResolvedByteRange(offset: 157_344, length: 69864),
        ])
        #expect(playlist.segments[2].byteRange?.range == 157_344..<227_208)
    }

    @Test func implicitOffsetIsComparedOnTheResolvedURI() throws {
        let playlist = try media(header + """
            #EXT-X-BYTERANGE:100@0
            #EXTINF:10,
            media/all.ts
            #EXT-X-BYTERANGE:100
            #EXTINF:10,
            https://cdn.example.com/vod/media/all.ts
            """)
        #expect(playlist.segments[1].byteRange == ResolvedByteRange(offset: 100, length: 100))
    }

    @Test func implicitOffsetAfterADifferentURIIsAnError() {
        let error = expectPlaylistError(.byteRange, line: 7) {
            _ = try media(header + """
                #EXT-X-BYTERANGE:100@0
                #EXTINF:10,
                a.ts
                #EXT-X-BYTERANGE:100
                #EXTINF:10,
                b.ts
                """)
        }
        #expect(error?.message.contains("EXT-X-BYTERANGE:100") == true)
    }

    @Test func implicitOffsetAfterAWholeResourceIsAnError() {
        expectPlaylistError(.byteRange, line: 6) {
            _ = try media(header + """
                #EXTINF:10,
                a.ts
                #EXT-X-BYTERANGE:100
                #EXTINF:10,
                a.ts
                """)
        }
    }

    @Test func implicitOffsetOnTheFirstSegmentIsAnError() {
        expectPlaylistError(.byteRange, line: 4) {
            _ = try media(header + "#EXT-X-BYTERANGE:100\n#EXTINF:10,\na.ts\n")
        }
    }

    @Test func byteRangeMayFollowEXTINF() throws {
        let playlist = try media(header + "#EXTINF:10,\n#EXT-X-BYTERANGE:100@7\na.ts\n")
        #expect(playlist.segments.first?.byteRange == ResolvedByteRange(offset: 7, length: 100))
    }

    @Test func byteRangeAppliesToOneSegmentOnly() throws {
        let playlist = try media(header + "#EXT-X-BYTERANGE:100@0\n#EXTINF:10,\na.ts\n#EXTINF:10,\na.ts\n")
        #expect(playlist.segments.map(\.byteRange) == [ResolvedByteRange(offset: 0, length: 100), nil])
    }

    @Test func malformedByteRangeIsAnInvalidValue() {
        expectPlaylistError(.invalidValue, line: 2) { _ = try parseTag("#EXT-X-BYTERANGE:100@") }
        expectPlaylistError(.invalidValue, line: 2) { _ = try parseTag("#EXT-X-BYTERANGE:-1") }
        expectPlaylistError(.invalidValue, line: 2) { _ = try parseTag("#EXT-X-BYTERANGE:1@2@3") }
    }

    // MARK: EXT-X-MAP

    @Test func mapByteRangeIsResolved() throws {
        let playlist = try media(header + "#EXT-X-MAP:URI=\"all.mp4\",BYTERANGE=\"720@64\"\n#EXTINF:10,\nall.mp4\n")
        let initSection = try #require(playlist.segments.first?.initSection)
        #expect(initSection.uri == "https://cdn.example.com/vod/all.mp4")
        #expect(initSection.byteRange == ResolvedByteRange(offset: 64, length: 720))
        #expect(initSection.line == 4)
    }

    @Test func mapByteRangeWithoutOffsetStartsAtZeroWithAWarning() throws {
        let playlist = try media(header + "#EXT-X-MAP:URI=\"all.mp4\",BYTERANGE=\"720\"\n#EXTINF:10,\nall.mp4\n")
        #expect(playlist.segments.first?.initSection?.byteRange == ResolvedByteRange(offset: 0, length: 720))
        #expect(playlist.warnings.map(\.line) == [4])
    }

    @Test func mapByteRangeMustBeQuoted() {
        expectPlaylistError(.invalidValue, line: 2) { _ = try parseTag("#EXT-X-MAP:URI=\"a.mp4\",BYTERANGE=720@0", options: .strict) }
    }

    // MARK: EXT-X-PART

    @Test func partByteRangesContinueThePreviousPartOfTheSameResource() throws {
        let playlist = try media(header + """
            #EXT-X-PART:DURATION=1,URI="p.mp4",BYTERANGE="1000@0"
            #EXT-X-PART:DURATION=1,URI="p.mp4",BYTERANGE="500"
            #EXTINF:2,
            p.mp4
            #EXT-X-PART:DURATION=1,URI="p.mp4",BYTERANGE="250"
            """)
        #expect(playlist.segments.first?.parts.map(\.byteRange) == [ResolvedByteRange(offset: 0, length: 1000),
                                                                    ResolvedByteRange(offset: 1000, length: 500)])
        #expect(playlist.trailingParts.map(\.byteRange) == [ResolvedByteRange(offset: 1500, length: 250)])
    }

    @Test func partByteRangeWithoutOffsetAfterAnotherResourceIsAnError() {
        expectPlaylistError(.byteRange, line: 5) {
            _ = try media(header + """
                #EXT-X-PART:DURATION=1,URI="p.mp4",BYTERANGE="1000@0"
                #EXT-X-PART:DURATION=1,URI="q.mp4",BYTERANGE="500"
                """)
        }
    }

    @Test func firstPartByteRangeWithoutOffsetIsAnError() {
        expectPlaylistError(.byteRange, line: 4) {
            _ = try media(header + "#EXT-X-PART:DURATION=1,URI=\"p.mp4\",BYTERANGE=\"500\"\n")
        }
    }

    @Test func partWithoutByteRangeIsTheWholeResource() throws {
        let playlist = try media(header + "#EXT-X-PART:DURATION=1,URI=\"p.mp4\"\n")
        #expect(playlist.trailingParts.map(\.byteRange) == [nil])
        #expect(playlist.trailingParts.map(\.line) == [4])
    }

    // MARK: The value type

    @Test func byteRangeTextForms() {
        #expect(ByteRange("10@20") == ByteRange(length: 10, offset: 20))
        #expect(ByteRange("10") == ByteRange(length: 10))
        #expect(ByteRange("") == nil)
        #expect(ByteRange("x@1") == nil)
        #expect(ByteRange(length: 10, offset: 20).description == "10@20")
        #expect(ByteRange(length: 10).description == "10")
        #expect(ResolvedByteRange(offset: 20, length: 10).description == "10@20")
    }
}
