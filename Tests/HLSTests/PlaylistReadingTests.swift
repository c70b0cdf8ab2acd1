@testable import HLS
import Testing

/// `PlaylistReading` resolves a media playlist as its lines are read, keeping none: it must give
/// exactly what parsing and then resolving give — the same segments, warnings and errors — and
/// hand a multivariant playlist over parsed.
@Suite("One-pass playlist reading")
struct PlaylistReadingTests {
    static let url = "https://cdn.example/v/index.m3u8"

    /// What reading `text` in two steps gives: the media playlist, the multivariant playlist
    /// parsed, or the error's description.
    private enum Outcome: Equatable {
        case media(MediaPlaylist)
        case multivariant(Playlist)
        case error(String)
    }

    private func twoSteps(_ text: String, options: Playlist.ParseOptions = []) -> Outcome {
        do {
            let parsed = try Playlist.parse(bytes: Array(text.utf8), options: options)
            switch parsed.playlist.kind {
            case .multivariant: return .multivariant(parsed.playlist)
            case .media:
                return .media(try MediaPlaylist(parsed.playlist, url: Self.url, warnings: parsed.warnings, options: options))
            }
        } catch {
            return .error(error.description)
        }
    }

    private func onePass(_ text: String, options: Playlist.ParseOptions = []) -> Outcome {
        do {
            switch try PlaylistReading(bytes: Array(text.utf8), url: Self.url, options: options) {
            case .media(let media): return .media(media)
            case .multivariant(let parsed): return .multivariant(parsed.playlist)
            }
        } catch {
            return .error(error.description)
        }
    }

    @Test(arguments: [Playlist.Kind.media, .multivariant])
    func randomPlaylistsReadAsInTwoSteps(kind: Playlist.Kind) throws {
        var media = 0, errors = 0, readInOnePass = 0, multivariantResolved = 0
        for seed in UInt64(1)...800 {
            var generator = PlaylistGenerator(seed: seed &* 0x2545_F491 &+ (kind == .media ? 7 : 8))
            let text = try generator.playlist(kind: kind).write()
            for options: Playlist.ParseOptions in [[], .strict] {
                let expected = twoSteps(text, options: options)
                #expect(onePass(text, options: options) == expected, "seed \(seed):\n\(text)")
                if case .media = expected { media += 1 }
                let read = PlaylistReading.oneTextPass(Array(text.utf8), url: Self.url, imports: nil, options: options)
                if case .media = expected, read != nil { readInOnePass += 1 }
                if case .multivariant = expected, read != nil { multivariantResolved += 1 }
                if case .error = expected { errors += 1 }
            }
        }
        // The generator must reach both outcomes, or the comparison proves little.
        #expect(errors > 0)
        if kind == .media { #expect(media > 0 && readInOnePass > 0) }
        // A multivariant playlist is never taken for a media one by the one-pass reader.
        #expect(multivariantResolved == 0)
    }

    @Test(arguments: Fixture.all)
    func fixturesReadAsInTwoSteps(name: String) throws {
        let text = try Fixture.text(name)
        let expected = twoSteps(text)
        #expect(onePass(text) == expected)
        switch expected {
        case .media:
            // No fixture needs the whole playlist: each is resolved as it is read.
            #expect(PlaylistReading.oneTextPass(Array(text.utf8), url: Self.url, imports: nil, options: []) != nil)
        case .multivariant: break
        case .error(let error): Issue.record("fixture \(name) does not read: \(error)")
        }
    }

    /// Cases where the answer depends on lines after the one being read, and text the parser
    /// recovers from: each read as in two steps.
    @Test(arguments: [
        // A lone URI line: a single resource, known only at the end.
        "#EXTM3U\n#EXT-X-TARGETDURATION:10\nmovie.mp4\n",
        // A URI without EXTINF before a segment: the error names the first URI line.
        "#EXTM3U\n#EXT-X-TARGETDURATION:10\nintro.ts\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n",
        // Renditions and no segment: a multivariant playlist, though no STREAM-INF says so.
        "#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"en\",URI=\"en.m3u8\"\n",
        // A STREAM-INF after segments.
        "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n",
        // No target duration, said of the #EXTM3U line after comments a lenient read allows.
        "# made by hand\n\n#EXTM3U\n#EXTINF:4.5,\na.ts\n#EXTINF:6,\nb.ts\n#EXT-X-ENDLIST\n",
        // A byte order mark, CRLF and a lone CR, white space around a URI.
        "\u{FEFF}#EXTM3U\r\n#EXT-X-TARGETDURATION:4\r\n#EXTINF:4,\r  a.ts \r\n#EXT-X-ENDLIST",
        // Variables, keys with derived IVs, maps, byte ranges continuing one another.
        "#EXTM3U\n#EXT-X-VERSION:8\n#EXT-X-TARGETDURATION:4\n#EXT-X-DEFINE:NAME=\"p\",VALUE=\"media\"\n"
            + "#EXT-X-KEY:METHOD=AES-128,URI=\"{$p}/k\"\n#EXT-X-MAP:URI=\"{$p}/init.mp4\",BYTERANGE=\"100@0\"\n"
            + "#EXTINF:4,\n#EXT-X-BYTERANGE:500@100\n{$p}/all.mp4\n#EXTINF:4,\n#EXT-X-BYTERANGE:500\n{$p}/all.mp4\n#EXT-X-ENDLIST\n",
        // An undefined variable: an error.
        "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\n{$nowhere}/a.ts\n#EXT-X-ENDLIST\n",
        // A stray EXT-X-SESSION-KEY, applied with a warning.
        "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-SESSION-KEY:METHOD=AES-128,URI=\"k\"\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n",
        // Not UTF-8 on line 3.
        "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\u{0}\na.ts\n",
        // Not a playlist.
        "<html>not a playlist</html>\n",
    ])
    func edgeCasesReadAsInTwoSteps(text: String) {
        for options: Playlist.ParseOptions in [[], .strict] {
            #expect(onePass(text, options: options) == twoSteps(text, options: options), "\(options)")
        }
    }

    @Test func invalidUTF8IsRefusedNamingTheLine() {
        var bytes = Array("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\n".utf8)
        bytes += [0x61, 0xFF, 0x2E, 0x74, 0x73, 0x0A]
        expectPlaylistError(.invalidUTF8, line: 4) {
            _ = try PlaylistReading(bytes: bytes, url: Self.url)
        }
    }

    /// The one-pass check tells ASCII eight bytes at a time: a byte past 0x7F anywhere — in a
    /// whole word, in the bytes after the last one — must still be looked at.
    @Test func utf8CheckSeesEveryByte() {
        func check(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBufferPointer { Playlist.isUTF8($0) } }
        for length in 0...19 {
            let ascii = [UInt8](repeating: UInt8(ascii: "a"), count: length)
            #expect(check(ascii))
            for place in 0..<length {
                var invalid = ascii
                invalid[place] = 0xFF
                #expect(!check(invalid), "0xFF at \(place) of \(length)")
                var valid = ascii
                valid[place] = 0xC3
                valid.insert(0xA9, at: place + 1)  // é
                #expect(check(valid), "é at \(place) of \(length)")
            }
        }
        #expect(!check(Array("seg-\u{1F600}.ts".utf8).dropLast(4) + [0xF0, 0x9F]))
        #expect(!check([0x61, 0xC0, 0xAF]))  // an overlong "/"
    }

    @Test func aMediaPlaylistIsResolvedWithItsWarnings() throws {
        let text = "#EXTM3U\n#EXTINF:4,\na.ts\n#EXTINF:6,\nb.ts\n#EXT-X-ENDLIST\n"
        guard case .media(let media) = try PlaylistReading(bytes: Array(text.utf8), url: Self.url) else {
            Issue.record("not read as a media playlist")
            return
        }
        #expect(media.segments.map(\.uri) == ["https://cdn.example/v/a.ts", "https://cdn.example/v/b.ts"])
        #expect(media.segments.map(\.line) == [3, 5])
        #expect(media.targetDuration == 6)
        #expect(media.warnings.map(\.line) == [1])
    }

    /// What a million-segment playlist costs depends on this: the rare fields are boxed and the
    /// rest packed (it was 168 bytes).
    @Test func aSegmentTakes112Bytes() {
        #expect(MemoryLayout<Segment>.stride == 112)
        var segment = Segment(uri: "a.ts", line: 2, mediaSequence: 0, discontinuitySequence: 0, discontinuity: false, isGap: false,
                              startTime: 0, duration: 4, isDurationKnown: true, title: "", attributes: [], byteRange: nil,
                              keys: [], sharedInitSection: nil, programDateTime: nil, bitrate: nil, parts: [])
        let plain = segment
        segment.title = "Intro"
        #expect(segment.title == "Intro" && segment != plain)
        segment.title = ""
        // Emptied again, it equals the segment that never had a title.
        #expect(segment == plain && segment.hashValue == plain.hashValue)
    }
}
