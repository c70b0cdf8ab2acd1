/// One request the origin answered, as its request log keeps it.
///
/// ```swift
/// let fetched = await origin.requests().filter { $0.method == "GET" && $0.status == 200 }
/// #expect(Set(fetched.map(\.path)).count == fetched.count)   // nothing fetched twice
/// ```
public struct OriginRequest: Sendable, Hashable {
    /// The request's number in order of arrival, from 0; the fault generator draws in this order.
    public var sequence: Int
    /// `GET`, `HEAD`, …
    public var method: String
    /// The path as the client sent it (percent-encoded, without the query).
    public var path: String
    /// The `Range` header, if the request had one.
    public var range: String?
    /// The status code answered: 200, 206, 404, 416, or 503 for an injected fault.
    public var status: Int
    /// The `Content-Length` announced, if the response had one.
    public var contentLength: Int?
    /// Body bytes handed to the connection. Less than ``contentLength`` after a fault, or when
    /// the client went away first.
    public var bytesSent: Int
    /// The fault injected into this response, if any.
    public var fault: LinkFault?
    /// The request's headers, names lower-cased (several values of one name joined by `, `):
    /// to check what a client sends, such as its authorization or cookies.
    public var headers: [String: String]

    /// Creates the record of one request.
    public init(
        sequence: Int, method: String, path: String, range: String? = nil, status: Int,
        contentLength: Int? = nil, bytesSent: Int = 0, fault: LinkFault? = nil, headers: [String: String] = [:]
    ) {
        self.headers = headers
        self.sequence = sequence
        self.method = method
        self.path = path
        self.range = range
        self.status = status
        self.contentLength = contentLength
        self.bytesSent = bytesSent
        self.fault = fault
    }

    /// Whether the whole body announced was sent.
    public var isComplete: Bool { bytesSent == (contentLength ?? 0) || method == "HEAD" }
}
