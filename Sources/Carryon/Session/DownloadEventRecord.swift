import Foundation

/// A ``DownloadEvent`` as one flat JSON object: a line of `carryon download --json`, and an
/// event of the daemon's event stream (`GET /api/events`).
///
/// `event` names the kind — `state`, `selection`, `location`, `progress`, `time-range`,
/// `rendition-completed`, `finished`, `failed`, `warnings`, and `done` for the command's own
/// summary line — and the fields that kind carries are set; the others are absent.
///
/// ```swift
/// for await event in await session.events() {
///     let data = try JSONEncoder().encode(DownloadEventRecord(event))
/// }
/// ```
public struct DownloadEventRecord: Sendable, Codable, Hashable {
    /// The kind of event.
    public var event: String
    /// The task's (the asset's) id.
    public var id: String
    /// The task's new state (`state`), or its last (`done`).
    public var state: String?
    /// Bytes downloaded so far (`progress`, `done`).
    public var bytesDone: Int?
    /// Bytes expected in all, exact or estimated (`progress`, `done`).
    public var bytesExpected: Int?
    /// How much is done, 0 to 1 (`progress`).
    public var fraction: Double?
    /// The recent transfer rate (`progress`).
    public var bytesPerSecond: Double?
    /// The requests the task keeps in flight (`progress`): the number adaptive concurrency chose.
    public var connections: Int?
    /// The time left at that rate (`progress`).
    public var secondsRemaining: Double?
    /// For a recording of a live stream (`progress`): how far it has come — seconds on disk,
    /// how far behind the live edge, the duration asked for, segments missed.
    public var recording: DownloadProgress.Recording?
    /// The rendition's key (`time-range`, `rendition-completed`).
    public var rendition: String?
    /// Where the loaded range starts, in seconds of the presentation (`time-range`).
    public var start: Double?
    /// Where the loaded range ends (`time-range`).
    public var end: Double?
    /// The variant and renditions chosen (`selection`).
    public var selection: MediaSelection?
    /// The bundle folder (`location`, `finished`, `done`).
    public var location: String?
    /// The local multivariant playlist (`done`).
    public var playlist: String?
    /// Why the task failed (`failed`, `done`).
    public var error: String?
    /// The deviations the stream's playlists were read past, each naming the playlist and line
    /// (`warnings`).
    public var warnings: [String]?

    /// A record of kind `event` for task `id`, its other fields to be set.
    public init(event: String, id: String) {
        self.event = event
        self.id = id
    }

    /// The record of `event`.
    public init(_ event: DownloadEvent) {
        self.init(event: "", id: event.taskID)
        switch event {
        case .stateChanged(_, let state):
            self.event = "state"
            self.state = state.rawValue
        case .mediaSelectionResolved(_, let selection):
            self.event = "selection"
            self.selection = selection
        case .willDownload(_, let location):
            self.event = "location"
            self.location = location.path
        case .progress(_, let progress):
            self.event = "progress"
            bytesDone = progress.bytesDone
            bytesExpected = progress.bytesExpected
            fraction = progress.fraction
            bytesPerSecond = progress.bytesPerSecond
            connections = progress.connections
            secondsRemaining = progress.secondsRemaining
            recording = progress.recording
        case .timeRangeLoaded(_, let key, let range, _, _):
            self.event = "time-range"
            rendition = key
            start = range.start
            end = range.end
        case .renditionCompleted(_, let key):
            self.event = "rendition-completed"
            rendition = key
        case .finished(_, let location):
            self.event = "finished"
            self.location = location.path
        case .failed(_, let error):
            self.event = "failed"
            self.error = error.message
        case .playlistWarnings(_, let warnings):
            self.event = "warnings"
            self.warnings = warnings
        }
    }
}
