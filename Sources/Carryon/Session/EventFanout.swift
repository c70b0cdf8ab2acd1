import Foundation

/// Hands every event of a session to every subscriber, and turns what the index says of other
/// processes' downloads into the same events: a subscriber sees a download run by another
/// process change state and make progress, as it sees the session's own.
final class EventFanout: Sendable {
    private struct State {
        var subscribers: [UUID: AsyncStream<DownloadEvent>.Continuation] = [:]
        /// The subscribers that are told of other processes' downloads too.
        var followers: Set<UUID> = []
        /// What subscribers were last told of each task another process holds.
        var others: [String: (state: DownloadState, progress: DownloadProgress?)] = [:]
    }

    private let state = Locked(State())

    /// A stream of every event from now on; with `followingOthers`, of other processes'
    /// downloads too (``observe(_:)``).
    func subscribe(followingOthers: Bool = true) -> AsyncStream<DownloadEvent> {
        let (stream, continuation) = AsyncStream<DownloadEvent>.makeStream(bufferingPolicy: .bufferingNewest(4096))
        let id = UUID()
        state.withLock { state in
            state.subscribers[id] = continuation
            if followingOthers { state.followers.insert(id) }
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { state in
                state.subscribers.removeValue(forKey: id)
                state.followers.remove(id)
            }
        }
        return stream
    }

    /// The tasks another process held when subscribers were last told of them: whose end (a
    /// new state, no holder) they are still to be told.
    var followed: [String] { state.withLock { Array($0.others.keys) } }

    /// Whether anyone follows other processes' downloads.
    var hasSubscribers: Bool { state.withLock { !$0.followers.isEmpty } }

    func emit(_ event: DownloadEvent) {
        state.withLock { state in
            for continuation in state.subscribers.values { continuation.yield(event) }
        }
    }

    /// Tells subscribers what changed in the tasks other processes hold or held (`ownerships`,
    /// every task but the session's own): a new state, new progress.
    func observe(_ ownerships: [String: TaskOwnership]) {
        state.withLock { state in
            var seen: [String: (state: DownloadState, progress: DownloadProgress?)] = [:]
            for (id, ownership) in ownerships {
                let known = state.others[id]
                // Tasks no other process holds are followed only from the moment one did.
                guard ownership.holder != nil || known != nil else { continue }
                let now = (ownership.effectiveState, ownership.progress)
                let followers = state.followers.compactMap { state.subscribers[$0] }
                if known?.state != now.0 {
                    for continuation in followers { continuation.yield(.stateChanged(taskID: id, state: now.0)) }
                }
                if let progress = now.1, known?.progress != progress {
                    for continuation in followers { continuation.yield(.progress(taskID: id, progress: progress)) }
                }
                if ownership.holder != nil { seen[id] = now }
            }
            state.others = seen
        }
    }

    /// Ends every subscriber's stream: the session has shut down.
    func finish() {
        let subscribers = state.withLock { state in
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for continuation in subscribers { continuation.finish() }
    }
}

/// What a session knows of following other processes' downloads (see `followersDue()`).
struct Following {
    /// The task turning the index's change signals into ``changed``; nil before the first
    /// subscriber, and on an index that signals none (it is then read on every pass).
    var signals: Task<Void, Never>?
    var changed = false
    var lastRead: ContinuousClock.Instant?
}
