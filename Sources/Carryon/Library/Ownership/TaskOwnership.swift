import Foundation

/// What the index's ownership rules are given besides the rows: the time, and whether an
/// instance on this host whose process is gone counts as dead at once (without waiting for its
/// heartbeat or lease to run out).
struct OwnershipContext: Sendable {
    var now: Date
    var checksProcesses: Bool
    /// The reading process's process table (see ``Instance/processScope``).
    var processScope: String? = ProcessProbe.scope

    var seconds: Double { now.timeIntervalSince1970 }

    /// Whether an instance whose heartbeat lasts until `aliveUntil` is alive now: its process
    /// is asked about only when it shares this process's process table.
    func isAlive(_ instance: Instance, aliveUntil: Double) -> Bool {
        let running: Bool? = checksProcesses && processScope != nil && instance.processScope == processScope
            ? ProcessProbe.isRunning(pid: instance.pid, start: instance.processStart) : nil
        return Ownership.isAlive(aliveUntil: aliveUntil, now: seconds, processRunning: running)
    }
}

/// Who holds a task, as the index tells it: its row, the live instance holding it (running or
/// queued), the state to show, and the progress its owner last wrote.
struct TaskOwnership: Sendable {
    var row: Ownership.Row
    var holder: Ownership.Holder?
    /// The holder's host and process, for people.
    var holderInstance: Instance?
    var effectiveState: DownloadState
    /// The owner's progress, written about once a second while it runs.
    var progress: DownloadProgress?

    /// How people are told who holds it: `pid 1234 on host-a`.
    var holderDescription: String {
        holderInstance?.description ?? holder?.instance ?? "another process"
    }
}

/// What a request for another process's task came to.
enum RequestOutcome: Sendable {
    /// Recorded for `holder`, which applies it.
    case sent(TaskOwnership)
    /// No live process holds the task: the asking one applies it itself.
    case unheld
    /// The asking instance holds it itself.
    case mine
    /// Another live instance holds it, and the request was to be made only if none did:
    /// nothing was written.
    case heldElsewhere(TaskOwnership)
}

extension OfflineLibrary {
    /// How this process reads who holds what: now, with owners on this host known dead as
    /// soon as their process is gone.
    func ownershipContext() -> OwnershipContext {
        OwnershipContext(now: Date(), checksProcesses: true)
    }
}
