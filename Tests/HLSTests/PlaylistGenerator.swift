import CarryonTestSupport
import HLS

/// Builds random playlists from typed values, for property tests.
///
/// Every value it makes is one the writer can write: quoted strings without `"` or line
/// breaks, non-negative numbers where the grammar has no sign, the attributes each tag
/// requires. Within that, it reaches for the edges: empty and non-ASCII strings, integers up
/// to `Int.max`, doubles from subnormal to 1e300, unknown enumerated values, client
/// attributes, and every tag.
struct PlaylistGenerator {
    var random: SeededGenerator

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    // MARK: Primitives

    mutating func bool() -> Bool { Bool.random(using: &random) }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }

    mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random) }

    mutating func chance(_ oneIn: Int) -> Bool { int(1...oneIn) == 1 }

    mutating func maybe<T>(_ make: (inout PlaylistGenerator) -> T) -> T? {
        bool() ? make(&self) : nil
    }

    mutating func pick<T>(_ choices: [T]) -> T { choices.randomElement(using: &random)! }

    /// A non-negative integer: small, large, or at the edge.
    mutating func integer() -> Int {
        switch int(0..<6) {
        case 0: 0
        case 1: Int.max
        case 2: int(0...Int.max)
        default: int(0...100_000)
        }
    }

    /// A non-negative finite double: integral, decimal, tiny, huge or any bit pattern.
    mutating func double() -> Double {
        switch int(0..<7) {
        case 0: return Double(int(0...10_000))
        case 1: return Double(int(0...10_000_000)) / 1000
        case 2: return Double(int(1...999)) / 100_000
        case 3: return 1e300
        case 4: return Double.leastNonzeroMagnitude
        case 5: return 1e20
        default:
            var value: Double
            repeat {
                value = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &random) & ~(1 << 63))
            } while !value.isFinite
            return value
        }
    }

    mutating func signedDouble() -> Double { bool() ? -double() : double() }

    /// Characters a quoted string may hold: anything but `"`, CR, LF and NUL (and other
    /// control characters, which a line may not hold either).
    private static let textCharacters: [Character] = Array("abcXYZ019 ,=:;/?#@&%.-_'{}$\\<>[]~*+!éü東京🎬\t")

    /// Text for a quoted string.
    mutating func text(maxLength: Int = 12) -> String {
        String((0..<int(0...maxLength)).map { _ in pick(Self.textCharacters) })
    }

    /// Text that is not empty.
    mutating func nonEmptyText() -> String {
        var text = text()
        if text.isEmpty { text = "x" }
        return text
    }

    /// An unquoted token: letters, digits and a few marks, not empty.
    mutating func token() -> String {
        let characters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._/")
        return String((0..<int(1...10)).map { _ in pick(characters) })
    }

    /// A URI as it would appear in a tag or on a URI line.
    mutating func uri() -> String {
        pick(["seg.ts", "a/b/../c.mp4", "https://cdn.example.com/x.m3u8?token=1&b=%20", "skd://key", "data:text/plain,abc",
              "{$var}/seg-\(int(0...999)).ts", "file:///tmp/é.ts", "?query", "#frag"])
    }

    /// A URI line: not empty, not starting with `#` or white space.
    mutating func uriLine() -> String {
        var uri = uri()
        if uri.hasPrefix("#") || uri.hasPrefix("?") { uri = "x" + uri }
        return uri + (bool() ? "" : text().filter { $0 != " " && $0 != "\t" && $0 != "#" })
    }

    mutating func hex(maxBytes: Int) -> HexSequence {
        HexSequence(bytes: (0..<int(1...maxBytes)).map { _ in UInt8.random(in: 0...255, using: &random) })
    }

    mutating func byteRange() -> ByteRange {
        ByteRange(length: integer(), offset: maybe { $0.integer() })
    }

    mutating func resolution() -> Resolution { Resolution(width: integer(), height: integer()) }

    mutating func date() -> DateTime {
        if bool() {
            return DateTime(secondsSince1970: Double(int(-2_000_000_000_000...4_000_000_000_000)) / 1000)
        }
        let offset = pick(["Z", "+08:00", "-05:30", "+0100", "-02", "z"])
        let fraction = pick(["", ".5", ".031", ",25", ".123456789"])
        let text = "\(int(1000...2999))-\(pad(int(1...12)))-\(pad(int(1...28)))T\(pad(int(0...23))):\(pad(int(0...59))):\(pad(int(0...59)))\(fraction)\(offset)"
        return DateTime(text)!
    }

    private func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// Client attributes (`X-…`) with distinct names.
    mutating func clientAttributes() -> [Attribute] {
        (0..<int(0...2)).map { index in
            Attribute(name: "X-\(pick(["A", "COM-EXAMPLE", "9"]))-\(index)",
                      value: bool() ? .quoted(text()) : .token(token()))
        }
    }

    /// A variable name.
    mutating func variableName() -> String {
        let characters = Array("abcXYZ019-_")
        return String((0..<int(1...8)).map { _ in pick(characters) })
    }

    // MARK: Tags

    mutating func key(session: Bool) -> Key {
        let methods: [KeyMethod] = session ? [.aes128, .sampleAES, .sampleAESCTR, KeyMethod(rawValue: "FUTURE-1")]
            : [.none, .aes128, .sampleAES, .sampleAESCTR, KeyMethod(rawValue: "FUTURE-1")]
        let method = pick(methods)
        if method == .none { return Key(method: .none) }
        return Key(method: method, uri: uri(), iv: maybe { $0.hex(maxBytes: 16) }, keyFormat: maybe { $0.nonEmptyText() },
                   keyFormatVersions: maybe { $0.text() }, otherAttributes: clientAttributes())
    }

    mutating func streamInf(iFrame: Bool) -> StreamInf {
        StreamInf(
            bandwidth: integer(), averageBandwidth: maybe { $0.integer() }, score: maybe { $0.double() },
            codecs: maybe { $0.text() }, supplementalCodecs: maybe { $0.text() }, resolution: maybe { $0.resolution() },
            frameRate: maybe { $0.double() }, hdcpLevel: maybe { HDCPLevel(rawValue: $0.pick(["TYPE-0", "TYPE-1", "NONE", "TYPE-9"])) },
            allowedCPC: maybe { $0.text() }, videoRange: maybe { VideoRange(rawValue: $0.pick(["SDR", "HLG", "PQ", "FUTURE"])) },
            requiredVideoLayout: maybe { $0.text() }, stableVariantID: maybe { $0.text() }, audio: maybe { $0.text() },
            video: maybe { $0.text() }, subtitles: maybe { $0.text() },
            closedCaptions: iFrame ? nil : maybe { $0.bool() ? StreamInf.ClosedCaptions.none : .group($0.text()) },
            pathwayID: maybe { $0.text() }, uri: iFrame ? uri() : nil, otherAttributes: clientAttributes())
    }

    mutating func rendition() -> Rendition {
        let type = pick(MediaType.allCases)
        return Rendition(
            type: type, uri: type == .subtitles || (type != .closedCaptions && bool()) ? uri() : nil, groupID: text(),
            language: maybe { $0.text() }, assocLanguage: maybe { $0.text() }, name: text(),
            stableRenditionID: maybe { $0.text() }, isDefault: bool(), autoselect: bool(), forced: bool(),
            instreamID: type == .closedCaptions ? pick(["CC1", "CC4", "SERVICE63"]) : maybe { $0.text() },
            bitDepth: maybe { $0.integer() }, sampleRate: maybe { $0.integer() }, characteristics: maybe { $0.text() },
            channels: maybe { $0.text() }, otherAttributes: clientAttributes())
    }

    mutating func sessionData() -> SessionData {
        let hasValue = bool()
        return SessionData(dataID: text(), value: hasValue ? text() : nil, uri: hasValue ? nil : uri(),
                           format: maybe { $0.pick(SessionDataFormat.allCases) }, language: maybe { $0.text() },
                           otherAttributes: clientAttributes())
    }

    mutating func dateRange() -> DateRange {
        let start = maybe { $0.date() }
        var end = maybe { $0.date() }
        if let startDate = start, let endDate = end, endDate < startDate { end = start }
        let endOnNext = bool()
        return DateRange(
            id: text(), class: endOnNext ? nonEmptyText() : maybe { $0.text() }, startDate: start,
            cue: maybe { $0.pick(["PRE", "POST", "ONCE", "PRE,ONCE"]) }, endDate: end, duration: maybe { $0.double() },
            plannedDuration: maybe { $0.double() }, scte35Command: maybe { $0.hex(maxBytes: 40) },
            scte35Out: maybe { $0.hex(maxBytes: 40) }, scte35In: maybe { $0.hex(maxBytes: 40) }, endOnNext: endOnNext,
            otherAttributes: clientAttributes())
    }

    mutating func define() -> Define {
        switch int(0..<3) {
        case 0: .value(name: variableName(), value: text())
        case 1: .import(name: variableName())
        default: .queryParameter(name: variableName())
        }
    }

    /// A tag allowed in either kind of playlist (not `EXTM3U`).
    mutating func commonTag() -> Tag {
        switch int(0..<5) {
        case 0: .version(integer())
        case 1: .independentSegments
        case 2: .start(Start(timeOffset: signedDouble(), precise: bool(), otherAttributes: clientAttributes()))
        case 3: .define(define())
        default: unknownTag()
        }
    }

    mutating func unknownTag() -> Tag {
        .unknown(name: "EXT-X-" + pick(["FUTURE", "VENDOR-THING", "X", "CUE-OUT", "CUE-IN"]),
                 value: maybe { $0.pick(["", "A=1,B=\"2\"", "30.0", $0.text()]) })
    }

    mutating func mediaTag() -> Tag {
        switch int(0..<26) {
        case 0: .targetDuration(integer())
        case 1: .mediaSequence(integer())
        case 2: .discontinuitySequence(integer())
        case 3: .endList
        case 4: .playlistType(pick(PlaylistType.allCases))
        case 5: .iFramesOnly
        case 6: .partInf(PartInf(partTarget: double(), otherAttributes: clientAttributes()))
        case 7: .serverControl(ServerControl(
            canSkipUntil: maybe { $0.double() }, canSkipDateRanges: bool(), holdBack: maybe { $0.double() },
            partHoldBack: maybe { $0.double() }, canBlockReload: bool(), otherAttributes: clientAttributes()))
        case 8, 9, 10: .inf(Inf(duration: double(), title: bool() ? "" : text(maxLength: 30)))
        case 11: .byteRange(byteRange())
        case 12: .discontinuity
        case 13: .key(key(session: false))
        case 14: .map(Map(uri: uri(), byteRange: maybe { $0.byteRange() }, otherAttributes: clientAttributes()))
        case 15: .programDateTime(date())
        case 16: .gap
        case 17: .bitrate(integer())
        case 18: .part(Part(uri: uri(), duration: double(), independent: bool(), byteRange: maybe { $0.byteRange() },
                            gap: bool(), otherAttributes: clientAttributes()))
        case 19: .dateRange(dateRange())
        case 20: .skip(Skip(skippedSegments: integer(),
                            recentlyRemovedDateRanges: maybe { g in (0..<g.int(1...3)).map { _ in g.text().filter { $0 != "\t" } } },
                            otherAttributes: clientAttributes()))
        case 21: .preloadHint(PreloadHint(type: PreloadHintType(rawValue: pick(["PART", "MAP", "FUTURE"])), uri: uri(),
                                          byteRangeStart: maybe { $0.integer() }, byteRangeLength: maybe { $0.integer() },
                                          otherAttributes: clientAttributes()))
        case 22: .renditionReport(RenditionReport(uri: maybe { $0.uri() }, lastMediaSequence: maybe { $0.integer() },
                                                  lastPart: maybe { $0.integer() }, otherAttributes: clientAttributes()))
        default: commonTag()
        }
    }

    mutating func multivariantTag() -> Tag {
        switch int(0..<9) {
        case 0, 1: .streamInf(streamInf(iFrame: false))
        case 2: .iFrameStreamInf(streamInf(iFrame: true))
        case 3, 4: .media(rendition())
        case 5: .sessionData(sessionData())
        case 6: .sessionKey(key(session: true))
        case 7: .contentSteering(ContentSteering(serverURI: uri(), pathwayID: maybe { $0.text() },
                                                 otherAttributes: clientAttributes()))
        default: commonTag()
        }
    }

    // MARK: Playlists

    /// A playlist of one kind, with comments, blank lines and URI lines among its tags.
    mutating func playlist(kind: Playlist.Kind) -> Playlist {
        var lines = [Line(tag: .m3u)]
        for _ in 0..<int(0...25) {
            switch int(0..<10) {
            case 0: lines.append(Line(.blank))
            case 1: lines.append(Line(.comment(pick(["", " comment", "EX", "#EXT", text()]))))
            case 2, 3: lines.append(Line(uri: uriLine()))
            default: lines.append(Line(tag: kind == .media ? mediaTag() : multivariantTag()))
            }
        }
        // Text cannot end in a blank line without a line feed: the blank would be the feed.
        let endsWithNewline = lines.last?.content == .blank || bool()
        return Playlist(lines: lines, endsWithNewline: endsWithNewline)
    }
}
