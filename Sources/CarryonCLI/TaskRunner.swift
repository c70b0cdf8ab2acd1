import Carryon
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs tasks to the end for `download` and `resume`: shows progress (a bar on a terminal, plain
/// lines otherwise, JSON events with `--json`), suspends its own tasks cleanly on Ctrl-C or
/// SIGTERM, and sets the exit status: 0 when every task completed, 1 when one failed, 130 when
/// interrupted (143 when terminated).
struct TaskRunner {
    let session: DownloadSession
    let json: Bool
    /// Whether each task's id ends the output (without `--json`), for scripts.
    var printID = true
    /// Runs once the tasks have stopped, before the session shuts down (a repair's end).
    var beforeShutdown: (@Sendable () async -> Void)? = nil

    /// One line of `--json` output.
    typealias EventLine = DownloadEventRecord

    func run(_ tasks: [DownloadTask]) async throws {
        let interrupted = InterruptFlag()
        let signalSources = installInterruptHandlers(interrupted, suspending: tasks)
        defer { for source in signalSources { source.cancel() } }
        let events = await session.events()
        let display = ProgressDisplay(json: json)
        let shown = ShownEvents()
        // The session reports other processes' downloads in the library too: only these show.
        let ids = Set(tasks.map(\.id))
        let watcher = Task {
            for await event in events where ids.contains(event.taskID) {
                display.show(event)
                if shown.record(event) { break }
            }
        }
        // Tasks the session would not resume (said why already): not waited for.
        var refused: Set<String> = []
        for task in tasks {
            do {
                try await task.resume()
            } catch {
                display.finishLine()
                printError(error.description, hint: hint(for: error, id: task.id))
                refused.insert(task.id)
            }
        }
        var states: [String: DownloadState] = [:]
        for task in tasks where !refused.contains(task.id) { states[task.id] = await task.waitUntilFinished() }
        // The last events print before the summary: the watcher ends once it has shown the end
        // of every task it saw run (a task that did not run here sends none). A fixed 50 ms wait
        // was a tenth of a 20-minute download's time from nginx on loopback.
        shown.expectEnds(of: Set(tasks.map(\.id)))
        if !shown.hasShownAll {
            // Bounded, should an end never be sent.
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await watcher.value }
                group.addTask { try? await Task.sleep(for: .seconds(1)) }
                await group.next()
                watcher.cancel()
                group.cancelAll()
            }
        }
        watcher.cancel()
        display.finishLine()
        var failed = false
        for task in tasks {
            let snapshot = try? await task.snapshot()
            let state = states[task.id] ?? snapshot?.state ?? .failed
            // Suspended by the session, not by Ctrl-C: the server stalled on every try, or a
            // storage rule would have broken.
            let stopped = state == .suspended && !interrupted.isSet ? await session.lastError(of: task.id) : nil
            if refused.contains(task.id) {
                failed = true
            } else if state == .failed {
                // On stderr with --json too: stdout stays JSON, people still see why.
                let error = display.failure(of: task.id) ?? CarryonError(.transfer, snapshot?.error ?? "failed")
                printError("\(task.id): \(snapshot?.error ?? error.message)", hint: hint(for: error, id: task.id))
            } else if let stopped {
                printError("\(task.id): suspended: \(stopped.message)", hint: hint(for: stopped, id: task.id))
            } else if state == .running || state == .waiting {
                // The session answers only once a task has stopped; never report success for one
                // that has not. Taken over by another process: that process finishes it.
                let why = await session.lastError(of: task.id)?.message ?? "the session stopped waiting while the task was still \(state.rawValue)"
                printError("\(task.id): \(why)", hint: "`carryon show \(task.id)` tells what it did; `carryon resume \(task.id)` goes on.")
            }
            if json {
                var done = EventLine(event: "done", id: task.id)
                done.state = state.rawValue
                done.bytesDone = snapshot?.progress.bytesDone
                done.bytesExpected = snapshot?.progress.bytesExpected
                done.location = snapshot?.bundlePath
                done.playlist = snapshot?.playlist
                done.error = snapshot?.error
                try printJSONLine(done)
            } else if printID {
                print(task.id)
            }
            if ![.completed, .suspended].contains(state) || stopped != nil { failed = true }
        }
        await beforeShutdown?()
        await session.shutdown()
        if let signal = interrupted.signal {
            // A recording stopped ends complete: stopping it is how it is meant to end.
            if tasks.allSatisfy({ states[$0.id] == .completed }) {
                if !json { printNote("recording stopped: the bundle is complete") }
                return
            }
            if !json { printNote("suspended; `carryon resume` continues") }
            throw ExitCodeError.interrupted(signal: signal)
        }
        if failed { throw ExitCodeError.failure }
    }

    /// On SIGINT (Ctrl-C) or SIGTERM (systemd, a container stopping), suspends `tasks`: the
    /// ones this process runs, never another process's downloads in the same library.
    private func installInterruptHandlers(_ flag: InterruptFlag, suspending tasks: [DownloadTask]) -> [any DispatchSourceSignal] {
        let queue = DispatchQueue(label: "carryon.signals")
        return [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                flag.set(number)
                Task {
                    // This process's own: a download another process took up goes on there.
                    for task in tasks { await session.suspendIfHere(task.id) }
                }
            }
            source.resume()
            return source
        }
    }
}

/// Exit statuses other than ArgumentParser's own.
enum ExitCodeError: Error {
    case failure
    /// Stopped by `signal`: the exit status is 128 + its number (130 for SIGINT, 143 for SIGTERM).
    case interrupted(signal: Int32)
}

/// Which tasks the progress watcher has seen run and end: it stops once every task expected to
/// end, and seen running, has shown its last event (the session sends them all before a task's
/// `waitUntilFinished` returns).
final class ShownEvents: @unchecked Sendable {
    private let lock = NSLock()
    private var running: Set<String> = []
    private var ended: Set<String> = []
    private var expected: Set<String>?

    /// Records `event`; true when the watcher has shown everything it waits for.
    func record(_ event: DownloadEvent) -> Bool {
        lock.withLock {
            running.insert(event.taskID)
            // The last event the session sends for a task before it is finished: `finished` after
            // a completed task's manifest, `failed` with a failed task's error, the new state of
            // one suspended or cancelled.
            switch event {
            case .finished(let id, _), .failed(let id, _): ended.insert(id)
            case .stateChanged(let id, .suspended), .stateChanged(let id, .cancelled): ended.insert(id)
            default: break
            }
            return isDone
        }
    }

    /// The tasks whose ends the runner waits for: those of them seen running.
    func expectEnds(of ids: Set<String>) {
        lock.withLock { expected = ids }
    }

    /// Whether the watcher may stop: every expected task seen running has ended.
    var hasShownAll: Bool { lock.withLock { isDone } }

    private var isDone: Bool {
        guard let expected else { return false }
        return expected.intersection(running).isSubset(of: ended)
    }
}

/// The first stopping signal the process received, if any.
final class InterruptFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int32?
    var isSet: Bool { lock.withLock { value != nil } }
    var signal: Int32? { lock.withLock { value } }
    func set(_ signal: Int32) { lock.withLock { if value == nil { value = signal } } }
}

/// Draws progress: a redrawn bar on a terminal's stderr, a line per 10 % when stderr is not a
/// terminal, or JSON lines on stdout.
final class ProgressDisplay: @unchecked Sendable {
    private let json: Bool
    private let isTerminal = isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    private let lock = NSLock()
    private var lastDecile: [String: Int] = [:]
    private var drewBar = false
    private var failures: [String: CarryonError] = [:]

    init(json: Bool) {
        self.json = json
    }

    /// The error a task failed with, from its `failed` event.
    func failure(of id: String) -> CarryonError? {
        lock.withLock { failures[id] }
    }

    func show(_ event: DownloadEvent) {
        lock.withLock {
            if case .failed(let id, let error) = event { failures[id] = error }
            if json {
                try? printJSONLine(line(for: event))
                return
            }
            switch event {
            case .progress(let id, let progress) where progress.recording != nil:
                showRecording(id, progress, progress.recording!)
            case .progress(let id, let progress):
                if isTerminal {
                    drawBar(id, progress)
                } else {
                    let decile = percent(progress) / 10
                    if decile > lastDecile[id, default: -1] {
                        lastDecile[id] = decile
                        printNote("\(id): \(percent(progress))% \(formatProgressBytes(progress))")
                    }
                }
            case .mediaSelectionResolved(let id, let selection):
                clearBar()
                let renditions = selection.renditions.map { "\($0.type.lowercased()) \($0.language ?? $0.name)" }
                printNote("\(id): \(selection.variant.resolution ?? "audio") at \(formatBitrate(selection.variant.bandwidth))\(renditions.isEmpty ? "" : " with " + renditions.joined(separator: ", "))")
            case .playlistWarnings(let id, let warnings):
                clearBar()
                // A key the user holds that could not be checked is said in full; deviations counted.
                let keys = warnings.filter { $0.contains("the key given for KID") }
                for warning in keys { printNote("\(id): warning: \(warning)") }
                let deviations = warnings.count - keys.count
                guard deviations > 0 else { break }
                let count = deviations == 1 ? "1 place" : "\(deviations) places"
                printNote("\(id): the stream's playlists deviate from RFC 8216bis in \(count); read as players read them (carryon logs \(id) --error lists each)")
            default:
                break
            }
        }
    }

    /// A recording's progress: seconds on disk (of the duration asked for), bytes, how far
    /// behind the live edge, segments missed; on a terminal redrawn, else a line per 10 s recorded.
    private func showRecording(_ id: String, _ progress: DownloadProgress, _ recording: DownloadProgress.Recording) {
        var text = "recording \(formatDuration(recording.recordedSeconds))"
        if let limit = recording.limit { text += " of \(formatDuration(limit))" }
        text += ", \(formatBytes(progress.bytesDone))"
        if recording.behindLiveEdge >= 0.5 { text += ", \(formatDuration(recording.behindLiveEdge)) behind the live edge" }
        if recording.missedSegments > 0 { text += ", \(recording.missedSegments) segment\(recording.missedSegments == 1 ? "" : "s") missed" }
        if isTerminal {
            FileHandle.standardError.write("\r\u{1B}[2K\(id) \(text)")
            drewBar = true
        } else {
            let tens = Int(recording.recordedSeconds / 10)
            if tens > lastDecile[id, default: -1] {
                lastDecile[id] = tens
                printNote("\(id): \(text)")
            }
        }
    }

    func finishLine() {
        lock.withLock { clearBar() }
    }

    private func clearBar() {
        if drewBar {
            FileHandle.standardError.write("\r\u{1B}[2K")
            drewBar = false
        }
    }

    private func drawBar(_ id: String, _ progress: DownloadProgress) {
        let width = 30
        let filled = Int(progress.fraction * Double(width))
        let bar = Terminal.paint(String(repeating: "█", count: filled), .green, forStandardError: true)
            + Terminal.paint(String(repeating: "░", count: width - filled), .dim, forStandardError: true)
        var text = "\r\u{1B}[2K\(id) \(bar) \(String(format: "%3d", percent(progress)))%  \(formatProgressBytes(progress))"
        if let rate = progress.bytesPerSecond { text += "  \(formatBytes(Int(rate)))/s" }
        if let eta = progress.secondsRemaining, eta.isFinite { text += "  ETA \(formatDuration(eta))" }
        if let connections = progress.connections { text += "  \(connections) conn" }
        FileHandle.standardError.write(text)
        drewBar = true
    }

    /// The percentage to show: 100 only once every resource is done (an estimate can reach the
    /// total before the last small resource arrives).
    private func percent(_ progress: DownloadProgress) -> Int {
        let value = Int(progress.fraction * 100)
        return progress.resourcesDone == progress.resourcesTotal ? value : min(value, 99)
    }

    private func line(for event: DownloadEvent) -> TaskRunner.EventLine {
        TaskRunner.EventLine(event)
    }
}
