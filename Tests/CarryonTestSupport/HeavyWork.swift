import Foundation
import Testing

/// The bound on heavy tests: those that start programs — real players (ffmpeg, ffprobe,
/// GStreamer), Chromium, the `carryon` binary, DocC, schemathesis. Swift Testing starts every
/// test of the run at once; on two cores, dozens of players and `carryon` children beside them
/// made tests that take 2 s alone take 90, and their time limits then fired together. A heavy
/// test waits for a turn (``slots`` at once, first come first served) and holds it until it
/// ends; pure tests stay parallel.
///
/// Mark a suite or a test ``HeavyTrait/heavy``. A test that starts a program without a turn
/// fails, saying so: none is forgotten.
public enum HeavyWork {
    /// How many heavy tests run at once: `CARRYON_TEST_HEAVY_SLOTS`, else twice the number of
    /// cores — most of a heavy test's time is a player playing in real time or a child waiting
    /// on a paced origin, not computing (the whole suite beside two busy loops on 2 cores: 4
    /// slots 224 s; 2 slots, without the busy loops, 299 s).
    public static let slots: Int = {
        if let value = ProcessInfo.processInfo.environment["CARRYON_TEST_HEAVY_SLOTS"], let slots = Int(value), slots > 0 {
            return slots
        }
        return 2 * max(1, ProcessInfo.processInfo.activeProcessorCount)
    }()

    @TaskLocal static var holdsTurn = false
    @TaskLocal private static var children: StartedChildren?

    static let turns = Turns(slots: slots)

    /// Throws unless the running test holds a turn.
    static func requireTurn(toStart program: String) throws {
        guard holdsTurn else {
            throw TestSupportError("this test starts \(program) without a heavy-work turn: mark its test or suite `.heavy` (CarryonTestSupport's HeavyTrait), so that it runs within the bound on heavy tests")
        }
    }

    /// Keeps `process` to be settled when the running test ends (``RunningProcess/settle()``).
    static func started(_ process: RunningProcess) {
        children?.add(process)
    }

    /// Runs `body` in a turn: waits for one (unless the running test holds one), then runs it,
    /// recording an issue and cancelling it when it runs past `hangLimit` of its own time (the
    /// wait for the turn not counted). The processes it started and did not wait for are waited
    /// for after it, and checked for a crash.
    ///
    /// A test that is itself many programs (a fleet: workers, a server, a database) takes
    /// `turns` slots at once, every one to run with no other heavy test beside it.
    package static func run(_ name: String, hangLimit: Duration, turns count: Int = 1,
                            _ body: @Sendable () async throws -> Void) async throws {
        let held = holdsTurn
        let count = min(max(count, 1), slots)
        let waited = held ? .zero : await turns.take(count)
        let began = ContinuousClock.now
        defer { if !held { turns.give(name, ran: ContinuousClock.now - began, count: count) } }
        let children = StartedChildren()
        do {
            try await $children.withValue(children) {
                try await run(name, waited: waited, hangLimit: hangLimit, body)
            }
        } catch {
            await children.settle()
            throw error
        }
        await children.settle()
    }

    private static func run(_ name: String, waited: Duration, hangLimit: Duration,
                            _ body: @Sendable () async throws -> Void) async throws {
        try await $holdsTurn.withValue(true) {
            try await withoutActuallyEscaping(body) { body in
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    group.addTask {
                        try await body()
                        return true
                    }
                    group.addTask {
                        try? await Task.sleep(for: hangLimit)
                        return false
                    }
                    defer { group.cancelAll() }
                    guard let finished = try await group.next(), !finished, !Task.isCancelled else { return }
                    Issue.record("\(name) hangs: still running \(hangLimit) after its turn began (it waited \(waited) for the turn); cancelled")
                }
            }
        }
    }
}

/// The ``RunningProcess``es a test started.
private final class StartedChildren: @unchecked Sendable {
    private let lock = NSLock()
    private var processes: [RunningProcess] = []

    func add(_ process: RunningProcess) {
        lock.withLock { processes.append(process) }
    }

    func settle() async {
        for process in lock.withLock({ processes }) { await process.settle() }
    }
}

/// A test or suite that starts programs: it runs within the bound of ``HeavyWork``.
///
/// ```swift
/// @Suite("carryon download", .heavy)
/// struct DownloadCommandTests { … }
/// ```
///
/// Its hang limit counts the test's own time, from when its turn begins, not the time it waited
/// in line: a Swift Testing `.timeLimit` counts both, and would fire for a test that only
/// waited. A test and its suite marked both hold one turn, with the longer of their limits.
public struct HeavyTrait: TestTrait, SuiteTrait, TestScoping {
    /// How long the test may run, once its turn began, before it is taken to hang.
    public var hangLimit: Duration
    /// Whether the test takes every slot, so that no other heavy test runs beside it.
    public var alone = false

    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        guard !HeavyWork.holdsTurn else { return try await function() }
        let traits = test.traits.compactMap { $0 as? HeavyTrait }
        let limit = traits.map(\.hangLimit).max() ?? hangLimit
        let alone = traits.contains { $0.alone } || self.alone
        try await HeavyWork.run(test.name, hangLimit: limit, turns: alone ? HeavyWork.slots : 1, function)
    }
}

extension Trait where Self == HeavyTrait {
    /// Runs within the bound on heavy tests, taken to hang after 5 minutes of its own time.
    public static var heavy: Self { HeavyTrait(hangLimit: .seconds(300)) }

    /// Runs within the bound on heavy tests, taken to hang after `hangLimit` of its own time.
    public static func heavy(hangsAfter hangLimit: Duration) -> Self { HeavyTrait(hangLimit: hangLimit) }

    /// Runs with no other heavy test beside it (it takes every slot; pure tests still run),
    /// taken to hang after `hangLimit` of its own time: for a test that is itself many programs
    /// keeping time with each other (a fleet's workers, their leases, a database, a paced origin),
    /// which four heavy tests beside it on two cores slowed twentyfold.
    public static func heavyAlone(hangsAfter hangLimit: Duration) -> Self { HeavyTrait(hangLimit: hangLimit, alone: true) }
}

/// The turns of ``HeavyWork``: at most `slots` taken at once; those who wait are served in the
/// order they came. Keeps what a run did, printed when the test process exits.
final class Turns: @unchecked Sendable {
    private let slots: Int
    private let lock = NSLock()
    private var taken = 0
    /// Who waits, first first, with how many slots each wants.
    private var waiting: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private var served = 0
    private var peak = 0
    private var longestWait = Duration.zero
    private var runs: [(name: String, time: Duration)] = []

    init(slots: Int) {
        self.slots = slots
    }

    /// How many wait for a turn now.
    var waitingCount: Int { lock.withLock { waiting.count } }

    /// Waits for a turn of `count` slots (at most ``slots``); returns how long it waited. Those
    /// who wait are served in order: a test that wants every slot is not passed by the ones that
    /// want one.
    func take(_ count: Int = 1) async -> Duration {
        Self.installReport
        let clock = ContinuousClock()
        let start = clock.now
        await withCheckedContinuation { continuation in
            let now = lock.withLock {
                if waiting.isEmpty && taken + count <= slots {
                    taken += count
                    peak = max(peak, taken)
                    return true
                }
                waiting.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
        let waited = clock.now - start
        lock.withLock {
            served += 1
            longestWait = max(longestWait, waited)
        }
        return waited
    }

    /// Gives a turn of `count` slots back, after `name` held it for `ran`: to those who wait
    /// first, as many as now fit.
    func give(_ name: String, ran: Duration, count: Int = 1) {
        let ready: [CheckedContinuation<Void, Never>] = lock.withLock {
            runs.append((name, ran))
            taken -= count
            var ready: [CheckedContinuation<Void, Never>] = []
            while let first = waiting.first, taken + first.count <= slots {
                waiting.removeFirst()
                taken += first.count
                peak = max(peak, taken)
                ready.append(first.continuation)
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    private static let installReport: Void = {
        atexit {
            let turns = HeavyWork.turns
            let (served, peak, longest, runs) = turns.lock.withLock { (turns.served, turns.peak, turns.longestWait, turns.runs) }
            func seconds(_ duration: Duration) -> String {
                String(format: "%.1f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
            }
            let total = runs.reduce(Duration.zero) { $0 + $1.time }
            let slowest = runs.sorted { $0.time > $1.time }.prefix(5).map { "\(seconds($0.time)) \($0.name)" }
            let line = "heavy tests: \(served) ran, at most \(peak) slots taken at once (\(turns.slots) slots: CARRYON_TEST_HEAVY_SLOTS, by default twice the cores), "
                + "\(seconds(total)) of their own time in all; the longest wait for a turn \(seconds(longest))\n"
                + slowest.map { "  \($0)\n" }.joined()
            FileHandle.standardOutput.write(Data(line.utf8))
        }
    }()
}
