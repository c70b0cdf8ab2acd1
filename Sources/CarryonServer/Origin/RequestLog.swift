import Carryon
import Synchronization

/// The origin's record of its requests, kept in memory for as long as the origin runs: the
/// most recent ``capacity`` of them, so that an origin left running for days does not grow
/// without end.
final class RequestLog: Sendable {
    let capacity: Int

    private struct Waiter {
        /// The requests still being answered that the waiter waits for.
        var pending: Set<Int>
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var entries: [Int: OriginRequest] = [:]
        var inFlight: Set<Int> = []
        var waiters: [Waiter] = []
    }

    private let state = Locked(State())

    init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// Starts the entry for a request that has just arrived; the record finishes it.
    func begin(_ request: OriginRequest) -> RequestRecord {
        state.withLock { state in
            state.entries[request.sequence] = request
            // Sequences only grow, so the entry to forget is the one `capacity` places back.
            state.entries[request.sequence - capacity] = nil
            state.inFlight.insert(request.sequence)
        }
        return RequestRecord(sequence: request.sequence, log: self)
    }

    fileprivate func update(_ sequence: Int, _ change: (inout OriginRequest) -> Void) {
        state.withLock { state in
            if var entry = state.entries[sequence] {
                change(&entry)
                state.entries[sequence] = entry
            }
        }
    }

    fileprivate func finish(_ sequence: Int) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.inFlight.remove(sequence)
            var ready: [CheckedContinuation<Void, Never>] = []
            var waiting: [Waiter] = []
            for var waiter in state.waiters {
                waiter.pending.remove(sequence)
                if waiter.pending.isEmpty { ready.append(waiter.continuation) } else { waiting.append(waiter) }
            }
            state.waiters = waiting
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Every request so far in order of arrival, once the responses that were still being sent
    /// when it was called have ended — so that a client that has read a response finds it
    /// logged with every byte counted. Requests that arrive meanwhile are not waited for.
    func requests() async -> [OriginRequest] {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting = state.withLock { state -> Bool in
                guard !state.inFlight.isEmpty else { return false }
                state.waiters.append(Waiter(pending: state.inFlight, continuation: continuation))
                return true
            }
            if !waiting { continuation.resume() }
        }
        return state.withLock { state in state.entries.values.sorted { $0.sequence < $1.sequence } }
    }
}

/// The log entry of one request while it is answered. Finishing it marks the response ended;
/// if nobody does — Hummingbird may drop a response unsent when the client has gone — the
/// record finishes itself when released, so that ``RequestLog/requests()`` never waits forever.
final class RequestRecord: Sendable {
    let sequence: Int
    private let log: RequestLog
    private let finished = Atomic(false)

    fileprivate init(sequence: Int, log: RequestLog) {
        self.sequence = sequence
        self.log = log
    }

    func update(_ change: (inout OriginRequest) -> Void) {
        log.update(sequence, change)
    }

    func finish(_ change: (inout OriginRequest) -> Void = { _ in }) {
        log.update(sequence, change)
        if !finished.exchange(true, ordering: .acquiringAndReleasing) { log.finish(sequence) }
    }

    deinit {
        if !finished.exchange(true, ordering: .acquiringAndReleasing) { log.finish(sequence) }
    }
}
