import Foundation

/// Runs: claimed from the session's queue in the index, performed, and ended with one fenced
/// write that records how they ended and releases the claim.
extension DownloadSession {
    /// Claims queued tasks while there is room (at most ``Configuration/maximumConcurrentTasks``
    /// running here) and starts their runs. A pass asked for while one is under way makes it
    /// go round again instead of running beside it.
    func fill() async {
        guard !isShutDown else { return }
        if filling.now {
            filling.again = true
            return
        }
        filling.now = true
        defer { filling.now = false }
        repeat {
            filling.again = false
            while !isShutDown, tasks.values.count(where: { $0.run != nil }) < configuration.maximumConcurrentTasks {
                let claimed: Fence?
                do { claimed = try await scheduler.claimNext(fromFleet: worksForFleet) } catch {
                    logger.warning("cannot claim a queued task", metadata: ["error": "\(error.message)"])
                    break
                }
                guard let fence = claimed else { break }
                // Between the claim and now the task may have been suspended, cancelled or
                // deleted here, or the session shut down: the claim is given back.
                // A task this session did not queue is the fleet's (only a worker claims those).
                let fromFleet = worksForFleet && tasks[fence.assetID]?.isQueued != true
                    && (tasks[fence.assetID].map { $0.isIdle && $0.unrecordedEnd == nil } ?? true)
                if fromFleet { fleetTasks.insert(fence.assetID) } else { fleetTasks.remove(fence.assetID) }
                guard !isShutDown, tasks[fence.assetID]?.isQueued == true || fromFleet else {
                    try? await index.endRun(fence, state: isShutDown ? .waiting : (tasks[fence.assetID]?.machine.state ?? .suspended),
                                            error: nil, requeueAt: isShutDown ? Date() : nil, at: Date())
                    continue
                }
                startRun(fence)
            }
        } while filling.again && !isShutDown
    }

    /// Starts the run of the task `fence` claimed.
    private func startRun(_ fence: Fence) {
        let id = fence.assetID
        var machine = DownloadTaskStateMachine(state: .waiting)
        _ = try? machine.start()
        // A task new to this session (the fleet's) was waiting: observers see it start running.
        if tasks[id] == nil { tasks[id] = SessionTask(machine: DownloadTaskStateMachine(state: .waiting)) }
        let work = Task { try await self.perform(id) }
        let run = TaskRun(work: work, bundle: library.bundleURL(for: id), fence: fence)
        run.ended = Task { await self.end(run, of: id, work.result) }
        tasks[id]?.activity = .running(run)
        record(id, machine)
    }

    /// Ends `run` of task `id` once its work has: records how it ended, under its claim, and
    /// releases the claim.
    private func end(_ run: TaskRun, of id: String, _ result: Result<Void, any Error>) async {
        let outcome: Result<Void, CarryonError> = result.mapError { error in
            error as? CarryonError ?? CarryonError(.cancelled, "stopped")
        }
        guard tasks[id]?.run === run else { return }
        tasks[id]?.activity = .finishing
        if let progress = run.finalProgress() { tasks[id]?.lastProgress = progress }
        var machine = tasks[id]?.machine ?? DownloadTaskStateMachine(state: .running)
        var action = DownloadTaskStateMachine.Action.none
        var error: CarryonError?
        var requeueAt: Date?
        if outcome.failure?.cause is LostClaim { run.lost = true }
        if run.lost {
            // Another process claimed the task: it is that process's now, and this run writes nothing.
            logger.warning("another process claimed the task after this one's lease ran out", metadata: ["asset": "\(id)"])
            tasks[id]?.lastError = CarryonError(.busy, "another process took the download over after this one's lease ran out (it was paused or cut off); that process finishes it")
            machine = DownloadTaskStateMachine(state: .running)
        } else {
            if machine.state == .running {
                switch outcome {
                case .success:
                    action = (try? machine.complete()) ?? .none
                case .failure(let failure) where failure.code == .cancelled && isShutDown && fleetTasks.contains(id):
                    // A worker stopping: the fleet's task goes back to the fleet's queue, now.
                    if (try? machine.deferStart()) != nil { requeueAt = Date() } else { action = machine.suspend() }
                case .failure(let failure) where failure.code == .cancelled:
                    // Suspended or cancelled, the state was set by whoever stopped the task; one
                    // still running was stopped by no one. It must not stay "running" with nothing
                    // downloading, where `resume` would do nothing.
                    action = machine.suspend()
                    error = CarryonError(.transfer, "the transfer stopped without being asked to; resume goes on")
                case .failure(let failure):
                    if let delay = deferral(id, failure), (try? machine.deferStart()) != nil {
                        // A stream that did not answer before the task had a plan: tried again
                        // later, the slot given to the next task meanwhile.
                        requeueAt = Date().addingTimeInterval(delay)
                        await log(id, failure, comment: "\(failure.message); trying again in \(Duration.seconds(delay)), holding no task slot meanwhile")
                    } else {
                        // A stall is the server's fault and a storage rule the library's, not the
                        // download's: suspended with what arrived kept, for `resume` once the server
                        // answers again or there is room. Anything else fails the task.
                        let needed = needing(failure, id)
                        action = needed.code == .stalled || needed.code == .storage ? machine.suspend() : machine.fail()
                        error = needed
                    }
                }
            }
            if let error {
                tasks[id]?.lastError = error
                await log(id, error, comment: error.message)
            }
            do {
                try await index.endRun(run.fence, state: machine.state, error: error?.message, requeueAt: requeueAt, at: Date())
            } catch let failure where !(failure.cause is LostClaim) {
                // Kept here, and written before the task is next asked anything (a full disk
                // may have room by then); meanwhile this session's state is the truth.
                logger.warning("the end of a run cannot be recorded", metadata: ["asset": "\(id)", "error": "\(failure.message)"])
                tasks[id]?.unrecordedEnd = .init(fence: run.fence, error: error?.message)
                if requeueAt != nil {
                    machine = DownloadTaskStateMachine(state: .suspended)
                    requeueAt = nil
                }
            } catch {
                run.lost = true
            }
        }
        if run.lost {
            tasks[id]?.activity = .idle
            tasks[id]?.machine = DownloadTaskStateMachine(state: .running)
        } else {
            record(id, machine)
            try? await perform(action, for: id)
            if requeueAt == nil || isShutDown {
                tasks[id]?.activity = .idle
            } else {
                tasks[id]?.activity = .queued
                tasks[id]?.queueings += 1
            }
        }
        if requeueAt == nil { tasks[id]?.startAttempts = 0 }
        // Whoever waited for the end to be recorded goes on, whatever the task does next.
        for settler in tasks[id]?.settlers ?? [] { settler.resume() }
        tasks[id]?.settlers.removeAll()
        notifyFinished(id, tasks[id]?.machine.state ?? .cancelled)
        // A request another process left while the run ended is this session's to apply: the
        // row is no one's now, and no heartbeat of this session looks at it again.
        if !run.lost, requeueAt == nil, let request = try? await scheduler.ownership(of: id)?.row.request, tasks[id]?.applying == nil {
            take(request, for: id)
        }
        await fill()
    }

    /// How long task `id` waits before its next start, when its run ended before the task had
    /// a plan because its stream did not answer (`error`'s cause is a
    /// ``PlaylistFetcher/RetryLater``) and the retry policy says to try again; nil otherwise.
    private func deferral(_ id: String, _ error: CarryonError) -> Double? {
        guard let later = error.cause as? PlaylistFetcher.RetryLater, !isShutDown else { return nil }
        let attempt = (tasks[id]?.startAttempts ?? 0) + 1
        guard case .retry(let delay) = configuration.retry.decision(afterAttempt: attempt, retryAfter: later.retryAfter,
                                                                    randomUnit: Double.random(in: 0...1)) else { return nil }
        tasks[id]?.startAttempts = attempt
        return Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
    }

    /// Writes `error` to task `id`'s error log, with `comment`.
    private func log(_ id: String, _ error: CarryonError, comment: String) async {
        let url = (try? await index.asset(id))??.url
        AssetLogs(library: library).error(.init(date: Date(), event: "download", uri: url ?? id, errorDomain: "carryon",
                                                errorCode: error.code.rawValue, comment: comment), for: id)
    }

    /// A full disk's error, with how much more the download needs.
    private func needing(_ error: CarryonError, _ id: String) -> CarryonError {
        guard error.code == .disk, let progress = (tasks[id]?.run?.tracker ?? tasks[id]?.lastProgress)?.snapshot(at: Self.now()) else {
            return error
        }
        let left = max(0, progress.bytesExpected - progress.bytesDone)
        return CarryonError(error.code, "\(error.message); the download still needs \(progress.isExact ? "" : "about ")\(left) more bytes",
                            cause: error.cause)
    }
}

extension Result {
    /// The error, when it failed.
    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
