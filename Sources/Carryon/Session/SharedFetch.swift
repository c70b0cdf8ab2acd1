import Foundation

/// One fetch of a resource and everyone waiting for it: the transfer, and players asking for
/// the resource out of turn. The fetch is cancelled only when the last waiter has gone; a
/// waiter that goes earlier returns at once and leaves the fetch to the others.
struct SharedFetch {
    /// Tells this fetch from a later one of the same resource.
    let generation: UInt64
    let task: Task<Void, Never>
    var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
}

/// The session's fetches under way, by resource id, and those every waiter left that may still
/// be writing: the transfer and playback wait on the same one, so a resource is never fetched
/// twice in a process.
struct FetchRegistry {
    var running: [Int64: SharedFetch] = [:]
    /// Fetches every waiter left, until they have stopped writing.
    var cancelled: [Int64: (generation: UInt64, task: Task<Void, Never>)] = [:]
    /// The last number handed out to tell fetches and their waiters apart.
    private var tickets: UInt64 = 0

    /// A number no earlier call in this session returned: a fetch's generation or a waiter's
    /// name (a UUID would read /dev/urandom twice for every resource).
    mutating func nextTicket() -> UInt64 {
        tickets += 1
        return tickets
    }
}

extension DownloadSession {
    /// Fetches `resource` unless it is done, or joins the fetch under way, and returns when it
    /// is on disk. A queued fetch (the transfer's) waits for a request slot; playback's does
    /// not. Cancelling the caller cancels the fetch only if no one else waits for it.
    func fetchOnce(_ resource: ResourceRecord, with fetcher: ResourceFetcher, into bundle: URL, queued: Bool) async throws {
        let id = resource.id!
        if isShutDown { throw CarryonError(.cancelled, "the download session is shut down") }
        if fetches.running[id] == nil {
            if tasks[resource.assetID]?.run?.tracker?.isDone(id) == true { return }
            // A cancelled fetch of the same resource may still be writing its partial file.
            let previous = fetches.cancelled[id]
            let generation = fetches.nextTicket()
            let task = Task {
                await previous?.task.value
                let result: Result<Void, any Error>
                do {
                    try Task.checkCancellation()
                    try await self.fetch(resource, with: fetcher, into: bundle, queued: queued)
                    result = .success(())
                } catch {
                    result = .failure(error)
                }
                self.fetchEnded(id, generation: generation, result)
            }
            fetches.running[id] = SharedFetch(generation: generation, task: task)
        }
        let waiter = fetches.nextTicket()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                fetches.running[id]?.waiters[waiter] = continuation
            }
        } onCancel: {
            Task { await self.leaveFetch(id, waiter: waiter) }
        }
    }

    /// Hands the fetch's outcome to every waiter still there.
    private func fetchEnded(_ id: Int64, generation: UInt64, _ result: Result<Void, any Error>) {
        if fetches.cancelled[id]?.generation == generation { fetches.cancelled[id] = nil }
        guard let fetch = fetches.running[id], fetch.generation == generation else { return }
        fetches.running[id] = nil
        for continuation in fetch.waiters.values { continuation.resume(with: result) }
    }

    /// Stops every fetch under way and waits until none writes any more: the session is
    /// shutting down, and its HTTP client goes next (a fetch a player waits for can outlive its
    /// task's run). Their waiters are told the fetch was cancelled.
    func stopFetches() async {
        let running = fetches.running
        fetches.running.removeAll()
        for fetch in running.values {
            fetch.task.cancel()
            for continuation in fetch.waiters.values { continuation.resume(throwing: CancellationError()) }
        }
        for fetch in running.values { await fetch.task.value }
        for (_, cancelled) in fetches.cancelled { await cancelled.task.value }
        fetches.cancelled.removeAll()
    }

    /// A waiter was cancelled: it returns now; the fetch stops if it was the last one.
    private func leaveFetch(_ id: Int64, waiter: UInt64) {
        guard let continuation = fetches.running[id]?.waiters.removeValue(forKey: waiter) else { return }
        continuation.resume(throwing: CancellationError())
        guard let fetch = fetches.running[id], fetch.waiters.isEmpty else { return }
        fetches.running[id] = nil
        fetch.task.cancel()
        fetches.cancelled[id] = (fetch.generation, fetch.task)
    }
}
