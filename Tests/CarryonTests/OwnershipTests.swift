@testable import Carryon
import Foundation
import Testing

/// The scheduler's decisions — claim, renew, expire, fence — as pure functions of a row, the
/// time and which instances live: each case with an injected clock, no index, no sleeps.
@Suite("Ownership: claims, leases and fences")
struct OwnershipTests {
    static let lease = 30.0
    let t0 = 1_000_000.0

    func row(_ state: DownloadState, owner: String? = nil, until: Double? = nil, epoch: Int64 = 0,
             queuedBy: String? = nil, queuedAt: Double? = nil) -> Ownership.Row {
        Ownership.Row(state: state, owner: owner, leaseUntil: until, epoch: epoch, queuedBy: queuedBy, queuedAt: queuedAt, request: nil)
    }

    let everyone: (String) -> Bool = { _ in true }
    let noOne: (String) -> Bool = { _ in false }

    @Test("a running row is held while its lease lasts and its owner lives; once the lease runs out, or the owner is known dead, no one holds it and it reads as suspended")
    func holderAndExpiry() {
        let running = row(.running, owner: "a", until: t0 + Self.lease, epoch: 3)
        #expect(Ownership.holder(of: running, now: t0, isAlive: everyone) == .running("a"))
        #expect(Ownership.effectiveState(of: running, now: t0, isAlive: everyone) == .running)
        // One moment past the lease.
        #expect(Ownership.holder(of: running, now: t0 + Self.lease, isAlive: everyone) == nil)
        #expect(Ownership.effectiveState(of: running, now: t0 + Self.lease + 0.001, isAlive: everyone) == .suspended)
        // The owner's process is gone (the pid check): no need to wait for the lease.
        #expect(Ownership.holder(of: running, now: t0 + 1, isAlive: noOne) == nil)
        #expect(Ownership.effectiveState(of: running, now: t0 + 1, isAlive: noOne) == .suspended)
        // A row left running by an earlier release: no owner, no lease.
        #expect(Ownership.effectiveState(of: row(.running), now: t0, isAlive: everyone) == .suspended)
        // States that are not held read as they are.
        for state in [DownloadState.completed, .failed, .cancelled, .suspended] {
            #expect(Ownership.effectiveState(of: row(state), now: t0, isAlive: noOne) == state)
        }
    }

    @Test("a waiting row belongs to the queue of the instance that queued it while that instance lives; after, it reads as suspended")
    func queuedRows() {
        let queued = row(.waiting, queuedBy: "a", queuedAt: t0)
        #expect(Ownership.holder(of: queued, now: t0, isAlive: everyone) == .queued("a"))
        #expect(Ownership.holder(of: queued, now: t0, isAlive: noOne) == nil)
        #expect(Ownership.effectiveState(of: queued, now: t0, isAlive: noOne) == .suspended)
        #expect(Ownership.effectiveState(of: row(.waiting), now: t0, isAlive: everyone) == .suspended)
    }

    @Test("enqueue: another live holder makes it busy and nothing changes; the holder itself already has it; an unheld row is queued; completed and cancelled rows are not")
    func enqueueDecisions() {
        let running = row(.running, owner: "a", until: t0 + Self.lease, epoch: 1)
        #expect(Ownership.enqueue(running, by: "b", now: t0, isAlive: everyone) == .busy(.running("a")))
        #expect(Ownership.enqueue(running, by: "a", now: t0, isAlive: everyone) == .alreadyHeld)
        let queued = row(.waiting, queuedBy: "a", queuedAt: t0)
        #expect(Ownership.enqueue(queued, by: "b", now: t0, isAlive: everyone) == .busy(.queued("a")))
        #expect(Ownership.enqueue(queued, by: "a", now: t0, isAlive: everyone) == .alreadyHeld)
        // The queueing process is gone: anyone may run it.
        #expect(Ownership.enqueue(queued, by: "b", now: t0, isAlive: noOne) == .queue)
        // A crashed owner, known dead at once or after the lease.
        #expect(Ownership.enqueue(running, by: "b", now: t0 + 1, isAlive: noOne) == .queue)
        #expect(Ownership.enqueue(running, by: "b", now: t0 + Self.lease + 1, isAlive: everyone) == .queue)
        #expect(Ownership.enqueue(row(.suspended), by: "b", now: t0, isAlive: everyone) == .queue)
        #expect(Ownership.enqueue(row(.failed), by: "b", now: t0, isAlive: everyone) == .queue)
        #expect(Ownership.enqueue(row(.completed), by: "b", now: t0, isAlive: everyone) == .complete)
        #expect(Ownership.enqueue(row(.cancelled), by: "b", now: t0, isAlive: everyone) == .cancelled)
    }

    @Test("claim: only the queueing instance claims a waiting row, once its time has come, raising the epoch and starting a lease")
    func claims() {
        let queued = row(.waiting, epoch: 4, queuedBy: "a", queuedAt: t0)
        #expect(Ownership.claim(queued, by: "a", now: t0, lease: Self.lease) == .init(epoch: 5, leaseUntil: t0 + Self.lease))
        #expect(Ownership.claim(queued, by: "b", now: t0, lease: Self.lease) == nil)
        // Deferred: queued to start later.
        let later = row(.waiting, queuedBy: "a", queuedAt: t0 + 10)
        #expect(Ownership.claim(later, by: "a", now: t0 + 9.9, lease: Self.lease) == nil)
        #expect(Ownership.claim(later, by: "a", now: t0 + 10, lease: Self.lease) != nil)
        #expect(Ownership.claim(row(.suspended, queuedBy: "a"), by: "a", now: t0, lease: Self.lease) == nil)
        #expect(Ownership.claim(row(.running, owner: "a", until: t0 + 5, queuedBy: "a"), by: "a", now: t0, lease: Self.lease) == nil)
    }

    @Test("fence: a write lands only while the row is the run's owner's at the run's epoch; a successor's claim (a new epoch) fences the old run off, even back at its own instance")
    func fences() {
        let fence = Fence(assetID: "x", owner: "a", epoch: 2)
        #expect(Ownership.admits(row(.running, owner: "a", until: t0, epoch: 2), fence))
        // Its lease ran out but no one claimed it: no successor to overwrite.
        #expect(Ownership.admits(row(.running, owner: "a", until: t0 - 100, epoch: 2), fence))
        // Queued by someone else after the lease ran out: owned by no one.
        #expect(!Ownership.admits(row(.waiting, epoch: 2, queuedBy: "b"), fence))
        // Claimed by a successor.
        #expect(!Ownership.admits(row(.running, owner: "b", until: t0 + 30, epoch: 3), fence))
        // The same instance claimed it again: the old run's epoch is still fenced off.
        #expect(!Ownership.admits(row(.running, owner: "a", until: t0 + 30, epoch: 3), fence))
    }

    @Test("renewal: due every third of the lease, it extends a claim still held and reports a lost one")
    func renewals() {
        #expect(!Ownership.renewalDue(lastRenewed: t0, now: t0 + 9.99, lease: Self.lease))
        #expect(Ownership.renewalDue(lastRenewed: t0, now: t0 + 10, lease: Self.lease))
        let fence = Fence(assetID: "x", owner: "a", epoch: 2)
        #expect(Ownership.renew(row(.running, owner: "a", until: t0 + 5, epoch: 2), fence, now: t0 + 10, lease: Self.lease) == t0 + 40)
        #expect(Ownership.renew(row(.running, owner: "b", until: t0 + 30, epoch: 3), fence, now: t0 + 10, lease: Self.lease) == nil)
    }

    @Test("liveness: a heartbeat that has run out is death; a process known gone is death at once; unknown (another host) defers to the heartbeat")
    func liveness() {
        #expect(Ownership.isAlive(aliveUntil: t0 + 1, now: t0, processRunning: nil))
        #expect(Ownership.isAlive(aliveUntil: t0 + 1, now: t0, processRunning: true))
        #expect(!Ownership.isAlive(aliveUntil: t0 + 1, now: t0, processRunning: false))
        #expect(!Ownership.isAlive(aliveUntil: t0, now: t0, processRunning: true))
    }

    @Test("a process is running while it is, and not once it has exited or when its id was given to a later process")
    func processProbe() throws {
        let me = getpid()
        let start = try #require(ProcessProbe.startTime(of: me))
        #expect(ProcessProbe.isRunning(pid: me, start: start))
        #expect(ProcessProbe.isRunning(pid: me, start: nil))
        #expect(!ProcessProbe.isRunning(pid: me, start: start + 1))
        #expect(!ProcessProbe.isRunning(pid: Int32.max - 1, start: nil))
    }

    @Test("a process is judged by its id only within the same process table: the same host name in another container (another pid namespace) is alive while its heartbeat lasts")
    func processScope() throws {
        let context = OwnershipContext(now: Date(timeIntervalSince1970: t0), checksProcesses: true)
        #expect(ProcessProbe.scope != nil)
        let gone = Instance(id: "x", host: ProcessProbe.hostName, pid: Int32.max - 1, processStart: nil, processScope: ProcessProbe.scope)
        #expect(!context.isAlive(gone, aliveUntil: t0 + 10))
        var elsewhere = gone
        elsewhere.processScope = "another boot pid:[1]"
        #expect(context.isAlive(elsewhere, aliveUntil: t0 + 10))
        #expect(!context.isAlive(elsewhere, aliveUntil: t0 - 1))
        // The check off: only the heartbeat decides, here too.
        let leaseOnly = OwnershipContext(now: Date(timeIntervalSince1970: t0), checksProcesses: false)
        #expect(leaseOnly.isAlive(gone, aliveUntil: t0 + 10))
    }

    @Test("the fleet's queue: a waiting row queued by the fleet is held by it whoever lives; only a worker claims it; a worker's row whose lease ran out is the fleet's again, waiting, and the next worker claims it under a new epoch")
    func fleetQueue() {
        let fleet = Ownership.fleet
        let queued = row(.waiting, queuedBy: fleet, queuedAt: t0)
        // No process is the fleet: it holds its rows when no instance lives at all.
        #expect(Ownership.holder(of: queued, now: t0, isAlive: noOne) == .queued(fleet))
        #expect(Ownership.isFleet(Ownership.holder(of: queued, now: t0, isAlive: noOne)))
        #expect(Ownership.effectiveState(of: queued, now: t0, isAlive: noOne) == .waiting)
        #expect(Ownership.enqueue(queued, by: "a", now: t0, isAlive: everyone) == .busy(.queued(fleet)))
        #expect(Ownership.enqueue(queued, by: fleet, now: t0, isAlive: everyone) == .alreadyHeld)
        // Claimed only by a worker, and only once its time has come.
        #expect(Ownership.claim(queued, by: "a", now: t0, lease: Self.lease) == nil)
        #expect(Ownership.claim(queued, by: "a", fromFleet: true, now: t0, lease: Self.lease) == .init(epoch: 1, leaseUntil: t0 + Self.lease))
        #expect(Ownership.claim(row(.waiting, queuedBy: fleet, queuedAt: t0 + 5), by: "a", fromFleet: true, now: t0, lease: Self.lease) == nil)
        // A worker runs it: its while the lease lasts and it lives, whatever the fleet says.
        let running = row(.running, owner: "a", until: t0 + Self.lease, epoch: 1, queuedBy: fleet, queuedAt: t0)
        #expect(Ownership.holder(of: running, now: t0 + 1, isAlive: everyone) == .running("a"))
        #expect(Ownership.claim(running, by: "b", fromFleet: true, now: t0 + 1, lease: Self.lease, isAlive: everyone) == nil)
        #expect(Ownership.enqueue(running, by: fleet, now: t0 + 1, isAlive: everyone) == .busy(.running("a")))
        // The worker dies (its lease runs out, or it is known dead): back in the fleet's queue, not suspended.
        for (now, alive) in [(t0 + Self.lease + 1, everyone), (t0 + 1, noOne)] {
            #expect(Ownership.holder(of: running, now: now, isAlive: alive) == .queued(fleet))
            #expect(Ownership.effectiveState(of: running, now: now, isAlive: alive) == .waiting)
            #expect(Ownership.claim(running, by: "b", fromFleet: true, now: now, lease: Self.lease, isAlive: alive) == .init(epoch: 2, leaseUntil: now + Self.lease))
            #expect(Ownership.claim(running, by: "b", now: now, lease: Self.lease, isAlive: alive) == nil)
        }
        // A request left on the row is applied by whoever left it, not claimed over.
        var asked = queued
        asked.request = .suspend
        #expect(Ownership.claim(asked, by: "a", fromFleet: true, now: t0, lease: Self.lease) == nil)
        // Not a worker's own rows of another instance, nor a fleet's row that left the queue.
        #expect(Ownership.claim(row(.waiting, queuedBy: "b", queuedAt: t0), by: "a", fromFleet: true, now: t0, lease: Self.lease, isAlive: everyone) == nil)
        #expect(Ownership.claim(row(.suspended, queuedBy: fleet), by: "a", fromFleet: true, now: t0, lease: Self.lease) == nil)
        #expect(Ownership.holder(of: row(.completed, queuedBy: fleet), now: t0, isAlive: noOne) == nil)
    }

    @Test("an instance is shown by its process and host, then its name; a list of downloads shows its name first")
    func instanceName() {
        var instance = Instance(id: "x", host: "box-1", pid: 42, processStart: nil, processScope: nil)
        #expect(instance.description == "pid 42 on box-1" && instance.workerDescription == "pid 42 on box-1")
        instance.name = "worker-a"
        #expect(instance.description == "pid 42 on box-1, worker-a")
        #expect(instance.workerDescription == "worker-a (pid 42 on box-1)")
    }
}
