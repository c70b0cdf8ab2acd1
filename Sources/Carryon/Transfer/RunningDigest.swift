import Crypto

/// The SHA-256 of a partial file, computed from the bytes as they are written — never by
/// reading the file again, but where the bytes came from elsewhere: a partial file an earlier
/// process left (its first bytes are read once, when the fetch resumes after them), or a write
/// that failed half-way.
///
/// ``ResponseWriter`` feeds it each chunk at the chunk's place; a chunk that does not follow
/// the bytes hashed so far (a response that restarts the file) is not hashed, and the next
/// ``catchUp(to:from:)`` reads what is missing from the file. One fetch owns one digest, across
/// its attempts; the writer's loop and the fetch's task take turns on it (a lock keeps them
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
    /// it does; else the bytes it lacks are read (all of them when it went astray).
    func catchUp(to length: Int, from path: String) throws(CarryonError) {
        let failure = state.withLock { (state: inout State) -> CarryonError? in
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
        if let failure { throw failure }
    }

    /// The digest of the file's first `length` bytes (lowercase hex), catching up first.
    func finish(length: Int, path: String) throws(CarryonError) -> String {
        try catchUp(to: length, from: path)
        return state.withLock { Hex.text(Array($0.hash.finalize())) }
    }

    /// Hashes bytes `start..<end` of the file at `path` into `hash`.
    static func hash(_ path: String, from start: Int, to end: Int, into hash: inout SHA256) throws(CarryonError) {
        try FileChunks.read(path, from: start, to: end) { hash.update(bufferPointer: $0) }
    }
}
