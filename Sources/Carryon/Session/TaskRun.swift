import Foundation

/// One task as a session holds it: its life cycle, what it is doing here — and while it runs
/// here, the run itself — and who waits for it to finish.
struct SessionTask {
    /// What the task is doing in this session.
    enum Activity {
        /// Nothing here: its state is the index's (another process may run it).
        case idle
        /// Queued by this session in the index, waiting for a claim.
        case queued
        /// Running here, under the claim its run holds.
        case running(TaskRun)
        /// Its run has ended and its end is being recorded: what the user asks of it next
        /// waits for that (``DownloadSession/settle(_:)``).
        case finishing
    }

    var machine: DownloadTaskStateMachine
    var activity = Activity.idle
    /// Callers of ``DownloadTask/waitUntilFinished()``, answered when the task is idle again.
    var waiters: [CheckedContinuation<DownloadState, Never>] = []
    /// The error that last stopped the task in this session, also kept here because recording
    /// it in the index can fail for the same reason the task did (a full disk).
    var lastError: CarryonError?
    /// The last run's progress, exact to the byte (partial files included), for snapshots
    /// after it stopped.
    var lastProgress: ProgressTracker?
    /// Runs in a row whose stream did not answer before the task had a plan: each gave up its
    /// slot to wait for the next (see `DownloadSession.deferStart`).
    var startAttempts = 0
    /// The end of this session's last run, when it could not be recorded (a full disk): the
    /// machine is the truth until it is, and it is written again before the task is next asked
    /// to do anything.
    var unrecordedEnd: UnrecordedEnd?
    /// The request another process left for the task, while it is being applied here.
    var applying: Task<Void, Never>?
    /// Who waits for the task's run to finish recording its end (``DownloadSession/settle(_:)``).
    var settlers: [CheckedContinuation<Void, Never>] = []
    /// Counts the times the task was queued here: a check of the queue that read the index
    /// before a later queueing does not undo it.
    var queueings = 0
    /// Whether a resume is writing the task into the queue now (it is ``Activity/queued``
    /// already, the row not yet).
    var enqueuing = false

    struct UnrecordedEnd {
        var fence: Fence
        var error: String?
    }

    init(machine: DownloadTaskStateMachine) {
        self.machine = machine
    }

    /// The run, while the task runs here.
    var run: TaskRun? {
        if case .running(let run) = activity { run } else { nil }
    }

    var isIdle: Bool {
        if case .idle = activity { true } else { false }
    }

    /// Whether this session knows the task's state better than the index: it is active here,
    /// or its last end is not recorded yet.
    var knowsBest: Bool { !isIdle || unrecordedEnd != nil }

    var isQueued: Bool {
        if case .queued = activity { true } else { false }
    }

    var isFinishing: Bool {
        if case .finishing = activity { true } else { false }
    }
}

/// What one run of a task owns while it goes on: the work itself, the claim it runs under, and
/// once its transfer starts, the fetcher, the progress and the bookkeeping that turns finished
/// resources into events. Confined to the session's actor; the session cancels ``work`` to stop
/// the run, and drops the whole object when it ends.
final class TaskRun {
    /// The run's work — planning, then the transfer; cancelling it stops them.
    let work: Task<Void, any Error>
    /// The whole run, to the recording of its end: it waits for ``work`` and is never
    /// cancelled, so that the end of a stopped run is still written.
    var ended: Task<Void, Never>?
    /// The claim the run holds: every write it makes to the index carries it.
    let fence: Fence
    /// Whether another process claimed the task after this run's lease ran out: the run stops
    /// and writes nothing more.
    var lost = false
    /// The progress last written to the index for other processes to show.
    var progressWritten: DownloadProgress?
    /// The bundle the run downloads into.
    let bundle: URL
    /// How the transfer fetches, set when it starts, so that playback can ask for a resource
    /// out of turn.
    private(set) var fetcher: ResourceFetcher?
    /// Bytes done and expected, set when the transfer starts.
    private(set) var tracker: ProgressTracker?
    /// The renditions whose completion was reported: several resources of a rendition can
    /// finish while one of them is between awaits, and each then sees none left.
    private var reportedRenditions: Set<String> = []
    /// The byte ranges still to come of each shared file (a file that segments address by
    /// ranges): counted here, not read back from the index after every range, which made a
    /// 90 000-range file cost 90 000 squared row reads.
    private var rangesLeft: [String: Int] = [:]
    /// Each rendition's duration, for the time-range events.
    private(set) var renditionDurations: [String: Double] = [:]
    private var lastProgressEvent: Double?
    /// The requests in flight when they are fixed; see ``concurrency``.
    var requestLimit = 8
    /// How many requests the link takes, when the session adapts them; nil: ``requestLimit``.
    var concurrency: ConcurrencyController?
    /// The requests to keep in flight now.
    var requestsInFlight: Int { concurrency?.limit ?? requestLimit }
    /// Fresh locations of resources whose signed URLs expired (resource id → URI), from the
    /// latest reading of the manifest; the index has them too.
    var freshLocations: [Int64: String] = [:]
    /// How many times the manifest was read again in this run.
    var refreshes = 0
    /// The reading of the manifest under way, which fetches that meet an expired location wait for.
    var refreshing: Task<Void, any Error>?
    /// A fresh manifest URL the session's ``ManifestURLProvider`` gave, used from then on.
    var manifestURL: String?
    /// The recording, when the run records a live stream.
    var recording: LiveRecording?
    /// Whether the recording was asked to stop (suspended, Ctrl-C): it then ends complete.
    var stopsRecording = false
    /// The main rendition's key, for a recording's seconds on disk.
    private var mainRendition: String?

    init(work: Task<Void, any Error>, bundle: URL, fence: Fence) {
        self.work = work
        self.bundle = bundle
        self.fence = fence
    }

    /// The progress to write to the index for other processes, when it changed since the last.
    func progressToWrite(at now: Double) -> DownloadProgress? {
        guard let tracker else { return nil }
        var progress = withRecording(tracker.snapshot(at: now))
        progress.connections = requestsInFlight
        progress.loadedTimeRanges = [:]
        guard progress != progressWritten else { return nil }
        progressWritten = progress
        return progress
    }

    /// The transfer starts over `resources` (all of the task's, done or not).
    func beginTransfer(resources: [ResourceRecord], renditions: [RenditionRecord], fetcher: ResourceFetcher) {
        tracker = ProgressTracker(resources: resources)
        rangesLeft = resources.reduce(into: [:]) { left, resource in
            if resource.rangeOffset != nil, resource.state != .done { left[resource.fileName, default: 0] += 1 }
        }
        renditionDurations = renditions.reduce(into: [:]) { $0[$1.key] = $1.duration }
        mainRendition = renditions.min { $0.position < $1.position }?.key
        self.fetcher = fetcher
    }

    /// Whether a transfer began in this run (``beginTransfer(resources:renditions:fetcher:)``).
    var isTransferring: Bool { tracker != nil }

    /// The transfer goes on with `added` (new rows of a recording's plan, none a byte range)
    /// beside what it had; `renditions` with their durations now.
    func continueTransfer(adding added: [ResourceRecord], renditions: [RenditionRecord], fetcher: ResourceFetcher) {
        tracker?.add(added)
        renditionDurations = renditions.reduce(into: [:]) { $0[$1.key] = $1.duration }
        mainRendition = renditions.min { $0.position < $1.position }?.key
        self.fetcher = fetcher
    }

    /// `delta` more bytes of resource `id` arrived at `now`.
    func add(_ delta: Int, to id: Int64, at now: Double) {
        tracker?.add(delta, to: id, at: now)
    }

    /// What finishing `resource` with `bytes` bytes completes.
    struct Finished {
        /// The shared file whose last range this was, now to be renamed into place.
        var sharedFile: String?
        /// Whether the resource's rendition is now complete and not yet reported.
        var renditionCompleted: Bool?
    }

    /// Records `resource` done. `renditionCompleted` is nil when the run cannot tell (it has
    /// not started its transfer): the index must be asked.
    func finish(_ resource: ResourceRecord, bytes: Int) -> Finished {
        tracker?.finish(resource.id!, bytes: bytes)
        var finished = Finished()
        if resource.rangeOffset != nil, let left = rangesLeft[resource.fileName] {
            rangesLeft[resource.fileName] = left - 1
            if left == 1 { finished.sharedFile = resource.fileName }
        }
        if let left = tracker?.unfinished(in: resource.renditionKey) {
            finished.renditionCompleted = left == 0 && reportRendition(resource.renditionKey)
        }
        return finished
    }

    /// Whether rendition `key`'s completion is reported now: true the first time only.
    func reportRendition(_ key: String) -> Bool {
        reportedRenditions.insert(key).inserted
    }

    /// The progress to report at `now`, or nil when the last report is under 0.2 s old and
    /// `force` is off (a report per chunk would flood subscribers on a fast link).
    func progressToReport(at now: Double, force: Bool) -> DownloadProgress? {
        guard let tracker else { return nil }
        if !force, let last = lastProgressEvent, now - last < 0.2 { return nil }
        lastProgressEvent = now
        var progress = withRecording(tracker.snapshot(at: now))
        progress.connections = requestsInFlight
        return progress
    }

    /// `progress` with how far the recording has come, for a run that records: no time left
    /// unless the recording has a duration to reach.
    private func withRecording(_ progress: DownloadProgress) -> DownloadProgress {
        guard let recording else { return progress }
        var progress = progress
        let onDisk = mainRendition.flatMap { progress.loadedTimeRanges[$0] }?.reduce(0) { $0 + $1.duration } ?? 0
        let limit = recording.limit
        progress.recording = .init(recordedSeconds: onDisk, behindLiveEdge: max(0, recording.duration - onDisk), limit: limit,
                                   missedSegments: recording.missed.count)
        // A live stream arrives in real time: what is left of the duration is the time left.
        progress.secondsRemaining = limit.map { max(0, $0 - onDisk) }
        return progress
    }

    /// The progress as the run leaves it: no request in flight.
    func finalProgress() -> ProgressTracker? {
        tracker?.resetInFlight()
        return tracker
    }
}
