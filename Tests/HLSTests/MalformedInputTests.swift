import HLS
import Testing

/// A malformed playlist and the error it must produce.
struct Malformed: Sendable, CustomTestStringConvertible {
    /// What is wrong, as the test case's name.
    var fault: String
    var text: String
    var code: PlaylistError.Code
    /// The line the error names; nil for faults of the whole playlist.
    var line: Int?
    /// How far to read: parsing alone, or resolving as a media or multivariant playlist.
    var reading: Reading = .parse

    enum Reading: Sendable { case parse, media, multivariant }

    var testDescription: String { fault }

    /// Reads `text` as far as `reading` says, strictly by default: a lenient read recovers from
    /// many of these faults with a warning (see `LenientReadingTests`).
    func read(_ options: Playlist.ParseOptions = .strict) throws {
        _ = try warnings(options)
    }

    /// Reads `text` as far as `reading` says, and returns the warnings.
    func warnings(_ options: Playlist.ParseOptions) throws -> [PlaylistWarning] {
        switch reading {
        case .parse:
            let parsed = try Playlist.parse(text, options: options)
            // Read leniently, tags of the other kind of playlist are the resolver's to warn about.
            if options.contains(.strict) { return parsed.warnings }
            switch parsed.playlist.kind {
            case .multivariant:
                return try MultivariantPlaylist(parsed.playlist, url: "https://cdn.example.com/main.m3u8", warnings: parsed.warnings).warnings
            case .media:
                return try MediaPlaylist(parsed.playlist, url: "https://cdn.example.com/v.m3u8", warnings: parsed.warnings).warnings
            }
        case .media: return try MediaPlaylist(parsing: text, url: "https://cdn.example.com/v.m3u8", options: options).warnings
        case .multivariant: return try MultivariantPlaylist(parsing: text, url: "https://cdn.example.com/main.m3u8", options: options).warnings
        }
    }
}

/// Malformed playlists are refused with an error that names the fault and the line: read
/// strictly, every one; read leniently, those no safe reading exists for, while the rest are
/// warnings on the same line.
@Suite("Malformed input")
struct MalformedInputTests {
    static let header: [Malformed] = [
        Malformed(fault: "empty input", text: "", code: .missingHeader, line: 1),
        Malformed(fault: "missing #EXTM3U", text: "#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n", code: .missingHeader, line: 1),
        Malformed(fault: "#EXTM3U not on the first line", text: "\n#EXTM3U\n", code: .missingHeader, line: 1),
        Malformed(fault: "#EXTM3U in lower case", text: "#extm3u\n", code: .missingHeader, line: 1),
        Malformed(fault: "space before #EXTM3U", text: " #EXTM3U\n", code: .missingHeader, line: 1),
        Malformed(fault: "an HTML page", text: "<!DOCTYPE html>\n<html></html>\n", code: .missingHeader, line: 1),
    ]

    static let characters: [Malformed] = [
        Malformed(fault: "NUL byte in a URI line", text: "#EXTM3U\n#EXTINF:1,\nseg\u{0}.ts\n", code: .controlCharacter, line: 3),
        Malformed(fault: "NUL byte on the first line", text: "#EXTM3U\u{0}\n", code: .controlCharacter, line: 1),
        Malformed(fault: "NUL byte in a tag after CRLF lines", text: "#EXTM3U\r\n#EXT-X-VERSION:3\r\n#EXT-X-\u{0}\r\n",
                  code: .controlCharacter, line: 3),
    ]

    static let attributeLists: [Malformed] = [
        Malformed(fault: "unterminated quoted string", text: "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"k.bin\n",
                  code: .malformedAttributeList, line: 2),
        Malformed(fault: "text after a quoted string", text: "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"k.bin\"x\n",
                  code: .malformedAttributeList, line: 2),
        Malformed(fault: "stray quote in a token", text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\"0\n",
                  code: .malformedAttributeList, line: 2),
        Malformed(fault: "attribute without a value", text: "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-KEY:METHOD\n",
                  code: .malformedAttributeList, line: 3),
        Malformed(fault: "attribute with an empty value", text: "#EXTM3U\n#EXT-X-KEY:METHOD=,URI=\"k\"\n",
                  code: .malformedAttributeList, line: 2),
        Malformed(fault: "attribute without a name", text: "#EXTM3U\n#EXT-X-KEY:=AES-128\n",
                  code: .malformedAttributeList, line: 2),
        Malformed(fault: "invalid character in an attribute name", text: "#EXTM3U\n#EXT-X-KEY:MET HOD=AES-128\n",
                  code: .malformedAttributeList, line: 2),
        Malformed(fault: "duplicate attribute", text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,BANDWIDTH=2\nv.m3u8\n",
                  code: .duplicateAttribute, line: 2),
        Malformed(fault: "duplicate client attribute",
                  text: "#EXTM3U\n#EXT-X-DATERANGE:ID=\"a\",X-A=\"1\",START-DATE=\"2024-01-01T00:00:00Z\",X-A=\"2\"\n",
                  code: .duplicateAttribute, line: 2),
        Malformed(fault: "duplicate attribute after many others",
                  text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1," + (0..<40).map { "X-A\($0)=\($0)" }.joined(separator: ",")
                      + ",X-A3=3\nv.m3u8\n",
                  code: .duplicateAttribute, line: 2),
        Malformed(fault: "tag with an empty attribute list", text: "#EXTM3U\n#EXT-X-KEY:\n", code: .missingValue, line: 2),
        Malformed(fault: "tag without its attribute list", text: "#EXTM3U\n#EXT-X-MAP\n", code: .missingValue, line: 2),
    ]

    static let missingAttributes: [Malformed] = [
        Malformed(fault: "EXT-X-STREAM-INF without BANDWIDTH", text: "#EXTM3U\n#EXT-X-STREAM-INF:RESOLUTION=1280x720\nv.m3u8\n",
                  code: .missingValue, line: 2),
        Malformed(fault: "EXT-X-I-FRAME-STREAM-INF without BANDWIDTH", text: "#EXTM3U\n#EXT-X-I-FRAME-STREAM-INF:URI=\"i.m3u8\"\n",
                  code: .missingValue, line: 2),
        Malformed(fault: "EXT-X-KEY without URI", text: "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-KEY:METHOD=AES-128\n",
                  code: .missingValue, line: 3),
        Malformed(fault: "EXT-X-KEY without METHOD", text: "#EXTM3U\n#EXT-X-KEY:URI=\"k\"\n", code: .missingValue, line: 2),
        Malformed(fault: "EXT-X-MEDIA without TYPE", text: "#EXTM3U\n#EXT-X-MEDIA:GROUP-ID=\"a\",NAME=\"English\"\n",
                  code: .missingValue, line: 2),
        Malformed(fault: "EXT-X-MEDIA without GROUP-ID", text: "#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,NAME=\"English\"\n",
                  code: .missingValue, line: 2),
        Malformed(fault: "EXT-X-MEDIA without NAME", text: "#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\"\n",
                  code: .missingValue, line: 2),
        Malformed(fault: "EXT-X-MAP without URI", text: "#EXTM3U\n#EXT-X-MAP:BYTERANGE=\"1@0\"\n", code: .missingValue, line: 2),
        Malformed(fault: "EXT-X-DATERANGE without ID", text: "#EXTM3U\n#EXT-X-DATERANGE:START-DATE=\"2024-01-01T00:00:00Z\"\n",
                  code: .missingValue, line: 2),
        Malformed(fault: "EXT-X-SESSION-DATA without DATA-ID", text: "#EXTM3U\n#EXT-X-SESSION-DATA:VALUE=\"v\"\n",
                  code: .missingValue, line: 2),
        Malformed(fault: "EXT-X-SKIP without SKIPPED-SEGMENTS", text: "#EXTM3U\n#EXT-X-SKIP:RECENTLY-REMOVED-DATERANGES=\"a\"\n",
                  code: .missingValue, line: 2),
        Malformed(fault: "EXT-X-PRELOAD-HINT without TYPE", text: "#EXTM3U\n#EXT-X-PRELOAD-HINT:URI=\"p.mp4\"\n",
                  code: .missingValue, line: 2),
        Malformed(fault: "EXT-X-PART-INF without PART-TARGET", text: "#EXTM3U\n#EXT-X-PART-INF:X-A=1\n", code: .missingValue, line: 2),
        Malformed(fault: "EXTINF without a duration", text: "#EXTM3U\n#EXTINF:\n", code: .missingValue, line: 2),
        Malformed(fault: "EXT-X-TARGETDURATION without a value", text: "#EXTM3U\n#EXT-X-TARGETDURATION\n", code: .missingValue, line: 2),
    ]

    static let valueTypes: [Malformed] = [
        Malformed(fault: "quoted integer", text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=\"1000\"\nv.m3u8\n", code: .invalidValue, line: 2),
        Malformed(fault: "fractional integer", text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000.5\nv.m3u8\n", code: .invalidValue, line: 2),
        Malformed(fault: "negative integer", text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=-1\nv.m3u8\n", code: .invalidValue, line: 2),
        Malformed(fault: "integer too large for 64 bits", text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=99999999999999999999\nv.m3u8\n",
                  code: .invalidValue, line: 2),
        Malformed(fault: "resolution without height", text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=1920\nv.m3u8\n",
                  code: .invalidValue, line: 2),
        Malformed(fault: "quoted resolution", text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=\"1920x1080\"\nv.m3u8\n",
                  code: .invalidValue, line: 2),
        Malformed(fault: "frame rate that is not a number", text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,FRAME-RATE=fast\nv.m3u8\n",
                  code: .invalidValue, line: 2),
        Malformed(fault: "unquoted URI", text: "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=k.bin\n", code: .invalidValue, line: 2),
        Malformed(fault: "unquoted CODECS", text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=avc1\nv.m3u8\n",
                  code: .invalidValue, line: 2),
        Malformed(fault: "IV that is not hexadecimal", text: "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=1234\n",
                  code: .invalidValue, line: 2),
        Malformed(fault: "IV with a non-hex digit", text: "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=0x12G4\n",
                  code: .invalidValue, line: 2),
        Malformed(fault: "YES/NO attribute with another value", text: "#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"b\",DEFAULT=yes\n",
                  code: .invalidValue, line: 2),
        Malformed(fault: "unsigned float with a sign", text: "#EXTM3U\n#EXT-X-PART-INF:PART-TARGET=-1\n", code: .invalidValue, line: 2),
        Malformed(fault: "float with an exponent", text: "#EXTM3U\n#EXT-X-PART-INF:PART-TARGET=1e3\n", code: .invalidValue, line: 2),
        Malformed(fault: "EXTINF duration that is not a number", text: "#EXTM3U\n#EXTINF:ten,\n", code: .invalidValue, line: 2),
        Malformed(fault: "negative EXTINF duration", text: "#EXTM3U\n#EXTINF:-1,\n", code: .invalidValue, line: 2),
        Malformed(fault: "negative target duration", text: "#EXTM3U\n#EXT-X-TARGETDURATION:-10\n", code: .invalidValue, line: 2),
        Malformed(fault: "fractional media sequence", text: "#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:1.5\n", code: .invalidValue, line: 2),
        Malformed(fault: "version that is not a number", text: "#EXTM3U\n#EXT-X-VERSION:v3\n", code: .invalidValue, line: 2),
        Malformed(fault: "bitrate that is not a number", text: "#EXTM3U\n#EXT-X-BITRATE:fast\n", code: .invalidValue, line: 2),
        Malformed(fault: "bad PLAYLIST-TYPE", text: "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-PLAYLIST-TYPE:LIVE\n",
                  code: .invalidValue, line: 3),
        Malformed(fault: "PLAYLIST-TYPE in lower case", text: "#EXTM3U\n#EXT-X-PLAYLIST-TYPE:vod\n", code: .invalidValue, line: 2),
        Malformed(fault: "bad date in EXT-X-PROGRAM-DATE-TIME", text: "#EXTM3U\n#EXT-X-PROGRAM-DATE-TIME:2024-02-30T10:00:00Z\n",
                  code: .invalidValue, line: 2),
        Malformed(fault: "date without a time zone", text: "#EXTM3U\n#EXT-X-PROGRAM-DATE-TIME:2024-02-01T10:00:00\n",
                  code: .invalidValue, line: 2),
        Malformed(fault: "bad date in EXT-X-DATERANGE", text: "#EXTM3U\n#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"yesterday\"\n",
                  code: .invalidValue, line: 2),
        Malformed(fault: "unknown FORMAT of EXT-X-SESSION-DATA", text: "#EXTM3U\n#EXT-X-SESSION-DATA:DATA-ID=\"a\",URI=\"u\",FORMAT=XML\n",
                  code: .invalidValue, line: 2),
        Malformed(fault: "bad BYTERANGE of EXT-X-PART", text: "#EXTM3U\n#EXT-X-PART:DURATION=1,URI=\"p\",BYTERANGE=\"x\"\n",
                  code: .invalidValue, line: 2),
    ]

    static let structure: [Malformed] = [
        Malformed(fault: "media tag after a multivariant tag",
                  text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n#EXT-X-TARGETDURATION:10\n", code: .mixedPlaylist, line: 4),
        Malformed(fault: "multivariant tag after a media tag",
                  text: "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\na.ts\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"b\"\n",
                  code: .mixedPlaylist, line: 5),
        Malformed(fault: "EXT-X-STREAM-INF without its URI line at the end",
                  text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2\n",
                  code: .structure, line: 4, reading: .multivariant),
        Malformed(fault: "EXT-X-STREAM-INF followed by another tag",
                  text: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n#EXT-X-STREAM-INF:BANDWIDTH=2\nv.m3u8\n",
                  code: .structure, line: 3, reading: .multivariant),
        Malformed(fault: "EXTINF without a URI at the end",
                  text: "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\na.ts\n#EXTINF:10,\n",
                  code: .structure, line: 5, reading: .media),
        Malformed(fault: "EXTINF followed by another EXTINF",
                  text: "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n#EXTINF:10,\na.ts\n",
                  code: .structure, line: 4, reading: .media),
        Malformed(fault: "URI without EXTINF",
                  text: "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\na.ts\nb.ts\n",
                  code: .structure, line: 5, reading: .media),
        Malformed(fault: "missing EXT-X-TARGETDURATION",
                  text: "#EXTM3U\n#EXTINF:10,\na.ts\n#EXT-X-ENDLIST\n", code: .structure, line: nil, reading: .media),
        Malformed(fault: "EXT-X-MEDIA-SEQUENCE after the first segment",
                  text: "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\na.ts\n#EXT-X-MEDIA-SEQUENCE:5\n",
                  code: .structure, line: 5, reading: .media),
        Malformed(fault: "EXT-X-DISCONTINUITY-SEQUENCE after a discontinuity",
                  text: "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-DISCONTINUITY\n#EXT-X-DISCONTINUITY-SEQUENCE:5\n",
                  code: .structure, line: 4, reading: .media),
        Malformed(fault: "multivariant playlist read as a media playlist",
                  text: "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n",
                  code: .mixedPlaylist, line: 3, reading: .media),
        Malformed(fault: "media playlist read as a multivariant playlist",
                  text: "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\na.ts\n",
                  code: .mixedPlaylist, line: 2, reading: .multivariant),
    ]

    @Test(arguments: header + characters + attributeLists)
    func syntaxFault(_ input: Malformed) {
        expectPlaylistError(input.code, line: input.line) { try input.read() }
    }

    @Test(arguments: missingAttributes)
    func missingRequiredAttribute(_ input: Malformed) {
        expectPlaylistError(input.code, line: input.line) { try input.read() }
    }

    @Test(arguments: valueTypes)
    func wrongValueType(_ input: Malformed) {
        expectPlaylistError(input.code, line: input.line) { try input.read() }
    }

    @Test(arguments: structure)
    func structuralFault(_ input: Malformed) {
        expectPlaylistError(input.code, line: input.line) { try input.read() }
    }

    /// Read leniently, each fault is either the same error or a warning on its line: none is
    /// passed over in silence.
    @Test(arguments: header + characters + attributeLists + missingAttributes + valueTypes + structure)
    func leniently(_ input: Malformed) {
        do {
            let warnings = try input.warnings([])
            if let line = input.line {
                #expect(warnings.contains { $0.line == line }, "\(warnings)")
            } else {
                #expect(!warnings.isEmpty)
            }
        } catch let error as PlaylistError {
            // A fault found by parsing alone may, once the lenient read also resolves the
            // playlist, be refused there instead: on the same line, for what follows from it.
            #expect(error.code == input.code || input.reading == .parse, "\(error)")
            #expect(error.line == input.line, "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    // MARK: Bytes

    @Test func invalidUTF8NamesItsLine() {
        var bytes = Array("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,caf".utf8)
        bytes += [0xC3, 0x28]  // a lead byte without its continuation
        bytes += Array(",\na.ts\n".utf8)
        expectPlaylistError(.invalidUTF8, line: 3) { _ = try Playlist.parse(bytes: bytes) }
    }

    @Test func invalidUTF8OnTheLastLineWithoutNewline() {
        let bytes = Array("#EXTM3U\n#EXT-X-VERSION:3\n".utf8) + [0x61, 0xFF]
        expectPlaylistError(.invalidUTF8, line: 3) { _ = try Playlist.parse(bytes: bytes) }
    }

    @Test func invalidUTF8AfterCRLFLines() {
        let bytes = Array("#EXTM3U\r\n#EXT-X-VERSION:3\r\n#EXT-X-TARGETDURATION:10\r\n".utf8) + [0xED, 0xA0, 0x80] + Array("\r\n".utf8)
        expectPlaylistError(.invalidUTF8, line: 4) { _ = try Playlist.parse(bytes: bytes) }
    }

    @Test func overlongEncodingIsInvalidUTF8() {
        let bytes = Array("#EXTM3U\n".utf8) + [0xC0, 0xAF] + Array("\n".utf8)
        expectPlaylistError(.invalidUTF8, line: 2) { _ = try Playlist.parse(bytes: bytes) }
    }

    @Test func validUTF8BytesParseLikeText() throws {
        let text = "#EXTM3U\n#EXT-X-SESSION-DATA:DATA-ID=\"t\",VALUE=\"Café 東京 🎬\"\n"
        #expect(try Playlist.parse(bytes: Array(text.utf8)).playlist == (try Playlist(parsing: text)))
    }

    // MARK: What errors say

    @Test func errorShowsTheLineAndItsText() {
        let error = expectPlaylistError(.missingValue, line: 3) {
            _ = try Playlist.parse("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-STREAM-INF:RESOLUTION=1280x720\nv.m3u8\n", options: .strict)
        }
        #expect(error?.lineText == "#EXT-X-STREAM-INF:RESOLUTION=1280x720")
        #expect(error?.message.contains("BANDWIDTH") == true)
        #expect(error?.description == "line 3: \(error?.message ?? "")\n  #EXT-X-STREAM-INF:RESOLUTION=1280x720")
    }

    @Test func errorTextMakesControlCharactersVisibleAndShortensLongLines() {
        let error = expectPlaylistError(.malformedAttributeList, line: 2) {
            _ = try Playlist.parse("#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"\u{1}" + String(repeating: "k", count: 1000) + "\n")
        }
        let lineText = error?.lineText ?? ""
        #expect(lineText.hasPrefix("#EXT-X-KEY:METHOD=AES-128,URI=\"\\u{1}kkk"))
        #expect(lineText.count < 300)
        #expect(lineText.hasSuffix("(1032 bytes)"))
    }
}

/// Faults a client can recover from are warnings: reading goes on and nothing is lost.
@Suite("Warnings")
struct WarningTests {
    @Test func unknownAttributeIsAWarningKeptInOtherAttributes() throws {
        let text = "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-MAP:URI=\"init.mp4\",FUTURE-ATTRIBUTE=\"x\",LEVEL=3\n"
        let parsed = try Playlist.parse(text)
        #expect(parsed.warnings.map(\.line) == [3, 3])
        #expect(parsed.warnings.allSatisfy { $0.description.hasPrefix("line 3: ") })
        #expect(parsed.playlist.lines[2].tag == .map(Map(uri: "init.mp4", otherAttributes: [
            Attribute(name: "FUTURE-ATTRIBUTE", value: .quoted("x")), Attribute(name: "LEVEL", value: .token("3")),
        ])))
        #expect(try parsed.playlist.write() == text)
    }

    @Test func unknownAttributeIsWrittenBackAfterAnEdit() throws {
        var playlist = try Playlist(parsing: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,FUTURE=\"x\",RESOLUTION=2x2\nv.m3u8\n")
        guard case .streamInf(var stream) = playlist.lines[1].tag else { Issue.record("not a stream"); return }
        stream.bandwidth = 2
        playlist.lines[1].content = .tag(.streamInf(stream))
        #expect(try playlist.write() == "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2,RESOLUTION=2x2,FUTURE=\"x\"\nv.m3u8\n")
    }

    @Test func clientAttributesAreNotWarnedAbout() throws {
        #expect(try warnings(parsing: "#EXT-X-MAP:URI=\"init.mp4\",X-VENDOR=\"x\"").isEmpty)
    }

    @Test func quotedEnumeratedValueIsAWarningAndReadAsItsText() throws {
        let parsed = try Playlist.parse("#EXTM3U\n#EXT-X-MEDIA:TYPE=\"AUDIO\",GROUP-ID=\"a\",NAME=\"b\",DEFAULT=\"YES\",AUTOSELECT=YES\n")
        #expect(parsed.warnings.map(\.line) == [2, 2])
        guard case .media(let rendition) = parsed.playlist.lines[1].tag else { Issue.record("not a rendition"); return }
        #expect(rendition.type == .audio)
        #expect(rendition.isDefault)
    }

    @Test func quotedKeyMethodIsAWarning() throws {
        let parsed = try Playlist.parse("#EXTM3U\n#EXT-X-KEY:METHOD=\"AES-128\",URI=\"k\"\n")
        #expect(parsed.warnings.map(\.line) == [2])
        guard case .key(let key) = parsed.playlist.lines[1].tag else { Issue.record("not a key"); return }
        #expect(key.method == .aes128)
    }

    @Test func byteOrderMarkIsAWarningAndSkipped() throws {
        let parsed = try Playlist.parse(bytes: [0xEF, 0xBB, 0xBF] + Array("#EXTM3U\n#EXT-X-VERSION:3\n".utf8))
        #expect(parsed.warnings.map(\.line) == [1])
        #expect(parsed.playlist.lines.first?.tag == .m3u)
        #expect(try parsed.playlist.write() == "#EXTM3U\n#EXT-X-VERSION:3\n")
    }

    @Test func whiteSpaceAroundAURIIsAWarning() throws {
        let parsed = try Playlist.parse("#EXTM3U\n#EXTINF:1,\n  a.ts\t\n")
        #expect(parsed.playlist.lines[2].content == .uri("a.ts"))
        #expect(parsed.warnings.map(\.line) == [3])
    }

    @Test func parseWarningsAreCarriedIntoTheResolvedViews() throws {
        let playlist = try media("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-MAP:URI=\"i.mp4\",ODD=1\n#EXTINF:10\na.ts\n")
        #expect(playlist.warnings.map(\.line) == [3, 4])
        let main = try multivariant("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,ODD=1\nv.m3u8\n")
        #expect(main.warnings.map(\.line) == [2])
    }

    @Test func duplicateRenditionNameInAGroupIsAWarning() throws {
        let main = try multivariant("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"x\",URI=\"1.m3u8\"\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"x\",URI=\"2.m3u8\"\n")
        #expect(main.warnings.map(\.line) == [3])
        #expect(main.renditions.count == 2)
    }
}
