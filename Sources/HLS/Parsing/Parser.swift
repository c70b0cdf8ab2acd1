#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Playlist {
    /// The result of parsing: the playlist and what the parser recovered from.
    public struct Parsed: Sendable {
        /// The playlist, line by line.
        public var playlist: Playlist
        /// Deviations from the specification that the parser recovered from, in line order.
        public var warnings: [PlaylistWarning]
    }

    /// Parses M3U8 text.
    ///
    /// Lines may end in LF or CRLF. The parser reads the text in place, without copying it line by
    /// line. A fault the specification lets a client recover from — an unknown attribute, a
    /// quoted enumerated value — becomes a warning; anything else throws a ``PlaylistError`` that
    /// names the line.
    ///
    /// - Throws: ``PlaylistError`` for text that is not a playlist.
    public static func parse(_ text: String) throws(PlaylistError) -> Parsed {
        var text = text
        text.makeContiguousUTF8()
        let result: Result<Parsed, PlaylistError> = text.utf8.withContiguousStorageIfAvailable { buffer in
            var parser = Parser(text: text, bytes: buffer)
            do throws(PlaylistError) {
                return .success(try parser.run())
            } catch {
                return .failure(error)
            }
        }!
        return try result.get()
    }

    /// Parses M3U8 bytes, which must be UTF-8.
    ///
    /// - Throws: ``PlaylistError`` with code ``PlaylistError/Code/invalidUTF8`` naming the first
    ///   line that is not UTF-8, or any error of ``parse(_:)-(String)``.
    public static func parse<Bytes: Collection<UInt8>>(bytes: Bytes) throws(PlaylistError) -> Parsed {
        if let text = String(validating: bytes, as: UTF8.self) {
            return try parse(text)
        }
        var line = 1
        var current: [UInt8] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if String(validating: current, as: UTF8.self) == nil { break }
                line += 1
                current.removeAll(keepingCapacity: true)
            } else {
                current.append(byte)
            }
        }
        throw PlaylistError(.invalidUTF8, line: line, "the playlist is not valid UTF-8 (RFC 8216bis section 4.1 requires it)")
    }

    /// Parses M3U8 text, ignoring warnings. See ``parse(_:)-(String)``.
    public init(parsing text: String) throws(PlaylistError) {
        self = try Playlist.parse(text).playlist
    }
}

/// The line reader: splits the input at line feeds and types each line.
struct Parser {
    let text: String
    let bytes: UnsafeBufferPointer<UInt8>
    var warnings: [PlaylistWarning] = []
    var lineNumber = 0
    /// The first media-only and multivariant-only tag seen, to refuse a playlist mixing them.
    var firstMediaTag: (line: Int, name: String)?
    var firstMultivariantTag: (line: Int, name: String)?

    init(text: String, bytes: UnsafeBufferPointer<UInt8>) {
        self.text = text
        self.bytes = bytes
    }

    mutating func run() throws(PlaylistError) -> Playlist.Parsed {
        var start = 0
        let count = bytes.count
        guard let base = bytes.baseAddress, count > 0 else {
            throw PlaylistError(.missingHeader, line: 1, "the playlist is empty; it must start with #EXTM3U")
        }
        if let nul = memchr(base, 0, count) {
            let offset = UnsafePointer<UInt8>(nul.assumingMemoryBound(to: UInt8.self)) - base
            let line = 1 + UnsafeBufferPointer(rebasing: bytes[0..<offset]).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            throw PlaylistError(.controlCharacter, line: line, "the line contains a NUL byte (column \(offset - lineStart(before: offset) + 1))")
        }
        // A UTF-8 byte order mark is forbidden but harmless: skip it and say so.
        if count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            warnings.append(PlaylistWarning(line: 1, "the playlist starts with a byte order mark, which RFC 8216bis forbids; it is ignored"))
            start = 3
        }
        // Reserve about what is needed: growing an array of lines copies it, and reserving far
        // too much costs page faults on large playlists.
        var lines: [Line] = []
        lines.reserveCapacity(Parser.estimatedLineCount(bytes))
        var endsWithNewline = false
        let utf8 = text.utf8
        while start < count {
            let newline = memchr(base + start, 0x0A, count - start)
            let end = newline.map { UnsafePointer<UInt8>($0.assumingMemoryBound(to: UInt8.self)) - base } ?? count
            var contentEnd = end
            if contentEnd > start, bytes[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            if newline == nil, contentEnd == start, lineNumber > 0 {
                // Only a CR after the last line feed: what is left of a CRLF, not a blank line
                // (which no text without a final line feed could write back).
                break
            }
            lineNumber += 1
            let line = UnsafeBufferPointer(rebasing: bytes[start..<contentEnd])
            let content = try parseLine(line)
            if case .uri(let uri) = content, uri.utf8.count == line.count {
                // The line is its URI: keep the text once (and spare a retain of the input).
                lines.append(Line(parsedURI: uri))
            } else {
                let source = text[utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: contentEnd)]
                lines.append(Line(content, source: source))
            }
            if newline == nil {
                endsWithNewline = false
                break
            }
            endsWithNewline = true
            start = end + 1
        }
        return Playlist.Parsed(playlist: Playlist(lines: lines, endsWithNewline: endsWithNewline), warnings: warnings)
    }

    /// About how many lines the text has, from the line feeds in its first 64 KiB: a little
    /// over rather than under, and no more than one line per 12 bytes (the array grows if it must).
    static func estimatedLineCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
        let sample = min(bytes.count, 1 << 16)
        var newlines = 0
        var index = 0
        while index < sample, let found = memchr(base + index, 0x0A, sample - index) {
            newlines += 1
            index = UnsafeRawPointer(found) - UnsafeRawPointer(base) + 1
        }
        if sample == bytes.count { return newlines + 1 }
        let estimate = Int(Double(bytes.count) * Double(newlines + 1) / Double(sample) * 1.05) + 16
        return min(estimate, bytes.count / 12 + 16)
    }

    private func lineStart(before offset: Int) -> Int {
        var index = offset
        while index > 0, bytes[index - 1] != 0x0A { index -= 1 }
        return index
    }

    private func error(_ code: PlaylistError.Code, _ line: UnsafeBufferPointer<UInt8>, _ message: String) -> PlaylistError {
        PlaylistError(code, line: lineNumber, lineText: displayText(line), message)
    }

    private mutating func warn(_ message: String) {
        warnings.append(PlaylistWarning(line: lineNumber, message))
    }

    private mutating func parseLine(_ line: UnsafeBufferPointer<UInt8>) throws(PlaylistError) -> Line.Content {
        if lineNumber == 1 {
            guard line.count >= 7, line[0] == UInt8(ascii: "#"), line[1] == UInt8(ascii: "E"),
                  line[2] == UInt8(ascii: "X"), line[3] == UInt8(ascii: "T"), line[4] == UInt8(ascii: "M"),
                  line[5] == UInt8(ascii: "3"), line[6] == UInt8(ascii: "U")
            else {
                throw error(.missingHeader, line, "the first line must be #EXTM3U; this is not an M3U8 playlist")
            }
        }
        guard let first = line.first else { return .blank }
        if first == UInt8(ascii: "#") {
            if line.count >= 4, line[1] == UInt8(ascii: "E"), line[2] == UInt8(ascii: "X"), line[3] == UInt8(ascii: "T") {
                return .tag(try parseTag(line))
            }
            return .comment(String(decoding: UnsafeBufferPointer(rebasing: line[1...]), as: UTF8.self))
        }
        // A URI line; surrounding white space is not part of it.
        var start = 0
        var end = line.count
        while start < end, line[start] == UInt8(ascii: " ") || line[start] == UInt8(ascii: "\t") { start += 1 }
        while end > start, line[end - 1] == UInt8(ascii: " ") || line[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        if start == end { return .blank }
        if start > 0 || end < line.count { warn("white space around a URI is ignored") }
        return .uri(String(decoding: UnsafeBufferPointer(rebasing: line[start..<end]), as: UTF8.self))
    }

    private mutating func parseTag(_ line: UnsafeBufferPointer<UInt8>) throws(PlaylistError) -> Tag {
        // Name: from after '#' to ':' or the end.
        var colon = 1
        while colon < line.count, line[colon] != UInt8(ascii: ":") { colon += 1 }
        let name = UnsafeBufferPointer(rebasing: line[1..<colon])
        let value: UnsafeBufferPointer<UInt8>? = colon < line.count ? UnsafeBufferPointer(rebasing: line[(colon + 1)...]) : nil

        // EXTINF is most lines of a media playlist: match it first.
        let known: TagName?
        if name.count == 6, name[3] == UInt8(ascii: "I"), name[4] == UInt8(ascii: "N"), name[5] == UInt8(ascii: "F") {
            known = .inf
        } else {
            known = TagName.lookup(name)
        }
        guard let known else {
            return .unknown(name: String(decoding: name, as: UTF8.self), value: value.map { String(decoding: $0, as: UTF8.self) })
        }
        let tag: Tag
        do throws(TagError) {
            tag = try decode(known, value: value)
        } catch {
            throw self.error(error.code, line, error.message)
        }
        // Pass the scope and name rather than the tag, which would be retained for the call.
        try checkScope(tag.scope, known, line)
        return tag
    }

    private mutating func checkScope(_ scope: Tag.Scope, _ name: TagName, _ line: UnsafeBufferPointer<UInt8>) throws(PlaylistError) {
        switch scope {
        case .any: return
        case .media:
            if firstMediaTag == nil { firstMediaTag = (lineNumber, name.rawValue) }
        case .multivariant:
            if firstMultivariantTag == nil { firstMultivariantTag = (lineNumber, name.rawValue) }
        }
        if let media = firstMediaTag, let multivariant = firstMultivariantTag {
            let (this, other) = scope == .media ? (media, multivariant) : (multivariant, media)
            throw error(.mixedPlaylist, line,
                        "\(this.name) belongs in a \(scope == .media ? "media" : "multivariant") playlist, but line \(other.line) has \(other.name), which belongs in a \(scope == .media ? "multivariant" : "media") playlist; a playlist cannot be both")
        }
    }

    private mutating func decode(_ name: TagName, value: UnsafeBufferPointer<UInt8>?) throws(TagError) -> Tag {
        let tagName = name.rawValue
        func required() throws(TagError) -> UnsafeBufferPointer<UInt8> {
            guard let value, !value.isEmpty else { throw TagError(.missingValue, "\(tagName) needs a value after ':'") }
            return value
        }
        func integer() throws(TagError) -> Int {
            let value = try required()
            guard let number = Number.decimalInteger(value) else {
                throw TagError(.invalidValue, "\(tagName): \"\(String(decoding: value, as: UTF8.self))\" is not a decimal integer")
            }
            return number
        }
        /// The attribute list; with `allowingNone`, for tags whose attributes are all optional,
        /// an empty or absent list too (the writer writes `ServerControl()` as an empty list).
        func attributes(allowingNone: Bool = false) throws(TagError) -> AttributeReader {
            if allowingNone, value?.isEmpty ?? true { return AttributeReader([], tag: tagName) }
            return AttributeReader(try AttributeList.parse(try required(), tag: tagName), tag: tagName)
        }
        func noValue(_ tag: Tag) -> Tag {
            if value != nil { warn("\(tagName) takes no value; the value is ignored") }
            return tag
        }
        switch name {
        case .inf:
            let value = try required()
            var comma = 0
            while comma < value.count, value[comma] != UInt8(ascii: ",") { comma += 1 }
            let durationBytes = UnsafeBufferPointer(rebasing: value[0..<comma])
            guard let duration = Number.decimalFloat(durationBytes) else {
                throw TagError(.invalidValue, "EXTINF: \"\(String(decoding: durationBytes, as: UTF8.self))\" is not a duration in seconds")
            }
            if comma == value.count { warn("EXTINF lacks the comma after its duration") }
            let title = comma + 1 < value.count
                ? String(decoding: UnsafeBufferPointer(rebasing: value[(comma + 1)...]), as: UTF8.self) : ""
            return .inf(Inf(duration: duration, title: title))
        case .m3u: return noValue(.m3u)
        case .version: return .version(try integer())
        case .independentSegments: return noValue(.independentSegments)
        case .endList: return noValue(.endList)
        case .iFramesOnly: return noValue(.iFramesOnly)
        case .discontinuity: return noValue(.discontinuity)
        case .gap: return noValue(.gap)
        case .mediaSequence: return .mediaSequence(try integer())
        case .discontinuitySequence: return .discontinuitySequence(try integer())
        case .bitrate: return .bitrate(try integer())
        case .targetDuration:
            let value = try required()
            if let number = Number.decimalInteger(value) { return .targetDuration(number) }
            if let number = Number.decimalFloat(value), number < Double(Int.max) {
                warn("EXT-X-TARGETDURATION must be a decimal integer; \(Number.format(number)) is read as \(Int(number.rounded(.up)))")
                return .targetDuration(Int(number.rounded(.up)))
            }
            throw TagError(.invalidValue, "EXT-X-TARGETDURATION: \"\(String(decoding: value, as: UTF8.self))\" is not a decimal integer")
        case .playlistType:
            let text = String(decoding: try required(), as: UTF8.self)
            guard let type = PlaylistType(rawValue: text) else {
                throw TagError(.invalidValue, "EXT-X-PLAYLIST-TYPE: \"\(text)\" is neither EVENT nor VOD")
            }
            return .playlistType(type)
        case .byteRange:
            let text = String(decoding: try required(), as: UTF8.self)
            guard let range = ByteRange(text) else {
                throw TagError(.invalidValue, "EXT-X-BYTERANGE: \"\(text)\" is not a byte range (length[@offset])")
            }
            return .byteRange(range)
        case .programDateTime:
            let text = String(decoding: try required(), as: UTF8.self)
            guard let date = DateTime(text) else {
                throw TagError(.invalidValue, "EXT-X-PROGRAM-DATE-TIME: \"\(text)\" is not an ISO 8601 date and time with a time zone")
            }
            return .programDateTime(date)
        case .start:
            var reader = try attributes()
            let tag = Tag.start(try Start(reading: &reader))
            return finish(tag, reader)
        case .define:
            var reader = try attributes()
            let tag = Tag.define(try Define(reading: &reader))
            return finish(tag, reader)
        case .partInf:
            var reader = try attributes()
            let tag = Tag.partInf(try PartInf(reading: &reader))
            return finish(tag, reader)
        case .serverControl:
            var reader = try attributes(allowingNone: true)
            let tag = Tag.serverControl(try ServerControl(reading: &reader))
            return finish(tag, reader)
        case .key, .sessionKey:
            var reader = try attributes()
            let key = try Key(reading: &reader)
            if name == .sessionKey, key.method == .none {
                throw TagError(.invalidValue, "EXT-X-SESSION-KEY must not have METHOD=NONE")
            }
            return finish(name == .key ? .key(key) : .sessionKey(key), reader)
        case .map:
            var reader = try attributes()
            let tag = Tag.map(try Map(reading: &reader))
            return finish(tag, reader)
        case .part:
            var reader = try attributes()
            let tag = Tag.part(try Part(reading: &reader))
            return finish(tag, reader)
        case .dateRange:
            var reader = try attributes()
            let tag = Tag.dateRange(try DateRange(reading: &reader))
            return finish(tag, reader)
        case .skip:
            var reader = try attributes()
            let tag = Tag.skip(try Skip(reading: &reader))
            return finish(tag, reader)
        case .preloadHint:
            var reader = try attributes()
            let tag = Tag.preloadHint(try PreloadHint(reading: &reader))
            return finish(tag, reader)
        case .renditionReport:
            var reader = try attributes(allowingNone: true)
            let tag = Tag.renditionReport(try RenditionReport(reading: &reader))
            return finish(tag, reader)
        case .media:
            var reader = try attributes()
            let tag = Tag.media(try Rendition(reading: &reader))
            return finish(tag, reader)
        case .streamInf, .iFrameStreamInf:
            var reader = try attributes()
            let stream = try StreamInf(reading: &reader, iFrame: name == .iFrameStreamInf)
            return finish(name == .streamInf ? .streamInf(stream) : .iFrameStreamInf(stream), reader)
        case .sessionData:
            var reader = try attributes()
            let tag = Tag.sessionData(try SessionData(reading: &reader))
            return finish(tag, reader)
        case .contentSteering:
            var reader = try attributes()
            let tag = Tag.contentSteering(try ContentSteering(reading: &reader))
            return finish(tag, reader)
        }
    }

    private mutating func finish(_ tag: Tag, _ reader: AttributeReader) -> Tag {
        for message in reader.warnings { warn(message) }
        return tag
    }
}

extension TagName {
    /// The names' bytes in memory that lives as long as the process, so that matching a name
    /// neither retains nor releases anything (``table`` retains each entry's array as it is
    /// read). Never written after it is made, hence safe to share.
    nonisolated(unsafe) private static let names: [(name: TagName, bytes: UnsafeBufferPointer<UInt8>)] = allCases.map { name in
        let utf8 = Array(name.rawValue.utf8)
        let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: utf8.count)
        _ = storage.initialize(from: utf8)
        return (name, UnsafeBufferPointer(storage))
    }

    /// The known tag named by these bytes (the text between `#` and `:`), if any.
    static func lookup(_ name: UnsafeBufferPointer<UInt8>) -> TagName? {
        guard let start = name.baseAddress else { return nil }
        for entry in names where entry.bytes.count == name.count {
            if memcmp(entry.bytes.baseAddress!, start, name.count) == 0 { return entry.name }
        }
        return nil
    }
}
