import Foundation

/// How far a download has come: bytes (exact where known, estimated and refined where not),
/// rate and time left, and the loaded time ranges of each rendition.
public struct DownloadProgress: Sendable, Hashable, Codable {
    /// Bytes on disk, including what in-flight requests have written.
    public var bytesDone: Int
    /// Bytes expected in all: exact for resources done or of known length, estimated for the
    /// rest from the rendition's bytes per second so far, or from the playlist's bandwidth.
    public var bytesExpected: Int
    /// Whether ``bytesExpected`` is exact.
    public var isExact: Bool
    /// Resources (segments and init sections) done.
    public var resourcesDone: Int
    /// Resources (segments and init sections) planned in all.
    public var resourcesTotal: Int
    /// Bytes per second over the last few seconds, when known.
    public var bytesPerSecond: Double?
    /// Seconds left at that rate, when known.
    public var secondsRemaining: Double?
    /// For each rendition (by key), the time ranges whose segments are on disk, merged.
    public var loadedTimeRanges: [String: [TimeRange]]
    /// All the bytes written by requests in flight whose resources have passed their estimates
    /// (they are in ``bytesDone`` and ``bytesExpected`` too); nil when none has. Such a
    /// resource's size is unknown — a server that sends more than the stream declared — so
    /// ``fraction`` leaves its bytes out rather than claim a share of a size they have left
    /// behind.
    public var bytesPastEstimate: Int? = nil
    /// The requests the task keeps in flight now — chosen by the link when the session adapts
    /// them (``DownloadSession/Configuration/adaptsConcurrency``); nil when it is not running.
    public var connections: Int? = nil
    /// For a recording of a live stream, how far it has come; nil for any other download.
    public var recording: Recording? = nil

    /// How far a recording of a live stream has come. Its ``DownloadProgress/bytesExpected``
    /// counts only what the stream has shown so far, and it has no
    /// ``DownloadProgress/secondsRemaining`` unless it records a given duration.
    public struct Recording: Sendable, Hashable, Codable {
        /// Seconds of media on disk, in the main rendition.
        public var recordedSeconds: Double
        /// Seconds the stream has shown that are not on disk yet: how far the bundle is behind
        /// the live edge the recording follows.
        public var behindLiveEdge: Double
        /// The seconds of media to record, when limited.
        public var limit: Double?
        /// Segments the recording missed (the window moved past them while it was stopped).
        public var missedSegments: Int
    }

    /// Done as a fraction of expected, 0…1, over the resources whose size is known or
    /// believable (see ``bytesPastEstimate``).
    public var fraction: Double {
        let past = bytesPastEstimate ?? 0
        let expected = bytesExpected - past
        return expected > 0 ? min(1, max(0, Double(bytesDone - past) / Double(expected))) : 0
    }

    /// A range of presentation time in seconds.
    public struct TimeRange: Sendable, Hashable, Codable {
        /// Where the range starts, in seconds from the start of the presentation.
        public var start: Double
        /// Where the range ends, in seconds from the start of the presentation.
        public var end: Double
        /// The range's length in seconds: ``end`` minus ``start``.
        public var duration: Double { end - start }
    }
}
