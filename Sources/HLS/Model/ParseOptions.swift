extension Playlist {
    /// How to read a playlist that deviates from RFC 8216bis.
    ///
    /// By default the parser reads what players play: it recovers from every deviation a careful
    /// player survives — a quoted hexadecimal value, a lower-case enumerated value, a missing
    /// `EXT-X-TARGETDURATION`, IPTV-style `EXTINF` attributes, lines before `#EXTM3U` — and reports
    /// each as a ``PlaylistWarning`` that says what it assumed. It fails only where no safe reading
    /// exists, or where a guess would change the bytes fetched (an unknown key `METHOD`, byte
    /// ranges that overlap).
    ///
    /// ``strict`` is for people who validate their own packaging: every deviation is a
    /// ``PlaylistError`` naming the line. What the specification itself tells clients to ignore
    /// (unknown tags and attributes) and advice that breaks no rule (a segment longer than the
    /// target duration) stay warnings.
    ///
    /// ```swift
    /// let parsed = try Playlist.parse(text, options: .strict)
    /// let media = try MediaPlaylist(parsed.playlist, url: url, warnings: parsed.warnings, options: .strict)
    /// ```
    public struct ParseOptions: OptionSet, Sendable, Hashable {
        public let rawValue: Int

        /// Creates options from their raw bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Every deviation from the specification is an error.
        public static let strict = ParseOptions(rawValue: 1 << 0)
    }
}
