/// The life cycle of a download task as an explicit state machine: one mutating method per
/// event, each returning what the session must do. No I/O, so every transition is unit tested.
///
/// ```
/// waiting ──start──▶ running ──complete──▶ completed
///    ▲                 │  │
///    │ resume          │  └──fail──▶ failed ──resume──▶ waiting
///    │                 suspend
/// suspended ◀──────────┘            (cancel from any but completed/cancelled ▶ cancelled)
/// ```
struct DownloadTaskStateMachine: Sendable, Hashable {
    private(set) var state: DownloadState

    init(state: DownloadState) {
        self.state = state
    }

    /// What the session does after a transition.
    enum Action: Sendable, Hashable {
        /// Nothing changes.
        case none
        /// Queue the task to run when there is room.
        case enqueue
        /// Run it now.
        case startTransfer
        /// Stop the transfer; keep what is on disk.
        case stopTransfer
        /// Stop the transfer if any, and remove the task's data.
        case stopAndRemoveData
        /// Record the outcome and tell observers.
        case finish
    }

    /// Why an event does not apply in the current state.
    struct InvalidTransition: Error, Hashable, CustomStringConvertible {
        var state: DownloadState
        var event: String
        var description: String { "cannot \(event) a task that is \(state.rawValue)" }
    }

    /// The user (or the app) asks to continue.
    mutating func resume() throws(InvalidTransition) -> Action {
        switch state {
        case .suspended, .failed:
            state = .waiting
            return .enqueue
        case .waiting:
            return .enqueue
        case .running, .completed:
            return .none
        case .cancelled:
            throw InvalidTransition(state: state, event: "resume")
        }
    }

    /// The scheduler has room for the task.
    mutating func start() throws(InvalidTransition) -> Action {
        guard state == .waiting else { throw InvalidTransition(state: state, event: "start") }
        state = .running
        return .startTransfer
    }

    /// The task could not start (its stream did not answer) and waits for room again, to try
    /// later without holding one of the session's task slots meanwhile.
    mutating func deferStart() throws(InvalidTransition) -> Action {
        guard state == .running else { throw InvalidTransition(state: state, event: "defer") }
        state = .waiting
        return .none
    }

    /// The user asks to pause, or the process is shutting down.
    mutating func suspend() -> Action {
        switch state {
        case .waiting:
            state = .suspended
            return .none
        case .running:
            state = .suspended
            return .stopTransfer
        case .suspended, .completed, .failed, .cancelled:
            return .none
        }
    }

    /// The user gives the task up: its data goes.
    mutating func cancel() throws(InvalidTransition) -> Action {
        switch state {
        case .completed:
            throw InvalidTransition(state: state, event: "cancel")
        case .cancelled:
            return .none
        case .waiting, .running, .suspended, .failed:
            state = .cancelled
            return .stopAndRemoveData
        }
    }

    /// More media selections were planned into the bundle: a task that had stopped (complete,
    /// suspended or failed) is suspended, ready to fetch them. A task downloading now must be
    /// suspended first; a cancelled one has no bundle.
    mutating func addMedia() throws(InvalidTransition) -> Action {
        try readyToFetchMore(event: "add media selections to")
    }

    /// Damaged resources were marked to be fetched again (a repair): as for ``addMedia()``.
    mutating func repair() throws(InvalidTransition) -> Action {
        try readyToFetchMore(event: "repair")
    }

    /// A task that had stopped is suspended, ready to fetch what its plan gained.
    private mutating func readyToFetchMore(event: String) throws(InvalidTransition) -> Action {
        switch state {
        case .completed, .suspended, .failed:
            state = .suspended
            return .none
        case .waiting, .running, .cancelled:
            throw InvalidTransition(state: state, event: event)
        }
    }

    /// Every resource is on disk and checked.
    mutating func complete() throws(InvalidTransition) -> Action {
        guard state == .running else { throw InvalidTransition(state: state, event: "complete") }
        state = .completed
        return .finish
    }

    /// The transfer stopped with an error.
    mutating func fail() -> Action {
        guard state == .running else { return .none }
        state = .failed
        return .finish
    }

    /// The library is opened by a new process and finds the task recorded as running, but no
    /// process is running it: it died mid-download. The task comes back suspended, resumable.
    mutating func recoverAfterCrash() -> Action {
        if state == .running { state = .suspended }
        return .none
    }
}
