import Foundation

/// Who runs a download, decided by the index alone: the pure rules a claim, a renewal, a fence
/// and a reading of the library follow. No I/O and no clock of their own — the index's
/// transactions give them the row as it is, the time and which instances are alive, and write
/// what they decide — so every decision is unit tested with an injected clock.
///
/// A task row carries:
/// - its **owner**, the instance running it (`running` rows), with a **lease** that the owner
///   renews every third of ``Configuration/lease``; a row whose lease has run out, or whose
///   owner is known dead, may be claimed by anyone;
/// - an **epoch**, raised by one at every claim: every write a run makes names the owner and
///   the epoch it claimed with (a ``Fence``), so a run that lost its claim (paused past its
///   lease, partitioned) can never overwrite its successor;
/// - for `waiting` rows, the instance that **queued** it and when: the queue is the index's
///   waiting rows, in order of priority then time, each claimed only by the instance that
///   queued it while that instance lives;
/// - a **request** (suspend, cancel, delete) another process left for the owner to apply.
///
/// The **fleet's queue** is the rows queued by ``fleet``, an owner that never dies: any
/// instance that works for the fleet (`carryon worker`, `serve --worker`) claims them. Such a
/// row keeps ``fleet`` in `queuedBy` while a worker runs it, so when the worker dies — its lease
/// runs out — the row is back in the fleet's queue, not suspended, and the next worker resumes it.
enum Ownership {
    /// The owner of the fleet's queue: what `carryon enqueue` queues a download by, for any
    /// worker to claim. It is no process, and always alive.
    static let fleet = "fleet"

    /// A task row as the rules read it.
    struct Row: Sendable, Hashable {
        var state: DownloadState
        var owner: String?
        /// Seconds since 1970 until which the owner's claim holds.
        var leaseUntil: Double?
        var epoch: Int64
        var queuedBy: String?
        /// Seconds since 1970 from when the queued task may start.
        var queuedAt: Double?
        var request: Request?
    }

    /// What another process asks of a task's owner.
    enum Request: String, Sendable, Hashable, Codable {
        case suspend, cancel, delete
    }

    /// Who holds a task now.
    enum Holder: Sendable, Hashable {
        /// `instance` runs it, under a lease that has not run out.
        case running(String)
        /// `instance` queued it and lives: it will run it.
        case queued(String)

        var instance: String {
            switch self { case .running(let id), .queued(let id): id }
        }
    }

    /// The instance holding `row` at `now`, or nil when no live process does: a running row
    /// whose lease ran out or whose owner is dead, a waiting row whose queueing instance is gone.
    /// A fleet task (`queuedBy` is ``fleet``) that is waiting, or whose worker is gone, is the
    /// fleet's: `.queued(fleet)`.
    static func holder(of row: Row, now: Double, isAlive: (String) -> Bool) -> Holder? {
        if let owner = row.owner, let until = row.leaseUntil, until > now, isAlive(owner) { return .running(owner) }
        if row.queuedBy == fleet, row.state == .waiting || row.state == .running { return .queued(fleet) }
        if row.state == .waiting, let queuer = row.queuedBy, isAlive(queuer) { return .queued(queuer) }
        return nil
    }

    /// The state to show and act on: a running or waiting row no live process holds is
    /// suspended (its process died, or stopped without a word), resumable by anyone; one back
    /// in the fleet's queue (its worker gone) is waiting.
    static func effectiveState(of row: Row, now: Double, isAlive: (String) -> Bool) -> DownloadState {
        guard row.state == .running || row.state == .waiting else { return row.state }
        switch holder(of: row, now: now, isAlive: isAlive) {
        case nil: return .suspended
        case .queued?: return .waiting
        case .running?: return row.state
        }
    }

    /// Whether `holder` is the fleet's queue: no process, so a request for the task is applied
    /// by whoever makes it, and a state written by anyone lands.
    static func isFleet(_ holder: Holder?) -> Bool {
        holder == .queued(fleet)
    }

    /// What asking to run a task does.
    enum EnqueueDecision: Sendable, Hashable {
        /// Queue it: waiting, queued by the asking instance at `now`, owned by no one.
        case queue
        /// The asking instance runs or has queued it already.
        case alreadyHeld
        /// Another live instance runs or has queued it: nothing changes.
        case busy(Holder)
        /// It is complete: nothing to do.
        case complete
        /// It was cancelled: it cannot run again.
        case cancelled
    }

    /// Whether `instance` may queue `row` at `now`.
    static func enqueue(_ row: Row, by instance: String, now: Double, isAlive: (String) -> Bool) -> EnqueueDecision {
        if let holder = holder(of: row, now: now, isAlive: isAlive) {
            return holder.instance == instance ? .alreadyHeld : .busy(holder)
        }
        switch row.state {
        case .completed: return .complete
        case .cancelled: return .cancelled
        case .waiting, .running, .suspended, .failed: return .queue
        }
    }

    /// A claim: the row becomes running, owned by the claiming instance under `epoch` until `leaseUntil`.
    struct Claim: Sendable, Hashable {
        var epoch: Int64
        var leaseUntil: Double
    }

    /// Whether `instance` claims `row` from its queue at `now`: a waiting row it queued itself,
    /// whose time has come; with `fromFleet` (a worker), also a row in the fleet's queue — waiting,
    /// or running under a worker whose lease ran out or that is dead.
    static func claim(_ row: Row, by instance: String, fromFleet: Bool = false, now: Double, lease: Double,
                      isAlive: (String) -> Bool = { _ in false }) -> Claim? {
        guard row.request == nil, (row.queuedAt ?? 0) <= now else { return nil }
        let mine = row.state == .waiting && row.queuedBy == instance
        let fleets = fromFleet && instance != fleet && isFleet(holder(of: row, now: now, isAlive: isAlive))
        guard mine || fleets else { return nil }
        return Claim(epoch: row.epoch + 1, leaseUntil: now + lease)
    }

    /// Whether a write made under `fence` may land on `row`: the row is still the fence's
    /// owner's, at the fence's epoch. A lease that ran out without anyone claiming the row
    /// still holds: no successor exists to overwrite.
    static func admits(_ row: Row, _ fence: Fence) -> Bool {
        row.owner == fence.owner && row.epoch == fence.epoch
    }

    /// A renewal of `fence`'s claim at `now`: the new lease end, or nil when the claim is lost.
    static func renew(_ row: Row, _ fence: Fence, now: Double, lease: Double) -> Double? {
        admits(row, fence) ? now + lease : nil
    }

    /// Whether a claim last renewed at `renewed` is due for renewal at `now`: every third of the lease.
    static func renewalDue(lastRenewed renewed: Double, now: Double, lease: Double) -> Bool {
        now - renewed >= lease / 3
    }

    /// Whether an instance whose heartbeat lasts until `aliveUntil` is alive at `now`; with
    /// `processRunning` (nil when it cannot be told: another host, or the check is off), a
    /// process known gone is dead at once.
    static func isAlive(aliveUntil: Double, now: Double, processRunning: Bool?) -> Bool {
        aliveUntil > now && processRunning != false
    }
}

/// What every write of a run carries: the asset, and the owner and epoch it claimed with.
/// A write whose fence the row no longer matches is refused (``CarryonError/Code/busy``).
struct Fence: Sendable, Hashable {
    var assetID: String
    var owner: String
    var epoch: Int64
}

/// Why a write under a ``Fence`` was refused: another process claimed the task after the
/// run's lease ran out. The run stops and writes nothing more.
struct LostClaim: Error, Sendable {}
