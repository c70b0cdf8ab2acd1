import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process whose standard output is read line by line while it runs — for tests that
/// watch a download's JSON events and kill it at the right moment.
public final class RunningProcess: @unchecked Sendable {
    private let process = Process()
    /// Standard output, line by line, ending when the process closes it.
    public let lines: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation

    /// Starts the `carryon` binary the tests run (``carryonBinary``); see ``init(_:_:killWhen:)``.
    public convenience init(carryon arguments: [String], killWhen: (@Sendable (String) -> Bool)? = nil) throws {
        try self.init(try requireCarryonBinary(), arguments, killWhen: killWhen)
    }

    /// Starts `executable`. With `killWhen`, the process is killed (SIGKILL) on the line of
    /// standard output that the condition holds for, by the thread that reads it: at once,
    /// whoever reads ``lines`` and however busy Swift concurrency's threads are.
    public init(_ executable: URL, _ arguments: [String], killWhen: (@Sendable (String) -> Bool)? = nil) throws {
        (lines, continuation) = AsyncStream<String>.makeStream()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        ChildProcesses.started(process.processIdentifier)
        let continuation = self.continuation
        let pid = process.processIdentifier
        // A thread of its own: blocking reads must not hold Swift concurrency's or Dispatch's
        // few threads while a server in this process answers the child.
        Thread.detachNewThread {
            var buffer = Data()
            while true {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    if let killWhen, killWhen(line) { Glibc.kill(pid, SIGKILL) }
                    continuation.yield(line)
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
            }
            if !buffer.isEmpty { continuation.yield(String(decoding: buffer, as: UTF8.self)) }
            continuation.finish()
        }
    }

    /// The process's id.
    public var pid: Int32 { process.processIdentifier }

    /// Sends a signal (SIGKILL by default: no chance to clean up).
    public func kill(_ signal: Int32 = SIGKILL) {
        Glibc.kill(process.processIdentifier, signal)
    }

    /// Waits for the process to end and returns its exit status (or 128 + signal).
    public func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                self.process.waitUntilExit()
                ChildProcesses.ended(self.process.processIdentifier)
                let status = self.process.terminationReason == .uncaughtSignal
                    ? 128 + self.process.terminationStatus : self.process.terminationStatus
                continuation.resume(returning: status)
            }
        }
    }
}

/// The children tests started and have not seen end. When the test process exits — also after a
/// test hit its time limit and never killed its child — they are killed, so no `carryon` keeps
/// running (and holding ports or libraries) after the run.
enum ChildProcesses {
    nonisolated(unsafe) private static var running: Set<Int32> = []
    private static let lock = NSLock()
    private static let installExitHandler: Void = {
        atexit {
            ChildProcesses.lock.withLock {
                for pid in ChildProcesses.running { Glibc.kill(pid, SIGKILL) }
            }
        }
    }()

    static func started(_ pid: Int32) {
        _ = installExitHandler
        lock.withLock { _ = running.insert(pid) }
    }

    static func ended(_ pid: Int32) {
        lock.withLock { _ = running.remove(pid) }
    }
}
