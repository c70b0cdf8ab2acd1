import DASH
import Foundation

/// A recording of a live stream: what its format has recorded of each of the stream's
/// manifests so far (for HLS, each media playlist as a ``RecordedPlaylist``; for DASH, the MPD
/// as a ``RecordedMPD``), where it started,
/// and how long it may grow. The format reads each reload into it and plans what it holds, as it
/// plans a complete stream; the session persists that plan, fetches what is new, and reloads on
/// the schedule ``reloadDelay`` gives, until ``isEnded``.
///
/// Kept in the bundle (`origin/recording.json`, written before the plan it leads to), so that a
/// recording a crash stopped goes on from what it had (`LiveRecording+Bundle.swift`). Finished
/// (``finish(isOnDisk:)``), it holds a complete stream, which its format plans without reading
/// the network (``isFinished``, ``manifest(at:)``).
final class LiveRecording: Sendable {
    /// What is kept in the bundle.
    struct State: Sendable, Codable {
        var start: Start
        /// The seconds from the start of the window to begin at (`--start` on a live stream);
        /// nil: where ``start`` says.
        var offset: Double?
        /// The seconds of media to record; nil: until the stream ends or the recording is stopped.
        var limit: Double?
        /// Each media playlist recorded, by its URI as the stream names it.
        var playlists: [String: RecordedPlaylist] = [:]
        /// Their URIs in the order they were first recorded: the main rendition's first.
        var order: [String] = []
        /// The manifests read as they were, by URL (a multivariant playlist), for planning the
        /// finished recording without the network.
        var manifests: [String: Data] = [:]
        /// The URL of the stream's first manifest, as last read.
        var first: String?
        /// A dynamic MPD recorded (DASH), at its URL.
        var mpd: RecordedMPD?
        /// The segments missed so far, and their seconds.
        var missed = 0
        var missedSeconds = 0.0
        /// Which writing of the bundle's copy this is, for its journal's lines to name (nil in
        /// one an earlier release wrote: it has no journal).
        var generation: Int?
        /// 1: its files are numbered by their place in the recording (``PlanContinuation``);
        /// nil: in the order they were planned, as earlier releases numbered them, every round
        /// planning the whole recording.
        var numbering: Int?
    }

    /// A line of the bundle's journal (`LiveRecording+Bundle.swift`): what a round appended
    /// to each playlist since the copy was written whole, generation ``State/generation``.
    struct Appended: Sendable, Codable {
        /// The generation of the copy it adds to.
        var generation: Int
        /// By playlist URI: the number of segments it follows, and the playlist with only the
        /// segments after them (``RecordedPlaylist/tail(from:)``).
        var playlists: [String: Tail]
        var missed: Int
        var missedSeconds: Double

        struct Tail: Sendable, Codable {
            var from: Int
            var playlist: RecordedPlaylist
        }
    }

    /// What the bundle's copy holds: each playlist's segments when last written, and whether
    /// the recording changed since in a way a journal line cannot say (a playlist added, a
    /// segment made a gap, a manifest kept, an MPD: ``reshaped()``).
    struct Kept {
        var counts: [String: Int]?
        var reshapes = 0
        var keptReshapes = 0
    }

    /// What one reload round changed.
    struct Round: Sendable {
        /// Segments added over every playlist.
        var added = 0
        /// Segments missed, their seconds, and the playlists they were missed in.
        var missed = 0
        var missedSeconds = 0.0
        var restarts: [String] = []
        /// The playlists whose numbers jumped ahead (too far to be segments missed), and by how much.
        var jumps: [(playlist: String, by: Int)] = []
    }

    /// Where a recording starts in the first playlist it reads.
    enum Start: String, Sendable, Codable {
        /// Three target durations from the end, where RFC 8216bis lets a player start.
        case liveEdge
        /// The oldest segment the window still holds.
        case oldest
    }

    /// What a reload of one manifest added to the recording, and the gaps it found.
    struct Merge: Sendable, Hashable {
        var added = 0
        /// Segments missed: the window had moved past them.
        var missed = 0
        /// Their seconds.
        var missedSeconds = 0.0
        /// Whether the stream started over (its sequence numbers went back).
        var restarted = false
        /// How far the numbers jumped ahead, when by more than ``RecordedPlaylist/largestGap`` (HLS):
        /// read as a jump, not as that many segments missed.
        var jumped: Int?
    }

    let state: Locked<State>
    private let round = Locked(Round())
    let kept = Locked(Kept())
    /// Where the segments let go are read back from: the bundle's copy (set by the session).
    let copy = Locked<(@Sendable () throws(CarryonError) -> LiveRecording?)?>(nil)
    /// The stream's clock, once read (DASH: ``DASHClock``); read again by each run.
    private let clock = Locked<DASHClock.Reading?>(nil)

    /// The stream's clock as read this run, or nil before it is.
    var clockReading: DASHClock.Reading? {
        get { clock.withLock { $0 } }
        set { clock.withLock { $0 = newValue } }
    }

    /// A recording about to start: at the live edge or the oldest segment of the window
    /// (`fromStart`), or `offset` seconds into the window, for at most `limit` seconds.
    init(fromStart: Bool, offset: Double? = nil, limit: Double?) {
        state = Locked(State(start: fromStart || offset != nil ? .oldest : .liveEdge, offset: offset, limit: limit, numbering: 1))
    }

    /// Whether its files are numbered by their place in the recording, so that a round may
    /// plan only what it appended (``PlanContinuation``): a recording this release started.
    var numbersByPlace: Bool { state.withLock { $0.numbering == 1 } }

    /// How many times segments already recorded were edited (made gaps, left out at the end):
    /// a plan made before one cannot be continued.
    var edits: Int { editCount.withLock { $0 } }
    let editCount = Locked(0)

    /// The index of the segment of `durations` (a window's, from its start) that holds
    /// `offset` seconds, or why there is none: the window ends before it.
    static func index(at offset: Double, of durations: [Double]) -> Result<Int, PastLiveEdge> {
        var end = 0.0
        for (index, duration) in durations.enumerated() {
            end += duration
            if offset < end - 1e-6 { return .success(index) }
        }
        return .failure(PastLiveEdge(offset: offset, window: end))
    }

    /// A `--start` past the end of a live stream's window.
    struct PastLiveEdge: Error {
        var offset: Double
        var window: Double

        var message: String {
            "--start \(TimeRange.text(offset)) is past the live edge: the window holds \(TimeRange.text(window)); record from the live edge, or from the oldest segment with --from-start"
        }
    }

    private init(_ saved: State) {
        state = Locked(saved)
    }

    /// Whether a playlist recorded, or a manifest kept, may give a key inline (`data:` in any
    /// case): a secret the bundle keeps sealed (see `LiveRecording+Bundle.swift`).
    var holdsInlineKeys: Bool {
        state.withLock { state in
            state.playlists.values.contains { $0.holdsInlineKeys } || state.manifests.values.contains { HLSFormat.mentionsData([UInt8]($0)) }
        }
    }

    /// The recording `data` keeps, as ``encodedWhole(_:)`` wrote it.
    convenience init(decoding data: Data) throws {
        self.init(try JSONDecoder().decode(State.self, from: data))
    }

    // MARK: For the format

    /// Whether the playlist at `uri` is being recorded.
    func records(_ uri: String) -> Bool {
        state.withLock { $0.playlists[uri] != nil }
    }

    /// The playlist at `uri`, recorded so far; nil when it is not recorded.
    func playlist(_ uri: String) -> RecordedPlaylist? {
        state.withLock { $0.playlists[uri] }
    }

    /// Records `change` of the playlist at `uri` (one not recorded yet starts empty), given
    /// where the recording starts, its limit and where the main rendition started, and returns
    /// what `change` does.
    func update<T>(_ uri: String, _ change: (inout RecordedPlaylist, Start, Double?, RecordedPlaylist.Anchor?, Double?) throws(CarryonError) -> T) throws(CarryonError) -> T {
        try locked { state throws(CarryonError) in
            // Where the main rendition started, for the others to start at the same instant.
            let anchor = state.order.first.flatMap { $0 == uri ? nil : state.playlists[$0]?.anchor }
            // Taken out while it changes, so that its segments are not copied to add to them;
            // put back as it is then, with what a change that failed half way had added.
            let isNew = state.playlists[uri] == nil
            var playlist = state.playlists.removeValue(forKey: uri) ?? RecordedPlaylist()
            let result: Result<T, CarryonError>
            do throws(CarryonError) { result = .success(try change(&playlist, state.start, state.limit, anchor, state.offset)) } catch {
                result = .failure(error)
            }
            if isNew, case .failure = result { return try result.get() }
            if isNew {
                state.order.append(uri)
                reshaped()
            }
            state.playlists[uri] = playlist
            return try result.get()
        }
    }

    /// `body` with the state, under the lock, its error typed.
    func locked<T>(_ body: (inout State) throws(CarryonError) -> T) throws(CarryonError) -> T {
        let result: Result<T, CarryonError> = state.withLock { state in
            do throws(CarryonError) { return .success(try body(&state)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Counts what a reload of a playlist added and missed.
    func count(_ merge: Merge, in uri: String) {
        round.withLock { round in
            round.added += merge.added
            round.missed += merge.missed
            round.missedSeconds += merge.missedSeconds
            if merge.restarted { round.restarts.append(uri) }
            if let jump = merge.jumped { round.jumps.append((uri, jump)) }
        }
        if merge.missed > 0 {
            state.withLock { state in
                state.missed += merge.missed
                state.missedSeconds += merge.missedSeconds
            }
        }
    }

    /// Records `mpd`, a dynamic MPD read from `url` as `bytes` (or one recorded before, which
    /// may have turned static), and returns the recording as a static MPD's text.
    func record(_ mpd: MPD, url: String, bytes: [UInt8], now: Double) throws(CarryonError) -> [UInt8] {
        let (merge, text) = try locked { state throws(CarryonError) in
            state.first = url
            var recorded = state.mpd ?? RecordedMPD()
            let merge = recorded.isFinished ? Merge()
                : try recorded.merge(mpd, url: url, bytes: bytes, start: state.start, offset: state.offset, limit: state.limit, now: now)
            state.mpd = recorded
            reshaped()
            return (merge, try recorded.staticMPD())
        }
        count(merge, in: url)
        return text
    }

    /// Whether a dynamic MPD at `url` is being recorded.
    func recordsMPD(_ url: String) -> Bool {
        state.withLock { $0.mpd?.url == url }
    }

    /// Keeps `bytes`, the stream's first manifest as read from `url`, for planning the
    /// finished recording.
    func remember(_ bytes: [UInt8], at url: String) {
        state.withLock { state in
            if state.first != url { reshaped() }
            state.first = url
            if state.playlists[url] == nil, state.manifests[url].map({ !$0.elementsEqual(bytes) }) ?? true {
                state.manifests[url] = Data(bytes)
                reshaped()
            }
        }
    }

    /// The stream's first manifest for planning the finished recording: its URL and bytes.
    var firstManifest: (url: String, bytes: [UInt8])? {
        guard let url = state.withLock({ $0.first }), let bytes = manifest(at: url) else { return nil }
        return (url, bytes)
    }

    /// The manifest at `url` as last read, or the recorded playlist there.
    func manifest(at url: String) -> [UInt8]? {
        if state.withLock({ $0.playlists[url] != nil }) { try? restore() }
        return state.withLock { state in
            if let playlist = state.playlists[url] { return try? Array(playlist.text().utf8) }
            if let mpd = state.mpd, mpd.url == url { return try? mpd.staticMPD() }
            return state.manifests[url].map(Array.init)
        }
    }

    // MARK: For the session

    /// Whether the stream turned out to be live: a playlist is recorded.
    var isLive: Bool { state.withLock { !$0.playlists.isEmpty || $0.mpd != nil } }

    /// Whether the recording is finished (``finish(isOnDisk:)``).
    var isFinished: Bool { state.withLock { $0.playlists.values.contains(where: \.isFinished) || $0.mpd?.isFinished == true } }

    /// Whether there is nothing more to record: every playlist ended at the origin, or holds
    /// the seconds asked for.
    var isEnded: Bool {
        state.withLock { state in
            if let mpd = state.mpd { return mpd.originEnded || mpd.reached(state.limit) }
            return !state.playlists.isEmpty && state.playlists.values.allSatisfy { $0.originEnded || $0.reached(state.limit) }
        }
    }

    /// The seconds recorded, in the main rendition (gaps included).
    var duration: Double { state.withLock { state in state.mpd?.duration ?? state.order.first.flatMap { state.playlists[$0]?.duration } ?? 0 } }

    /// The seconds of media to record, when limited.
    var limit: Double? { state.withLock { $0.limit } }

    /// The segments missed over the whole recording, and their seconds.
    var missed: (count: Int, seconds: Double) { state.withLock { ($0.missed, $0.missedSeconds) } }

    /// The main rendition's target duration, in seconds.
    var targetDuration: Double {
        state.withLock { state in state.mpd?.updatePeriod ?? Double(state.order.first.flatMap { state.playlists[$0]?.targetDuration } ?? 1) }
    }

    /// Starts a reload round, and returns what the last one changed.
    func takeRound() -> Round {
        round.withLock { round in
            defer { round = Round() }
            return round
        }
    }

    /// How long to wait before the next reload, after a round that added `added` segments: a
    /// target duration, or half of one after a reload that changed nothing (RFC 8216bis 6.3.4).
    /// Kept between half a second and a minute, whatever the playlist says (a target
    /// duration of 0, or of years).
    func reloadDelay(afterAdding added: Int) -> Double {
        min(60, max(0.5, added > 0 ? targetDuration : targetDuration / 2))
    }

    /// Marks the segments at `uri` (and byte offset) the origin no longer has as gaps.
    /// Returns how many were marked.
    func markMissing(_ uri: String, offset: Int?) -> Int {
        let marked = markMissingHeld(uri, offset: offset)
        guard marked == 0, state.withLock({ $0.playlists.values.contains { $0.spilled.count > 0 } }) else { return marked }
        // Among the segments let go, perhaps: taken back to be looked at.
        do { try restore() } catch { return 0 }
        return markMissingHeld(uri, offset: offset)
    }

    private func markMissingHeld(_ uri: String, offset: Int?) -> Int {
        state.withLock { state in
            var marked = 0
            for key in state.order {
                guard let gaps = state.playlists[key]?.markMissing(uri, offset: offset) else { continue }
                marked += gaps.count
                state.missed += gaps.count
                state.missedSeconds += gaps.seconds
            }
            if let gaps = state.mpd?.markMissing(uri) {
                marked += gaps.count
                state.missed += gaps.count
                state.missedSeconds += gaps.seconds
            }
            if marked > 0 {
                reshaped()
                editCount.withLock { $0 += 1 }
            }
            return marked
        }
    }

    /// Ends the recording: nothing is added any more, and each playlist keeps the segments on
    /// disk (`isOnDisk`), those missing before the last one there as gaps. Returns the gaps
    /// this made.
    func finish(isOnDisk: (String, Int?) -> Bool) -> Int {
        state.withLock { state in
            var made = 0
            for key in state.order {
                guard let gaps = state.playlists[key]?.finish(isOnDisk: isOnDisk) else { continue }
                made += gaps.count
                state.missed += gaps.count
                state.missedSeconds += gaps.seconds
            }
            if let gaps = state.mpd?.finish(isOnDisk: { isOnDisk($0, nil) }) {
                made += gaps.count
                state.missed += gaps.count
                state.missedSeconds += gaps.seconds
            }
            reshaped()
            editCount.withLock { $0 += 1 }
            return made
        }
    }
}
