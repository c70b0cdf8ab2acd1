import Foundation

/// A session's part in who runs what: its instance in the index, the claims it makes from its
/// queue there, the leases it renews and the requests it reads. The decisions are
/// ``Ownership``'s, taken in the index's transactions; this type only says when to ask.
///
/// Nothing is written until the session first queues a task: a session that only reads, plays
/// or prefetches keys never appears in the index and never changes another process's rows.
final class TaskScheduler: Sendable {
    /// Who this session is in the index.
    let instance: Instance
    private let index: any AssetIndex
    /// How long a claim holds without renewal.
    let lease: Duration
    private let checksProcesses: Bool
    private let clock: @Sendable () -> Date
    private let label: String
    private let state = Locked(State())

    private struct State {
        var registered = false
        /// Unregistered for good: the session has shut down.
        var closed = false
        /// When the runs' leases (and the heartbeat) were last renewed.
        var lastRenewed: Date?
        /// When the heartbeat alone was last renewed.
        var lastHeartbeat: Date?
        /// Claims the fleet's tasks (``joinFleet()``): the index says so to whoever asks.
        var fleetWorker = false
    }

    init(index: any AssetIndex, lease: Duration, checksProcesses: Bool, label: String,
         clock: @escaping @Sendable () -> Date = { Date() }) {
        self.instance = Instance.make()
        self.index = index
        self.lease = lease
        self.checksProcesses = checksProcesses
        self.label = label
        self.clock = clock
    }

    var leaseSeconds: Double { Double(lease.components.seconds) + Double(lease.components.attoseconds) / 1e18 }

    /// The rules' view of now.
    func context() -> OwnershipContext {
        OwnershipContext(now: clock(), checksProcesses: checksProcesses)
    }

    var isRegistered: Bool { state.withLock { $0.registered } }

    /// Records this instance alive, once, before it first queues anything.
    func register() async throws(CarryonError) {
        guard !state.withLock({ $0.closed }) else { throw CarryonError(.cancelled, "the download session is shut down") }
        guard !isRegistered else { return }
        let now = clock()
        try await index.register(instance, label: label, fleetWorker: fleetWorker, until: now.addingTimeInterval(leaseSeconds), at: now)
        state.withLock { state in
            guard !state.closed else { return }
            state.registered = true
            state.lastRenewed = now
            state.lastHeartbeat = now
        }
        if await takeBackIfClosed() { throw CarryonError(.cancelled, "the download session is shut down") }
    }

    /// Takes back the row this instance wrote if the session shut down meanwhile
    /// (``unregister()`` may have removed it before the write landed, which made it again): a
    /// session that has stopped is no one's holder, nor a worker, not even until its heartbeat
    /// runs out. Whether it did.
    @discardableResult
    private func takeBackIfClosed() async -> Bool {
        guard state.withLock({ $0.closed }) else { return false }
        try? await index.unregister(instance.id)
        return true
    }

    /// Records this instance as one of the fleet's workers (registered, if it was not): from
    /// now on ``AssetIndex/fleetWorkers(_:)`` lists it while it lives.
    func joinFleet() async throws(CarryonError) {
        let wasRegistered = state.withLock { state in
            state.fleetWorker = true
            return state.registered
        }
        guard wasRegistered else { return try await register() }
        guard !state.withLock({ $0.closed }) else { throw CarryonError(.cancelled, "the download session is shut down") }
        let now = clock()
        try await index.register(instance, label: label, fleetWorker: true, until: now.addingTimeInterval(leaseSeconds), at: now)
        if await takeBackIfClosed() { throw CarryonError(.cancelled, "the download session is shut down") }
    }

    private var fleetWorker: Bool { state.withLock { $0.fleetWorker } }

    /// Removes this instance from the index: the session stops. What it queued is no one's.
    func unregister() async {
        let wasRegistered = state.withLock { state in
            defer {
                state.closed = true
                state.registered = false
            }
            return state.registered
        }
        if wasRegistered { try? await index.unregister(instance.id) }
    }

    /// Queues asset `id` here, to start no sooner than `start`.
    func enqueue(_ id: String, startingAt start: Date? = nil) async throws(CarryonError) -> (Ownership.EnqueueDecision, TaskOwnership?) {
        try await register()
        // Alive in the index while it queues: what it queues is its own only while it lives.
        try await keepAlive()
        return try await index.enqueue(id, by: instance.id, startingAt: start, context())
    }

    /// Claims the next task this instance queued whose time has come; with `fromFleet`, or one
    /// in the fleet's queue.
    func claimNext(fromFleet: Bool = false) async throws(CarryonError) -> Fence? {
        guard isRegistered else { return nil }
        return try await index.claimNext(by: instance.id, fromFleet: fromFleet, lease: leaseSeconds, context())
    }

    /// Renews the heartbeat and `fences`' leases when a third of the lease has passed since
    /// the last renewal; returns the runs whose claim was lost (another process claimed them).
    func renewIfDue(_ fences: [Fence]) async throws(CarryonError) -> [Fence] {
        let now = clock()
        let due = state.withLock { state -> Bool in
            guard state.registered, !state.closed else { return false }
            return Ownership.renewalDue(lastRenewed: state.lastRenewed?.timeIntervalSince1970 ?? 0, now: now.timeIntervalSince1970,
                                        lease: leaseSeconds)
        }
        guard due else { return [] }
        let lost = try await index.renew(instance, label: label, fleetWorker: fleetWorker, aliveUntil: now.addingTimeInterval(leaseSeconds), fences: fences,
                                         lease: leaseSeconds, context())
        state.withLock {
            $0.lastRenewed = now
            $0.lastHeartbeat = now
        }
        await takeBackIfClosed()
        return lost
    }

    /// Renews the heartbeat alone when a third of the lease has passed since it was last
    /// renewed: the runs' leases keep their own schedule (``renewIfDue(_:)``).
    private func keepAlive() async throws(CarryonError) {
        let now = clock()
        let due = state.withLock { state in
            !state.closed && Ownership.renewalDue(lastRenewed: (state.lastHeartbeat ?? state.lastRenewed)?.timeIntervalSince1970 ?? 0,
                                 now: now.timeIntervalSince1970, lease: leaseSeconds)
        }
        guard due else { return }
        _ = try await index.renew(instance, label: label, fleetWorker: fleetWorker, aliveUntil: now.addingTimeInterval(leaseSeconds), fences: [], lease: leaseSeconds, context())
        state.withLock { $0.lastHeartbeat = now }
        await takeBackIfClosed()
    }

    /// The requests other processes left for this instance's tasks.
    func requests() async throws(CarryonError) -> [(id: String, request: Ownership.Request)] {
        guard isRegistered else { return [] }
        return try await index.requests(for: instance.id)
    }

    /// Who holds asset `id`.
    func ownership(of id: String) async throws(CarryonError) -> TaskOwnership? {
        try await index.ownership(of: id, context())
    }

    /// Who holds each asset a process may hold, in one read (see ``AssetIndex/holdings(_:)``).
    func holdings() async throws(CarryonError) -> [String: TaskOwnership] {
        try await index.holdings(context())
    }

    /// Records `state` for asset `id` unless another live instance holds it; returns that holder.
    func setStateUnlessHeld(_ state: DownloadState, of id: String, error: String? = nil) async throws(CarryonError) -> TaskOwnership? {
        try await index.setStateUnlessHeld(state, of: id, by: instance.id, error: error, context())
    }

    /// Leaves `request` for whoever holds asset `id`.
    func request(_ request: Ownership.Request, of id: String, onlyIfUnheld: Bool = false) async throws(CarryonError) -> RequestOutcome {
        try await index.request(request, of: id, by: instance.id, onlyIfUnheld: onlyIfUnheld, context())
    }

    /// The error for a task another live process holds.
    static func busy(_ id: String, _ ownership: TaskOwnership, _ doing: String) -> CarryonError {
        let what: String
        switch ownership.holder {
        case .queued(Ownership.fleet)?: what = "is queued for the fleet's workers"
        case .queued?: what = "is queued by another process (\(ownership.holderDescription))"
        default: what = "is being downloaded by another process (\(ownership.holderDescription))"
        }
        return CarryonError(.busy, "\(id) \(what)\(doing.isEmpty ? "" : "; " + doing)")
    }
}
