/// A playlist as written: every line of an M3U8 file, typed, in order.
///
/// `Playlist` is the lossless syntax layer of Carryon. Each line of the input becomes one
/// ``Line`` — a known tag with typed attributes, an unknown tag, a comment, a URI or a blank — so
/// that nothing in the input is lost and line numbers stay meaningful (line *n* of the file is
/// `lines[n - 1]`). Writing an unchanged playlist reproduces it byte for byte; writing an edited
/// one writes the edited lines in canonical form.
///
/// For what a downloader needs — absolute URIs, media sequence numbers, effective keys and
/// init sections, byte ranges with implicit offsets resolved — resolve the playlist into a
/// ``MediaPlaylist`` or a ``MultivariantPlaylist``.
///
/// ```swift
/// let parsed = try Playlist.parse(text)
/// for warning in parsed.warnings { print(warning) }
/// switch parsed.playlist.kind {
/// case .multivariant:
///     let main = try MultivariantPlaylist(parsed.playlist, url: "https://example.com/main.m3u8")
///     print(main.variants.map(\.bandwidth))
/// case .media:
///     let media = try MediaPlaylist(parsed.playlist, url: "https://example.com/video.m3u8")
///     print(media.segments.count, media.duration)
/// }
/// ```
public struct Playlist: Sendable, Hashable {
    /// The lines of the playlist: `#EXTM3U` first, after any blank and comment lines a playlist
    /// read leniently had before it.
    public var lines: [Line]

    /// Whether the text ends with a line terminator. Kept so that an unchanged playlist is
    /// written back byte for byte; new playlists end with one.
    public var endsWithNewline: Bool

    /// Creates a playlist from lines.
    public init(lines: [Line] = [Line(tag: .m3u)], endsWithNewline: Bool = true) {
        self.lines = lines
        self.endsWithNewline = endsWithNewline
    }

    /// Which of the two kinds of playlist this is, decided by the tags it contains.
    ///
    /// A playlist with variant streams (`EXT-X-STREAM-INF`, `EXT-X-I-FRAME-STREAM-INF`) is
    /// multivariant; otherwise one with segments (`EXTINF`) is a media playlist; otherwise one
    /// with renditions or session tags is multivariant. Anything else — including a playlist with
    /// no segments yet — is a media playlist. A tag of the other kind (an `EXT-X-SESSION-KEY`
    /// strayed into a media playlist) is then the resolver's to refuse, or, read leniently, to
    /// ignore or apply with a warning.
    public var kind: Kind {
        var otherMultivariantTags = false
        var segments = false
        for line in lines {
            guard case .tag(let tag) = line.content else { continue }
            switch tag {
            case .streamInf, .iFrameStreamInf: return .multivariant
            case .media, .sessionData, .sessionKey, .contentSteering: otherMultivariantTags = true
            case .inf: segments = true
            default: continue
            }
        }
        return otherMultivariantTags && !segments ? .multivariant : .media
    }

    /// The two kinds of playlist of RFC 8216bis section 4.
    public enum Kind: String, Sendable, Hashable {
        /// A playlist of variant streams and renditions (formerly "master playlist").
        case multivariant
        /// A playlist of media segments.
        case media
    }

    /// Every tag in the playlist, in order, with its 1-based line number.
    public var tags: some Sequence<(line: Int, tag: Tag)> {
        lines.lazy.enumerated().compactMap { index, line in
            if case .tag(let tag) = line.content { return (index + 1, tag) }
            return nil
        }
    }
}
