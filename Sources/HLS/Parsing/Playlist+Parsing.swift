extension Playlist {
    /// The result of parsing: the playlist and what the parser recovered from.
    public struct Parsed: Sendable {
        /// The playlist, line by line.
        public var playlist: Playlist
        /// Deviations from the specification that the parser recovered from, in line order.
        public var warnings: [PlaylistWarning]
        /// The options the playlist was parsed with, for resolving it the same way.
        public var options: ParseOptions
    }

    /// Parses M3U8 text.
    ///
    /// Lines may end in LF or CRLF (a lone CR is read as a line end, with a warning). The parser
    /// reads the text in place, without copying it line by line. By default a deviation a careful
    /// player survives — an unknown attribute, a quoted hexadecimal value, a lower-case
    /// enumerated value, comment lines before `#EXTM3U` — becomes a warning that says what was
    /// assumed; with ``ParseOptions/strict`` it throws. Anything no safe reading exists for
    /// throws a ``PlaylistError`` that names the line.
    ///
    /// - Throws: ``PlaylistError`` for text that is not a playlist.
    public static func parse(_ text: String, options: ParseOptions = []) throws(PlaylistError) -> Parsed {
        var text = text
        text.makeContiguousUTF8()
        let result: Result<Parsed, PlaylistError> = text.utf8.withContiguousStorageIfAvailable { buffer in
            var parser = Parser(text: text, bytes: buffer, options: options)
            var collector = LineCollector(capacity: Parser.estimatedLineCount(buffer))
            do throws(PlaylistError) {
                let ending = try parser.run(into: &collector)
                return .success(Parsed(playlist: Playlist(lines: collector.lines, endsWithNewline: ending.endsWithNewline),
                                       warnings: ending.warnings, options: options))
            } catch {
                return .failure(error)
            }
        }!
        return try result.get()
    }

    /// Parses M3U8 bytes, which must be UTF-8.
    ///
    /// - Throws: ``PlaylistError`` with code ``PlaylistError/Code/invalidUTF8`` naming the first
    ///   line that is not UTF-8, or any error of ``parse(_:options:)-(String,_)``.
    public static func parse<Bytes: Collection<UInt8>>(bytes: Bytes, options: ParseOptions = []) throws(PlaylistError) -> Parsed {
        if let text = String(validating: bytes, as: UTF8.self) {
            return try parse(text, options: options)
        }
        throw invalidUTF8(bytes)
    }

    /// Reads UTF-8 `bytes` line by line into `sink`, with no copy of the text: as
    /// ``parse(bytes:options:)`` does, with the same errors and warnings, but keeping nothing.
    static func read<Sink: LineSink>(bytes: UnsafeBufferPointer<UInt8>, options: ParseOptions,
                                     into sink: inout Sink) throws(PlaylistError) -> ParseEnding {
        guard isUTF8(bytes) else { throw invalidUTF8(bytes) }
        var parser = Parser(text: nil, bytes: bytes, options: options)
        return try parser.run(into: &sink)
    }

    /// Whether `bytes` are UTF-8. ASCII, as nearly every playlist is, is told eight bytes at a
    /// time without a copy; anything else is checked by making the String a parse would (and
    /// dropping it).
    static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var index = 0
        var high: UInt64 = 0
        while index + 8 <= bytes.count {
            high |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            high |= UInt64(bytes[index])
            index += 1
        }
        if high & 0x8080_8080_8080_8080 == 0 { return true }
        return String(validating: bytes, as: UTF8.self) != nil
    }

    /// The error for `bytes` that are not UTF-8, naming the first line that is not.
    private static func invalidUTF8<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> PlaylistError {
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
        return PlaylistError(.invalidUTF8, line: line, "the playlist is not valid UTF-8 (RFC 8216bis section 4.1 requires it)")
    }

    /// Parses M3U8 text, ignoring warnings. See ``parse(_:options:)-(String,_)``.
    public init(parsing text: String, options: ParseOptions = []) throws(PlaylistError) {
        self = try Playlist.parse(text, options: options).playlist
    }
}

/// Where the parser puts each line it reads, in order.
protocol LineSink {
    /// Whether the parser gives each line the text it was read from (``Line/source``): true to
    /// keep a playlist that writes back byte for byte, false for a reader that uses each line
    /// once (the text is passed to ``take(_:number:text:)`` either way).
    static var keepsSource: Bool { get }

    /// Line `number` (1-based), and its bytes as written without the line terminator, valid
    /// only during the call.
    mutating func take(_ line: consuming Line, number: Int, text: UnsafeBufferPointer<UInt8>) throws(PlaylistError)
}

/// The sink of ``Playlist/parse(_:options:)-(String,_)``: every line, kept.
struct LineCollector: LineSink {
    static var keepsSource: Bool { true }
    var lines: [Line] = []

    /// A collector with room for about `capacity` lines: growing an array of lines copies it,
    /// and reserving far too much costs page faults on large playlists.
    init(capacity: Int) {
        lines.reserveCapacity(capacity)
    }

    mutating func take(_ line: consuming Line, number: Int, text: UnsafeBufferPointer<UInt8>) {
        lines.append(line)
    }
}

/// How the text ended, and what the parse recovered from.
struct ParseEnding {
    var endsWithNewline: Bool
    var warnings: [PlaylistWarning]
}
