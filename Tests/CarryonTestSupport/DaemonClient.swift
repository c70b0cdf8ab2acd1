import Foundation

/// A client of a `carryon serve` the test started: its JSON API at the base URL it printed,
/// one raw HTTP/1.1 request a call (see ``rawHTTP(port:address:_:)``).
public struct DaemonClient: Sendable {
    public let base: URL
    public let port: Int

    /// The daemon at `base` (`http://127.0.0.1:PORT/TOKEN`); nil when it names no port.
    public init?(base: URL) {
        guard let port = base.port else { return nil }
        self.base = base
        self.port = port
    }

    /// Sends `method` to `/api/<path>` with a JSON `body`: the status, and the answer's JSON object.
    public func call(_ method: String, _ path: String, body: String? = nil) async throws -> (status: Int, json: [String: Any]?) {
        var request = "\(method) \(base.path)/api/\(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let body { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)" } else { request += "\r\n" }
        let response = try await rawHTTP(port: port, request)
        return (response.status, try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }
}
