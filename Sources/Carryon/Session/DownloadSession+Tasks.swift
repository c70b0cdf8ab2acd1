import Foundation

/// Making, finding and steering tasks: each request is an event of the task's state machine,
/// recorded, then performed.
extension DownloadSession {
    /// Creates a task for the stream at `url` (a multivariant or media playlist; http, https or
    /// file). It does not start until ``DownloadTask/resume()``.
    ///
    /// A user and password in `url` (`https://user:secret@cdn.example/…`) are taken out of it and
    /// sent as the `Authorization: Basic` header they stand for (unless `headers` has one), so
    /// that the URL the library keeps, lists, logs and quotes in errors holds no password.
    public func makeTask(url: String, name: String? = nil, options: DownloadOptions = DownloadOptions(),
                         headers: [HTTPHeader] = []) async throws(CarryonError) -> DownloadTask {
        // Credentials in the URL (`https://user:secret@…`) become the Authorization header they
        // stand for: the URL kept, listed, logged and quoted in errors has none.
        try options.check()
        let (absolute, credentials) = Self.separatingCredentials(try PlaylistFetcher.absoluteURL(for: url))
        var headers = headers
        if let credentials, !headers.contains(where: { $0.name.lowercased() == "authorization" }) { headers.append(credentials) }
        let id = Self.makeID()
        let now = Date()
        let record = AssetRecord(id: id, name: name ?? Self.defaultName(for: absolute, extensions: configuration.formats.map(\.originExtension)), url: absolute, state: .suspended,
                                 errorMessage: nil, options: options, headers: headers, selection: nil, planned: false,
                                 createdAt: now, updatedAt: now, completedAt: nil, duration: nil)
        try await index.insert(record)
        tasks[id] = SessionTask(machine: DownloadTaskStateMachine(state: record.state))
        return DownloadTask(id: id, session: self)
    }

    /// Every task the library knows, oldest first.
    public func tasks() async throws(CarryonError) -> [DownloadTask] {
        try await index.assetIDs().map { DownloadTask(id: $0, session: self) }
    }

    /// The task with `id` (the whole id, or a unique prefix of it).
    public func task(id: String) async throws(CarryonError) -> DownloadTask {
        DownloadTask(id: try await resolveID(id), session: self)
    }

    /// Resolves a full id or a unique prefix.
    func resolveID(_ text: String) async throws(CarryonError) -> String {
        try await library.resolveID(text)
    }

    /// Queues task `id` in the index for this session to run when it has room.
    ///
    /// - Throws: ``CarryonError/Code/busy`` when another live process runs the task or has
    ///   queued it (nothing changes), ``CarryonError/Code/invalidState`` for a cancelled task.
    func resume(_ id: String) async throws(CarryonError) {
        guard !isShutDown else { throw CarryonError(.cancelled, "the download session is shut down") }
        await settle(id)
        if let run = tasks[id]?.run, tasks[id]?.machine.state == .suspended {
            // A run still stopping after a suspend (which records the state and cancels the
            // transfer without waiting): waited for, or this resume would find it there and be
            // lost — as it was for a resume sent right after a suspend on a loaded machine.
            await run.ended?.value
            await settle(id)
        }
        if let task = tasks[id], task.run != nil || task.isQueued { return }
        try await recordUnrecordedEnd(id)
        var machine = try await machine(id)
        do { _ = try machine.resume() } catch { throw CarryonError(.invalidState, "\(id): \(error)") }
        startSteering()
        // Queued here before the row is: a claim made while the row is being written (the
        // heartbeat's pass) finds the task queued, and runs it.
        tasks[id]?.activity = .queued
        tasks[id]?.enqueuing = true
        let outcome: (Ownership.EnqueueDecision, TaskOwnership?)
        do { outcome = try await scheduler.enqueue(id) } catch {
            unqueue(id)
            throw error
        }
        tasks[id]?.enqueuing = false
        tasks[id]?.queueings += 1
        if isShutDown {
            // Shut down meanwhile: the row waits under an instance that is gone, and reads as
            // suspended.
            unqueue(id)
            throw CarryonError(.cancelled, "the download session is shut down")
        }
        switch outcome.0 {
        case .busy:
            unqueue(id)
            throw TaskScheduler.busy(id, outcome.1!, "")
        case .complete:
            unqueue(id)
        case .cancelled:
            unqueue(id)
            throw CarryonError(.invalidState, "\(id): cannot resume a task that is cancelled")
        case .queue, .alreadyHeld:
            tasks[id]?.lastError = nil
            // Unless a claim has started it meanwhile.
            if tasks[id]?.isQueued == true { record(id, DownloadTaskStateMachine(state: .waiting)) }
            await fill()
        }
    }

    /// Task `id`, queued here for a resume that did not queue it in the index, is not.
    private func unqueue(_ id: String) {
        tasks[id]?.enqueuing = false
        if tasks[id]?.isQueued == true { tasks[id]?.activity = .idle }
        if let state = tasks[id]?.machine.state { notifyFinished(id, state) }
    }

    /// Suspends task `id` — run or queued by this session, or by another process, which is
    /// asked to and applies it within a second — and returns the state it ended in.
    @discardableResult
    func suspend(_ id: String) async throws(CarryonError) -> DownloadState {
        try await steer(id, .suspend)
    }

    /// Cancels task `id` (its data goes) wherever it runs; returns the state it ended in.
    @discardableResult
    func cancel(_ id: String) async throws(CarryonError) -> DownloadState {
        try await steer(id, .cancel)
    }

    /// Removes an asset: its bundle and its rows. A running task is stopped first — by the
    /// process that runs it, which is asked to and does it within a second.
    ///
    /// - Throws: ``CarryonError/Code/busy`` when the process running the asset does not apply
    ///   the request in time. A player reading it through a playback server gets 404s from then on.
    public func delete(_ id: String) async throws(CarryonError) {
        try await delete(id, unlessHeldElsewhere: false)
    }

    /// Removes an asset; with `unlessHeldElsewhere` (a purge), not one another live process
    /// runs or has queued — it may have started since the purge was planned — which is
    /// ``CarryonError/Code/busy`` instead, decided in the same transaction as the request.
    func delete(_ id: String, unlessHeldElsewhere: Bool) async throws(CarryonError) {
        let id = try await resolveID(id)
        givenKeys[id] = nil
        _ = try await steer(id, .delete, onlyIfUnheld: unlessHeldElsewhere)
    }

    /// Suspends task `id` if this session runs it or has it queued, and leaves it alone if
    /// another process does: what Ctrl-C in `carryon download` and `resume` stops.
    public func suspendIfHere(_ id: String) async {
        // A run recording its end may queue the task again (a deferred start): after that.
        await settle(id)
        guard let task = tasks[id], task.run != nil || task.isQueued else { return }
        _ = try? await suspend(id)
    }

    /// Applies `request` to task `id`: here, when this session runs or queued it, or no live
    /// process holds it; else through the index, to the process that does, waiting for it to
    /// apply it (with `onlyIfUnheld`, ``CarryonError/Code/busy`` instead).
    private func steer(_ id: String, _ request: Ownership.Request, onlyIfUnheld: Bool = false) async throws(CarryonError) -> DownloadState {
        await settle(id)
        try? await recordUnrecordedEnd(id)
        if let task = tasks[id], !task.isIdle { return try await applyHere(id, request) }
        switch try await scheduler.request(request, of: id, onlyIfUnheld: onlyIfUnheld) {
        case .unheld, .mine:
            return try await applyHere(id, request)
        case .heldElsewhere(let ownership):
            throw TaskScheduler.busy(id, ownership, "it is left as it is")
        case .sent(let ownership):
            return try await awaitRequest(request, of: id, sentTo: ownership)
        }
    }

    /// Waits until the process holding task `id` has applied `request`, and returns the state
    /// the task ended in. The holder takes the request off the row when it starts applying it;
    /// one still on the row when no one holds the task any more (the holder's run ended just
    /// before, or the holder died) is applied here.
    private func awaitRequest(_ request: Ownership.Request, of id: String, sentTo ownership: TaskOwnership) async throws(CarryonError) -> DownloadState {
        let clock = ContinuousClock()
        // The holder looks for requests twice a second; a run stops within a moment of being
        // asked, and a delete then removes the bundle, which can take longer.
        let deadline = clock.now + (request == .delete ? .seconds(60) : .seconds(10))
        var unheldSince: ContinuousClock.Instant?
        while clock.now < deadline {
            do { try await Task.sleep(for: .milliseconds(100)) } catch { throw CarryonError(.cancelled, "stopped waiting for \(id)") }
            guard let now = try await scheduler.ownership(of: id) else { return .cancelled }
            if now.row.request == nil {
                // Taken: done once the task no longer runs there (a delete: once the row is gone).
                unheldSince = nil
                guard request != .delete, now.holder == nil || ![.running, .waiting].contains(now.effectiveState) else { continue }
                if request == .cancel, now.effectiveState == .completed {
                    // It completed before the request could stop it: as here, a completed task is not cancelled.
                    throw CarryonError(.invalidState, "\(id): cannot cancel a task that is completed (it completed in the other process)")
                }
                tasks[id]?.machine = DownloadTaskStateMachine(state: now.effectiveState)
                return now.effectiveState
            }
            guard now.holder == nil || Ownership.isFleet(now.holder) else { continue }
            // Left on a row no one holds (or back in the fleet's queue, which no process runs): the former holder's run ends with a look at its row,
            // so a second passes before it is applied here.
            let since = unheldSince ?? clock.now
            unheldSince = since
            if clock.now - since >= .seconds(1), try await index.takeRequest(request, of: id) {
                return try await applyHere(id, request)
            }
        }
        throw TaskScheduler.busy(id, ownership, "it was asked to \(request.rawValue) and has not within \(request == .delete ? 60 : 10) s")
    }

    /// Applies `request` to task `id` in this session.
    private func applyHere(_ id: String, _ request: Ownership.Request) async throws(CarryonError) -> DownloadState {
        var machine = try await machine(id)
        let wasQueued = tasks[id]?.isQueued == true
        let action: DownloadTaskStateMachine.Action
        if request == .suspend, let run = tasks[id]?.run, run.recording != nil {
            // A recording stopped ends complete, with what is on disk (see `record`).
            run.stopsRecording = true
            run.work.cancel()
            await run.ended?.value
            return tasks[id]?.machine.state ?? .completed
        }
        switch request {
        case .suspend:
            action = machine.suspend()
        case .cancel:
            do { action = try machine.cancel() } catch { throw CarryonError(.invalidState, "\(id): \(error)") }
        case .delete:
            // A completed asset has no transfer to stop; any other is cancelled on its way out.
            let cancelling = (try? machine.cancel()) ?? .stopAndRemoveData
            action = cancelling == .none ? .stopAndRemoveData : cancelling
        }
        if tasks[id]?.run == nil {
            // Not running here: no longer queued here either, before the row is written — a
            // claim made meanwhile then finds the task not queued, and gives the claim back.
            if wasQueued { tasks[id]?.activity = .idle }
            if let holder = try await scheduler.setStateUnlessHeld(machine.state, of: id) {
                throw TaskScheduler.busy(id, holder, "only that process can \(request.rawValue) it")
            }
        }
        // Recorded first, so that the run, stopping, finds the task no longer running and ends it so.
        record(id, machine)
        try await perform(action, for: id)
        if request == .delete {
            try await index.deleteAsset(id)
            AssetLogs(library: library).remove(id)
            let waiters = tasks[id]?.waiters ?? []
            tasks[id] = nil
            for waiter in waiters { waiter.resume(returning: .cancelled) }
            return .cancelled
        }
        if tasks[id]?.run == nil {
            if request == .cancel, try await scheduler.setStateUnlessHeld(.cancelled, of: id) != nil {
                throw CarryonError(.busy, "\(id) was claimed by another process while it was being cancelled")
            }
            notifyFinished(id, machine.state)
        }
        return machine.state
    }

    /// Waits, when task `id`'s run has ended and its end is still being recorded, until it is:
    /// what the user asks of the task then (suspend, cancel, delete, resume) applies to the
    /// state it ended in, and is not undone by the end being written after it.
    func settle(_ id: String) async {
        guard tasks[id]?.isFinishing == true else { return }
        await withCheckedContinuation { continuation in tasks[id]?.settlers.append(continuation) }
    }

    func waitUntilFinished(_ id: String) async -> DownloadState {
        guard let task = tasks[id], !task.isIdle else {
            return (try? await machine(id).state) ?? .cancelled
        }
        return await withCheckedContinuation { continuation in
            tasks[id]?.waiters.append(continuation)
        }
    }

    /// Answers everyone waiting for task `id` once it is idle here.
    func notifyFinished(_ id: String, _ state: DownloadState) {
        guard let task = tasks[id], task.isIdle else { return }
        tasks[id]?.waiters.removeAll()
        for waiter in task.waiters { waiter.resume(returning: state) }
    }

    /// Forgets a task's plan and removes its bundle (off the actor: a long asset's bundle has
    /// tens of thousands of files).
    func removeData(_ id: String) async throws(CarryonError) {
        try await index.forgetPlan(of: id)
        try await BundleWriter(library: library).remove(id)
    }

    static func makeID() -> String {
        let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz")
        var generator = SystemRandomNumberGenerator()
        return String((0..<10).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }

    /// `url` without the user and password it names, and the `Authorization: Basic` header
    /// they stand for (nil when it names none).
    static func separatingCredentials(_ url: String) -> (url: String, header: HTTPHeader?) {
        guard var components = URLComponents(string: url), components.user != nil || components.password != nil else { return (url, nil) }
        let user = components.user ?? ""
        let password = components.password ?? ""
        components.user = nil
        components.password = nil
        guard let stripped = components.string else { return (url, nil) }
        return (stripped, HTTPHeader(name: "Authorization", value: "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()))
    }

    /// A name for people from a stream's URL: the manifest's file name without its format's
    /// extension (`show.mpd` is `show`), or the folder it is in when that name says nothing
    /// (`main`, `master`, `index`, `playlist`, `prog_index`, `manifest`, `stream`).
    static func defaultName(for url: String, extensions: [String]) -> String {
        var path = Substring(url)
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        let parts = path.split(separator: "/").filter { !$0.isEmpty }
        guard let last = parts.last else { return url }
        // A name for people: `my%20show` is `my show`.
        func decoded(_ part: Substring) -> String { String(part).removingPercentEncoding ?? String(part) }
        let stem = extensions.lazy.compactMap { last.lowercased().hasSuffix(".\($0.lowercased())") ? last.dropLast($0.count + 1) : nil }.first
        guard let stem else { return decoded(last) }
        if ["main", "master", "index", "playlist", "prog_index", "manifest", "stream"].contains(stem.lowercased()), parts.count >= 2 {
            return decoded(parts[parts.count - 2])
        }
        return decoded(stem)
    }
}
