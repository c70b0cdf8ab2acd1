import Carryon
import Foundation
import HLS
import Hummingbird
import NIOCore

/// The `Host` header values a playback server accepts: the loopback names and its own address
/// and names (``PlaybackServer/names``), each with its port, known once it listens.
final class AllowedHosts: Sendable {
    private let hosts = Locked<Set<String>>([])

    func set(port: Int, names: [String] = []) {
        let named = names.map { $0.contains(":") ? "[\($0)]" : $0 }.map { $0.lowercased() }
        let withPorts = (["127.0.0.1", "localhost", "[::1]"] + named).map { "\($0):\(port)" }
        hosts.withLock { $0 = Set(withPorts + (port == 80 ? named : [])) }
    }

    func allows(_ host: String?) -> Bool {
        guard let host else { return false }
        return hosts.withLock { $0.contains(host.lowercased()) }
    }
}

/// When each playback session began: a key that expires while a session plays keeps playing
/// for that session.
final class SessionStarts: Sendable {
    private let starts = Locked<[String: Date]>([:])

    /// The session's start, recording `now` for a session not seen before.
    func start(of session: String, now: Date) -> Date {
        starts.withLock { starts in
            if let start = starts[session] { return start }
            starts[session] = now
            return now
        }
    }
}

/// Answers the playback server's requests: checks the host and the token, finds the content
/// through the ``PlaybackSource``, and reports each request.
struct PlaybackResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let server: PlaybackServer
    let hosts: AllowedHosts
    let sessions = SessionStarts()
    let fileIO = FileIO()
    private let clock = ContinuousClock()

    func respond(to request: Request, context: Context) async throws -> Response {
        let arrival = clock.now
        var record = PlaybackRequest(date: Date(), assetID: nil, sessionID: nil, path: request.uri.path,
                                     method: request.method.rawValue, range: request.headers[.range], status: 0, bytes: 0,
                                     duration: 0, error: nil, errorCode: nil)
        var response: Response
        do {
            response = try await answer(request, context: context, record: &record)
        } catch let error as CarryonError {
            let status = Self.status(for: error.code)
            // A 404 names no path: what was asked for goes to the asset's log, not back to
            // whoever asked (it could be made to say anything).
            response = Self.failure(status, status == .notFound ? "not found (\(error.code))" : error.message)
            record.error = error.message
            record.errorCode = error.code.rawValue
        }
        Self.harden(&response.headers)
        record.status = Int(response.status.code)
        if record.status >= 400, record.errorCode == nil {
            record.errorCode = "http"
            record.error = record.error ?? response.status.reasonPhrase
        }
        record.bytes = request.method == .head ? 0 : (response.headers[.contentLength].flatMap { Int($0) } ?? 0)
        let elapsed = clock.now - arrival
        record.duration = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if let assetID = record.assetID, record.status != 404 || record.errorCode != CarryonError.Code.unknownAsset.rawValue {
            await server.source.record(
                AssetLogs.Entry(date: record.date, event: "playback", uri: record.path, server: request.head.authority,
                                status: record.status, bytes: record.bytes, duration: record.duration, sessionID: record.sessionID,
                                errorDomain: record.errorCode.map { $0 == "http" ? "http" : "carryon" }, errorCode: record.errorCode,
                                comment: record.error),
                for: assetID, failed: record.status >= 400)
        }
        await server.onRequest(record)
        return response
    }

    private func answer(_ request: Request, context: Context, record: inout PlaybackRequest) async throws -> Response {
        guard hosts.allows(request.head.authority) else {
            record.error = "refused: Host \(request.head.authority ?? "(none)") is not the server's loopback address"
            return Self.failure(.forbidden, "forbidden\n")
        }
        var components = request.uri.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard let token = components.popFirst(), Self.constantTimeEqual(String(token), server.token) else {
            record.error = "refused: no valid token in the path"
            return Self.failure(.forbidden, "forbidden\n")
        }
        record.path = "/" + components.joined(separator: "/")
        if let api = server.api {
            if components.first == "api" { return await api.respond(to: request, path: Array(components.dropFirst()), scheme: server.tls == nil ? "http" : "https") }
            if let response = WebApp.response(to: request, path: Array(components)) { return response }
        }
        // POST only for a DASH asset's Clear Key licence requests.
        guard request.method == .get || request.method == .head || request.method == .post else {
            return Response(status: .methodNotAllowed, headers: [.allow: "GET, HEAD, POST"])
        }
        guard let asset = components.popFirst(), !asset.isEmpty else {
            return Self.failure(.notFound, "give an asset: /<token>/<asset id>/main.m3u8\n")
        }
        let assetID = String(asset)
        record.assetID = assetID
        var session: String?
        if let first = components.first, first.hasPrefix("s-"), first.count > 2 {
            session = String(first.dropFirst(2))
            components.removeFirst()
        }
        let path = components.joined(separator: "/")
        record.path = path
        if path == LocalManifest.main.path, session == nil { session = Self.makeSessionID() }
        record.sessionID = session
        let started = session.map { sessions.start(of: $0, now: server.source.now()) }
        if request.method == .post {
            guard path == "clearkey" else { return Response(status: .methodNotAllowed, headers: [.allow: "GET, HEAD"]) }
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: Self.maximumLicenseRequest)
            } catch {
                return Self.failure(.contentTooLarge, "a licence request is at most \(Self.maximumLicenseRequest) bytes\n")
            }
            let license = try await server.source.clearKeyLicense(assetID: assetID, request: Array(body.readableBytesView), sessionStartedAt: started)
            let headers: HTTPFields = [.contentType: "application/json", .contentLength: String(license.count), .cacheControl: "no-store"]
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: license)))
        }
        let scheme = server.tls == nil ? "http" : "https"
        let license = request.head.authority.map { "\(scheme)://\($0)/\(server.token)/\(assetID)/clearkey" }
        let content = try await server.source.content(assetID: assetID, path: path, range: HTTPRange.bounds(header: request.headers[.range]),
                                                      sessionStartedAt: started, licenseURL: license)
        switch content {
        case .key(let key):
            var body = ByteBuffer()
            body.writeBytes(key)
            let headers: HTTPFields = [.contentType: "application/octet-stream", .contentLength: String(key.count),
                                       .cacheControl: "no-store"]
            return Response(status: .ok, headers: headers, body: request.method == .head ? .init() : .init(byteBuffer: body))
        case .playlist(var text):
            if path == LocalManifest.main.path, let session { text = try Self.prefix(text, with: "s-\(session)/") }
            let body = ByteBuffer(string: text)
            let headers: HTTPFields = [.contentType: MediaTypes.contentType(forPath: path), .contentLength: String(body.readableBytes),
                                       .cacheControl: "no-store"]
            return Response(status: .ok, headers: headers, body: request.method == .head ? .init() : .init(byteBuffer: body))
        case .file(let file, let size):
            var info = stat()
            let modified = stat(file, &info) == 0
                ? Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9) : Date(timeIntervalSince1970: 0)
            return try await FileResponder.respond(file: file, size: size, modified: modified, to: request, context: context,
                                                   includeBody: request.method != .head, fileIO: fileIO, sendFile: server.tls == nil)
        }
    }

    /// The multivariant playlist with every relative URI under `prefix`, so that the requests
    /// it leads to carry the playback session. Edited through the `HLS` model: the lines it does
    /// not change are served as the bundle has them.
    static func prefix(_ text: String, with prefix: String) throws(CarryonError) -> String {
        do {
            var playlist = try Playlist.parse(text).playlist
            playlist.rewriteURIs { uri in uri.contains("://") ? nil : prefix + uri }
            return try playlist.write()
        } catch {
            throw CarryonError(.playlist, "the bundle's main.m3u8 cannot be read: \(error)", cause: error)
        }
    }

    /// The largest Clear Key licence request read.
    static let maximumLicenseRequest = 64 << 10

    static func makeSessionID() -> String {
        var generator = SystemRandomNumberGenerator()
        let hex = String(generator.next() as UInt64, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    static func status(for code: CarryonError.Code) -> HTTPResponse.Status {
        switch code {
        case .unknownAsset, .notFound: .notFound
        case .keys: .forbidden
        case .cancelled, .invalidState, .busy: .serviceUnavailable
        case .http, .transfer: .badGateway
        default: .internalServerError
        }
    }

    /// The policy every answer carries unless it has its own (the web app's pages do): nothing
    /// may run, load or frame it. Players fetch playlists and media, which a CSP does not touch.
    static let contentSecurityPolicy = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

    /// `X-Content-Type-Options: nosniff` on every answer, so that no browser reads a playlist,
    /// a segment or an error as a page; and ``contentSecurityPolicy`` unless it has its own.
    static func harden(_ headers: inout HTTPFields) {
        headers[.xContentTypeOptions] = "nosniff"
        if headers[.contentSecurityPolicy] == nil { headers[.contentSecurityPolicy] = contentSecurityPolicy }
    }

    static func failure(_ status: HTTPResponse.Status, _ message: String) -> Response {
        let body = ByteBuffer(string: message.hasSuffix("\n") ? message : message + "\n")
        return Response(status: status, headers: [.contentType: "text/plain; charset=utf-8", .contentLength: String(body.readableBytes)],
                        body: .init(byteBuffer: body))
    }
}
