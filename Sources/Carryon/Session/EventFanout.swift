import Foundation

/// Hands every event of a session to every subscriber, and turns what the index says of other
/// processes' downloads into the same events: a subscriber sees a download run by another
/// process change state and make progress, as it sees the session's own.
final class EventFanout: Sendable {
    private struct State {
        var subscribers: [UUID: AsyncStream<DownloadEvent>.Continuation] = [:]
        /// What subscribers were last told of each task another process holds.
        var others: [String: (state: DownloadState, progress: DownloadProgress?)] = [:]
    }

    private let state = Locked(State())

    /// A stream of every event from now on.
    func subscribe() -> AsyncStream<DownloadEvent> {
        let (stream, continuation) = AsyncStream<DownloadEvent>.makeStream(bufferingPolicy: .bufferingNewest(4096))
        let id = UUID()
        state.withLock { $0.subscribers[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    var hasSubscribers: Bool { state.withLock { !$0.subscribers.isEmpty } }

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
                if known?.state != now.0 {
                    for continuation in state.subscribers.values { continuation.yield(.stateChanged(taskID: id, state: now.0)) }
                }
                if let progress = now.1, known?.progress != progress {
                    for continuation in state.subscribers.values { continuation.yield(.progress(taskID: id, progress: progress)) }
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
