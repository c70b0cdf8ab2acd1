import Foundation

/// The fleet: downloads queued for any worker rather than for one session, on a library whose
/// index many machines share (PostgreSQL, see ``IndexLocation``). `carryon enqueue` queues,
/// `carryon worker` and `carryon serve --worker` work.
///
/// A worker claims the fleet's waiting tasks as it has room, each under a lease it renews. A
/// worker that stops (SIGTERM) hands its tasks back to the queue; one that dies (kill -9, power,
/// a partition) loses them when its lease runs out, and the next worker to look resumes each from
/// the bytes already in its bundle on the shared storage. The dead worker's writes are refused
/// from then on (its fence's epoch is no longer the row's).
extension DownloadSession {
    /// Makes this session one of the fleet's workers until ``shutdown()``: besides the tasks it
    /// queues itself, it claims those queued for the fleet (``enqueueForFleet(_:)``), up to
    /// ``Configuration/maximumConcurrentTasks`` running at once, looking for new ones twice a
    /// second. At shutdown the fleet's tasks it runs go back to the fleet's queue (waiting, not
    /// suspended), for any worker to resume.
    ///
    /// Whoever fills the queue chooses what a worker fetches: a worker whose queue others fill
    /// should refuse private origins, as `carryon worker` does by default
    /// (``LocationRule/refusesPrivateHosts`` in ``Configuration/locationRule`` and
    /// ``NetworkSettings/refusesPrivateAddresses`` in ``Configuration/network``).
    public func joinFleet() async throws(CarryonError) {
        guard !isShutDown else { throw CarryonError(.cancelled, "the download session is shut down") }
        worksForFleet = true
        try await scheduler.joinFleet()
        startSteering()
        await fill()
    }

    /// Whether this session works for the fleet (``joinFleet()``).
    public var isFleetWorker: Bool { worksForFleet }

    /// The fleet's workers alive now, in this process or any other on the library's index
    /// (``joinFleet()``), the longest-running first: who would run a task queued with
    /// ``enqueueForFleet(_:)``. Empty: a task queued now waits until a worker starts.
    public func fleetWorkers() async throws(CarryonError) -> [FleetWorker] {
        try await index.fleetWorkers(scheduler.context())
    }

    /// Puts task `id` (the whole id, or a unique prefix) in the fleet's queue, for whichever
    /// worker has room first; returns at once. A task already in the queue stays as it is, and
    /// a completed one is left complete.
    ///
    /// - Throws: ``CarryonError/Code/busy`` when a process runs the task or has queued it for
    ///   itself (nothing changes), ``CarryonError/Code/invalidState`` for a cancelled task.
    public func enqueueForFleet(_ id: String) async throws(CarryonError) {
        let id = try await resolveID(id)
        await settle(id)
        if let task = tasks[id], task.run != nil || task.isQueued {
            throw CarryonError(.busy, "\(id) is queued or running in this process; suspend it first to hand it to the fleet")
        }
        try await recordUnrecordedEnd(id)
        let (decision, before) = try await index.enqueue(id, by: Ownership.fleet, startingAt: nil, scheduler.context())
        switch decision {
        case .queue, .alreadyHeld:
            tasks[id]?.lastError = nil
            if tasks[id] != nil { record(id, DownloadTaskStateMachine(state: .waiting)) }
        case .busy:
            throw TaskScheduler.busy(id, before!, "it is left as it is")
        case .complete:
            break
        case .cancelled:
            throw CarryonError(.invalidState, "\(id): cannot queue a task that is cancelled")
        }
    }
}

extension OfflineLibrary {
    /// The fleet's workers alive now on this library's index, as
    /// ``DownloadSession/fleetWorkers()`` lists them, read without a session (nothing written).
    public func fleetWorkers() async throws(CarryonError) -> [FleetWorker] {
        try await index.fleetWorkers(OwnershipContext(now: Date(), checksProcesses: true))
    }
}
