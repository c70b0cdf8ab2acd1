import Foundation

/// One page of a listing: ``AssetSnapshot``s, or ``AssetSummary``s for a table.
public struct AssetPage<Asset: Sendable>: Sendable {
    /// The page's assets, in the query's order.
    public var assets: [Asset]
    /// The cursor of the next page (the query's ``AssetQuery/cursor``), or nil when this page
    /// is the last.
    public var next: String?
}

/// An asset as a table of the library shows it (`carryon list`): what its row in the index
/// holds, without the details of an ``AssetSnapshot`` (renditions, time ranges, playback).
public struct AssetSummary: Sendable, Hashable, Codable {
    /// The asset's id.
    public var id: String
    /// The name given when the task was made (see ``AssetSnapshot/name``).
    public var name: String
    /// The stream's URL, as given.
    public var url: String
    /// The state as ``AssetSnapshot/state`` shows it.
    public var state: DownloadState
    /// How much of the download is done, from 0 to 1 (``DownloadProgress/fraction``).
    public var fraction: Double
    /// Bytes of the bundle on disk, partial files included.
    public var bytesOnDisk: Int
    /// The presentation's duration in seconds, once known.
    public var duration: Double?
    /// When the task was made.
    public var createdAt: Date
    /// Values the index holds for the asset but cannot read (see ``AssetSnapshot/problems``).
    public var problems: [String]?
    /// The process downloading it now, when one does (see ``AssetSnapshot/worker``).
    public var worker: String?

    /// The summary of `snapshot`.
    public init(_ snapshot: AssetSnapshot) {
        self.init(id: snapshot.id, name: snapshot.name, url: snapshot.url, state: snapshot.state, fraction: snapshot.progress.fraction,
                  bytesOnDisk: snapshot.bytesOnDisk, duration: snapshot.duration, createdAt: snapshot.createdAt, problems: snapshot.problems,
                  worker: snapshot.worker)
    }

    /// A summary of these values.
    public init(id: String, name: String, url: String, state: DownloadState, fraction: Double, bytesOnDisk: Int, duration: Double?,
                createdAt: Date, problems: [String]?, worker: String? = nil) {
        self.id = id
        self.name = name
        self.url = url
        self.state = state
        self.fraction = fraction
        self.bytesOnDisk = bytesOnDisk
        self.duration = duration
        self.createdAt = createdAt
        self.problems = problems
        self.worker = worker
    }
}
