extension Playlist {
    /// Calls `body` with each line of the UTF-8 playlist `bytes`, in order, keeping none: the
    /// line as parsed (without ``Line/source``), its 1-based number and its bytes as written
    /// without the line terminator (valid only during the call). For whoever rewrites a large
    /// playlist line by line without holding its lines.
    ///
    /// - Returns: Whether the text ends with a line terminator, as ``endsWithNewline`` says.
    /// - Throws: ``PlaylistError`` as ``parse(bytes:options:)`` does, or what `body` throws.
    package static func forEachLine(in bytes: [UInt8], options: ParseOptions = [],
                                    _ body: (Line, Int, UnsafeBufferPointer<UInt8>) throws(PlaylistError) -> Void) throws(PlaylistError) -> Bool {
        try withoutActuallyEscaping(body) { escapable throws(PlaylistError) in
            var sink = ClosureSink(body: escapable)
            return try bytes.withUnsafeBufferPointer { buffer throws(PlaylistError) in
                try Playlist.read(bytes: buffer, options: options, into: &sink).endsWithNewline
            }
        }
    }
}

extension Line.Content {
    /// The line's canonical text, as the writer writes a changed line.
    ///
    /// - Throws: ``PlaylistError`` with code ``PlaylistError/Code/unwritable`` for content no
    ///   line can hold.
    package func canonicalText() throws(PlaylistError) -> String {
        var text = ""
        try write(to: &text)
        return text
    }
}

/// A sink that hands each line to a closure.
private struct ClosureSink: LineSink {
    static var keepsSource: Bool { false }
    let body: (Line, Int, UnsafeBufferPointer<UInt8>) throws(PlaylistError) -> Void

    mutating func take(_ line: consuming Line, number: Int, text: UnsafeBufferPointer<UInt8>) throws(PlaylistError) {
        try body(line, number, text)
    }
}
