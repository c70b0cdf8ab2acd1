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
                await self.steer()
            }
        }
    }

    private func steer() async {
        guard !isShutDown else { return }
        let runs = tasks.values.compactMap(\.run).filter { !$0.lost }
        let now = Self.now()
        for run in runs {
            if let progress = run.progressToWrite(at: now) { try? await index.writeProgress(progress, fence: run.fence) }
        }
        do {
            for fence in try await scheduler.renewIfDue(runs.map(\.fence)) { loseClaim(fence) }
        } catch {
            logger.warning("cannot renew the session's leases", metadata: ["error": "\(error.message)"])
        }
        for (id, request) in (try? await scheduler.requests()) ?? [] { await apply(request, to: id) }
        await fill()
        if fanout.hasSubscribers, let ownerships = try? await index.ownerships(scheduler.context()) {
            fanout.observe(ownerships.filter { tasks[$0.key].map(\.isIdle) ?? true })
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
