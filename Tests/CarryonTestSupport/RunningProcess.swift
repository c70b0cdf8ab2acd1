import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process whose standard output is read line by line while it runs — for tests that
/// watch a download's JSON events and kill it at the right moment. Its standard error is kept:
/// a crash fails the test (``ChildProcess``) when it is waited for.
public final class RunningProcess: @unchecked Sendable {
    private let child: ChildProcess
    /// Standard output, line by line, ending when the process closes it.
    public let lines: AsyncStream<String>
    private let errors = ErrorsBox()

    /// Starts the `carryon` binary the tests run (``carryonBinary``); see ``init(_:_:killWhen:)``.
    public convenience init(carryon arguments: [String], killWhen: (@Sendable (String) -> Bool)? = nil) throws {
        try self.init(try requireCarryonBinary(), arguments, killWhen: killWhen)
    }

    /// Starts `executable`. With `killWhen`, the process is killed (SIGKILL) on the line of
    /// standard output that the condition holds for, by the thread that reads it: at once,
    /// whoever reads ``lines`` and however busy Swift concurrency's threads are.
    public init(_ executable: URL, _ arguments: [String], killWhen: (@Sendable (String) -> Bool)? = nil) throws {
        child = try ChildProcess(executable, arguments)
        let continuation: AsyncStream<String>.Continuation
        (lines, continuation) = AsyncStream<String>.makeStream()
        let child = self.child
        let errors = self.errors
        // Threads of their own: blocking reads must not hold Swift concurrency's or Dispatch's
        // few threads while a server in this process answers the child.
        Thread.detachNewThread {
            errors.finish(Result { try child.readErrors() })
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
    }

    /// The process's id.
    public var pid: Int32 { child.pid }

    /// Sends a signal (SIGKILL by default: no chance to clean up).
    public func kill(_ signal: Int32 = SIGKILL) {
        child.send(signal)
    }

    /// What the process wrote to standard error, once it has closed it (it has when ``wait()``
    /// returned).
    public var standardError: String { errors.text }

    /// Waits for the process to end and returns its exit status (or 128 + signal). A crash
    /// (a crash signal, or a Swift runtime error on standard error) fails the test.
    public func wait() async -> Int32 {
        let termination = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let termination = self.child.waitForExit()
                self.errors.waitUntilRead()
                continuation.resume(returning: termination)
            }
        }
        termination.check(child.program, standardError: errors.text)
        return termination.status
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
