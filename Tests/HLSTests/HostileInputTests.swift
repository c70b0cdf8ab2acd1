import CarryonTestSupport
import HLS
import Testing

/// Input made to hurt: huge lines, random bytes, numbers at the edge of `Int`, very large
/// playlists. Reading must neither crash nor take long; it either succeeds or throws a
/// ``PlaylistError``.
@Suite("Hostile input")
struct HostileInputTests {
    /// The most CPU time a 5 MB line may take to read in a debug build: several times what
    /// linear work takes (a few seconds), far less than quadratic work (hours at this size).
    private let hugeLineBudget = Duration.seconds(20)

    /// Parses and resolves `text` however its kind says, returning the error if any.
    @discardableResult
    private func read(_ text: String) -> PlaylistError? {
        do {
            let parsed = try Playlist.parse(text)
            switch parsed.playlist.kind {
            case .media: _ = try MediaPlaylist(parsed.playlist, url: "https://cdn.example.com/a/v.m3u8?x=1", imports: [:])
            case .multivariant: _ = try MultivariantPlaylist(parsed.playlist, url: "https://cdn.example.com/a/main.m3u8")
            }
            return nil
        } catch {
            return error
        }
    }

    private static let fiveMegabytes = 5 * 1024 * 1024

    /// A playlist with one 5 MB line.
    struct HugeLine: Sendable, CustomTestStringConvertible {
        var kind: String
        var text: String
        /// The 1-based number of the huge line.
        var line: Int
        var testDescription: String { kind }
    }

    static let hugeLines: [HugeLine] = {
        let n = fiveMegabytes
        let filler = String(repeating: "a", count: n)
        let digits = String(repeating: "9", count: n)
        let attributes = (0..<(n / 12)).map { "X-A\($0)=1" }.joined(separator: ",")
        let media = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n"
        return [
            HugeLine(kind: "URI line", text: media + "#EXTINF:1,\n\(filler).ts\n", line: 4),
            HugeLine(kind: "comment", text: "#EXTM3U\n#\(filler)\n", line: 2),
            HugeLine(kind: "unknown tag", text: "#EXTM3U\n#EXT-X-\(filler):\(filler)\n", line: 2),
            HugeLine(kind: "EXTINF title", text: media + "#EXTINF:1,\(filler)\na.ts\n", line: 3),
            HugeLine(kind: "quoted attribute value", text: "#EXTM3U\n#EXT-X-SESSION-DATA:DATA-ID=\"a\",VALUE=\"\(filler)\"\n", line: 2),
            HugeLine(kind: "unterminated quoted value", text: "#EXTM3U\n#EXT-X-SESSION-DATA:DATA-ID=\"\(filler)\n", line: 2),
            HugeLine(kind: "many distinct attributes", text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,\(attributes)\nv.m3u8\n", line: 2),
            HugeLine(kind: "EXTINF duration digits", text: media + "#EXTINF:\(digits),\na.ts\n", line: 3),
            HugeLine(kind: "EXTINF fraction digits", text: media + "#EXTINF:1.\(digits),\na.ts\n", line: 3),
            HugeLine(kind: "integer digits", text: "#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:\(digits)\n", line: 2),
            HugeLine(kind: "hexadecimal IV", text: "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=0x\(String(repeating: "A", count: n))\n", line: 2),
            HugeLine(kind: "date", text: "#EXTM3U\n#EXT-X-PROGRAM-DATE-TIME:2024-05-01T10:00:00.\(digits)Z\n", line: 2),
            HugeLine(kind: "resolution", text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=\(digits)x\(digits)\nv.m3u8\n", line: 2),
            HugeLine(kind: "variable references", text: media + "#EXT-X-DEFINE:NAME=\"v\",VALUE=\"x\"\n#EXTINF:1,\n"
                + String(repeating: "{$v}", count: n / 4) + "\n", line: 5),
            HugeLine(kind: "unclosed variable references", text: media + "#EXTINF:1,\n" + String(repeating: "{$", count: n / 2) + "\n", line: 4),
            HugeLine(kind: "undefined variable references", text: media + "#EXTINF:1,\n" + String(repeating: "{$}", count: n / 3) + "\n", line: 4),
            HugeLine(kind: "dot segments", text: media + "#EXTINF:1,\n" + String(repeating: "../", count: n / 3) + "a.ts\n", line: 4),
            HugeLine(kind: "control characters", text: "#EXTM3U\n" + String(repeating: "\u{1}", count: n) + "\n", line: 2),
        ]
    }()

    @Test(arguments: hugeLines)
    func fiveMegabyteLineIsReadQuickly(_ input: HugeLine) async throws {
        let (time, error) = try await offThePool {
            var error: PlaylistError?
            let time = elapsed { error = read(input.text) }
            return (time, error)
        }
        #expect(time < hugeLineBudget, "took \(time)")
        if let error, let line = error.line {
            #expect(line == input.line, "\(error)")
            #expect((error.lineText?.utf8.count ?? 0) < 1000, "the line shown in the error is shortened")
        }
    }

    @Test func fiveMegabyteLineIsWrittenBackUnchanged() async throws {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n" + String(repeating: "b", count: Self.fiveMegabytes) + ".ts\n"
        let written = try await offThePool { try Playlist(parsing: text).write() }
        #expect(written == text)
    }

    // MARK: Numbers at the edge

    @Test func mediaSequenceAtIntMaxDoesNotOverflow() {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:9223372036854775807\n#EXTINF:1,\na.ts\n#EXTINF:1,\nb.ts\n"
        expectPlaylistError(.invalidValue, line: 7) { _ = try media(text) }
    }

    @Test func lastRepresentableMediaSequenceIsAccepted() throws {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:9223372036854775806\n#EXTINF:1,\na.ts\n#EXTINF:1,\nb.ts\n"
        #expect(try media(text).segments.map(\.mediaSequence) == [Int.max - 1, Int.max])
    }

    @Test func skipPastIntMaxDoesNotOverflow() {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:9223372036854775807\n#EXT-X-SKIP:SKIPPED-SEGMENTS=9223372036854775807\n#EXTINF:1,\na.ts\n"
        expectPlaylistError(.invalidValue, line: 4) { _ = try media(text) }
    }

    @Test func discontinuitySequencePastIntMaxDoesNotOverflow() {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-DISCONTINUITY-SEQUENCE:9223372036854775807\n#EXT-X-DISCONTINUITY\n#EXTINF:1,\na.ts\n"
        expectPlaylistError(.invalidValue, line: 4) { _ = try media(text) }
    }

    @Test func byteRangeEndingPastIntMaxIsAnError() {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-BYTERANGE:9223372036854775807@1\n#EXTINF:1,\na.ts\n"
        expectPlaylistError(.byteRange, line: 3) { _ = try media(text) }
    }

    @Test func implicitByteRangeOffsetPastIntMaxIsAnError() {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-BYTERANGE:9223372036854775807@0\n#EXTINF:1,\na.ts\n#EXT-X-BYTERANGE:1\n#EXTINF:1,\na.ts\n"
        expectPlaylistError(.byteRange, line: 6) { _ = try media(text) }
    }

    @Test func mapAndPartByteRangesPastIntMaxAreErrors() {
        expectPlaylistError(.byteRange, line: 3) {
            _ = try media("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-MAP:URI=\"i.mp4\",BYTERANGE=\"9223372036854775807@9\"\n")
        }
        expectPlaylistError(.byteRange, line: 4) {
            _ = try media("#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-PART:DURATION=1,URI=\"p\",BYTERANGE=\"9223372036854775807@0\"\n#EXT-X-PART:DURATION=1,URI=\"p\",BYTERANGE=\"9\"\n")
        }
    }

    @Test func hugeDurationDoesNotTrap() throws {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:9223372036854775807\n#EXTINF:" + String(repeating: "9", count: 300) + ",\na.ts\n"
        let playlist = try media(text)
        #expect(playlist.segments.first?.duration == 1e300)
        #expect(playlist.warnings.map(\.line) == [4])
    }

    @Test func hugeTargetDurationAsAFloatDoesNotTrap() throws {
        #expect(try parseTag("#EXT-X-TARGETDURATION:9223372036854775000.5") == .targetDuration(9_223_372_036_854_774_784))
        expectPlaylistError(.invalidValue, line: 2) { _ = try parseTag("#EXT-X-TARGETDURATION:9223372036854775807.5") }
    }

    @Test func hugeResolutionsCompareWithoutTrapping() throws {
        guard case .streamInf(let stream) = try parseTag("#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=9223372036854775807x9223372036854775807") else {
            Issue.record("not a stream"); return
        }
        let huge = try #require(stream.resolution)
        #expect(Resolution(width: 1920, height: 1080) < huge)
        #expect(!(huge < huge))
    }

    @Test func tooManyKeyFormatsInEffectAreRefused() async throws {
        // Each segment carries every key in effect: 40,000 formats over 100,000 segments would
        // be four billion keys from a 5 MB playlist.
        let (time, error) = try await offThePool {
            var text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n"
            for index in 0..<40_000 {
                text += "#EXT-X-KEY:METHOD=AES-128,URI=\"k\",KEYFORMAT=\"f\(index)\"\n"
            }
            for _ in 0..<100_000 {
                text += "#EXTINF:1,\na.ts\n"
            }
            var error: PlaylistError?
            let time = elapsed { error = read(text) }
            return (time, error)
        }
        #expect(time < hugeLineBudget, "took \(time)")
        #expect(error?.code == .invalidValue)
        #expect(error?.line == 3 + MediaPlaylist.maximumKeyFormats)
    }

    @Test func mostKeyFormatsOverManySegmentsAreReadQuickly() async throws {
        let (time, keys) = try await offThePool {
            var text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n"
            for index in 0..<MediaPlaylist.maximumKeyFormats {
                text += "#EXT-X-KEY:METHOD=AES-128,URI=\"k\",KEYFORMAT=\"f\(index)\"\n"
            }
            for _ in 0..<100_000 {
                text += "#EXTINF:1,\na.ts\n"
            }
            var playlist: MediaPlaylist?
            let time = try elapsed { playlist = try media(text) }
            return (time, playlist?.segments.last?.keys)
        }
        #expect(time < hugeLineBudget, "took \(time)")
        #expect(keys?.count == MediaPlaylist.maximumKeyFormats)
        #expect(keys?.allSatisfy { $0.iv == HexSequence.iv(mediaSequence: 99_999) } == true)
    }

    @Test func variableExpandingIntoGigabytesIsRefused() async throws {
        // A 1 MB value referenced from 10,000 URI lines would make 10 GB of URIs.
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-DEFINE:NAME=\"a\",VALUE=\"\(String(repeating: "x", count: 1 << 20))\"\n"
        for _ in 0..<10_000 {
            text += "#EXTINF:1,\n{$a}\n"
        }
        let (time, error) = try await offThePool { [text] in
            var error: PlaylistError?
            let time = elapsed { error = read(text) }
            return (time, error)
        }
        #expect(time < hugeLineBudget, "took \(time)")
        #expect(error?.code == .variable)
        #expect(error?.lineText == "{$a}")
    }

    @Test func longTokenInEverySegmentURIIsFine() throws {
        // A signed token of 900 bytes from the playlist URL in each of 20,000 segment URIs:
        // 18 MB of substitution, more than the 16 MiB any playlist may add.
        let token = String(repeating: "t", count: 900)
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-DEFINE:QUERYPARAM=\"token\"\n"
        for index in 0..<20_000 {
            text += "#EXTINF:1,\n\(index).ts?token={$token}\n"
        }
        let playlist = try media(text, url: "https://cdn.example.com/v.m3u8?token=\(token)")
        #expect(playlist.segments.last?.uri == "https://cdn.example.com/19999.ts?token=\(token)")
    }

    // MARK: Random bytes

    /// Checks that `bytes` is either refused with a located error or read and written back as
    /// it came (line ends aside).
    private func checkReadable(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let lineCount = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).count
        do {
            let parsed = try Playlist.parse(bytes: bytes)
            // CRLF and a lone CR are line ends, written LF; a CR after the last LF ends nothing.
            var expected = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
            if expected.hasPrefix("\u{FEFF}") { expected.removeFirst() }
            if expected.hasSuffix("\n\r") || expected == "\r" { expected.removeLast() }
            expected = expected.replacingOccurrences(of: "\r", with: "\n")
            let written = try parsed.playlist.write()
            #expect(written == expected, "\(bytes)", sourceLocation: sourceLocation)
            #expect(try Playlist(parsing: written) == parsed.playlist, "\(bytes)", sourceLocation: sourceLocation)
            if let text = String(validating: bytes, as: UTF8.self) { read(text) }
        } catch {
            if let line = error.line {
                #expect((1...lineCount).contains(line), "\(error) for \(bytes)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Bytes biased towards what playlists are made of.
    private static let alphabet: [UInt8] = Array("#EXTM3U-INF:,=\"@x0123456789.\n\r /?{$}ABCDEFGHIJKLMNOPQRSTUVWYZ".utf8)
        + [0x00, 0x09, 0xC3, 0xA9, 0xFF, 0xE2, 0x80]

    @Test func randomBytesNeverCrash() {
        var generator = SeededGenerator(seed: 0xC0FFEE)
        for _ in 0..<3000 {
            let count = Int.random(in: 0...120, using: &generator)
            var bytes: [UInt8] = Int.random(in: 0..<4, using: &generator) == 0 ? [] : Array("#EXTM3U\n".utf8)
            for _ in 0..<count {
                bytes.append(Bool.random(using: &generator)
                    ? Self.alphabet.randomElement(using: &generator)!
                    : UInt8.random(in: 0...255, using: &generator))
            }
            bytes += Array(["", "\n", "\r", "\n\r", "\r\n", "\n\n"].randomElement(using: &generator)!.utf8)
            checkReadable(bytes)
        }
    }

    @Test func randomTagLinesNeverCrash() {
        var generator = SeededGenerator(seed: 42)
        let names = ["EXTINF", "EXT-X-KEY", "EXT-X-MAP", "EXT-X-BYTERANGE", "EXT-X-STREAM-INF", "EXT-X-MEDIA",
                     "EXT-X-DATERANGE", "EXT-X-PART", "EXT-X-DEFINE", "EXT-X-START", "EXT-X-PROGRAM-DATE-TIME",
                     "EXT-X-SKIP", "EXT-X-SERVER-CONTROL", "EXT-X-SESSION-DATA", "EXT-X-MEDIA-SEQUENCE"]
        let pieces = ["METHOD=AES-128", "URI=\"a.ts\"", "BANDWIDTH=1", "TYPE=AUDIO", "GROUP-ID=\"g\"", "NAME=\"n\"",
                      "ID=\"i\"", "DURATION=1", "BYTERANGE=\"1@0\"", "IV=0x1", "VALUE=\"{$v}\"", "TIME-OFFSET=-1",
                      "9.5", "10@0", ",", "=", "\"", "2024-05-01T10:00:00Z", "NONE", "YES", "-", "9223372036854775807"]
        for _ in 0..<3000 {
            var text = "#EXTM3U\n#EXT-X-TARGETDURATION:10\n"
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                text += "#" + names.randomElement(using: &generator)! + ":"
                for _ in 0..<Int.random(in: 0...4, using: &generator) {
                    text += pieces.randomElement(using: &generator)!
                }
                text += Bool.random(using: &generator) ? "\n" : "\nseg.ts\n"
            }
            checkReadable(Array(text.utf8))
        }
    }

    @Test func mutatedFixturesNeverCrash() throws {
        var generator = SeededGenerator(seed: 8216)
        let fixtures = try Fixture.all.map { try Fixture.bytes($0) }
        for _ in 0..<3000 {
            var bytes = fixtures.randomElement(using: &generator)!
            for _ in 0..<Int.random(in: 1...4, using: &generator) where !bytes.isEmpty {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<6, using: &generator) {
                case 0: bytes[index] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes[index] = Self.alphabet.randomElement(using: &generator)!
                case 2: bytes.remove(at: index)
                case 3: bytes.insert(Self.alphabet.randomElement(using: &generator)!, at: index)
                case 4: bytes.removeSubrange(index...)
                default:
                    let end = min(bytes.count, index + Int.random(in: 1...80, using: &generator))
                    bytes.insert(contentsOf: bytes[index..<end], at: Int.random(in: 0...bytes.count, using: &generator))
                }
            }
            checkReadable(bytes)
        }
    }

    // MARK: Size

    /// A million segments: reading takes time in proportion to the size, 15 to 30 seconds of CPU
    /// in a debug build (a second or two in release); anything worse than linear would take hours.
    @Test func millionSegmentPlaylistIsReadInLinearTime() async throws {
        let count = 1_000_000
        let (parseTime, resolveTime, segmentCount, last) = try await offThePool {
            let text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:5\n"
                + String(repeating: "#EXTINF:4,\nmedia/seg.ts\n", count: count) + "#EXT-X-ENDLIST\n"
            var parsed: Playlist.Parsed?
            let parseTime = try elapsed { parsed = try Playlist.parse(text) }
            var resolved: MediaPlaylist?
            let resolveTime = try elapsed {
                if let playlist = parsed?.playlist { resolved = try MediaPlaylist(playlist, url: "https://cdn.example.com/live/v.m3u8") }
            }
            return (parseTime, resolveTime, resolved?.segments.count, resolved?.segments.last)
        }
        #expect(parseTime + resolveTime < .seconds(90), "parsing took \(parseTime), resolving \(resolveTime)")
        #expect(segmentCount == count)
        let segment = try #require(last)
        #expect(segment.mediaSequence == count + 4)
        #expect(segment.uri == "https://cdn.example.com/live/media/seg.ts")
        #expect(segment.startTime == Double(4 * (count - 1)))
        #expect(segment.line == 2 * count + 4)
        print("million segments: parse \(parseTime), resolve \(resolveTime)")
    }
}
