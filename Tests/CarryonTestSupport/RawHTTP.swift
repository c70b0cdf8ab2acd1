import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A response read by ``rawHTTP(port:_:)``.
public struct RawHTTPResponse: Sendable {
    public var status: Int
    /// The header lines, as sent.
    public var head: String
    public var body: [UInt8]

    /// The value of the first header called `name` (any case).
    public func header(_ name: String) -> String? {
        for line in head.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == name.lowercased() {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }
}

/// Sends `request` (the whole HTTP/1.1 request text, headers as written — a `Host` an HTTP
/// client would not let a test forge included) to `address`:`port` (127.0.0.1 unless another
/// loopback address, 127.0.0.0/8, is given), and reads the response until the server closes the
/// connection. Runs on a thread of its own, so that its blocking socket calls never hold the
/// threads an in-process server needs.
public func rawHTTP(port: Int, address: String = "127.0.0.1", _ request: String) async throws -> RawHTTPResponse {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try rawHTTPBlocking(address: address, port: port, request) })
        }
    }
}

/// The body of a `GET` of `url` (`http://127.0.0.1:PORT/…`); throws unless the status is 200.
public func httpGet(_ url: String) async throws -> [UInt8] {
    guard let parsed = URL(string: url), let port = parsed.port, parsed.host == "127.0.0.1" else {
        throw TestSupportError("\(url) is not a loopback URL with a port")
    }
    let target = parsed.path + (parsed.query.map { "?\($0)" } ?? "")
    let response = try await rawHTTP(port: port, "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
    guard response.status == 200 else {
        throw TestSupportError("GET \(url) answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
    }
    return response.body
}

/// Sends `request` to 127.0.0.1:`port` and reads what comes back — head and body as text, as
/// it arrives — until `done` says it is enough, then closes the connection: for a response that
/// does not end, such as an event stream. Throws when `seconds` pass first, with what came.
/// `arrived` sees the text so far each time more arrives (to know the stream is open).
public func rawHTTPStream(address: String = "127.0.0.1", port: Int, _ request: String, seconds: Double = 30,
                          arrived: @escaping @Sendable (String) -> Void = { _ in },
                          until done: @escaping @Sendable (String) -> Bool) async throws -> String {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result {
                let socket = try connectedSocket(address: address, port: port, sending: request)
                defer { close(socket) }
                var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
                setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                let deadline = Date().addingTimeInterval(seconds)
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while Date() < deadline {
                    let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                    if count == 0 { break }
                    if count > 0 {
                        received += buffer[0..<count]
                        arrived(String(decoding: received, as: UTF8.self))
                        if done(String(decoding: received, as: UTF8.self)) { return String(decoding: received, as: UTF8.self) }
                    }
                }
                throw TestSupportError("the stream ended or \(seconds) s passed before it was enough: \(String(decoding: received, as: UTF8.self).suffix(3000))")
            })
        }
    }
}

/// A socket connected to `address`:`port` that has sent `request`; only loopback addresses
/// (127.0.0.0/8): nothing a test sends leaves the machine.
func connectedSocket(address text: String = "127.0.0.1", port: Int, sending request: String, receiveBuffer: Int32? = nil) throws -> Int32 {
    // Loopback, or the network tests' range (RFC 2544) that `NetworkNamespaces` gives its hosts.
    guard text.hasPrefix("127.") || text.hasPrefix("198.18.") || text.hasPrefix("198.19."), inet_addr(text) != INADDR_NONE else {
        throw TestSupportError("\(text) is neither a loopback address (127.0.0.0/8) nor a test network's (198.18.0.0/15)")
    }
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw TestSupportError("socket() failed") }
    if var size = receiveBuffer {
        // Before connecting, so that the window the client offers is this small from the start.
        setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr(text)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
        close(socket)
        throw TestSupportError("cannot connect to \(text):\(port)")
    }
    let bytes = Array(request.utf8)
    var sent = 0
    while sent < bytes.count {
        let count = bytes[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) }
        guard count > 0 else {
            close(socket)
            throw TestSupportError("send() failed")
        }
        sent += count
    }
    return socket
}

private func rawHTTPBlocking(address: String, port: Int, _ request: String) throws -> RawHTTPResponse {
    let socket = try connectedSocket(address: address, port: port, sending: request)
    defer { close(socket) }
    var response: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if count <= 0 { break }
        response += buffer[0..<count]
    }
    guard let end = response.indices.first(where: { index in
        index + 3 < response.count && response[index..<(index + 4)].elementsEqual([13, 10, 13, 10])
    }) else { throw TestSupportError("no complete response head: \(String(decoding: response, as: UTF8.self))") }
    let head = String(decoding: response[..<end], as: UTF8.self)
    let parts = head.split(separator: " ", maxSplits: 2)
    guard parts.count >= 2, let status = Int(parts[1]) else { throw TestSupportError("not an HTTP response: \(head)") }
    return RawHTTPResponse(status: status, head: head, body: Array(response[(end + 4)...]))
}
