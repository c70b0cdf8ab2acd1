import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A server program from Debian that a test runs on loopback — nginx serving HTTPS and HTTP/2,
/// tinyproxy, microsocks — on ports the OS picks, stopped when the test's body returns.
public enum ServerProgram {
    /// Finds `name` on the PATH, or fails saying how to install it (`package`, from Debian).
    public static func require(_ name: String, package: String? = nil) throws -> URL {
        guard let url = findExecutable(name) ?? ["/usr/sbin", "/usr/bin"].lazy
            .map({ URL(fileURLWithPath: "\($0)/\(name)") }).first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw TestSupportError("\(name) is missing: install it with apt-get install \(package ?? name) (.ci/run does)")
        }
        return url
    }

    /// A TCP port on 127.0.0.1 that the OS picked and nothing holds now, for a program that
    /// cannot be told to bind port 0 and say which it got (nginx, tinyproxy). Another program may
    /// take it in between: ``run(_:_:ports:configure:_:)`` tries again with new ports.
    public static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestSupportError("no socket: \(String(cString: strerror(errno)))") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        guard bound == 0 else { throw TestSupportError("cannot bind 127.0.0.1:0: \(String(cString: strerror(errno)))") }
        let named = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        guard named == 0 else { throw TestSupportError("getsockname: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    public static func isListening(_ port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// Runs `program` with the arguments `configure` gives for `ports` free ports, waits until it
    /// listens on every one, runs `body` with the ports, and stops the program (SIGTERM, then
    /// SIGKILL). A program that exits before it listens — its port taken meanwhile — is started
    /// again on new ports, up to three times; then its standard error is the failure.
    public static func run<Result: Sendable>(
        _ program: URL, ports count: Int, configure: ([Int]) throws -> [String],
        _ body: ([Int]) async throws -> Result) async throws -> Result {
        var lastError = ""
        for _ in 0..<3 {
            let ports = try (0..<count).map { _ in try freePort() }
            let process = try RunningProcess(program, try configure(ports))
            var listening = false
            for _ in 0..<200 {
                if ports.allSatisfy(isListening) { listening = true; break }
                if process.hasEnded { break }
                try await Task.sleep(for: .milliseconds(25))
            }
            guard listening else {
                process.kill()
                _ = await process.wait()
                lastError = "\(program.lastPathComponent) did not listen on \(ports): \(process.standardError.suffix(2000))"
                continue
            }
            do {
                let result = try await body(ports)
                await stop(process)
                return result
            } catch {
                await stop(process)
                throw error
            }
        }
        throw TestSupportError(lastError)
    }

    private static func stop(_ process: RunningProcess) async {
        process.kill(SIGTERM)
        let stopped = Task {
            try await Task.sleep(for: .seconds(5))
            process.kill(SIGKILL)
        }
        _ = await process.wait()
        stopped.cancel()
    }
}
