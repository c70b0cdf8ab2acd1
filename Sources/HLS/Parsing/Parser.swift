#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The line reader: splits the input at line ends and types each line.
struct Parser {
    /// The text `bytes` are the UTF-8 of, for the sources of kept lines; nil when the sink keeps none.
    let text: String?
    let bytes: UnsafeBufferPointer<UInt8>
    let options: Playlist.ParseOptions
    let recoveries: Recoveries
    var lineNumber = 0
    /// Whether `#EXTM3U` has been read; lines before it may only be blank or comments.
    var sawHeader = false
    /// The first media-only and multivariant-only tag seen, to refuse a playlist mixing them
    /// (in strict mode; otherwise the resolvers ignore the tags of the other kind).
    var firstMediaTag: (line: Int, name: String)?
    var firstMultivariantTag: (line: Int, name: String)?
    /// Whether the line just read is exactly the canonical text of its content (so that its
    /// text need not be kept): a URI without white space around it, an `EXTINF` or
    /// `EXT-X-PROGRAM-DATE-TIME` written as ``Playlist/write()`` writes one.
    var lineIsCanonical = false

    init(text: String?, bytes: UnsafeBufferPointer<UInt8>, options: Playlist.ParseOptions) {
        self.text = text
        self.bytes = bytes
        self.options = options
        self.recoveries = Recoveries(strict: options.contains(.strict))
    }

    /// Reads every line into `sink`. The bytes must be UTF-8 (`Playlist.parse` checks it).
    mutating func run<Sink: LineSink>(into sink: inout Sink) throws(PlaylistError) -> ParseEnding {
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
            recoveries.line = 1
            recoveries.text = UnsafeBufferPointer(rebasing: bytes[3..<min(count, 80)])
            do throws(TagError) {
                try recoveries.recover("byte-order-mark", .structure,
                                       "the playlist starts with a byte order mark, which RFC 8216bis forbids; it is ignored")
            } catch {
                throw PlaylistError(error.code, line: 1, error.message)
            }
            start = 3
        }
        // Only a playlist with a carriage return needs looking for lone ones (old Mac line ends).
        let hasCarriageReturn = memchr(base + start, 0x0D, count - start) != nil
        var endsWithNewline = false
        while start < count {
            let newline = memchr(base + start, 0x0A, count - start)
            var end = newline.map { UnsafePointer<UInt8>($0.assumingMemoryBound(to: UInt8.self)) - base } ?? count
            var next: Int? = newline == nil ? nil : end + 1
            var contentEnd = end
            var loneCarriageReturn = false
            var endsWithCarriageReturn = false
            if hasCarriageReturn, let found = memchr(base + start, 0x0D, end - start) {
                let carriageReturn = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
                contentEnd = carriageReturn
                if carriageReturn + 1 == end {
                    // CRLF, or a CR that ends the text: a line end either way.
                    if newline == nil { endsWithCarriageReturn = true }
                } else {
                    // A CR inside what an LF would make one line: the line ends there.
                    end = carriageReturn
                    next = carriageReturn + 1
                    loneCarriageReturn = true
                }
            }
            if next == nil, contentEnd == start, lineNumber > 0 {
                // Only a CR after the last line end: what is left of a CRLF, not a blank line
                // (which no text without a final line feed could write back).
                break
            }
            lineNumber += 1
            let line = UnsafeBufferPointer(rebasing: bytes[start..<contentEnd])
            recoveries.line = lineNumber
            recoveries.text = line
            if loneCarriageReturn {
                do throws(TagError) {
                    try recoveries.recover("lone-cr", .structure, "the line ends in a carriage return without a line feed; read as a line end")
                } catch {
                    throw self.error(error.code, line, error.message)
                }
            }
            let content = try parseLine(line)
            if !Sink.keepsSource {
                try sink.take(Line(content), number: lineNumber, text: line)
            } else if lineIsCanonical {
                // The line is the canonical text of what it says: keep that once (and spare a
                // retain of the input).
                try sink.take(Line(canonical: content), number: lineNumber, text: line)
            } else if let text {
                let utf8 = text.utf8
                let source = text[utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: contentEnd)]
                try sink.take(Line(content, source: source), number: lineNumber, text: line)
            } else {
                preconditionFailure("a sink that keeps sources needs the text")
            }
            guard let next else {
                endsWithNewline = endsWithCarriageReturn
                break
            }
            endsWithNewline = true
            start = next
        }
        if !sawHeader {
            throw PlaylistError(.missingHeader, line: lineNumber, "the playlist has no #EXTM3U line, only blank lines and comments; this is not an M3U8 playlist")
        }
        return ParseEnding(endsWithNewline: endsWithNewline, warnings: recoveries.finish())
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
        // What is not a playlist at all (an HTML page, another server's JSON) is quoted only as
        // far as tells which it is: an error may be shown to whoever asked for the URL.
        PlaylistError(code, line: lineNumber, lineText: displayText(line, limit: code == .missingHeader ? 48 : 160), message)
    }

    /// A deviation on the current line: a warning, or in strict mode an error naming the line.
    private func recover(_ kind: String, _ code: PlaylistError.Code, _ line: UnsafeBufferPointer<UInt8>,
                         _ message: @autoclosure () -> String) throws(PlaylistError) {
        do throws(TagError) {
            try recoveries.recover(kind, code, message())
        } catch {
            throw self.error(error.code, line, error.message)
        }
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

    private mutating func parseLine(_ line: UnsafeBufferPointer<UInt8>) throws(PlaylistError) -> Line.Content {
        lineIsCanonical = false
        if !sawHeader {
            if line.count >= 7, line[0] == UInt8(ascii: "#"), line[1] == UInt8(ascii: "E"),
               line[2] == UInt8(ascii: "X"), line[3] == UInt8(ascii: "T"), line[4] == UInt8(ascii: "M"),
               line[5] == UInt8(ascii: "3"), line[6] == UInt8(ascii: "U") {
                sawHeader = true
            } else if line.allSatisfy(Parser.isSpace) {
                try recover("before-header", .missingHeader, line, "a blank line before #EXTM3U is ignored")
                return .blank
            } else if line[0] == UInt8(ascii: "#"), !(line.count >= 4 && line[1] == UInt8(ascii: "E")
                                                      && line[2] == UInt8(ascii: "X") && line[3] == UInt8(ascii: "T")) {
                try recover("before-header", .missingHeader, line, "a comment before #EXTM3U is ignored")
                return .comment(String(decoding: UnsafeBufferPointer(rebasing: line[1...]), as: UTF8.self))
            } else {
                throw error(.missingHeader, line, lineNumber == 1
                    ? "the first line must be #EXTM3U; this is not an M3U8 playlist"
                    : "#EXTM3U must come before any tag or URI (only blank lines and comments may precede it); this is not an M3U8 playlist")
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
        while start < end, Parser.isSpace(line[start]) { start += 1 }
        while end > start, Parser.isSpace(line[end - 1]) { end -= 1 }
        if start == end { return .blank }
        if start > 0 || end < line.count {
            try recover("uri-space", .structure, line, "white space around a URI is ignored")
        } else {
            lineIsCanonical = true
        }
        return .uri(String(decoding: UnsafeBufferPointer(rebasing: line[start..<end]), as: UTF8.self))
    }

    /// Reads a tag line. White space after a value is dealt with where the value is read (an
    /// EXTINF title or an unknown tag's value keeps it); after a name without a value it is
    /// ignored with a warning.
    private mutating func parseTag(_ line: UnsafeBufferPointer<UInt8>) throws(PlaylistError) -> Tag {
        let whole = line
        // Name: from after '#' to ':' or the end.
        var colon = 1
        while colon < line.count, line[colon] != UInt8(ascii: ":") { colon += 1 }
        // `#EXTM3U x-tvg-url="…"`: IPTV lists write attributes after the header and a space.
        if line.count > 7, Parser.isSpace(line[7]), line[1] == UInt8(ascii: "E"), line[2] == UInt8(ascii: "X"),
           line[3] == UInt8(ascii: "T"), line[4] == UInt8(ascii: "M"), line[5] == UInt8(ascii: "3"), line[6] == UInt8(ascii: "U"),
           line[7...].contains(where: { !Parser.isSpace($0) }) {
            colon = 7
        }
        var nameEnd = colon
        if colon == line.count, Parser.isSpace(line[colon - 1]) {
            while Parser.isSpace(line[nameEnd - 1]) { nameEnd -= 1 }
            try recover("trailing-space", .structure, line, "white space after the tag is ignored")
        }
        let name = UnsafeBufferPointer(rebasing: line[1..<nameEnd])
        let value: UnsafeBufferPointer<UInt8>? = colon < line.count ? UnsafeBufferPointer(rebasing: line[(colon + 1)...]) : nil

        // EXTINF is most lines of a media playlist, EXT-X-PROGRAM-DATE-TIME all the others of
        // some: read them here, without the general decoder's set-up.
        let known: TagName
        let tag: Tag
        do throws(TagError) {
            if name.count == 6, name[3] == UInt8(ascii: "I"), name[4] == UInt8(ascii: "N"), name[5] == UInt8(ascii: "F") {
                known = .inf
                if let value, !value.isEmpty {
                    tag = .inf(try Inf(reading: value, recoveries: recoveries))
                    lineIsCanonical = Inf.isCanonical(value)
                } else {
                    tag = try decode(known, value: value)
                }
            } else if let found = TagName.lookup(name) {
                known = found
                if known == .programDateTime, let value, let date = DateTime(bytes: value) {
                    tag = .programDateTime(date)
                    lineIsCanonical = date.isCanonical
                } else {
                    tag = try decode(known, value: value)
                }
            } else {
                return .unknown(name: String(decoding: name, as: UTF8.self), value: value.map { String(decoding: $0, as: UTF8.self) })
            }
        } catch {
            throw self.error(error.code, whole, error.message)
        }
        // Pass the scope and name rather than the tag, which would be retained for the call.
        if recoveries.strict { try checkScope(tag.scope, known, whole) }
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
}
