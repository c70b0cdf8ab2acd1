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
    /// What a plain segment reference resolves under (see `URIReference.directoryPrefix(of:)`).
    let basePrefix: String?
    let imports: [String: String]?
    let strict: Bool
    var warnings: [PlaylistWarning]
    var variables = Variables(lineCount: 0)
    /// The lines, when resolving a parsed playlist; nil when fed one line at a time.
    private var lines: [Line]?

    // What the lines read so far say.
    private var result: MediaPlaylist
    private var targetDuration: Int?
    private var keys: [SegmentKey] = []
    /// Boxed once per EXT-X-MAP, and shared by every segment it applies to.
    private var initSection: Shared<InitSection>?
    private var bitrate: Int?
    // Tags that apply to the next segment only.
    private var inf: (Inf, line: Int)?
    private var pendingRange: (ByteRange, line: Int)?
    private var pendingDiscontinuity = false
    private var pendingGap = false
    private var pendingDate: DateTime?
    private var pendingParts: [PartialSegment] = []
    private var lastPart: PartialSegment?
    /// The next segment's number; nil once the numbers are past `Int.max`.
    private var nextMediaSequence: Int? = 0
    private var discontinuitySequence = 0
    private var startTime = 0.0
    private var sawSegmentTag = false
    private var mediaSequenceLine: Int?
    private var discontinuitySequenceLine: Int?
    private var longestSegment = 0.0
    /// The `#EXTM3U` line (lines a lenient read allowed before it are not the playlist).
    private var headerLine: Int?
    /// The segment before the line being read, for a byte range that continues its range.
    private var previous: Segment?
    /// Where each segment goes as it is resolved, instead of into the playlist's ``MediaPlaylist/segments``.
    var segmentSink: ((Segment) throws(PlaylistError) -> Void)?
    /// Whether an `EXTINF`, and a tag only a multivariant playlist has, were read: with the
    /// second and not the first, ``Playlist/kind`` says multivariant.
    private var sawInf = false
    private var sawMultivariantTag = false

    /// Thrown when fed line by line, where the answer needs the whole playlist.
    static let needsWholePlaylist = PlaylistError(.structure, "the playlist must be read whole")

    init(url: String, imports: [String: String]?, warnings: [PlaylistWarning], strict: Bool) {
        self.url = url
        self.base = URIReference.Components(url)
        self.basePrefix = URIReference.directoryPrefix(of: base)
        self.imports = imports
        self.warnings = warnings
        self.strict = strict
        self.result = MediaPlaylist(url: url)
    }

    /// A deviation on line `number`: a warning, or in strict mode the error.
    private mutating func recover(_ error: TagError, line number: Int, _ line: Line,
                                  _ bytes: UnsafeBufferPointer<UInt8>?) throws(TagError) {
        if strict { throw error }
        warnings.append(PlaylistWarning(line: number, lineText: display(line, bytes), error.message))
    }

    /// A line as an error or warning shows it: its bytes as written, else its source.
    private func display(_ line: Line, _ bytes: UnsafeBufferPointer<UInt8>?) -> String? {
        if let bytes { return displayText(bytes) }
        return line.source.map(displayText)
    }

    /// Whether the playlist is one URI line and no `EXTINF`: a single resource, as plain M3U
    /// lists write one. Only a whole playlist can say.
    private func isSingleResource() throws(PlaylistError) -> Bool {
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
        for (index, line) in playlist.lines.enumerated() {
            try take(line, number: index + 1, text: nil)
        }
        return try finish(parserWarnings: [])
    }

    /// Readies the resolver for a playlist of about `lineCount` lines.
    mutating func begin(lineCount: Int) {
        variables = Variables(lineCount: lineCount)
        if segmentSink == nil { result.segments.reserveCapacity(lineCount / 2) }
    }

    /// Line `number` of the playlist, `text` its bytes as written when the line keeps no source.
    mutating func take(_ line: Line, number: Int, text bytes: UnsafeBufferPointer<UInt8>?) throws(PlaylistError) {
        func fail(_ error: TagError) -> PlaylistError {
            PlaylistError(error.code, line: number, lineText: display(line, bytes), error.message)
        }
        switch line.content {
        case .blank, .comment:
            return
        case .uri(let written):
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
            let absolute = basePrefix.flatMap { URIReference.resolvePlainSegment(uri, under: $0) }
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
                result.segments.append(segment)
            }
            previous = segment
            startTime += duration
            let (next, overflow) = mediaSequence.addingReportingOverflow(1)
            nextMediaSequence = overflow ? nil : next
            inf = nil
            pendingRange = nil
            pendingDiscontinuity = false
            pendingGap = false
            pendingDate = nil
            pendingParts = []
        case .tag(let tag):
            switch tag {
            case .m3u where headerLine == nil: headerLine = number
            case .inf: sawInf = true
            case .streamInf, .iFrameStreamInf:
                // A multivariant playlist: the reader parses it whole.
                if lines == nil { throw Self.needsWholePlaylist }
            case .media, .sessionData, .sessionKey, .contentSteering: sawMultivariantTag = true
            default: break
            }
            do throws(TagError) {
                switch tag {
                case .m3u, .unknown: break
                case .version(let value): result.version = value
                case .independentSegments: result.independentSegments = true
                case .start(let start): result.start = start
                case .define(let define):
                    try variables.define(define, playlistURL: url, imports: imports, isMultivariant: false)
                case .targetDuration(let value):
                    targetDuration = value
                case .mediaSequence(let value):
                    if sawSegmentTag {
                        try recover(TagError(.structure, "EXT-X-MEDIA-SEQUENCE must come before the first segment; ignored, the segments keep their numbers"), line: number, line, bytes)
                    } else if let first = mediaSequenceLine {
                        try recover(TagError(.structure, "a second EXT-X-MEDIA-SEQUENCE; ignored, the one on line \(first) applies"), line: number, line, bytes)
                    } else {
                        mediaSequenceLine = number
                        nextMediaSequence = value
                        result.mediaSequence = value
                    }
                case .discontinuitySequence(let value):
                    if sawSegmentTag {
                        try recover(TagError(.structure, "EXT-X-DISCONTINUITY-SEQUENCE must come before the first segment; ignored"), line: number, line, bytes)
                    } else if let first = discontinuitySequenceLine {
                        try recover(TagError(.structure, "a second EXT-X-DISCONTINUITY-SEQUENCE; ignored, the one on line \(first) applies"), line: number, line, bytes)
                    } else {
                        discontinuitySequenceLine = number
                        discontinuitySequence = value
                        result.discontinuitySequence = value
                    }
                case .endList: result.hasEndList = true
                case .playlistType(let type): result.playlistType = type
                case .iFramesOnly: result.iFramesOnly = true
                case .partInf(let value): result.partInf = value
                case .serverControl(let value): result.serverControl = value
                case .inf(let value):
                    if let (_, previous) = inf {
                        throw TagError(.structure, "EXTINF follows the EXTINF on line \(previous) without a URI line between them")
                    }
                    inf = (value, number)
                    sawSegmentTag = true
                case .byteRange(let range):
                    pendingRange = (range, number)
                case .discontinuity:
                    pendingDiscontinuity = true
                    let (next, overflow) = discontinuitySequence.addingReportingOverflow(1)
                    if overflow {
                        throw TagError(.invalidValue, "EXT-X-DISCONTINUITY makes the discontinuity sequence number greater than \(Int.max)")
                    }
                    discontinuitySequence = next
                    sawSegmentTag = true
                case .key(let key), .sessionKey(let key):
                    if case .sessionKey = tag {
                        try recover(TagError(.mixedPlaylist, "EXT-X-SESSION-KEY belongs in a multivariant playlist; applied as an EXT-X-KEY to the segments after it"), line: number, line, bytes)
                    }
                    if key.method == .none {
                        keys = []
                    } else {
                        let resolved = try key.resolved(variables, base: url)
                        let entry = SegmentKey(method: resolved.method, uri: resolved.uri ?? "", iv: resolved.iv,
                                               ivIsDerived: false, keyFormat: resolved.effectiveKeyFormat,
                                               keyFormatVersions: resolved.keyFormatVersions, line: number)
                        keys.removeAll { $0.keyFormat == entry.keyFormat }
                        // Every segment carries every key in effect: bound the work and memory
                        // a hostile playlist can ask for. Real streams use a handful of formats.
                        guard keys.count < MediaPlaylist.maximumKeyFormats else {
                            throw TagError(.invalidValue, "more than \(MediaPlaylist.maximumKeyFormats) key formats would be in effect at once")
                        }
                        keys.append(entry)
                    }
                    sawSegmentTag = true
                case .map(let map):
                    let uri = URIReference.resolve(try variables.substitute(map.uri), against: url)
                    var range: ResolvedByteRange?
                    if let byteRange = map.byteRange {
                        if byteRange.offset == nil {
                            warnings.append(PlaylistWarning(line: number, "EXT-X-MAP BYTERANGE should give an offset; 0 is assumed"))
                        }
                        range = try ResolvedByteRange.checked(offset: byteRange.offset ?? 0, length: byteRange.length)
                    }
                    if keys.contains(where: { $0.method == .aes128 && $0.iv == nil }) {
                        warnings.append(PlaylistWarning(line: number, "an EXT-X-MAP encrypted with AES-128 needs an EXT-X-KEY with an IV"))
                    }
                    initSection = Shared(InitSection(uri: uri, byteRange: range, keys: keys, line: number))
                    sawSegmentTag = true
                case .programDateTime(let date):
                    pendingDate = date
                case .gap:
                    pendingGap = true
                case .bitrate(let value):
                    bitrate = value
                case .part(let part):
                    let uri = URIReference.resolve(try variables.substitute(part.uri), against: url)
                    var range: ResolvedByteRange?
                    if let byteRange = part.byteRange {
                        if let offset = byteRange.offset {
                            range = try ResolvedByteRange.checked(offset: offset, length: byteRange.length)
                        } else if let last = lastPart, last.uri == uri, let lastRange = last.byteRange {
                            range = try ResolvedByteRange.checked(offset: lastRange.range.upperBound, length: byteRange.length)
                        } else {
                            throw TagError(.byteRange, "EXT-X-PART BYTERANGE=\"\(byteRange)\" has no offset, so it must continue a range of the same resource in the previous partial segment")
                        }
                    }
                    let partial = PartialSegment(uri: uri, duration: part.duration, independent: part.independent,
                                                 byteRange: range, isGap: part.gap, line: number)
                    pendingParts.append(partial)
                    lastPart = partial
                case .dateRange(let range):
                    result.dateRanges.append(try range.resolved(variables))
                case .skip(let skip):
                    result.skip = skip
                    let next = nextMediaSequence.map { $0.addingReportingOverflow(skip.skippedSegments) }
                    guard let next, !next.overflow else {
                        throw TagError(.invalidValue, "EXT-X-SKIP:SKIPPED-SEGMENTS=\(skip.skippedSegments) makes the next media sequence number greater than \(Int.max)")
                    }
                    nextMediaSequence = next.partialValue
                case .preloadHint(let hint):
                    result.preloadHints.append(try hint.resolved(variables, base: url))
                case .renditionReport(let report):
                    result.renditionReports.append(try report.resolved(variables, base: url))
                case .media, .streamInf, .iFrameStreamInf, .sessionData, .contentSteering:
                    try recover(TagError(.mixedPlaylist, "\(tag.name) belongs in a multivariant playlist, not a media playlist; ignored"), line: number, line, bytes)
                }
            } catch {
                throw fail(error)
            }
        }
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

