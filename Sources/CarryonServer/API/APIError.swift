import Carryon
import Foundation
import Hummingbird
import NIOCore

/// An API request that cannot be answered as asked, sent as
/// `{"error": {"code": "…", "message": "…", "hint": "…"}}` with its HTTP status: 4xx for the
/// caller's mistakes, which name what was wrong.
public struct APIError: Error, Sendable, Encodable {
    /// The HTTP status.
    public var status: Int
    /// A stable, machine-readable name: `unknown-asset`, `url-refused`, `foreign-origin`, …
    public var code: String
    /// What was wrong, naming the input.
    public var message: String
    /// What to do about it, when there is something to say.
    public var hint: String?

    /// An error answered with `status`.
    public init(_ status: Int, _ code: String, _ message: String, hint: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.hint = hint
    }

    private enum CodingKeys: String, CodingKey { case code, message, hint }

    /// The answer to an engine error, with its code: 404 for an asset the library does not
    /// have, 409 for a request the task's state does not allow, 400 for a location refused, 422
    /// for a stream Carryon cannot read or download as asked (nothing to choose; its origin
    /// failed, or sent what is not a manifest; its keys cannot be had or are wrong: the
    /// caller's stream, not the daemon, is at fault), 507 for a full disk or quota, 500 otherwise.
    public init(_ error: CarryonError) {
        let status: Int
        var hint: String?
        switch error.code {
        case .unknownAsset, .notFound: status = 404
        case .invalidState, .busy: status = 409
        case .invalidLocation, .refusedLocation, .invalidValue: status = 400
        case .selection, .unsupported: status = 422
        case .http, .transfer, .playlist, .stalled, .tooLarge:
            status = 422
            hint = "The stream could not be read from its origin as it is."
        case .certificate:
            status = 422
            hint = "The origin's certificate did not verify: start the daemon with --cacert FILE if you trust its authority."
        case .keySystem, .keys:
            status = 422
            hint = "Keys you hold go in the request's \"keys\" (KID:KEY each), a Clear Key licence server in \"licenseURL\"."
        case .disk, .storage: status = 507
        default: status = 500
        }
        // A 404 does not echo what the path asked for: a link could make it say anything.
        let message = switch error.code {
        case .unknownAsset: "no asset has the id the path gives"
        case .notFound: "what the path names is not in the library"
        default: error.message
        }
        self.init(status, error.code.rawValue, message, hint: status == 404 ? "GET /api/assets lists the assets and their ids." : hint)
    }

    /// The JSON response.
    var response: Response {
        struct Body: Encodable { var error: APIError }
        let data = (try? APIJSON.encoder.encode(Body(error: self))) ?? Data("{}".utf8)
        return APIJSON.response(status: status, data: data)
    }
}

/// How the API writes JSON: sorted keys, ISO 8601 dates, as `carryon … --json` does.
enum APIJSON {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    static func response(status: Int, data: Data, headers extra: HTTPFields = [:]) -> Response {
        var headers = WebApp.securityHeaders
        headers[.contentType] = "application/json"
        headers[.contentLength] = String(data.count)
        headers[.cacheControl] = "no-store"
        headers.append(contentsOf: extra)
        return Response(status: HTTPResponse.Status(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func response<T: Encodable>(status: Int = 200, _ value: T, headers: HTTPFields = [:]) throws -> Response {
        response(status: status, data: try encoder.encode(value), headers: headers)
    }
}
