import HLS
import Testing

/// The keys in effect for each segment, and their initialization vectors
/// (RFC 8216bis sections 4.4.4.4 and 5.2).
@Suite("Keys and initialization vectors")
struct KeyTests {
    private let header = "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-MEDIA-SEQUENCE:7794\n"

    /// The 16 bytes of `value` as a big-endian 128-bit integer.
    private func bigEndian(_ value: UInt64) -> [UInt8] {
        [UInt8](repeating: 0, count: 8) + (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    @Test func explicitIVIsKept() throws {
        let playlist = try media(header + """
            #EXT-X-KEY:METHOD=AES-128,URI="k.bin",IV=0x000102030405060708090a0b0c0d0e0f
            #EXTINF:10,
            a.ts
            #EXTINF:10,
            b.ts
            """)
        for segment in playlist.segments {
            #expect(segment.key?.iv == HexSequence(bytes: Array(0...15)))
            #expect(segment.key?.ivIsDerived == false)
        }
    }

    @Test func aes128IVIsTheMediaSequenceNumberBigEndian() throws {
        let playlist = try media(header + """
            #EXT-X-KEY:METHOD=AES-128,URI="k.bin"
            #EXTINF:10,
            a.ts
            #EXTINF:10,
            b.ts
            """)
        #expect(playlist.segments.map { $0.key?.iv?.bytes } == [bigEndian(7794), bigEndian(7795)])
        #expect(playlist.segments.map { $0.key?.iv?.description } == [
            "0x00000000000000000000000000001E72", "0x00000000000000000000000000001E73",
        ])
        #expect(playlist.segments.allSatisfy { $0.key?.ivIsDerived == true })
    }

    @Test func sampleAESIVIsDerivedToo() throws {
        let playlist = try media(header + "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"k.bin\"\n#EXTINF:10,\na.ts\n")
        #expect(playlist.segments.first?.key?.iv?.bytes == bigEndian(7794))
        #expect(playlist.segments.first?.key?.ivIsDerived == true)
    }

    @Test func sampleAESCTRGetsNoDerivedIV() throws {
        let playlist = try media(header + "#EXT-X-KEY:METHOD=SAMPLE-AES-CTR,URI=\"k.bin\"\n#EXTINF:10,\na.ts\n")
        #expect(playlist.segments.first?.key?.method == .sampleAESCTR)
        #expect(playlist.segments.first?.key?.iv == nil)
        #expect(playlist.segments.first?.key?.ivIsDerived == false)
    }

    @Test func derivedIVUsesTheSequenceNumberAfterASkip() throws {
        let playlist = try media("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-MEDIA-SEQUENCE:10\n#EXT-X-SKIP:SKIPPED-SEGMENTS=5\n"
            + "#EXT-X-KEY:METHOD=AES-128,URI=\"k.bin\"\n#EXTINF:10,\na.ts\n")
        #expect(playlist.segments.first?.mediaSequence == 15)
        #expect(playlist.segments.first?.key?.iv?.bytes == bigEndian(15))
    }

    @Test func ivFromMediaSequenceIsBigEndianOver16Bytes() {
        #expect(HexSequence.iv(mediaSequence: 0).bytes == [UInt8](repeating: 0, count: 16))
        #expect(HexSequence.iv(mediaSequence: 0x0102_0304_0506_0708).bytes
            == [0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8])
        #expect(HexSequence.iv(mediaSequence: Int.max).bytes.suffix(8) == [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
    }

    @Test func methodNoneClearsEveryKey() throws {
        let playlist = try media(header + """
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://a",KEYFORMAT="com.apple.streamingkeydelivery"
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="k.bin"
            #EXTINF:10,
            a.ts
            #EXT-X-KEY:METHOD=NONE
            #EXTINF:10,
            b.ts
            """)
        #expect(playlist.segments.map(\.keys.count) == [2, 0])
        #expect(playlist.segments[1].key == nil)
        #expect(playlist.isEncrypted)
    }

    @Test func severalKeyFormatsApplyAtOnce() throws {
        let playlist = try media(header + """
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://fairplay",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="data:text/plain;base64,AAAA",KEYFORMAT="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed"
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="clear.key"
            #EXTINF:10,
            a.ts
            """)
        let keys = try #require(playlist.segments.first?.keys)
        #expect(keys.map(\.keyFormat) == ["com.apple.streamingkeydelivery", "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed", "identity"])
        #expect(keys.map(\.uri) == ["skd://fairplay", "data:text/plain;base64,AAAA", "https://cdn.example.com/vod/clear.key"])
        #expect(keys.map(\.line) == [4, 5, 6])
        #expect(playlist.segments.first?.key?.keyFormat == "identity")
    }

    @Test func keyWithoutIdentityFormatPicksTheFirstAsTheKey() throws {
        let playlist = try media(header + """
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://a",KEYFORMAT="com.apple.streamingkeydelivery"
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://b",KEYFORMAT="com.example.other"
            #EXTINF:10,
            a.ts
            """)
        #expect(playlist.segments.first?.key?.uri == "skd://a")
    }

    @Test func keyRotationReplacesTheKeyOfTheSameFormat() throws {
        let playlist = try media(header + """
            #EXT-X-KEY:METHOD=AES-128,URI="k1.bin"
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://fp",KEYFORMAT="com.apple.streamingkeydelivery"
            #EXTINF:10,
            a.ts
            #EXT-X-KEY:METHOD=AES-128,URI="k2.bin",IV=0x1
            #EXTINF:10,
            b.ts
            #EXTINF:10,
            c.ts
            """)
        #expect(playlist.segments.map { $0.keys.map(\.uri) } == [
            ["https://cdn.example.com/vod/k1.bin", "skd://fp"],
            ["skd://fp", "https://cdn.example.com/vod/k2.bin"],
            ["skd://fp", "https://cdn.example.com/vod/k2.bin"],
        ])
        #expect(playlist.segments.map { $0.key?.uri } == [
            "https://cdn.example.com/vod/k1.bin", "https://cdn.example.com/vod/k2.bin", "https://cdn.example.com/vod/k2.bin",
        ])
        #expect(playlist.segments[1].key?.iv == HexSequence(bytes: [1]))
        #expect(playlist.segments[1].key?.line == 8)
    }

    @Test func initSectionCarriesTheKeysInEffectWhereItStands() throws {
        let playlist = try media(header + """
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="k.bin"
            #EXT-X-MAP:URI="init.mp4"
            #EXTINF:10,
            a.mp4
            """)
        #expect(playlist.segments.first?.initSection?.keys.map(\.uri) == ["https://cdn.example.com/vod/k.bin"])
    }

    @Test func aes128InitSectionWithoutIVIsAWarning() throws {
        let playlist = try media(header + """
            #EXT-X-KEY:METHOD=AES-128,URI="k.bin"
            #EXT-X-MAP:URI="init.mp4"
            #EXTINF:10,
            a.mp4
            """)
        #expect(playlist.warnings.map(\.line) == [5])
    }

    @Test func methodNoneWithOtherAttributesIsAWarning() throws {
        #expect(try warnings(parsing: #"#EXT-X-KEY:METHOD=NONE,URI="k.bin""#).map(\.line) == [2])
    }

    @Test func unknownMethodIsKeptAsWritten() throws {
        guard case .key(let key) = try parseTag(#"#EXT-X-KEY:METHOD=AES-256-GCM,URI="k""#) else {
            Issue.record("not a key"); return
        }
        #expect(key.method.rawValue == "AES-256-GCM")
    }

    @Test func hexSequenceTextForms() {
        #expect(HexSequence("0x0aFf") == HexSequence(bytes: [0x0A, 0xFF]))
        #expect(HexSequence("0XABC") == HexSequence(bytes: [0x0A, 0xBC]))
        #expect(HexSequence("0x") == nil)
        #expect(HexSequence("0xG0") == nil)
        #expect(HexSequence("ABCD") == nil)
        #expect(HexSequence(bytes: [0x0A, 0xFF]).description == "0x0AFF")
    }
}
