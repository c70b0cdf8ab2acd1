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
