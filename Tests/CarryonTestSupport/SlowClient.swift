import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A client that sends what a test says when it says it — nothing, a byte at a time, half a
/// body — to a loopback server, and reads what comes back until the server closes: for the
/// tests of idle, trickling and stalled connections. Its blocking calls run on threads of
/// their own, never on the threads an in-process server needs.
public final class SlowClient: @unchecked Sendable {
    private let socket: Int32
    private let opened = ContinuousClock.now

    /// Connects to `address`:`port` (loopback only), sending nothing yet; with
    /// `receiveBuffer`, the socket's receive buffer is that small (the kernel doubles it), so that
    /// a server's answer waits on the server's side while the client does not read.
    public init(port: Int, address: String = "127.0.0.1", receiveBuffer: Int32? = nil) throws {
        socket = try connectedSocket(address: address, port: port, sending: "", receiveBuffer: receiveBuffer)
    }

    deinit { close(socket) }

    /// Sends `text`; false when the server has closed the connection.
    @discardableResult
    public func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// Reads at most `chunk` bytes every `pause` until `count` bytes came, the server closed the
    /// connection or `seconds` passed: the bytes read, whether it closed, and the seconds since
    /// the connection was opened.
    public func readPaced(chunk: Int, pause: Duration, count: Int, seconds: Double) async -> (bytes: Int, closed: Bool, secondsOpen: Double) {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in
                var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
                setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                let deadline = Date().addingTimeInterval(seconds)
                var buffer = [UInt8](repeating: 0, count: chunk)
                var received = 0
                var closed = false
                let pauseMicroseconds = UInt32(pause.components.seconds * 1_000_000 + pause.components.attoseconds / 1_000_000_000_000)
                while Date() < deadline, received < count {
                    let got = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                    if got > 0 {
                        received += got
                        if pauseMicroseconds > 0 { usleep(pauseMicroseconds) }
                        continue
                    }
                    if got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) { closed = true; break }
                }
                let open = ContinuousClock.now - opened
                continuation.resume(returning: (received, closed, Double(open.components.seconds) + Double(open.components.attoseconds) / 1e18))
            }
        }
    }

    /// What the server sent until it closed the connection or `seconds` passed: the text,
    /// whether it closed, and the seconds since the connection was opened.
    public func readUntilClosed(seconds: Double) async -> (text: String, closed: Bool, secondsOpen: Double) {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in
                var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
                setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                let deadline = Date().addingTimeInterval(seconds)
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 65_536)
                var closed = false
                while Date() < deadline {
                    let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                    if count > 0 { received += buffer[0..<count]; continue }
                    if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) { closed = true; break }
                }
                let open = ContinuousClock.now - opened
                continuation.resume(returning: (String(decoding: received, as: UTF8.self), closed,
                                                Double(open.components.seconds) + Double(open.components.attoseconds) / 1e18))
            }
        }
    }
}
