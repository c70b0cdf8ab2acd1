import Foundation

/// Callbacks with AVAssetDownloadDelegate's names, for code ported from Apple platforms. Every
/// method has an empty default; implement those you need and give the delegate to
/// ``DownloadSession/setDelegate(_:)``. New code can iterate ``DownloadSession/events(followingOtherProcesses:)``
/// instead.
///
/// ```swift
/// final class Downloads: DownloadSessionDelegate {
///     func downloadTask(_ task: DownloadTask, didLoad timeRange: DownloadProgress.TimeRange,
///                       totalTimeRangesLoaded: [DownloadProgress.TimeRange],
///                       timeRangeExpectedToLoad: DownloadProgress.TimeRange, for rendition: String) {
///         let loaded = totalTimeRangesLoaded.reduce(0) { $0 + $1.duration }
///         print(rendition, loaded / timeRangeExpectedToLoad.duration)
///     }
///     func downloadTask(_ task: DownloadTask, didCompleteWithError error: CarryonError?) {
///         print(task.id, error?.message ?? "done")
///     }
/// }
/// await session.setDelegate(Downloads())
/// ```
public protocol DownloadSessionDelegate: AnyObject, Sendable {
    /// A segment's time range is on disk (`urlSession(_:aggregateAssetDownloadTask:didLoad:…)`).
    func downloadTask(_ task: DownloadTask, didLoad timeRange: DownloadProgress.TimeRange,
                      totalTimeRangesLoaded: [DownloadProgress.TimeRange],
                      timeRangeExpectedToLoad: DownloadProgress.TimeRange, for rendition: String)
    /// The variant and renditions were chosen (`didResolve mediaSelection`).
    func downloadTask(_ task: DownloadTask, didResolve mediaSelection: MediaSelection)
    /// One rendition is complete (`didCompleteFor mediaSelection`).
    func downloadTask(_ task: DownloadTask, didCompleteFor rendition: String)
    /// The bundle's folder is known (`willDownloadTo location`).
    func downloadTask(_ task: DownloadTask, willDownloadTo location: URL)
    /// Bytes advanced (no AVFoundation counterpart: its progress is time ranges only).
    func downloadTask(_ task: DownloadTask, didUpdate progress: DownloadProgress)
    /// Every resource is on disk (`didFinishDownloadingTo location`).
    func downloadTask(_ task: DownloadTask, didFinishDownloadingTo location: URL)
    /// The task stopped: nil when it completed (`didCompleteWithError`).
    func downloadTask(_ task: DownloadTask, didCompleteWithError error: CarryonError?)
}

extension DownloadSessionDelegate {
    public func downloadTask(_ task: DownloadTask, didLoad timeRange: DownloadProgress.TimeRange,
                             totalTimeRangesLoaded: [DownloadProgress.TimeRange],
                             timeRangeExpectedToLoad: DownloadProgress.TimeRange, for rendition: String) {}
    public func downloadTask(_ task: DownloadTask, didResolve mediaSelection: MediaSelection) {}
    public func downloadTask(_ task: DownloadTask, didCompleteFor rendition: String) {}
    public func downloadTask(_ task: DownloadTask, willDownloadTo location: URL) {}
    public func downloadTask(_ task: DownloadTask, didUpdate progress: DownloadProgress) {}
    public func downloadTask(_ task: DownloadTask, didFinishDownloadingTo location: URL) {}
    public func downloadTask(_ task: DownloadTask, didCompleteWithError error: CarryonError?) {}
}

extension DownloadSession {
    /// Delivers every event to `delegate` from now on, in order, until the session shuts down.
    /// Returns the task that delivers them (cancel it to stop).
    @discardableResult
    public func setDelegate(_ delegate: any DownloadSessionDelegate) -> Task<Void, Never> {
        let events = events()
        return Task {
            for await event in events {
                let task = DownloadTask(id: event.taskID, session: self)
                switch event {
                case .timeRangeLoaded(_, let rendition, let range, let loaded, let expected):
                    delegate.downloadTask(task, didLoad: range, totalTimeRangesLoaded: loaded, timeRangeExpectedToLoad: expected, for: rendition)
                case .mediaSelectionResolved(_, let selection):
                    delegate.downloadTask(task, didResolve: selection)
                case .renditionCompleted(_, let key):
                    delegate.downloadTask(task, didCompleteFor: key)
                case .willDownload(_, let location):
                    delegate.downloadTask(task, willDownloadTo: location)
                case .progress(_, let progress):
                    delegate.downloadTask(task, didUpdate: progress)
                case .finished(_, let location):
                    delegate.downloadTask(task, didFinishDownloadingTo: location)
                    delegate.downloadTask(task, didCompleteWithError: nil)
                case .failed(_, let error):
                    delegate.downloadTask(task, didCompleteWithError: error)
                case .stateChanged, .playlistWarnings:
                    break
                }
            }
        }
    }
}
