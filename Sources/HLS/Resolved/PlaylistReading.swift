/// Reading a playlist whose kind is not known yet, without keeping the lines of a media playlist.
///
/// A media playlist is most of the text a stream has: a 24-hour VOD playlist of 90 000
/// segments, or a hostile one of millions. Parsed into lines and then resolved, its lines — a
/// ``Line`` and often a boxed tag for each — cost more memory than its segments. Read here, the
/// parser hands each line to the ``MediaPlaylist`` resolver as it reads it and keeps none; only
/// a multivariant playlist (small, and written back line by line by whoever rewrites it) is
/// parsed whole.
public enum PlaylistReading: Sendable {
    /// A media playlist, resolved.
    case media(MediaPlaylist)
    /// A multivariant playlist, parsed (resolve it with ``MultivariantPlaylist``).
    case multivariant(Playlist.Parsed)

    /// Reads UTF-8 `bytes` read from `url`: a media playlist in one pass, resolved as
    /// ``MediaPlaylist/init(_:url:imports:warnings:options:)`` would resolve its parsed lines
    /// (the same segments, warnings and errors), or a multivariant playlist parsed.
    ///
    /// - Parameters:
    ///   - bytes: The playlist as read.
    ///   - url: The absolute URL it was read from.
    ///   - imports: For a media playlist, the multivariant playlist's variables (`EXT-X-DEFINE:IMPORT`).
    ///   - options: How leniently to read, as for ``Playlist/parse(bytes:options:)``.
    /// - Throws: ``PlaylistError`` naming the line, as parsing and resolving do.
    public init(bytes: [UInt8], url: String, imports: [String: String]? = nil,
                options: Playlist.ParseOptions = []) throws(PlaylistError) {
        if let media = Self.oneTextPass(bytes, url: url, imports: imports, options: options) {
            self = .media(media)
            return
        }
        // A multivariant playlist, one the resolver needs whole, or an error: parsed and
        // resolved as ever, which gives the error exactly as a two-step read would.
        let parsed = try Playlist.parse(bytes: bytes, options: options)
        switch parsed.playlist.kind {
        case .multivariant:
            self = .multivariant(parsed)
        case .media:
            self = .media(try MediaPlaylist(parsed.playlist, url: url, imports: imports,
                                            warnings: parsed.warnings, options: options))
        }
    }

    /// How a playlist was read by ``read(bytes:url:imports:options:eachSegment:)``.
    package enum Streamed: Sendable {
        /// A media playlist read in one pass: every segment went to `eachSegment`, in order,
        /// and the playlist holds none.
        case streamed(MediaPlaylist)
        /// A media playlist read whole, its segments in it; `eachSegment` may have seen some of
        /// them already and must be started over.
        case media(MediaPlaylist)
        /// A multivariant playlist, parsed; `eachSegment` may have seen segments it had.
        case multivariant(Playlist.Parsed)
    }

    /// Reads `bytes` as ``init(bytes:url:imports:options:)`` does, but a media playlist read in
    /// one pass keeps no segment either: each goes to `eachSegment` as it is resolved (a planner
    /// that turns each into a row keeps neither lines nor segments).
    package static func read(bytes: [UInt8], url: String, imports: [String: String]? = nil, options: Playlist.ParseOptions = [],
                             eachSegment: (Segment) throws(PlaylistError) -> Void) throws(PlaylistError) -> Streamed {
        let streamed = withoutActuallyEscaping(eachSegment) { sink in
            oneTextPass(bytes, url: url, imports: imports, options: options, segmentSink: sink)
        }
        if let streamed { return .streamed(streamed) }
        switch try PlaylistReading(bytes: bytes, url: url, imports: imports, options: options) {
        case .media(let media): return .media(media)
        case .multivariant(let parsed): return .multivariant(parsed)
        }
    }

    /// About how many segments a media playlist of `bytes` has, at most: half its lines (an
    /// `EXTINF` and a URI each), from the line feeds in its first 64 KiB. For reserving room.
    package static func estimatedSegmentCount(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBufferPointer { Parser.estimatedLineCount($0) / 2 + 1 }
    }

    /// The media playlist `bytes` hold, read in one pass; nil when they need the whole
    /// playlist or hold an error (which the caller then reads the usual way).
    static func oneTextPass(_ bytes: [UInt8], url: String, imports: [String: String]?,
                            options: Playlist.ParseOptions,
                            segmentSink: ((Segment) throws(PlaylistError) -> Void)? = nil) -> MediaPlaylist? {
        bytes.withUnsafeBufferPointer { buffer -> MediaPlaylist? in
            var resolver = MediaResolver(url: url, imports: imports, warnings: [], strict: options.contains(.strict))
            resolver.segmentSink = segmentSink
            var sink = ResolvingSink(resolver: resolver)
            sink.resolver.begin(lineCount: Parser.estimatedLineCount(buffer))
            do throws(PlaylistError) {
                let ending = try Playlist.read(bytes: buffer, options: options, into: &sink)
                return try sink.resolver.finish(parserWarnings: ending.warnings)
            } catch {
                return nil
            }
        }
    }
}

/// The parser's sink for a media playlist read in one pass: each line to the resolver.
private struct ResolvingSink: LineSink {
    static var keepsSource: Bool { false }
    var resolver: MediaResolver

    mutating func take(_ line: consuming Line, number: Int, text: UnsafeBufferPointer<UInt8>) throws(PlaylistError) {
        try resolver.take(line, number: number, text: text)
    }
}
