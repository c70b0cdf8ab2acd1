@testable import CarryonTestSupport
@testable import Carryon
import Foundation
import Testing

/// The tests' own rules for the programs they start: a crash fails the test that started it,
/// and a program is started only within the bound on heavy tests.
@Suite("Programs the tests start", .heavy)
struct ChildProcessTests {
    static let shell = URL(fileURLWithPath: "/bin/sh")

    @Test("a program that crashes fails the test that ran it, quoting the crash's first lines, whatever its exit status")
    func crashFails() async throws {
        // What a Swift runtime trap looks like from outside: the message, then SIGILL.
        let trap = "echo 'Sources/Thing.swift:12: Fatal error: Index out of range' >&2; kill -ILL $$"
        try await withKnownIssue {
            _ = try await run(Self.shell, ["-c", trap])
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.contains("sh crashed (killed by signal \(SIGILL)") && text.contains("Fatal error: Index out of range")
        }
        // Killed by a crash signal with nothing on standard error, and from RunningProcess.
        try await withKnownIssue {
            let child = try RunningProcess(Self.shell, ["-c", "kill -SEGV $$"])
            #expect(await child.wait() == 128 + SIGSEGV)
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains("sh crashed (killed by signal \(SIGSEGV)")
        }
    }

    @Test("a program that exits with an error, or is killed by the test, is no crash")
    func exitIsNoCrash() async throws {
        let failed = try await run(Self.shell, ["-c", "echo 'no such thing' >&2; exit 3"])
        #expect(failed.status == 3 && failed.standardError == "no such thing\n")
        let child = try RunningProcess(Self.shell, ["-c", "echo started; exec sleep 60"])
        var lines = child.lines.makeAsyncIterator()
        #expect(await lines.next() == "started")
        child.kill()
        #expect(await child.wait() == 128 + SIGKILL)
    }

    @Test("a test that hangs past its limit is cancelled, and the program it waits for is killed with what it started")
    func hangEndsChild() async throws {
        let clock = ContinuousClock()
        let started = clock.now
        try await withKnownIssue {
            try await HeavyWork.run("a hanging test", hangLimit: .seconds(1)) {
                // The shell's child keeps the output pipe open: only killing the group ends it.
                _ = try await run(Self.shell, ["-c", "sleep 600 & wait"])
            }
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains("a hanging test hangs: still running 1.0 seconds after its turn began")
        }
        #expect(clock.now - started < .seconds(60), "the hang was ended when it was found, not when sleep 600 ended")
    }

    @Test("a program started outside the bound on heavy tests is refused, naming the fix")
    func startedWithoutTurn() async throws {
        // A detached task holds no turn, as a test not marked .heavy holds none.
        let refusal = await Task.detached {
            do {
                _ = try await run(Self.shell, ["-c", "true"])
                return "started"
            } catch {
                return String(describing: error)
            }
        }.value
        #expect(refusal.contains("without a heavy-work turn") && refusal.contains(".heavy"), "\(refusal)")
    }

    @Test("a test that takes every slot waits for those running, is not passed by one that came after it, and runs alone")
    func aloneTakesEverySlot() async throws {
        let turns = Turns(slots: 4)
        let log = Locked<[String]>([])
        _ = await turns.take()
        _ = await turns.take()
        let alone = Task {
            _ = await turns.take(4)
            log.withLock { $0.append("alone") }
        }
        // The one that wants every slot is in line before the next one comes.
        while turns.waitingCount == 0 { await Task.yield() }
        let later = Task {
            _ = await turns.take()
            log.withLock { $0.append("later") }
        }
        while turns.waitingCount < 2 { await Task.yield() }
        #expect(log.withLock { $0 }.isEmpty, "two slots free, but the first in line wants four")
        turns.give("one", ran: .zero)
        turns.give("two", ran: .zero)
        await alone.value
        #expect(log.withLock { $0 } == ["alone"], "the later one waits while every slot is taken")
        turns.give("alone", ran: .zero, count: 4)
        await later.value
        #expect(log.withLock { $0 } == ["alone", "later"])
        turns.give("later", ran: .zero)
    }
}
