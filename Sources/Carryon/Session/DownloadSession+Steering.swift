import Foundation

/// The session's heartbeat, about twice a second while it has queued a task or has a
/// subscriber: its runs' progress written for other processes, its leases renewed every third of
/// ``Configuration/lease``, the requests other processes left applied, queued tasks whose time
/// has come started, and other processes' downloads followed for subscribers.
extension DownloadSession {
    /// How often the session steers.
    static let steeringInterval = Duration.milliseconds(500)

    /// Starts the heartbeat, once.
    func startSteering() {
        guard steering == nil, !isShutDown else { return }
        steering = Task { [weak self] in
            while !Task.isCancelled {
                do { try await Task.sleep(for: Self.steeringInterval) } catch { return }
                guard let self else { return }
                // Each pass in a task of its own, which stopping the loop (shutdown) does not
                // cancel: a pass cut short would have its index writes refused half-way.
                await Task { await self.steer() }.value
            }
        }
    }

    private func steer() async {
        guard !isShutDown else { return }
        // Leases first: nothing below may hold them up.
        let runs = tasks.values.compactMap(\.run).filter { !$0.lost }
        do {
            for fence in try await scheduler.renewIfDue(runs.map(\.fence)) { loseClaim(fence) }
        } catch {
            logger.warning("cannot renew the session's leases", metadata: ["error": "\(error.message)"])
        }
        let now = Self.now()
        for run in runs where !run.lost {
            if let progress = run.progressToWrite(at: now) { try? await index.writeProgress(progress, fence: run.fence) }
        }
        // A request is applied beside the loop: a delete waits for its run and removes a bundle.
        for (id, request) in (try? await scheduler.requests()) ?? [] where tasks[id] != nil && tasks[id]?.applying == nil {
            take(request, for: id)
        }
        await reconcileQueue()
        await fill()
        if fanout.hasSubscribers, followersDue(), var ownerships = try? await index.holdings(scheduler.context()) {
            // The tasks some process holds (read through an index, not a pass over the
            // library), and those it held last time, whose end subscribers are to see.
            for id in fanout.followed where ownerships[id] == nil {
                if let ownership = try? await index.ownership(of: id, scheduler.context()) { ownerships[id] = ownership }
            }
            fanout.observe(ownerships.filter { tasks[$0.key].map(\.isIdle) ?? true })
        }
    }

    /// Whether to read the index for subscribers following other processes' downloads on this
    /// pass: on every pass where the index signals no changes (SQLite); where it does
    /// (PostgreSQL's `LISTEN`), when one came since the last read, and every 5 s besides (a
    /// signal lost with a connection).
    private func followersDue() -> Bool {
        if following.signals == nil, let changes = index.changes() {
            following.signals = Task { [weak self] in
                for await _ in changes { await self?.indexChanged() }
            }
        }
        guard following.signals != nil else { return true }
        let now = ContinuousClock.now
        guard following.changed || following.lastRead.map({ now - $0 >= .seconds(5) }) ?? true else { return false }
        following.changed = false
        following.lastRead = now
        return true
    }

    private func indexChanged() {
        following.changed = true
    }

    /// Takes `request` off task `id`'s row (the requester then knows it is being applied) and
    /// applies it beside the heartbeat.
    func take(_ request: Ownership.Request, for id: String) {
        tasks[id]?.applying = Task {
            // Taken only if it is still there: another pass, or the run's end, may have taken it.
            if (try? await self.index.takeRequest(request, of: id)) == true { await self.apply(request, to: id) }
            await self.requestApplied(id)
        }
    }

    private func requestApplied(_ id: String) {
        tasks[id]?.applying = nil
    }

    /// Tasks this session queued whose rows say otherwise — another process took one over while
    /// this one was paused past its heartbeat, say — are no longer waited for here.
    private func reconcileQueue() async {
        let queued = tasks.filter { $0.value.isQueued && !$0.value.enqueuing }.map { ($0.key, $0.value.queueings) }
        // The rows some process holds (this session's queue among them), read through an index;
        // a queued task's row not among them is read by itself.
        guard !queued.isEmpty, var ownerships = try? await index.holdings(scheduler.context()) else { return }
        for (id, _) in queued where ownerships[id] == nil {
            // A row that cannot be read now is looked at next time; one that is gone stays out.
            do { ownerships[id] = try await index.ownership(of: id, scheduler.context()) } catch { return }
        }
        let me = scheduler.instance.id
        for (id, queueing) in queued where tasks[id]?.isQueued == true && tasks[id]?.enqueuing == false && tasks[id]?.queueings == queueing {
            let row = ownerships[id]?.row
            // Still this session's: queued by it, or claimed by it a moment ago.
            if row?.state == .waiting && row?.queuedBy == me || row?.owner == me { continue }
            tasks[id]?.activity = .idle
            let state = ownerships[id]?.effectiveState ?? .cancelled
            tasks[id]?.machine = DownloadTaskStateMachine(state: state)
            notifyFinished(id, state)
        }
    }

    /// Another process claimed the task `fence` names after this session's lease ran out: its
    /// run stops, and writes nothing more.
    private func loseClaim(_ fence: Fence) {
        guard let run = tasks[fence.assetID]?.run, run.fence == fence else { return }
        logger.warning("lost the claim on a task: another process took it over", metadata: ["asset": "\(fence.assetID)"])
        run.lost = true
        run.work.cancel()
    }

    /// Applies what another process asked of a task this session runs or has queued.
    private func apply(_ request: Ownership.Request, to id: String) async {
        do {
            switch request {
            case .suspend: try await suspend(id)
            case .cancel: try await cancel(id)
            case .delete: try await delete(id)
            }
        } catch {
            logger.warning("cannot apply another process's request", metadata: ["asset": "\(id)", "request": "\(request.rawValue)",
                                                                               "error": "\(error.message)"])
        }
    }
}
