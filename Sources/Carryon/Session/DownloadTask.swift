import Foundation

/// A handle on one download: an asset being (or having been) downloaded into the library.
/// The counterpart of AVAssetDownloadTask and AVAggregateAssetDownloadTask — one task downloads
/// a variant and any number of renditions.
///
/// Handles are cheap values; the session holds the state. After a restart,
/// ``DownloadSession/tasks()`` returns a handle for every task the library knows.
///
/// ```swift
/// let task = try await session.makeTask(url: "https://example.com/main.m3u8", name: "Example")
/// try await task.resume()
/// let state = await task.waitUntilFinished()   // .completed, .failed, .suspended or .cancelled
/// ```
public struct DownloadTask: Sendable, Hashable {
    /// The task's (and its asset's) id.
    public let id: String
    let session: DownloadSession

    public static func == (lhs: DownloadTask, rhs: DownloadTask) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// Starts or continues the download: queues it in the library's index, for this session to
    /// run when it has room. A failed or suspended task continues where it stopped, as does one
    /// whose process died (even under `kill -9`).
    ///
    /// - Throws: ``CarryonError/Code/busy`` when another live process runs the task or has
    ///   queued it: nothing changes, and nothing is fetched twice.
    public func resume() async throws(CarryonError) { try await session.resume(id) }

    /// Pauses the download, keeping what is on disk — wherever it runs: a download another
    /// process runs is asked to stop, and that process does within a second. Returns the state
    /// the task ended in.
    ///
    /// - Throws: ``CarryonError/Code/busy`` when the process running it does not stop it in time.
    @discardableResult
    public func suspend() async throws(CarryonError) -> DownloadState { try await session.suspend(id) }

    /// Stops the download and removes its data, wherever it runs (as ``suspend()`` does).
    /// Returns the state the task ended in.
    @discardableResult
    public func cancel() async throws(CarryonError) -> DownloadState { try await session.cancel(id) }

    /// The task's state, progress and selection now.
    public func snapshot() async throws(CarryonError) -> AssetSnapshot { try await session.snapshot(id) }

    /// Waits until the task stops running, and returns the state it stopped in.
    public func waitUntilFinished() async -> DownloadState { await session.waitUntilFinished(id) }
}

/// An asset as the library knows it: for `list`, `show` and UIs restored after a restart.
public struct AssetSnapshot: Sendable, Codable, Hashable {
    /// The asset's (and its task's) id.
    public var id: String
    /// The name given when the task was made, or one taken from its URL (`main.m3u8` in
    /// `…/movie/main.m3u8` gives `movie`).
    public var name: String
    /// The stream's playlist as an absolute URL, as given when the task was made (a local path
    /// becomes a `file://` URL).
    public var url: String
    /// The task's state; for a task this session knows, its state in this session.
    public var state: DownloadState
    /// Why the task failed, when it did.
    public var error: String?
    /// How far the download has come: live for a task running now, otherwise as the index
    /// records it.
    public var progress: DownloadProgress
    /// The chosen variant and renditions, once the playlists were read.
    public var selection: MediaSelection?
    /// The presentation's duration in seconds, once known.
    public var duration: Double?
    /// The bundle folder.
    public var bundlePath: String
    /// The stream's manifest format: `hls` or `dash` (`StreamFormat`'s name; `hls` for every
    /// asset recorded before formats were).
    public var format: String
    /// The local multivariant playlist (absolute path), once the playlists were read: HLS for
    /// every format, so every HLS player plays every asset.
    public var playlist: String?
    /// A DASH asset's local MPD (absolute path), for DASH players, once the MPD was read.
    public var mpd: String?
    /// Bytes of the bundle on disk, partial files included.
    public var bytesOnDisk: Int
    /// Bytes on disk by rendition folder (`video`, `audio-en`, …); the bundle's own files
    /// (playlists, manifest) under their names.
    public var bytesByRendition: [String: Int]
    /// When the task was made.
    public var createdAt: Date
    /// When the task last completed (a task given more media selections completes again); nil
    /// until it has.
    public var completedAt: Date?
    /// When it expires, and its priority in a purge.
    public var policy: StoragePolicy
    /// When a player last asked for it.
    public var lastPlayedAt: Date?
    /// Figures from the playback access log, once it was played.
    public var playback: PlaybackSummary?
    /// Whether it plays offline, and which renditions are complete.
    public var cache: AssetCache
    /// Values the library's index holds for the asset but cannot read (a date past year 9999
    /// written by an earlier release), each in words with what it counts as meanwhile; nil when
    /// there are none. The asset still lists and plays; setting the value again repairs it.
    public var problems: [String]? = nil
    /// The process downloading it now, when one does (here or on another machine of the fleet):
    /// its name, process id and host, `rack-3 (pid 812 on node-3)`; nil while none runs it.
    public var worker: String? = nil
    /// The part of the stream downloaded, when the download was asked for one
    /// (``DownloadOptions/timeRange``); nil: all of it.
    public var timeRange: TimeRange? = nil
    /// For a recording of a live stream: where it started and what it missed
    /// (``DownloadOptions/live``); nil for any other download.
    public var live: LiveOptions? = nil
}
