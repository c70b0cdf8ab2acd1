import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process whose standard output is read line by line while it runs — for tests that
/// watch a download's JSON events and kill it at the right moment. Its standard error is kept:
/// a crash fails the test (``ChildProcess``) when it is waited for, and a process the test did
/// not wait for is waited for when the test ends (killed if it is still running 10 s later).
public final class RunningProcess: @unchecked Sendable {
    private let child: ChildProcess
    /// Standard output, line by line, ending when the process closes it.
    public let lines: AsyncStream<String>
    private let errors = ErrorsBox()
    private let exit = ExitBox()

    /// Starts the `carryon` binary the tests run (``carryonBinary``); see ``init(_:_:environment:killWhen:)``.
    public convenience init(carryon arguments: [String], environment: [String: String] = [:],
                            killWhen: (@Sendable (String) -> Bool)? = nil) throws {
        try self.init(try requireCarryonBinary(), arguments, environment: environment, killWhen: killWhen)
    }

    /// Starts `executable`, with `environment`'s variables over the tests' own. With `killWhen`,
    /// the process is killed (SIGKILL) on the line of standard output that the condition holds
    /// for, by the thread that reads it: at once, whoever reads ``lines`` and however busy Swift
    /// concurrency's threads are.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                killWhen: (@Sendable (String) -> Bool)? = nil) throws {
        child = try ChildProcess(executable, arguments, environment: environment)
        let continuation: AsyncStream<String>.Continuation
        (lines, continuation) = AsyncStream<String>.makeStream()
        let child = self.child
        let errors = self.errors
        // Threads of their own: blocking reads must not hold Swift concurrency's or Dispatch's
        // few threads while a server in this process answers the child.
        let exit = self.exit
        Thread.detachNewThread {
            errors.finish(Result { try child.readErrors() })
        }
        // Reaped as soon as it ends, whether or not the test waits for it.
        Thread.detachNewThread {
            let termination = child.waitForExit()
            errors.waitUntilRead()
            exit.finish(termination)
        }
        Thread.detachNewThread {
            var buffer: [UInt8] = []
            let read = Result {
                try child.readOutput { chunk in
                    buffer += chunk
                    while let newline = buffer.firstIndex(of: 0x0A) {
                        let line = String(decoding: buffer[..<newline], as: UTF8.self)
                        if let killWhen, killWhen(line) { child.send(SIGKILL) }
                        continuation.yield(line)
                        buffer.removeSubrange(...newline)
                    }
                }
            }
            if !buffer.isEmpty { continuation.yield(String(decoding: buffer, as: UTF8.self)) }
            if case .failure(let error) = read { continuation.yield("(\(error))") }
            continuation.finish()
        }
        HeavyWork.started(self)
    }

    /// The process's id.
    public var pid: Int32 { child.pid }

    /// Whether the process has ended (and been reaped).
    public var hasEnded: Bool { exit.hasEnded }

    /// Sends a signal (SIGKILL by default: no chance to clean up).
    public func kill(_ signal: Int32 = SIGKILL) {
        child.send(signal)
    }

    /// What the process wrote to standard error, once it has closed it (it has when ``wait()``
    /// returned).
    public var standardError: String { errors.text }

    /// Waits for the process to end and returns its exit status (or 128 + signal). A crash
    /// (a crash signal, or a Swift runtime error on standard error) fails the test. A test
    /// cancelled while it waits (taken to hang) kills the process and what it started.
    public func wait() async -> Int32 {
        let termination = await withTaskCancellationHandler {
            await exit.termination()
        } onCancel: {
            child.killAll()
        }
        if exit.check() { termination.check(child.program, standardError: errors.text) }
        return termination.status
    }

    /// At the end of the test that started it, when the test did not wait for it: waits 10 s
    /// for it to end (a server the test sent SIGTERM), then kills it and what it started, and
    /// checks it did not crash.
    func settle() async {
        guard !exit.isChecked else { return }
        for _ in 0..<100 where !exit.hasEnded {
            try? await Task.sleep(for: .milliseconds(100))
        }
        if !exit.hasEnded { child.killAll() }
        _ = await wait()
    }
}

/// How a child ended, once it has, for whoever waits; and whether a wait checked it for a crash.
private final class ExitBox: @unchecked Sendable {
    private let lock = NSLock()
    private var ended: ChildProcess.Termination?
    private var waiting: [CheckedContinuation<ChildProcess.Termination, Never>] = []
    private var checked = false

    func finish(_ termination: ChildProcess.Termination) {
        let waiters = lock.withLock {
            ended = termination
            defer { waiting = [] }
            return waiting
        }
        for waiter in waiters { waiter.resume(returning: termination) }
    }

    func termination() async -> ChildProcess.Termination {
        await withCheckedContinuation { continuation in
            let now: ChildProcess.Termination? = lock.withLock {
                if let ended { return ended }
                waiting.append(continuation)
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    var hasEnded: Bool { lock.withLock { ended != nil } }
    var isChecked: Bool { lock.withLock { checked } }

    /// True the first time: that wait checks for a crash.
    func check() -> Bool {
        lock.withLock {
            defer { checked = true }
            return !checked
        }
    }
}

/// A child's standard error, read on one thread and looked at from others.
private final class ErrorsBox: @unchecked Sendable {
    private let lock = NSLock()
    private let read = DispatchSemaphore(value: 0)
    private var bytes: [UInt8] = []

    func finish(_ result: Result<[UInt8], any Error>) {
        lock.withLock {
            switch result {
            case .success(let all): bytes = all
            case .failure(let error): bytes = Array("(\(error))".utf8)
            }
        }
        read.signal()
    }

    func waitUntilRead() {
        read.wait()
        read.signal()
    }

    var text: String { lock.withLock { String(decoding: bytes, as: UTF8.self) } }
}
