import HLS

/// The playlists a bundle holds: the origin's, pointing at the bundle's files, and always in the
/// strict form of RFC 8216bis, however leniently the origin's were read.
///
/// A playlist read without a warning is copied line by line (each unchanged line as the origin
/// wrote it). One read with warnings is written canonically: every line in canonical form, and
/// what the reader assumed written out — the `EXT-X-TARGETDURATION` it computed, the media
/// sequence it applied, an `EXTINF` for a lone resource, `EXT-X-KEY` for a stray
/// `EXT-X-SESSION-KEY` — while what it ignored (tags of the other kind of playlist, tags it could
/// not read, malformed SCTE-35 values, IPTV attributes) is left out.
extension DownloadPlan {
    /// The rendition's playlist with every URI pointing at the bundle's files, variables made
    /// explicit, and the low-latency tags (whose parts are not downloaded) left out.
    ///
    /// Written line by line from the playlist as fetched, as the parser reads it again: a
    /// playlist of a million segments is never held as lines.
    ///
    /// - Parameters:
    ///   - media: The playlist resolved (its segments need not be kept).
    ///   - fetched: The playlist as fetched.
    ///   - segmentFile: Each segment's bundle-relative file, by its index in the playlist; nil
    ///     for a gap.
    ///   - mapFile: The bundle-relative file of the `EXT-X-MAP` on a line, by the line's number.
    ///   - window: The segments kept, for a download of a ``TimeRange``; nil: all of them.
    ///   - capacity: The room first given to the text (by default half as much again as the
    ///     origin's); when it needs more it is written again with what it needs.
    static func localMediaPlaylist(media: MediaPlaylist, fetched: [UInt8], key: String, segmentFile: (Int) -> String?,
                                   mapFile: (Int) -> String?, keyLines: [Int: String?] = [:], window: PlaylistWindow? = nil,
                                   capacity: Int? = nil) throws(CarryonError) -> String {
        let canonical = !media.warnings.isEmpty
        func writeLines(into output: inout LineOutput) throws(PlaylistError) {
            var segmentIndex = 0
            // The extension of the last segment file named, for the name of a gap after it.
            var gapExtension = ".ts"
            var sawHeader = false
            var sawInf = false
            // With a window: the keys and initialization section in effect before its first
            // segment, written just before it.
            var pending = PlaylistWindow.Pending()
            let endsWithNewline = try Playlist.forEachLine(in: fetched) { (line: Line, number: Int, text: UnsafeBufferPointer<UInt8>) throws(PlaylistError) in
                var line = line
                // Whether the line is written as the origin wrote it.
                var verbatim = true
                if !sawHeader {
                    // Blank lines and comments a lenient read allowed before #EXTM3U go.
                    guard case .tag(.m3u) = line.content else { return }
                    sawHeader = true
                    try output.append(line, verbatim: canonical ? nil : text)
                    if canonical {
                        // What the reader took these to be, once, before any segment.
                        try output.append(Line(tag: .targetDuration(media.targetDuration)))
                    }
                    // A window's sequence numbers are its first segment's.
                    let mediaSequence = window?.mediaSequence ?? media.mediaSequence
                    let discontinuitySequence = window?.discontinuitySequence ?? media.discontinuitySequence
                    if canonical || window != nil {
                        if mediaSequence != 0 { try output.append(Line(tag: .mediaSequence(mediaSequence))) }
                        if discontinuitySequence != 0 { try output.append(Line(tag: .discontinuitySequence(discontinuitySequence))) }
                    }
                    return
                }
                // Where the line stands against the window: before it, in it, or after it.
                let place = window?.place(of: segmentIndex) ?? .inside
                // A key or initialization section before the window, written before its first segment.
                var deferred = false
                if place != .inside {
                    switch line.content {
                    case .tag(let tag) where PlaylistWindow.isPlaylistTag(tag): break
                    case .tag(.key) where place == .before, .tag(.sessionKey) where place == .before, .tag(.map) where place == .before:
                        deferred = true
                    case .uri:
                        // A segment left out.
                        segmentIndex += 1
                        sawInf = false
                        return
                    default:
                        // The tags of segments left out, and everything after the window.
                        return
                    }
                } else if !pending.isEmpty {
                    for kept in pending.take() { try output.append(kept) }
                }
                switch line.content {
                case .uri:
                    if canonical, !sawInf {
                        // A lone resource without EXTINF: its duration is unknown.
                        try output.append(Line(tag: .inf(Inf(duration: 0))))
                    }
                    sawInf = false
                    // A gap segment: nothing was fetched; keep a name inside the bundle, with
                    // its neighbours' extension (ffmpeg refuses a playlist naming a segment
                    // whose extension is not a media file's).
                    let file = segmentFile(segmentIndex)
                    if let file, let dot = file.lastIndex(of: "."), !file[dot...].contains("/") { gapExtension = String(file[dot...]) }
                    let name = file.map { relativePath($0, fromFolder: key) } ?? "gap-\(segmentIndex)\(gapExtension)"
                    segmentIndex += 1
                    // A name the plan made (no line break, no leading '#' or space): written as it is.
                    output.appendLine(name)
                    return
                case .tag(.inf(var inf)):
                    sawInf = true
                    if canonical {
                        if !inf.isDurationKnown { inf.duration = 0 }
                        inf.attributes = []
                        line.content = .tag(.inf(inf))
                        verbatim = false
                    }
                case .tag(.targetDuration):
                    if canonical { return }
                case .tag(.mediaSequence), .tag(.discontinuitySequence):
                    if canonical || window != nil { return }
                case .tag(.byteRange(var range)) where range.offset == nil && window?.isFirst(segmentIndex) == true:
                    // It continued the range of a segment left out: it names its offset.
                    range.offset = window?.rangeOffset
                    line.content = .tag(.byteRange(range))
                    verbatim = false
                case .tag(.map(var map)):
                    if let file = mapFile(number) {
                        map.uri = relativePath(file, fromFolder: key)
                        line.content = .tag(.map(map))
                        verbatim = false
                    }
                case .tag(.key(var tag)), .tag(.sessionKey(var tag)):
                    // A stray EXT-X-SESSION-KEY was applied as an EXT-X-KEY, and is written as one.
                    var changed = !(line.tag.map { if case .key = $0 { true } else { false } } ?? false)
                    if let local = keyLines[number] {
                        // A key the bundle keeps goes through the playback server; another key
                        // format of the same segments, which Carryon did not obtain, goes.
                        guard let local else { return }
                        tag.uri = local
                        changed = true
                    }
                    if changed || canonical {
                        line.content = .tag(.key(tag))
                        verbatim = false
                    }
                case .tag(.define(let define)):
                    if let value = media.variables[define.name] {
                        line.content = .tag(.define(.value(name: define.name, value: value)))
                        verbatim = false
                    }
                case .tag(.dateRange(var range)) where canonical:
                    // Values kept as written because they were malformed.
                    let typed: Set<String> = ["SCTE35-CMD", "SCTE35-OUT", "SCTE35-IN", "START-DATE", "END-DATE"]
                    range.otherAttributes.removeAll { typed.contains($0.name) }
                    line.content = .tag(.dateRange(range))
                    verbatim = false
                case .tag(.part), .tag(.preloadHint), .tag(.renditionReport), .tag(.skip):
                    return
                case .tag(let tag) where tag.scope == .multivariant || tag.isIgnoredKnownTag:
                    return
                default:
                    if canonical { verbatim = false }
                }
                if deferred {
                    pending.keep(line)
                    return
                }
                try output.append(line, verbatim: verbatim ? text : nil)
            }
            if window != nil {
                // The origin's EXT-X-ENDLIST went with the lines after the window.
                try output.append(Line(tag: .endList))
            }
            output.finish(endsWithNewline: endsWithNewline || window != nil)
        }

        // Written straight into the String's storage, with room for half as much again as the
        // origin's text (pages never written cost no memory); again with the room it needed, in
        // the rare case a playlist's local copy is longer than that.
        var capacity = capacity ?? (fetched.count + fetched.count / 2 + 4096)
        while true {
            var failure: PlaylistError?
            var needed = 0
            let text = String(unsafeUninitializedCapacity: capacity) { buffer -> Int in
                var output = LineOutput(buffer)
                do throws(PlaylistError) {
                    try writeLines(into: &output)
                } catch {
                    failure = error
                    return 0
                }
                needed = output.length
                return needed <= buffer.count ? needed : 0
            }
            if let failure {
                throw CarryonError(.playlist, "cannot write the local playlist of \(media.url): \(failure)", cause: failure)
            }
            if needed <= capacity { return text }
            capacity = needed
        }
    }

    /// The multivariant playlist with only the chosen variant and renditions, pointing at the
    /// bundle's playlists. Renditions carried in the variant (no URI) and closed captions of the
    /// chosen groups stay; I-frame variants, session keys and steering go. A chosen variant
    /// without `BANDWIDTH` gets `estimatedBandwidth[uri]`, the bits per second its planned bytes
    /// make over its duration.
    static func localMultivariantPlaylist(_ playlist: Playlist, resolved: MultivariantPlaylist, selection: MediaSelection,
                                          keys: [String: String],
                                          estimatedBandwidth: [String: Int] = [:]) throws(CarryonError) -> String {
        var output = playlist
        let canonical = !resolved.warnings.isEmpty
        var lines: [Line] = []
        var renditionIndex = 0
        var keepNextURI = false
        // The first STREAM-INF of each chosen variant's URI (a URI may be listed twice).
        var chosenVariants: [MultivariantPlaylist.Variant] = []
        for uri in selection.variants.map(\.uri) {
            if let variant = resolved.variants.first(where: { $0.uri == uri }) { chosenVariants.append(variant) }
        }
        // Variants by the line of their tag; a tag a lenient read dropped (a STREAM-INF followed
        // by another) has none.
        let variantsByLine = Dictionary(resolved.variants.map { ($0.line, $0) }, uniquingKeysWith: { first, _ in first })
        let chosenLines = Set(chosenVariants.map(\.line))
        // A GROUP-ID names a group of renditions of one TYPE; groups of two types may share it.
        var groups: Set<RenditionGroup> = []
        for chosenVariant in chosenVariants {
            if let group = chosenVariant.audio { groups.insert(.init(type: .audio, id: group)) }
            if let group = chosenVariant.video { groups.insert(.init(type: .video, id: group)) }
            if let group = chosenVariant.subtitles { groups.insert(.init(type: .subtitles, id: group)) }
            if case .group(let group)? = chosenVariant.closedCaptions { groups.insert(.init(type: .closedCaptions, id: group)) }
        }
        var nextURI: String?
        // Groups that keep at least one rendition in the local playlist.
        var keptGroups: Set<RenditionGroup> = []
        for rendition in resolved.renditions {
            let group = RenditionGroup(type: rendition.type, id: rendition.groupID)
            if let uri = rendition.uri {
                if keys[uri] != nil, selection.renditions.contains(where: { $0.uri == uri }) { keptGroups.insert(group) }
            } else if groups.contains(group) {
                keptGroups.insert(group)
            }
        }
        var sawHeader = false
        for (index, line) in playlist.lines.enumerated() {
            var line = line
            if !sawHeader {
                guard case .tag(.m3u) = line.content else { continue }
                sawHeader = true
                lines.append(canonical ? Line(tag: .m3u) : line)
                continue
            }
            switch line.content {
            case .uri:
                if keepNextURI, let uri = nextURI {
                    line.content = .uri("\(keys[uri] ?? "video")/index.m3u8")
                    lines.append(line)
                    keepNextURI = false
                }
                continue
            case .tag(.streamInf(var stream)):
                guard let variant = variantsByLine[index + 1], chosenLines.contains(variant.line) else { continue }
                nextURI = variant.uri
                let written = stream
                // A group none of whose renditions was kept must not be referenced.
                if let group = variant.audio, !keptGroups.contains(.init(type: .audio, id: group)) { stream.audio = nil }
                if let group = variant.video, !keptGroups.contains(.init(type: .video, id: group)) { stream.video = nil }
                if let group = variant.subtitles, !keptGroups.contains(.init(type: .subtitles, id: group)) { stream.subtitles = nil }
                if stream.bandwidth == nil {
                    stream.bandwidth = stream.averageBandwidth ?? max(1, estimatedBandwidth[variant.uri] ?? 1)
                }
                if canonical || stream != written { line.content = .tag(.streamInf(stream)) }
                keepNextURI = true
                lines.append(line)
                continue
            case .tag(.media(var tag)):
                let rendition = resolved.renditions[renditionIndex]
                renditionIndex += 1
                if let uri = rendition.uri {
                    guard let key = keys[uri], selection.renditions.contains(where: { $0.uri == uri }) else { continue }
                    tag.uri = "\(key)/index.m3u8"
                    line.content = .tag(.media(tag))
                } else if !groups.contains(.init(type: rendition.type, id: rendition.groupID)) {
                    continue
                } else if canonical {
                    line.makeCanonical()
                }
            case .tag(.define(let define)):
                if let value = resolved.variables[define.name] {
                    line.content = .tag(.define(.value(name: define.name, value: value)))
                }
            case .tag(.iFrameStreamInf), .tag(.sessionKey), .tag(.contentSteering):
                continue
            case .tag(.sessionData(let data)) where data.uri != nil:
                continue
            case .tag(let tag) where tag.scope == .media || tag.isIgnoredKnownTag:
                // Media playlist tags a lenient read ignored here.
                continue
            default:
                if canonical { line.makeCanonical() }
            }
            lines.append(line)
        }
        output.lines = lines
        do {
            return try output.write()
        } catch {
            throw CarryonError(.playlist, "cannot write the local multivariant playlist: \(error)", cause: error)
        }
    }
}

/// A playlist written line by line into a buffer: each line as the origin wrote it or in
/// canonical form, lines joined by line feeds. Past the buffer's end it only counts, so that
/// ``length`` says the room the whole text needs.
private struct LineOutput {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    /// The bytes of the text so far, whether or not they fit.
    private(set) var length = 0
    private var lines = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    private mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        if length + bytes.count <= buffer.count, let base = buffer.baseAddress, let source = bytes.baseAddress {
            (base + length).update(from: source, count: bytes.count)
        }
        length += bytes.count
    }

    private mutating func writeNewline() {
        if length < buffer.count { buffer[length] = 0x0A }
        length += 1
    }

    /// Appends a line of `text`, which holds no line break.
    mutating func appendLine(_ text: String) {
        if lines > 0 { writeNewline() }
        lines += 1
        var text = text
        text.withUTF8 { write($0) }
    }

    /// Appends `line`: `verbatim`, its bytes as written, when given; else its canonical text.
    mutating func append(_ line: Line, verbatim: UnsafeBufferPointer<UInt8>? = nil) throws(PlaylistError) {
        if lines > 0 { writeNewline() }
        lines += 1
        if let verbatim {
            write(verbatim)
        } else {
            do throws(PlaylistError) {
                var text = try line.content.canonicalText()
                text.withUTF8 { write($0) }
            } catch {
                var located = error
                located.line = lines
                throw located
            }
        }
    }

    /// Ends the text with a line feed when the origin's did (and it has a line).
    mutating func finish(endsWithNewline: Bool) {
        if endsWithNewline && lines > 0 { writeNewline() }
    }
}
