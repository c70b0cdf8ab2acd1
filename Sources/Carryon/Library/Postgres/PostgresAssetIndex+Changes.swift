import Foundation
import PostgresNIO

/// Changes across machines: the writes that change who holds a task or how far it has come
/// (a queueing, a claim, progress, a run's end, a state set) signal `carryon_changes` with
/// `pg_notify` when they commit; a follower — a daemon streaming every worker's progress —
/// listens on a connection of its own and reads the index when told, instead of on a timer.
extension PostgresAssetIndex {
    func changes() -> AsyncStream<Void>? {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let listening = Task { [client, logger] in
            while !Task.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: Self.changesChannel) { notifications in
                            // Listening from here on: whatever changed before is read once now.
                            continuation.yield()
                            for try await _ in notifications { continuation.yield() }
                        }
                    }
                } catch {
                    logger.debug("listening for the index's changes stopped", metadata: ["error": "\(Self.describe(error))"])
                }
                // The connection was lost: listened for again a second later; meanwhile the
                // follower's own timer reads the index now and then.
                try? await Task.sleep(for: .seconds(1))
            }
        }
        continuation.onTermination = { _ in listening.cancel() }
        return stream
    }
}
