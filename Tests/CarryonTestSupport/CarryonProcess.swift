import Foundation

/// What a run of the `carryon` binary printed and how it exited.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String
}

/// The folder the build put the products in (`.build/debug` or `.build/release`), found from
/// the test bundle's location.
public var productsDirectory: URL {
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
        return bundle.bundleURL.deletingLastPathComponent()
    }
    // swift-testing on Linux runs from the test binary itself.
    return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
}

/// The `carryon` binary the command-level tests run: `$CARRYON_BINARY` when set (CI sets it to
/// the release build, `.build/release/carryon`, which is what users install), else the one built
/// beside the tests.
public var carryonBinary: URL {
    if let path = ProcessInfo.processInfo.environment["CARRYON_BINARY"], !path.isEmpty {
        return URL(fileURLWithPath: path).standardizedFileURL
    }
    return productsDirectory.appendingPathComponent("carryon")
}

/// ``carryonBinary``, or an error saying how to build it when it is not there.
public func requireCarryonBinary() throws -> URL {
    let binary = carryonBinary
    guard FileManager.default.isExecutableFile(atPath: binary.path) else {
        let hint = ProcessInfo.processInfo.environment["CARRYON_BINARY"] != nil
            ? "CARRYON_BINARY names it; build it with `swift build -c release --product carryon`, or unset CARRYON_BINARY"
            : "run `swift build` first"
        throw TestSupportError("the carryon binary is not at \(binary.path): \(hint)")
    }
    return binary
}

/// Runs ``carryonBinary`` with `arguments`, and waits for it.
public func runCarryon(_ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessResult {
    try await run(try requireCarryonBinary(), arguments, environment: environment)
}

/// Runs a program and collects its output; in `folder` when given (for a program that leaves
/// files where it runs). The test must hold a heavy-work turn (``HeavyTrait``); a program that
/// crashes fails the test (``ChildProcess``).
public func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                in folder: URL? = nil) async throws -> ProcessResult {
    let child = try ChildProcess(executable, arguments, environment: environment, in: folder)
    // Blocking reads and the wait run on threads of their own: neither Swift concurrency's
    // cooperative pool nor Dispatch's global queues (which on Linux are as wide as the cores)
    // may be blocked, or a server in this test process stops answering the child.
    // A test cancelled (taken to hang) kills the program, and so ends the wait for it.
    let (termination, output, errors) = try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            let errBox = ReadBox()
            let errDone = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                errBox.result = Result { try child.readErrors() }
                errDone.signal()
            }
            Thread.detachNewThread {
                var output: [UInt8] = []
                let read = Result { try child.readOutput { output += $0 } }
                errDone.wait()
                let termination = child.waitForExit()
                continuation.resume(with: Result {
                    try read.get()
                    return (termination, output, try errBox.result.get())
                })
            }
        }
    } onCancel: {
        child.killAll()
    }
    let standardError = String(decoding: errors, as: UTF8.self)
    termination.check(child.program, standardError: standardError)
    return ProcessResult(status: termination.status, standardOutput: String(decoding: output, as: UTF8.self),
                         standardError: standardError)
}

/// Holds what one thread reads for another, which waits on a semaphore before reading it.
private final class ReadBox: @unchecked Sendable {
    var result: Result<[UInt8], any Error> = .success([])
}

public struct TestSupportError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
