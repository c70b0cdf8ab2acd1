extension Playlist {
    /// Writes the playlist as M3U8 text with LF line endings.
    ///
    /// Lines that are unchanged since parsing are written exactly as read, so an unchanged
    /// playlist comes back byte for byte (CRLF line ends become LF). Other lines are written in
    /// canonical form: known attributes in a fixed order, then the others as read. For every
    /// playlist `p`, `Playlist(parsing: p.write()) == p`.
    ///
    /// - Throws: ``PlaylistError`` with code ``PlaylistError/Code/unwritable`` for a value that has
    ///   no M3U8 form, such as a quoted-string with a double quote or a number that is not finite.
    public func write() throws(PlaylistError) -> String {
        var output = ""
        output.reserveCapacity(lines.count * 32)
        for (index, line) in lines.enumerated() {
            if index > 0 { output += "\n" }
            if let source = line.storedSource {
                output += source
            } else {
                do throws(PlaylistError) {
                    try line.content.write(to: &output)
                } catch {
                    var located = error
                    located.line = index + 1
                    throw located
                }
            }
        }
        if endsWithNewline && !lines.isEmpty { output += "\n" }
        return output
    }
}

extension Line.Content {
    /// Appends the canonical text of this line.
    func write(to output: inout String) throws(PlaylistError) {
        switch self {
        case .blank:
            break
        case .comment(let text):
            try checkSingleLine(text, "a comment")
            output += "#"
            output += text
        case .uri(let uri):
            try checkSingleLine(uri, "a URI")
            guard !uri.isEmpty, !uri.hasPrefix("#"), uri.first != " " else {
                throw PlaylistError(.unwritable, "\"\(uri)\" cannot be written as a URI line")
            }
            output += uri
        case .tag(let tag):
            output += "#"
            output += tag.name
            if let value = try tag.value() {
                output += ":"
                output += value
            }
        }
    }
}

private func checkSingleLine(_ text: String, _ what: String) throws(PlaylistError) {
    if text.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0 }) {
        throw PlaylistError(.unwritable, "\(what) cannot contain a line break or NUL")
    }
}

extension Tag {
    /// The canonical text after the colon, or nil for tags without a value.
    func value() throws(PlaylistError) -> String? {
        var writer = AttributeWriter()
        switch self {
        case .m3u, .independentSegments, .endList, .iFramesOnly, .discontinuity, .gap:
            return nil
        case .version(let number), .targetDuration(let number), .mediaSequence(let number),
             .discontinuitySequence(let number), .bitrate(let number):
            guard number >= 0 else { throw PlaylistError(.unwritable, "\(name) cannot be negative (\(number))") }
            return String(number)
        case .playlistType(let type):
            return type.rawValue
        case .inf(let inf):
            guard inf.duration.isFinite, inf.duration >= 0 else {
                throw PlaylistError(.unwritable, "EXTINF duration \(inf.duration) is not a finite, non-negative number")
            }
            guard inf.attributes.isEmpty else {
                throw PlaylistError(.unwritable, "EXTINF attributes (\(inf.attributes.map(\.name).joined(separator: ", "))) are an IPTV extension that RFC 8216bis does not allow")
            }
            try checkSingleLine(inf.title, "an EXTINF title")
            return Number.format(inf.duration) + "," + inf.title
        case .byteRange(let range):
            return range.description
        case .programDateTime(let date):
            return date.text
        case .start(let start): try start.write(to: &writer)
        case .define(let define): try define.write(to: &writer)
        case .partInf(let partInf): try partInf.write(to: &writer)
        case .serverControl(let control): try control.write(to: &writer)
        case .key(let key), .sessionKey(let key): try key.write(to: &writer)
        case .map(let map): try map.write(to: &writer)
        case .part(let part): try part.write(to: &writer)
        case .dateRange(let range): try range.write(to: &writer)
        case .skip(let skip): try skip.write(to: &writer)
        case .preloadHint(let hint): try hint.write(to: &writer)
        case .renditionReport(let report): try report.write(to: &writer)
        case .media(let rendition): try rendition.write(to: &writer)
        case .streamInf(let stream): try stream.write(to: &writer, iFrame: false)
        case .iFrameStreamInf(let stream): try stream.write(to: &writer, iFrame: true)
        case .sessionData(let data): try data.write(to: &writer)
        case .contentSteering(let steering): try steering.write(to: &writer)
        case .unknown(_, let value):
            if let value { try checkSingleLine(value, "a tag value") }
            return value
        }
        return writer.text
    }
}
