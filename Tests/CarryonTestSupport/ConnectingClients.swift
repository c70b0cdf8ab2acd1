import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Clients that connect to 127.0.0.1:`port` in a loop, each on a thread of its own: connect,
/// send a request, close without reading, again — what a server meets when players keep
/// arriving while it stops. A connection refused (the server has stopped listening) is counted
/// and ends that client: the port is free, and the next server to take it — another test's —
/// must not receive these requests (it did: `/nothing` among an origin's requests).
public final class ConnectingClients: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    private var connected = 0
    private var refused = 0

    /// Starts `count` clients sending `request` to 127.0.0.1:`port`.
    public init(port: Int, count: Int, request: String) {
        let bytes = Array(request.utf8)
        for _ in 0..<count {
            Thread.detachNewThread { [self] in
                while !lock.withLock({ stopped }) {
                    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                    guard socket >= 0 else {
                        usleep(1_000)
                        continue
                    }
                    var address = sockaddr_in()
                    address.sin_family = sa_family_t(AF_INET)
                    address.sin_port = in_port_t(UInt16(port).bigEndian)
                    address.sin_addr.s_addr = inet_addr("127.0.0.1")
                    let result = withUnsafePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                    }
                    if result == 0 {
                        _ = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                        lock.withLock { connected += 1 }
                    } else {
                        lock.withLock { refused += 1 }
                        close(socket)
                        return
                    }
                    close(socket)
                }
            }
        }
    }

    /// Connections made so far.
    public var connections: Int { lock.withLock { connected } }

    /// Connections refused so far.
    public var refusals: Int { lock.withLock { refused } }

    /// Waits until `count` connections were made, or `seconds` passed; returns whether they were.
    public func waitFor(connections count: Int, seconds: Double = 30) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while connections < count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        return connections >= count
    }

    /// Stops every client still connecting: each ends after the connection it is making. Does not wait for them
    /// (a blocking wait here would hold one of Swift concurrency's few threads).
    public func stop() {
        lock.withLock { stopped = true }
    }
}
