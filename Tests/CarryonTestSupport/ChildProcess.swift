import CCarryonSystem
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A program a test started, with its standard output and error on pipes of its own.
///
/// Not Foundation's `Process`: on Linux its `Pipe()` makes descriptors that do not close on
/// exec, and its spawn closes in the child only the descriptors it listed a moment before, so a
/// pipe another test made in between leaks into that child — whose reader then sees no end of
/// output until the stranger exits — and its `readDataToEndOfFile()` turns any read error into a
/// crash of the whole test process (`FileHandle.swift:699: 'try!' expression unexpectedly raised
/// an error`, seen in a full run on a loaded machine). Here the pipes close on exec, the child
/// keeps no descriptor but its three, reads retry when interrupted, and a failed read is the
/// test's error, naming the program.
///
/// A child may be started only by a test that holds a heavy-work turn (``HeavyTrait``), and one
/// that crashes fails the test that started it (``ChildProcess/Termination/check(_:standardError:)``).
final class ChildProcess: @unchecked Sendable {
    /// How a child ended.
    enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)
        /// `waitpid` failed with this errno: how the child ended is not known.
        case unknown(Int32)

        var description: String {
            switch self {
            case .exited(let code): "exit status \(code)"
            case .signalled(let signal): "killed by signal \(signal), \(String(cString: strsignal(signal)))"
            case .unknown(let code): "not known: waitpid failed, \(String(cString: strerror(code)))"
            }
        }

        /// The status a shell would give: the exit code, or 128 + the signal (-1 when not known).
        var status: Int32 {
            switch self {
            case .exited(let code): code
            case .signalled(let signal): 128 + signal
            case .unknown: -1
            }
        }
    }

    let pid: Int32
    let program: String
    private let output: Int32
    private let errors: Int32
    private let lock = NSLock()
    private var reaped = false

    /// Starts `executable`. Throws when the test holds no heavy-work turn (unless the program is
    /// `light`: small and short, such as gzip), or the program cannot be started.
    init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:], in folder: URL? = nil,
         light: Bool = false) throws {
        program = executable.lastPathComponent
        if !light { try HeavyWork.requireTurn(toStart: program) }
        var outputPipe: [Int32] = [-1, -1]
        var errorPipe: [Int32] = [-1, -1]
        let outputResult = carryon_pipe(&outputPipe)
        guard outputResult == 0 else { throw TestSupportError("no pipe for \(program)'s output: \(String(cString: strerror(outputResult)))") }
        let errorResult = carryon_pipe(&errorPipe)
        guard errorResult == 0 else {
            close(outputPipe[0]); close(outputPipe[1])
            throw TestSupportError("no pipe for \(program)'s errors: \(String(cString: strerror(errorResult)))")
        }
        // A crash says what it was, to standard error, without a minute of symbolication — also
        // when the tests' own environment sets SWIFT_BACKTRACE. Not `enable=yes`: a binary linked
        // with --static-swift-stdlib has no backtracer to find, and says so on standard error
        // when told to use it.
        var variables = ProcessInfo.processInfo.environment
        variables["SWIFT_BACKTRACE"] = "interactive=no,color=no,symbolicate=fast,output-to=stderr"
        variables.merge(environment) { _, given in given }
        let argv = [executable.path] + arguments
        let envp = variables.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let result = withCStrings(argv) { argv in
            withCStrings(envp) { envp in
                if let folder {
                    return carryon_spawn(&pid, executable.path, argv, envp, folder.path, outputPipe[1], errorPipe[1])
                }
                return carryon_spawn(&pid, executable.path, argv, envp, nil, outputPipe[1], errorPipe[1])
            }
        }
        close(outputPipe[1])
        close(errorPipe[1])
        guard result == 0 else {
            close(outputPipe[0]); close(errorPipe[0])
            throw TestSupportError("cannot start \(executable.path): \(String(cString: strerror(result)))")
        }
        self.pid = pid
        output = outputPipe[0]
        errors = errorPipe[0]
        ChildProcesses.started(pid)
    }

    /// Reads standard output until the child closes it, handing each chunk to `chunk`, on the
    /// calling thread (which blocks); closes the pipe after.
    func readOutput(_ chunk: ([UInt8]) -> Void) throws {
        try Self.read(output, program: program, what: "output", chunk)
    }

    /// Standard error, whole, read until the child closes it (blocks; closes the pipe after).
    func readErrors() throws -> [UInt8] {
        var all: [UInt8] = []
        try Self.read(errors, program: program, what: "standard error") { all += $0 }
        return all
    }

    /// Waits for the child to end (blocks). Call it once.
    func waitForExit() -> Termination {
        var status: Int32 = 0
        var failure: Int32?
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else {
                failure = errno
                break
            }
        }
        // Reaped: its id may be another process's from now on, and is signalled no more.
        lock.withLock { reaped = true }
        ChildProcesses.ended(pid)
        if let failure { return .unknown(failure) }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
        if status & 0x7f == 0 { return .exited((status >> 8) & 0xff) }
        return .signalled(status & 0x7f)
    }

    /// Sends `signal` to the child, while it has not been reaped.
    func send(_ signal: Int32) {
        lock.withLock {
            if !reaped { _ = Glibc.kill(pid, signal) }
        }
    }

    /// Kills the child and everything it started (its process group): for a test that gave up
    /// on it — cancelled, or taken to hang.
    func killAll() {
        lock.withLock {
            if !reaped { ChildProcesses.killGroup(pid) }
        }
    }

    private static func read(_ descriptor: Int32, program: String, what: String, _ chunk: ([UInt8]) -> Void) throws {
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return }
            if count < 0 {
                if errno == EINTR { continue }
                throw TestSupportError("reading \(program)'s \(what) failed: \(String(cString: strerror(errno)))")
            }
            chunk(Array(buffer[0..<count]))
        }
    }
}

extension ChildProcess.Termination {
    /// The signals a program dies of when it crashes (a Swift runtime trap is SIGILL or SIGTRAP).
    static let crashSignals: Set<Int32> = [SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGSYS]

    /// Records an issue in the running test when `program` crashed: killed by a crash signal, or
    /// a Swift runtime error on its standard error (a trap the backtracer reported). The issue
    /// quotes the crash's first lines. No crash of a child passes unseen, whatever the test checks.
    func check(_ program: String, standardError: String) {
        let crashedBySignal: Bool = if case .signalled(let signal) = self { Self.crashSignals.contains(signal) } else { false }
        let lines = standardError.split(separator: "\n", omittingEmptySubsequences: false)
        let markers = ["Fatal error:", "*** Program crashed", "*** Signal ", "Precondition failed", "Assertion failed"]
        let first = lines.firstIndex { line in markers.contains { line.contains($0) } }
        guard crashedBySignal || first != nil else { return }
        let start = first ?? max(0, lines.count - 20)
        let quoted = lines[start...].prefix(20).joined(separator: "\n")
        Issue.record("\(program) crashed (\(self)):\n\(quoted)")
    }
}

/// Calls `body` with `strings` as a NULL-terminated array of C strings.
private func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> T) -> T {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for pointer in pointers { free(pointer) } }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
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
                for pid in ChildProcesses.running { ChildProcesses.killGroup(pid) }
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

    /// SIGKILL to the process group a child leads (its own children: GStreamer under `timeout`,
    /// Chromium under Playwright) and to the child.
    static func killGroup(_ pid: Int32) {
        Glibc.kill(-pid, SIGKILL)
        Glibc.kill(pid, SIGKILL)
    }
}
