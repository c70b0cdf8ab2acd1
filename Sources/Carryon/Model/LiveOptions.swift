/// How a live stream is recorded: an HLS playlist without `EXT-X-ENDLIST`, or an MPD of type
/// `dynamic`, still growing.
///
/// A download whose stream turns out to be live records it: it reloads the playlists on the
/// stream's schedule, fetches each new segment of every rendition chosen once, and ends — at
/// the stream's end, after ``DownloadOptions/timeRange``'s duration of media, or when it is
/// stopped (``DownloadTask/suspend()``, Ctrl-C) — as a complete bundle that plays like any
/// other. The session sets ``DownloadOptions/live`` on such a download, so that the asset says
/// it is a recording.
public struct LiveOptions: Sendable, Hashable, Codable {
    /// Begin at the oldest segment the stream's window still holds (its DVR window) instead of
    /// the live edge, three target durations from the end, where a player would start.
    public var fromStart: Bool
    /// The segments the recording missed — the stream's window had moved past them while it
    /// was stopped, or the origin no longer had them — kept in the bundle as `EXT-X-GAP`
    /// segments; nil when none was. Set by the session.
    public internal(set) var missedSegments: Int?
    /// Their seconds, each counted as the stream's target duration where the stream never
    /// said it. Set by the session.
    public internal(set) var missedSeconds: Double?

    /// Options that begin at the live edge, or at the oldest segment with `fromStart`.
    public init(fromStart: Bool = false) {
        self.fromStart = fromStart
    }
}
