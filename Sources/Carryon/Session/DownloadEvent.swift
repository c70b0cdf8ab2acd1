import Foundation

/// What happens to a download task, as the session reports it. The counterpart of
/// AVAssetDownloadDelegate's callbacks (see ``DownloadSessionDelegate``).
public enum DownloadEvent: Sendable {
    /// The task's state changed.
    case stateChanged(taskID: String, state: DownloadState)
    /// The playlists were read and the variant and renditions chosen
    /// (`didResolve mediaSelection`).
    case mediaSelectionResolved(taskID: String, selection: MediaSelection)
    /// The bundle's location is known (`willDownloadTo location`).
    case willDownload(taskID: String, location: URL)
    /// Bytes advanced, with the whole progress.
    case progress(taskID: String, progress: DownloadProgress)
    /// A segment of a rendition is on disk: its time range, and all ranges of that rendition
    /// loaded so far (`didLoad timeRange … totalTimeRangesLoaded`).
    case timeRangeLoaded(taskID: String, rendition: String, range: DownloadProgress.TimeRange,
                         loaded: [DownloadProgress.TimeRange], expected: DownloadProgress.TimeRange)
    /// Every resource of one rendition is on disk (`didCompleteFor mediaSelection`).
    case renditionCompleted(taskID: String, key: String)
    /// Every resource is on disk and checked (`didFinishDownloadingTo location`).
    case finished(taskID: String, location: URL)
    /// The task stopped with an error; what is done is kept (`didCompleteWithError`).
    case failed(taskID: String, error: CarryonError)
    /// The stream's playlists deviate from their specification in ways a careful player
    /// survives, and Carryon read past them: each warning names the playlist and line, says what
    /// was wrong and what was assumed (`https://cdn.example/v.m3u8, line 12: …`). Sent once,
    /// when the playlists are first read (and for the playlists a media selection adds); the
    /// asset's error log keeps them.
    case playlistWarnings(taskID: String, warnings: [String])

    /// The task the event is about.
    public var taskID: String {
        switch self {
        case .stateChanged(let id, _), .mediaSelectionResolved(let id, _), .willDownload(let id, _),
             .progress(let id, _), .timeRangeLoaded(let id, _, _, _, _), .renditionCompleted(let id, _),
             .finished(let id, _), .failed(let id, _), .playlistWarnings(let id, _):
            id
        }
    }
}

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
