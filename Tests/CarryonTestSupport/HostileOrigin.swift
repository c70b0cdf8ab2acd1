import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An origin written to misbehave, for the tests of what Carryon does against one: each path
/// answers as its ``HostileOrigin/Answer`` says — a body, a redirect anywhere, and the cases of
/// later tests (a stall, a trickle, an endless body) — and every request line is recorded.
///
/// Plain sockets on threads of its own, so that no framework tidies up what it sends: headers,
/// lengths and pacing are exactly what the answer says. It listens on 127.0.0.1 on a port the
/// system picks, one request per connection.
public final class HostileOrigin: @unchecked Sendable {
    /// How a path is answered.
    public enum Answer: Sendable {
        /// `status` with `headers` and `body`, with a matching Content-Length unless `headers`
        /// gives one.
        case body(status: Int = 200, headers: [(String, String)] = [], [UInt8])
        /// A `302 Found` to `location`, whatever its scheme.
        case redirect(String)
        /// `status` with `headers` announcing `length` bytes, the bytes `sent`, then nothing
        /// more — until the client goes, or a minute has passed.
        case stall(status: Int = 200, headers: [(String, String)] = [], sent: [UInt8], length: Int)
        /// `body`, announced whole, one byte every `interval`.
        case trickle([UInt8], every: Duration)
        /// `body`, announced whole, `chunk` bytes every `interval`: a slow but steady link.
        case paced([UInt8], chunk: Int, every: Duration)
        /// The request read, and never an answer — until the client goes, or a minute has passed.
        case silent
        /// A `200` sent chunked, without a length, whose body never ends: `chunk` bytes at a
        /// time as fast as the client reads — until the client goes, or a minute has passed.
        case endless(chunk: Int)
    }

    private var answers: [String: Answer]
    private var unknownStatus = 404
    private let lock = NSLock()
    private var requested: [String] = []
    private var heads: [String] = []
    private var answering = 0
    private var mostAnswering = 0
    private let listener: Int32
    /// The port it listens on.
    public let port: Int
    /// The IPv4 address it listens on.
    public let host: String
    /// `http://HOST:PORT`.
    public var baseURL: String { "http://\(host):\(port)" }

    /// Starts listening on `host` (an IPv4 address: a ``NetworkNamespaces`` services address
    /// for a host apart); `answers` maps a request path (query included) to its answer, and any
    /// other path is a 404 (until ``answer(_:with:)`` says otherwise).
    public init(_ answers: [String: Answer] = [:], host: String = "127.0.0.1") throws {
        self.host = host
        self.answers = answers
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestSupportError("socket() failed") }
        var yes: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(socket, address, length) == 0 && listen(socket, 64) == 0 && getsockname(socket, address, &length) == 0
            }
        }
        guard bound else { close(socket); throw TestSupportError("the hostile origin cannot listen on \(host)") }
        listener = socket
        port = Int(UInt16(bigEndian: address.sin_port))
        let listener = self.listener
        Thread.detachNewThread { [self] in
            while true {
                let connection = accept(listener, nil, nil)
                if connection < 0 { return }   // closed by stop()
                Thread.detachNewThread { self.serve(connection) }
            }
        }
    }

    /// Runs `body` with a running origin, and stops it after.
    public static func withRunning<T>(_ answers: [String: Answer] = [:], host: String = "127.0.0.1",
                                      _ body: (HostileOrigin) async throws -> T) async throws -> T {
        let origin = try HostileOrigin(answers, host: host)
        defer { origin.stop() }
        return try await body(origin)
    }

    /// Stops accepting connections.
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// Answers `path` with `answer` from now on.
    public func answer(_ path: String, with answer: Answer) {
        lock.withLock { answers[path] = answer }
    }

    /// Answers `path` no more: from now on it gets the status for unknown paths.
    public func forget(_ path: String) {
        lock.withLock { _ = answers.removeValue(forKey: path) }
    }

    /// The status a path without an answer gets: 404 unless changed (403 for a signing CDN,
    /// whose expired URLs are forbidden).
    public func answerUnknown(with status: Int) {
        lock.withLock { unknownStatus = status }
    }

    /// The paths requested so far, in order.
    public var requests: [String] {
        lock.withLock { requested }
    }

    /// The most requests it was answering at once so far (each on its connection).
    public var mostAtOnce: Int {
        lock.withLock { mostAnswering }
    }

    /// The requests' heads (request line and headers, then any body) so far, in order.
    public var requestHeads: [String] {
        lock.withLock { heads }
    }

    private static func contentLength(_ head: String) -> Int? {
        for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
            return Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var head = [UInt8]()
        var byte: UInt8 = 0
        while !head.ends(with: [13, 10, 13, 10]), head.count < 16 << 10 {
            guard recv(connection, &byte, 1, 0) == 1 else { return }
            head.append(byte)
        }
        let headText = String(decoding: head, as: UTF8.self)
        // A request body (a POSTed licence request) is read whole, and kept with the head.
        var body = [UInt8]()
        if let length = Self.contentLength(headText), length <= 1 << 20 {
            while body.count < length {
                guard recv(connection, &byte, 1, 0) == 1 else { return }
                body.append(byte)
            }
        }
        let requestLine = headText.split(separator: "\r\n").first.map(String.init) ?? ""
        let parts = requestLine.split(separator: " ")
        let path = parts.count > 1 ? String(parts[1]) : "/"
        lock.withLock {
            answering += 1
            mostAnswering = max(mostAnswering, answering)
        }
        defer { lock.withLock { answering -= 1 } }
        let answer = lock.withLock {
            requested.append(path)
            heads.append(headText + String(decoding: body, as: UTF8.self))
            return answers[path]
        }
        switch answer {
        case .body(200, let headers, let body)? where Self.rangeStart(headText).map({ $0 < body.count }) == true:
            let start = Self.rangeStart(headText)!
            send(connection, status: 206, headers + [("Content-Range", "bytes \(start)-\(body.count - 1)/\(body.count)"),
                                                     ("Content-Length", "\(body.count - start)")], Array(body[start...]))
        case .body(let status, let headers, let body)?:
            var fields = headers
            if !fields.contains(where: { $0.0.lowercased() == "content-length" }) {
                fields.append(("Content-Length", "\(body.count)"))
            }
            send(connection, status: status, fields, body)
        case .redirect(let location)?:
            send(connection, status: 302, [("Location", location), ("Content-Length", "0")], [])
        case .stall(let status, let headers, let sent, let length)?:
            send(connection, status: status, headers + [("Content-Length", "\(length)")], sent)
            waitForClientToGo(connection)
        case .trickle(let body, let interval)?:
            send(connection, status: 200, [("Content-Length", "\(body.count)")], [])
            for byte in body {
                Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
                guard Glibc.send(connection, [byte], 1, Int32(MSG_NOSIGNAL)) == 1 else { return }
            }
        case .paced(let body, let chunk, let interval)?:
            send(connection, status: 200, [("Content-Length", "\(body.count)")], [])
            for start in stride(from: 0, to: body.count, by: max(chunk, 1)) {
                Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
                let piece = Array(body[start..<min(start + max(chunk, 1), body.count)])
                guard Glibc.send(connection, piece, piece.count, Int32(MSG_NOSIGNAL)) == piece.count else { return }
            }
        case .silent?:
            waitForClientToGo(connection)
        case .endless(let size)?:
            send(connection, status: 200, [("Transfer-Encoding", "chunked"), ("Content-Type", "video/mp2t")], [])
            let chunk = Array("\(String(size, radix: 16))\r\n".utf8) + [UInt8](repeating: 0x47, count: size) + Array("\r\n".utf8)
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline, sendAll(connection, chunk) {}
        case nil:
            send(connection, status: lock.withLock { unknownStatus }, [("Content-Length", "0")], [])
        }
    }

    /// Holds the connection open without sending, until the client closes it or a minute passes.
    private func waitForClientToGo(_ connection: Int32) {
        var descriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
        var byte: UInt8 = 0
        for _ in 0..<60 {
            if poll(&descriptor, 1, 1000) > 0, recv(connection, &byte, 1, 0) <= 0 { return }
        }
    }

    /// The first byte of a `Range: bytes=N-` header, if the request has one.
    private static func rangeStart(_ head: String) -> Int? {
        for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("range: bytes=") {
            return Int(line.dropFirst("range: bytes=".count).prefix { $0.isNumber })
        }
        return nil
    }

    private func send(_ connection: Int32, status: Int, _ headers: [(String, String)], _ body: [UInt8]) {
        var text = "HTTP/1.1 \(status) \(status == 200 ? "OK" : status == 302 ? "Found" : "Other")\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        sendAll(connection, Array(text.utf8) + body)
    }

    /// Sends every byte; false when the client went first.
    @discardableResult
    private func sendAll(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { return false }
            sent += written
        }
        return true
    }
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
