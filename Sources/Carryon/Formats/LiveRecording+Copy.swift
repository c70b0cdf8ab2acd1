import Foundation

/// A recording's copy in its bundle: what the copy lacks, as a journal line or written whole
/// (`LiveRecording+Bundle.swift` writes it), and the segments a recording lets go once the copy
/// holds them, read back from it when all are needed.
extension LiveRecording {
    // MARK: For the bundle's copy

    /// Notes a change a journal line cannot say: the copy is written whole next.
    func reshaped() {
        kept.withLock { $0.reshapes += 1 }
    }

    /// What the bundle's copy lacks, as a journal line, and what to note once it is written
    /// (``wasKept(_:)``); nil line: the copy must be written whole (``encodedWhole()``).
    func changesSinceKept() -> (line: Appended?, written: Written) {
        state.withLock { state in
            kept.withLock { kept in
                let counts = state.playlists.mapValues(\.count)
                let written = Written(counts: counts, reshapes: kept.reshapes, generation: state.generation ?? 0)
                guard let keptCounts = kept.counts, kept.keptReshapes == kept.reshapes, state.mpd == nil, let generation = state.generation,
                      Set(keptCounts.keys) == Set(counts.keys), counts.allSatisfy({ $0.value >= keptCounts[$0.key] ?? .max }) else {
                    return (nil, written)
                }
                var tails: [String: Appended.Tail] = [:]
                for (uri, playlist) in state.playlists {
                    let from = keptCounts[uri] ?? 0
                    tails[uri] = Appended.Tail(from: from, playlist: playlist.tail(from: from))
                }
                return (Appended(generation: generation, playlists: tails, missed: state.missed, missedSeconds: state.missedSeconds), written)
            }
        }
    }

    /// What a writing of the bundle's copy held.
    struct Written: Sendable {
        fileprivate var counts: [String: Int]
        fileprivate var reshapes: Int
        fileprivate var generation: Int
    }

    /// The recording as kept whole, the next generation: what ``changesSinceKept()`` found
    /// must be written so.
    func encodedWhole(_ written: inout Written) throws(CarryonError) -> Data {
        let next = written.generation + 1
        written.generation = next
        return try locked { state throws(CarryonError) in
            state.generation = next
            do {
                return try JSONEncoder().encode(state)
            } catch {
                throw CarryonError(.library, "the recording cannot be encoded: \(error)", cause: error)
            }
        }
    }

    /// Notes that the bundle's copy holds what `written` says.
    func wasKept(_ written: Written) {
        kept.withLock { kept in
            kept.counts = written.counts
            kept.keptReshapes = written.reshapes
        }
    }

    /// Adds the journal's `line` to a recording just read from its copy. False, and nothing
    /// changed, when it is not a line of this copy: of an earlier generation (written before
    /// the copy was written whole again), or not following what it holds.
    func apply(_ line: Appended) -> Bool {
        state.withLock { state in
            guard line.generation == state.generation, Set(line.playlists.keys) == Set(state.playlists.keys),
                  line.playlists.allSatisfy({ state.playlists[$0.key]?.count == $0.value.from }) else { return false }
            for (uri, tail) in line.playlists {
                _ = state.playlists[uri]?.extend(with: tail.playlist, from: tail.from)
            }
            state.missed = line.missed
            state.missedSeconds = line.missedSeconds
            return true
        }
    }

    // MARK: Segments let go

    /// Reads the bundle's copy of the recording, for the segments let go to be taken back from.
    func readCopy(with read: @escaping @Sendable () throws(CarryonError) -> LiveRecording?) {
        copy.withLock { $0 = read }
    }

    /// Lets go of each playlist's segments the bundle's copy holds, but the last `keeping`:
    /// only when the copy is the recording as it is (no change since it was written that a
    /// journal line could not say), and there is a copy to take them back from.
    func spill(keeping: Int) {
        guard copy.withLock({ $0 != nil }) else { return }
        state.withLock { state in
            kept.withLock { kept in
                guard let counts = kept.counts, kept.keptReshapes == kept.reshapes else { return }
                for uri in state.playlists.keys {
                    state.playlists[uri]?.spill(keeping: keeping, before: counts[uri] ?? 0)
                }
            }
        }
    }

    /// Takes back every segment let go, read from the bundle's copy: for what needs them all.
    ///
    /// - Throws: ``CarryonError/Code/library`` when the copy cannot be read or lacks them.
    func restore() throws(CarryonError) {
        guard state.withLock({ $0.playlists.values.contains { $0.spilled.count > 0 } }) else { return }
        guard let read = copy.withLock({ $0 }), let full = try read() else {
            throw CarryonError(.library, "the recording let segments go and has no copy to read them back from")
        }
        try locked { state throws(CarryonError) in
            for (uri, playlist) in state.playlists where playlist.spilled.count > 0 {
                guard let all = full.playlist(uri), all.spilled.count == 0, all.held.count >= playlist.spilled.count,
                      state.playlists[uri]?.restore(all.held[..<playlist.spilled.count]) == true else {
                    throw CarryonError(.library, "the bundle's copy of the recording of \(uri) lacks the \(playlist.spilled.count) segments it let go")
                }
            }
        }
    }
}
