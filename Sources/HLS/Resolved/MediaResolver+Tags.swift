/// The tags of a media playlist other than `EXTINF` and `EXT-X-PROGRAM-DATE-TIME`, which
/// ``MediaResolver/take(_:number:text:)`` takes itself.
extension MediaResolver {
    /// Tag `tag` on line `number`: what it says for the playlist, or for the segments after it.
    /// Not inlined into `take`, whose every call would otherwise set up what only these need.
    @inline(never)
    mutating func takeTag(_ tag: Tag, line: borrowing Line, number: Int, text bytes: UnsafeBufferPointer<UInt8>?) throws(PlaylistError) {
        func fail(_ error: TagError) -> PlaylistError { failure(error, line: line, number: number, text: bytes) }
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
