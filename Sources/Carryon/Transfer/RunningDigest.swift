import Crypto
import Dispatch
import NIOCore

/// The SHA-256 of a partial file, computed from the bytes as they are written — never by
/// reading the file again, but where the bytes came from elsewhere: a partial file an earlier
/// process left (its first bytes are read once, when the fetch resumes after them), or a write
/// that failed half-way.
///
/// ``ResponseWriter`` hands it each chunk once written, at the chunk's place, and the chunk is
/// hashed on the digest's own queue, in order, not on the connection's event loop: over HTTP/2
/// one loop carries every stream, and SHA-256 was the largest single piece of its work (about a
/// fifth, `perf`). A chunk that does not follow the bytes hashed so far (a response that
/// restarts the file) is not hashed, and the next ``catchUp(to:from:)`` reads what is missing
/// from the file; it and ``finish(length:path:)`` run on the same queue, after the chunks
/// handed over, unless every chunk is hashed and nothing is to be read (then they take no turn
/// on the queue: a thread woken and a task resumed, twice a fetch). One fetch owns one digest,
/// across its attempts; the queue and the fetch's task take turns on it (a lock keeps them
/// apart).
final class RunningDigest: Sendable {
    private struct State {
        var hash = SHA256()
        /// How many of the file's first bytes are hashed.
        var covered = 0
        /// Whether a chunk went past ``covered`` unhashed.
        var behind = false
    }

    private let state = Locked(State())
    /// Where chunks handed over are hashed, one after another. A queue of its own, on
    /// libdispatch's overcommitting threads (as GRDB's are), not `.global()`: that pool's few
    /// threads are also Swift's cooperative pool's, and a chunk queued behind the tasks on them
    /// waited for libdispatch to add a thread, about a second (the whole connection stalled
    /// with it: every stream's body waits while more than ``largestBacklog`` is unhashed).
    private let queue = DispatchQueue(label: "carryon.digest")
    /// Bytes handed over as a `ByteBuffer` and not yet hashed: this digest's, and every digest's
    /// in the process. Counted under locks of their own, apart from ``state``'s, which is held
    /// while a chunk is hashed: the event loop handing chunks over never waits for a hash.
    private let pending = Locked(0)
    private static let allPending = Locked(0)

    /// The most bytes written and not yet hashed, over every download of the process, before a
    /// writer waits for its digest (``mustWait``): about 30 chunks of 128 KiB.
    static let largestBacklog = 4 << 20

    /// Bytes handed over as a `ByteBuffer` and not yet hashed.
    var backlog: Int { pending.withLock { $0 } }

    /// Whether the process holds more bytes for hashing than ``largestBacklog``: the body that
    /// handed this digest a chunk then waits for it (``drained(on:)``), not memory.
    var mustWait: Bool { Self.allPending.withLock { $0 } > Self.largestBacklog && backlog > 0 }

    /// Hashes `buffer`, which was written at `position` of the file, on the digest's queue.
    func update(_ buffer: ByteBuffer, at position: Int) {
        let count = buffer.readableBytes
        pending.withLock { $0 += count }
        Self.allPending.withLock { $0 += count }
        queue.async {
            buffer.withUnsafeReadableBytes { self.update($0, at: position) }
            self.pending.withLock { $0 -= count }
            Self.allPending.withLock { $0 -= count }
        }
    }

    /// Succeeds on `eventLoop` once every chunk handed over so far is hashed.
    func drained(on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        let promise = eventLoop.makePromise(of: Void.self)
        queue.async { promise.succeed() }
        return promise.futureResult
    }

    /// Runs `work` on the digest's queue once every chunk handed over so far is hashed, and
    /// returns what it returns, without holding a thread meanwhile.
    private func onQueue<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { (done: CheckedContinuation<Result, Never>) in queue.async { done.resume(returning: work()) } }
    }

    /// Hashes `bytes`, which were written at `position` of the file.
    func update(_ bytes: UnsafeRawBufferPointer, at position: Int) {
        state.withLock { state in
            guard position == state.covered, !state.behind else {
                state.behind = true
                return
            }
            state.hash.update(bufferPointer: bytes)
            state.covered += bytes.count
        }
    }

    /// Makes the digest cover the first `length` bytes of the file at `path`: nothing to do when
    /// it does; else the bytes it lacks are read (all of them when it went astray). The file is
    /// read on the digest's queue, after the chunks handed over, not on the caller's thread: a
    /// resumed fetch may have hundreds of megabytes to read again, and the caller's thread is
    /// one of Swift's cooperative pool's few.
    ///
    /// When nothing is to be read (the common case: a fetch from the file's start), it returns
    /// at once, without a turn on the queue.
    func catchUp(to length: Int, from path: String) async throws(CarryonError) {
        if covers(length) { return }
        if let failure = await onQueue({ self.catchUpNow(to: length, from: path) }) { throw failure }
    }

    /// The digest of the file's first `length` bytes (lowercase hex), catching up first; both
    /// on the queue, so nothing comes between them.
    ///
    /// When every chunk handed over is hashed and they cover the file, the digest is taken at
    /// once, without a turn on the queue (most fetches: a chunk is hashed in tens of
    /// microseconds, before the fetch gets here).
    func finish(length: Int, path: String) async throws(CarryonError) -> String {
        if covers(length) { return state.withLock { Hex.text(Array($0.hash.finalize())) } }
        let result = await onQueue { () -> Swift.Result<String, CarryonError> in
            if let failure = self.catchUpNow(to: length, from: path) { return .failure(failure) }
            return .success(self.state.withLock { Hex.text(Array($0.hash.finalize())) })
        }
        return try result.get()
    }

    /// Whether the digest covers exactly the file's first `length` bytes with nothing handed
    /// over still to hash: no chunk can then change it until the next one is handed over.
    private func covers(_ length: Int) -> Bool {
        backlog == 0 && state.withLock { $0.covered == length && !$0.behind }
    }

    /// ``catchUp(to:from:)``'s work, on the queue: the error when the file could not be read.
    private func catchUpNow(to length: Int, from path: String) -> CarryonError? {
        state.withLock { (state: inout State) -> CarryonError? in
            if state.covered == length, !state.behind { return nil }
            if state.behind || state.covered > length { state = State() }
            do throws(CarryonError) {
                try Self.hash(path, from: state.covered, to: length, into: &state.hash)
            } catch {
                // The bytes read so far are hashed: start over next time.
                state.behind = true
                return error
            }
            state.covered = length
            return nil
        }
    }

    /// Hashes bytes `start..<end` of the file at `path` into `hash`.
    static func hash(_ path: String, from start: Int, to end: Int, into hash: inout SHA256) throws(CarryonError) {
        try FileChunks.read(path, from: start, to: end) { hash.update(bufferPointer: $0) }
    }
}
