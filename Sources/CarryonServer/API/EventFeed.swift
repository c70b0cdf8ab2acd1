import Carryon
import Foundation

/// The session's events for the daemon's event stream (`GET /api/events`): each numbered from 1
/// in the order it happened, the latest ``capacity`` kept, so that a client that reconnects with
/// `Last-Event-ID` gets what it missed before what happens next.
final class EventFeed: Sendable {
    /// Events kept for reconnecting clients.
    static let capacity = 2048

    private struct State {
        var nextID = 1
        var recent: [(id: Int, record: DownloadEventRecord)] = []
        var subscribers: [UUID: AsyncStream<(id: Int, record: DownloadEventRecord)>.Continuation] = [:]
    }

    private let state = Locked(State())

    /// A feed of `session`'s events from now on.
    init(session: DownloadSession) {
        Task { [weak self] in
            for await event in await session.events() {
                guard let self else { return }
                self.publish(DownloadEventRecord(event))
            }
        }
    }

    private func publish(_ record: DownloadEventRecord) {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.recent.append((id, record))
            if state.recent.count > Self.capacity { state.recent.removeFirst(state.recent.count - Self.capacity) }
            for continuation in state.subscribers.values { continuation.yield((id, record)) }
        }
    }

    /// The events after `lastID` that are still kept (none when nil: a new client starts from
    /// now), then every event from now on.
    func subscribe(after lastID: Int?) -> AsyncStream<(id: Int, record: DownloadEventRecord)> {
        let (stream, continuation) = AsyncStream<(id: Int, record: DownloadEventRecord)>.makeStream(bufferingPolicy: .bufferingNewest(Self.capacity))
        let key = UUID()
        state.withLock { state in
            if let lastID {
                for (id, record) in state.recent where id > lastID { continuation.yield((id, record)) }
            }
            state.subscribers[key] = continuation
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: key) }
        }
        return stream
    }
}
