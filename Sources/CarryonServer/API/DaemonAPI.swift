import Carryon
import Foundation
import HLS
import Hummingbird
import NIOCore

/// The daemon's JSON API (`carryon serve`), under `<base URL>/api/`: the library's assets and
/// their downloads, for the web app and for apps on other devices.
///
/// | request | answer |
/// | --- | --- |
/// | `GET /api/assets` | every asset, oldest first (`AssetSnapshot`s of the `Carryon` module) |
/// | `POST /api/assets` | starts a download of `{url, name, audio, subtitles, minBitrate, maxBitrate, minResolution, maxResolution}`: 201 and the asset |
/// | `GET /api/assets/{id}` | one asset |
/// | `DELETE /api/assets/{id}` | deletes it, its bundle and keys: 204 |
/// | `POST /api/assets/{id}/cancel`, `…/suspend`, `…/resume` | steers its download: the asset |
///
/// Errors are ``APIError``s. The playback server's token and `Host` check guard every request;
/// a request that changes anything (`POST`, `PUT`, `DELETE`) is refused when it carries an
/// `Origin` other than the server's own, so that no other web page can drive the daemon
/// (cross-site request forgery). Stream URLs pass ``StreamURLRule``.
///
/// ```swift
/// let api = DaemonAPI(session: session, streams: StreamURLRule(allowedFolders: ["/srv/media"]))
/// var server = try PlaybackServer(source: PlaybackSource(library: library))
/// server.api = api
/// ```
public struct DaemonAPI: Sendable {
    /// The session that downloads.
    public let session: DownloadSession
    /// Which stream URLs are taken.
    public let streams: StreamURLRule

    /// The largest request body read.
    static let maximumBody = 64 << 10

    /// An API over `session`'s library, taking the stream URLs `streams` allows.
    public init(session: DownloadSession, streams: StreamURLRule = StreamURLRule()) {
        self.session = session
        self.streams = streams
    }

    /// Answers `request`, whose path below the token is `api/` and then `path`.
    func respond(to request: Request, path: [Substring]) async -> Response {
        do {
            if [.post, .put, .delete, .patch].contains(request.method), let origin = request.headers[.origin],
               origin != "http://\(request.head.authority ?? "")" {
                throw APIError(403, "foreign-origin", "a request from \(origin) may not change the library",
                               hint: "Only the daemon's own web app, or a client that sends no Origin, may.")
            }
            return try await route(request, path: path)
        } catch let error as APIError {
            return error.response
        } catch let error as CarryonError {
            return APIError(error).response
        } catch {
            return APIError(500, "internal", "\(error)").response
        }
    }

    private func route(_ request: Request, path: [Substring]) async throws -> Response {
        let method = request.method
        let parts = path.map(String.init)
        let shown = "/api/" + parts.joined(separator: "/")
        guard parts.first == "assets", parts.count <= 3 else {
            throw APIError(404, "not-found", "\(shown) is not part of the API")
        }
        func notAllowed(_ allowed: String) -> APIError {
            APIError(405, "method-not-allowed", "\(method.rawValue) is not allowed on \(shown); \(allowed) is")
        }
        switch parts.count {
        case 1:
            if method == .get {
                var assets: [AssetSnapshot] = []
                for task in try await session.tasks() { assets.append(try await task.snapshot()) }
                return try APIJSON.response(assets)
            }
            if method == .post { return try await startDownload(request) }
            throw notAllowed("GET or POST")
        case 2:
            let task = try await session.task(id: parts[1])
            if method == .get { return try APIJSON.response(try await task.snapshot()) }
            if method == .delete {
                try await session.delete(task.id)
                return Response(status: .noContent, headers: [.cacheControl: "no-store"])
            }
            throw notAllowed("GET or DELETE")
        default:
            guard ["cancel", "suspend", "resume"].contains(parts[2]) else {
                throw APIError(404, "not-found", "\(shown) is not part of the API", hint: "An asset's actions are cancel, suspend and resume.")
            }
            guard method == .post else { throw notAllowed("POST") }
            let task = try await session.task(id: parts[1])
            switch parts[2] {
            case "cancel": try await task.cancel()
            case "suspend": try await task.suspend()
            default: try await task.resume()
            }
            return try APIJSON.response(try await task.snapshot())
        }
    }

    /// What `POST /api/assets` takes: the command line's download options.
    struct NewDownload: Decodable {
        var url: String
        var name: String?
        /// `all`, `none`, `auto`, or languages (`"en,de"`, or an array).
        var audio: Choice?
        var subtitles: Choice?
        var minBitrate: Int?
        var maxBitrate: Int?
        var minResolution: String?
        var maxResolution: String?

        /// A rendition choice given as text or as an array of languages.
        struct Choice: Decodable {
            var value: DownloadOptions.RenditionChoice
            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let languages = try? container.decode([String].self) {
                    value = .languages(languages)
                } else {
                    value = DownloadOptions.RenditionChoice(parsing: try container.decode(String.self))
                }
            }
        }
    }

    private func startDownload(_ request: Request) async throws -> Response {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: Self.maximumBody)
        } catch {
            throw APIError(413, "too-large", "a request body is at most \(Self.maximumBody) bytes")
        }
        let new: NewDownload
        do {
            new = try JSONDecoder().decode(NewDownload.self, from: Data(body.readableBytesView))
        } catch {
            throw APIError(400, "bad-request", "the body is not a download request: \(Self.describe(error))",
                           hint: #"Send JSON such as {"url": "https://cdn.example/show/main.m3u8", "audio": "en,de"}."#)
        }
        let url = try streams.check(new.url)
        var options = DownloadOptions(audio: new.audio?.value ?? .automatic, subtitles: new.subtitles?.value ?? .automatic)
        options.minimumBitrate = new.minBitrate
        options.maximumBitrate = new.maxBitrate
        options.minimumResolution = try new.minResolution.map { try Self.resolution($0, field: "minResolution") }
        options.maximumResolution = try new.maxResolution.map { try Self.resolution($0, field: "maxResolution") }
        let task = try await session.makeTask(url: url, name: new.name, options: options)
        try await task.resume()
        return try APIJSON.response(status: 201, try await task.snapshot(), headers: [.location: "assets/\(task.id)"])
    }

    private static func resolution(_ text: String, field: String) throws(APIError) -> Resolution {
        guard let resolution = Resolution(text) else {
            throw APIError(400, "bad-request", "\(field) \"\(text)\" is not WIDTHxHEIGHT (1280x720)")
        }
        return resolution
    }

    /// A decoding error in a sentence: the field and what was wrong with it.
    private static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _)?: "\(key.stringValue) is missing"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type"
        case .dataCorrupted?: "it is not JSON"
        default: "\(error)"
        }
    }
}
