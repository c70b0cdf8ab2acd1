@testable import Carryon
@testable import CarryonCLI
import CarryonTestSupport
import Foundation
import Testing

/// `inspect --json` writes a long media playlist's segments by hand, in batches (a million
/// segments in seconds, never whole in memory): the bytes must be exactly what JSONEncoder
/// writes for the whole report, for every kind of segment.
@Suite("inspect --json in batches")
struct InspectJSONTests {
    static let playlist = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:7
        #EXT-X-MEDIA-SEQUENCE:41
        #EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0"
        #EXT-X-PROGRAM-DATE-TIME:2024-07-01T12:00:00.000Z
        #EXTINF:6.006,A "quoted" title with a \\ backslash
        seg0.m4s
        #EXT-X-BITRATE:2400
        #EXT-X-BYTERANGE:1000@720
        #EXTINF:0.000001,
        big.m4s
        #EXT-X-BYTERANGE:2000
        #EXTINF:4,tab\there
        big.m4s
        #EXT-X-KEY:METHOD=AES-128,URI="https://keys.example/k1",IV=0x000102030405060708090a0b0c0d0e0f
        #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://k1",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"
        #EXT-X-DISCONTINUITY
        #EXTINF:123456789.125,Ünïcödé ✓
        seg "3".m4s
        #EXT-X-GAP
        #EXTINF:5.5,
        seg4.m4s
        #EXT-X-KEY:METHOD=NONE
        #EXTINF:10000000000000000,
        seg5.m4s
        #EXT-X-ENDLIST

        """

    @Test("the segments written in batches of 1, 2 and 4096 are byte for byte what JSONEncoder writes")
    func sameBytes() async throws {
        try await withTemporaryDirectory { folder in
            let file = folder.appendingPathComponent("media.m3u8")
            try Data(Self.playlist.utf8).write(to: file)
            let inspection = try await Inspector().inspect(file.path)
            guard case .media(let media) = inspection.resolved else { Issue.record("not a media playlist"); return }
            #expect(media.segments.count == 6)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let expected = try encoder.encode(InspectReport(inspection)) + Data("\n".utf8)
            for batch in [1, 2, 4096] {
                var written = Data()
                try InspectReport.write(inspection, sizes: [:], batch: batch) { written += $0 }
                #expect(written == expected, "batch \(batch):\n\(String(decoding: written, as: UTF8.self))")
            }
        }
    }
}
