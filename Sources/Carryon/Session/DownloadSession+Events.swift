import Foundation

/// The session's events: every task's, to every subscriber.
extension DownloadSession {
    /// A stream of every task's events from now on. Each call makes a new stream.
    public func events() -> AsyncStream<DownloadEvent> {
        let (stream, continuation) = AsyncStream<DownloadEvent>.makeStream(bufferingPolicy: .bufferingNewest(4096))
        let id = UUID()
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        return stream
    }

    func unsubscribe(_ id: UUID) {
        subscribers[id] = nil
    }

    func emit(_ event: DownloadEvent) {
        for continuation in subscribers.values { continuation.yield(event) }
    }
}
