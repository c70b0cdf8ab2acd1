/// Walks the lines once, carrying the state that tags apply to the segments after them.
///
/// Fed either a parsed playlist (``resolve(_:)``) or, by the one-pass reader, each line as the
/// parser reads it (``take(_:number:text:)`` then ``finish(parserWarnings:)``), keeping no line.
/// Fed line by line it cannot look ahead: where the answer depends on lines not read yet (a lone
/// URI line without `EXTINF`) or the playlist turns out multivariant, it throws
/// ``needsWholePlaylist``, and the reader parses the whole playlist instead.
struct MediaResolver {
    let url: String
    /// `url` split once, for the many segment URIs resolved against it.
    let base: URIReference.Components
    /// What a relative path and an absolute path resolve under (see
    /// `URIReference.resolveDirectly(_:prefix:origin:)`).
    let basePrefix: String?
    let baseOrigin: String?
    let imports: [String: String]?
    let strict: Bool
    var warnings: [PlaylistWarning]
    var variables = Variables(lineCount: 0)
    /// The lines, when resolving a parsed playlist; nil when fed one line at a time.
    var lines: [Line]?

    // What the lines read so far say.
    var result: MediaPlaylist
    var targetDuration: Int?
    var keys: [SegmentKey] = []
    /// Boxed once per EXT-X-MAP, and shared by every segment it applies to.
    var initSection: Shared<InitSection>?
    var bitrate: Int?
    // Tags that apply to the next segment only.
    var inf: (Inf, line: Int)?
    var pendingRange: (ByteRange, line: Int)?
    var pendingDiscontinuity = false
    var pendingGap = false
    var pendingDate: DateTime?
    var pendingParts: [PartialSegment] = []
    var lastPart: PartialSegment?
    /// The next segment's number; nil once the numbers are past `Int.max`.
    var nextMediaSequence: Int? = 0
    var discontinuitySequence = 0
    var startTime = 0.0
    var sawSegmentTag = false
    var mediaSequenceLine: Int?
    var discontinuitySequenceLine: Int?
    var longestSegment = 0.0
    /// The `#EXTM3U` line (lines a lenient read allowed before it are not the playlist).
    var headerLine: Int?
    /// The URI and range of the segment before the line being read, for a byte range that
    /// continues its range (the whole segment would be copied and released once a segment).
    var previous: (uri: String, byteRange: ResolvedByteRange?)?
    /// Where each segment goes as it is resolved, instead of into the playlist's ``MediaPlaylist/segments``.
    var segmentSink: ((Segment) throws(PlaylistError) -> Void)?
    /// Whether an `EXTINF`, and a tag only a multivariant playlist has, were read: with the
    /// second and not the first, ``Playlist/kind`` says multivariant.
    var sawInf = false
    var sawMultivariantTag = false

    /// Thrown when fed line by line, where the answer needs the whole playlist.
    static let needsWholePlaylist = PlaylistError(.structure, "the playlist must be read whole")

    init(url: String, imports: [String: String]?, warnings: [PlaylistWarning], strict: Bool) {
        self.url = url
        self.base = URIReference.Components(url)
        self.basePrefix = URIReference.directoryPrefix(of: base)
        self.baseOrigin = URIReference.origin(of: base)
        self.imports = imports
        self.warnings = warnings
        self.strict = strict
        self.result = MediaPlaylist(url: url)
    }

    /// A deviation on line `number`: a warning, or in strict mode the error.
    mutating func recover(_ error: TagError, line number: Int, _ line: Line,
                                  _ bytes: UnsafeBufferPointer<UInt8>?) throws(TagError) {
        if strict { throw error }
        warnings.append(PlaylistWarning(line: number, lineText: display(line, bytes), error.message))
    }

    /// A line as an error or warning shows it: its bytes as written, else its source.
    func display(_ line: Line, _ bytes: UnsafeBufferPointer<UInt8>?) -> String? {
        if let bytes { return displayText(bytes) }
        return line.source.map(displayText)
    }

    /// Whether the playlist is one URI line and no `EXTINF`: a single resource, as plain M3U
    /// lists write one. Only a whole playlist can say.
    func isSingleResource() throws(PlaylistError) -> Bool {
        guard let lines else { throw Self.needsWholePlaylist }
        var uris = 0
        for line in lines {
            switch line.content {
            case .uri: uris += 1
            case .tag(.inf): return false
            default: continue
            }
        }
        return uris == 1
    }

    /// Resolves a parsed playlist.
    mutating func resolve(_ playlist: Playlist) throws(PlaylistError) -> MediaPlaylist {
        lines = playlist.lines
        begin(lineCount: playlist.lines.count)
        // Each line borrowed in place: a copy of a line (and its release) per line costs a
        // tenth of the resolution.
        try playlist.lines.withUnsafeBufferPointer { (lines) throws(PlaylistError) in
            for index in lines.indices {
                try take(lines[index], number: index + 1, text: nil)
            }
        }
        return try finish(parserWarnings: [])
    }

    /// Readies the resolver for a playlist of about `lineCount` lines.
    mutating func begin(lineCount: Int) {
        variables = Variables(lineCount: lineCount)
        if segmentSink == nil { result.segments.reserveCapacity(lineCount / 2) }
    }

    /// Line `number` of the playlist, `text` its bytes as written when the line keeps no source.
    ///
    /// Kept small, as it runs for every line: `EXTINF` and `EXT-X-PROGRAM-DATE-TIME` (all the
    /// lines but the URIs of many playlists) are taken here, a URI line and any other tag by
    /// functions of their own.
    mutating func take(_ line: borrowing Line, number: Int, text bytes: UnsafeBufferPointer<UInt8>?) throws(PlaylistError) {
        switch line.content {
        case .blank, .comment:
            return
        case .uri(let written):
            try takeURI(written, line: line, number: number, text: bytes)
        case .tag(.inf(let value)):
            sawInf = true
            if let (_, previous) = inf {
                throw failure(TagError(.structure, "EXTINF follows the EXTINF on line \(previous) without a URI line between them"),
                              line: line, number: number, text: bytes)
            }
            inf = (value, number)
            sawSegmentTag = true
        case .tag(.programDateTime(let date)):
            pendingDate = date
        case .tag(let tag):
            try takeTag(tag, line: line, number: number, text: bytes)
        }
    }

    /// An error on line `number`, showing the line.
    func failure(_ error: TagError, line: borrowing Line, number: Int, text bytes: UnsafeBufferPointer<UInt8>?) -> PlaylistError {
        PlaylistError(error.code, line: number, lineText: display(line, bytes), error.message)
    }

    /// A URI line: the segment the tags before it describe.
    private mutating func takeURI(_ written: String, line: borrowing Line, number: Int,
                                  text bytes: UnsafeBufferPointer<UInt8>?) throws(PlaylistError) {
        func fail(_ error: TagError) -> PlaylistError { failure(error, line: line, number: number, text: bytes) }
        let info: Inf
        if let (pending, _) = inf {
            info = pending
        } else if !strict, previous == nil, try isSingleResource() {
            warnings.append(PlaylistWarning(line: number, lineText: display(line, bytes),
                "the URI line has no EXTINF before it; as the playlist has no other segment, it is read as a single resource of unknown duration"))
            info = Inf(duration: -1)
        } else {
            throw fail(TagError(.structure, "the URI line \(written) has no EXTINF before it"))
        }
        let duration = info.isDurationKnown ? info.duration : 0
        longestSegment = max(longestSegment, duration)
        let uri: String
        do throws(TagError) { uri = try variables.substitute(written) } catch { throw fail(error) }
        guard let mediaSequence = nextMediaSequence else {
            throw fail(TagError(.invalidValue, "the segment's media sequence number would be greater than \(Int.max)"))
        }
        let absolute = URIReference.resolveDirectly(uri, prefix: basePrefix, origin: baseOrigin)
            ?? URIReference.resolve(uri, against: base)
        var range: ResolvedByteRange?
        if let (byteRange, rangeLine) = pendingRange {
            if let offset = byteRange.offset {
                range = try ResolvedByteRange.checked(offset: offset, length: byteRange.length, line: rangeLine)
                if let previous, previous.uri == absolute, let previousRange = previous.byteRange,
                   let range, range.range.overlaps(previousRange.range) {
                    throw PlaylistError(.byteRange, line: rangeLine,
                        "EXT-X-BYTERANGE:\(byteRange) overlaps the previous segment's range \(previousRange) of the same resource; Carryon does not guess which bytes are meant")
                }
            } else if let previous, previous.uri == absolute,
                      let previousRange = previous.byteRange {
                range = try ResolvedByteRange.checked(offset: previousRange.range.upperBound, length: byteRange.length, line: rangeLine)
            } else {
                throw PlaylistError(.byteRange, line: rangeLine,
                    "EXT-X-BYTERANGE:\(byteRange) has no offset, so it must continue a byte range of the same resource in the previous segment, but \(previous.map { $0.byteRange == nil ? "the previous segment is a whole resource" : "the previous segment is a range of \($0.uri)" } ?? "there is no previous segment")")
            }
        }
        // Share the list of keys unless an IV has to be derived for this segment.
        var segmentKeys = keys
        if keys.contains(where: { $0.iv == nil && ($0.method == .aes128 || $0.method == .sampleAES) }) {
            let derived = HexSequence.iv(mediaSequence: mediaSequence)
            for index in segmentKeys.indices where segmentKeys[index].iv == nil
                && (segmentKeys[index].method == .aes128 || segmentKeys[index].method == .sampleAES) {
                segmentKeys[index].iv = derived
                segmentKeys[index].ivIsDerived = true
            }
        }
        if let targetDuration, duration.rounded() > Double(targetDuration) {
            warnings.append(PlaylistWarning(line: number, "the segment lasts \(Number.format(duration)) s, longer than the target duration of \(targetDuration) s"))
        }
        let segment = Segment(
            uri: absolute, line: number, mediaSequence: mediaSequence,
            discontinuitySequence: discontinuitySequence, discontinuity: pendingDiscontinuity, isGap: pendingGap,
            startTime: startTime, duration: duration, isDurationKnown: info.isDurationKnown, title: info.title,
            attributes: info.attributes, byteRange: range,
            keys: segmentKeys, sharedInitSection: initSection, programDateTime: pendingDate,
            bitrate: range == nil ? bitrate : nil, parts: pendingParts)
        if let segmentSink {
            try segmentSink(segment)
        } else {
            result.segments.append(consume segment)
        }
        // The URI is needed only to continue or check a range of it (and spares a retain).
        previous = (range == nil ? "" : absolute, range)
        startTime += duration
        let (next, overflow) = mediaSequence.addingReportingOverflow(1)
        nextMediaSequence = overflow ? nil : next
        inf = nil
        pendingRange = nil
        pendingDiscontinuity = false
        pendingGap = false
        pendingDate = nil
        pendingParts = []
    }

    /// The playlist, once every line was taken; `parserWarnings` are what the parser recovered from.
    mutating func finish(parserWarnings: [PlaylistWarning]) throws(PlaylistError) -> MediaPlaylist {
        if lines == nil, sawMultivariantTag, !sawInf {
            // Renditions or session tags and no segment: a multivariant playlist after all.
            throw Self.needsWholePlaylist
        }
        if let (_, line) = inf {
            throw PlaylistError(.structure, line: line, "this EXTINF has no URI line after it")
        }
        if let targetDuration {
            result.targetDuration = targetDuration
        } else {
            // A segment may claim any finite length; the target duration is an Int.
            let assumed = longestSegment < 0x1p62 ? Int(longestSegment.rounded(.up)) : Int(0x1p62)
            if strict { throw PlaylistError(.structure, "the media playlist has no EXT-X-TARGETDURATION, which RFC 8216bis requires") }
            // Said of the #EXTM3U line: lines a lenient read allowed before it are not the playlist.
            let header = headerLine ?? 1
            warnings.append(PlaylistWarning(line: header, "the media playlist has no EXT-X-TARGETDURATION, which RFC 8216bis requires; the longest segment, \(assumed) s (rounded up), is assumed"))
            result.targetDuration = assumed
        }
        result.trailingParts = pendingParts
        result.variables = variables.values
        result.warnings = (parserWarnings + warnings).sorted { $0.line < $1.line }
        return result
    }
}

