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
/// | `POST /api/assets` | starts a download of `{url, name, audio, subtitles, minBitrate, maxBitrate, minResolution, maxResolution}` (or of `{catalog: NAME, …}`, a catalog stream with its headers): 201 and the asset |
/// | `GET /api/catalog` | the catalog's streams with their offline state (`StreamCatalog.OfflineState`s; none without a catalog) |
/// | `GET /api/assets/{id}` | one asset |
/// | `DELETE /api/assets/{id}` | deletes it, its bundle and keys: 204 |
/// | `POST /api/assets/{id}/cancel`, `…/suspend`, `…/resume` | steers its download: the asset |
/// | `GET /api/storage`, `PUT /api/storage` | the storage settings and use (`StorageReport`); `PUT` changes `{quotaBytes, minimumFreeBytes, purgeOnDownload}` (`null` removes a limit) |
/// | `GET /api/events` | Server-Sent Events: every task's `DownloadEventRecord`s, numbered; `Last-Event-ID` replays what a reconnecting client missed |
/// | `POST /api/purge` | removes what the storage rules ask, as `carryon purge` does: the plan carried out (`PurgePlan`); `?dryRun=true` only says what it would remove |
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
    /// The streams offered by name (`carryon serve --catalog FILE`), if any.
    public let catalog: StreamCatalog?
    /// The session's events, numbered, for `GET /api/events`.
    let events: EventFeed

    /// The largest request body read.
    static let maximumBody = 64 << 10

    /// An API over `session`'s library, taking the stream URLs `streams` allows and offering
    /// `catalog`'s streams by name.
    public init(session: DownloadSession, streams: StreamURLRule = StreamURLRule(), catalog: StreamCatalog? = nil) {
        self.session = session
        self.streams = streams
        self.catalog = catalog
        events = EventFeed(session: session)
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
        func notAllowed(_ allowed: String) -> APIError {
            APIError(405, "method-not-allowed", "\(method.rawValue) is not allowed on \(shown); \(allowed) is")
        }
        if parts == ["storage"] {
            let storage = StorageManager(library: session.library)
            if method == .get { return try APIJSON.response(try await storage.report()) }
            if method == .put {
                let change = try await Self.decode(StorageChange.self, from: request, example: #"{"quotaBytes": 21474836480, "minimumFreeBytes": null}"#)
                try await storage.setSettings(try change.applied(to: try await storage.settings()))
                return try APIJSON.response(try await storage.report())
            }
            throw notAllowed("GET or PUT")
        }
        if parts == ["catalog"] {
            guard method == .get else { throw notAllowed("GET") }
            var assets: [AssetSnapshot] = []
            for task in try await session.tasks() { assets.append(try await task.snapshot()) }
            return try APIJSON.response(catalog?.offlineStates(given: assets) ?? [])
        }
        if parts == ["events"] {
            guard method == .get else { throw notAllowed("GET") }
            return try eventStream(lastID: request.headers.first { $0.name.canonicalName == "last-event-id" }?.value)
        }
        if parts == ["purge"] {
            guard method == .post else { throw notAllowed("POST") }
            let dryRun: Bool
            switch request.uri.queryParameters.get("dryRun") {
            case nil, "false", "0": dryRun = false
            case "true", "1", "": dryRun = true
            case let value?: throw APIError(400, "bad-request", "dryRun=\(value) is not true or false")
            }
            let storage = StorageManager(library: session.library)
            return try APIJSON.response(dryRun ? try await storage.plan() : try await storage.purge(with: session))
        }
        guard parts.first == "assets", parts.count <= 3 else {
            throw APIError(404, "not-found", "\(shown) is not part of the API")
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

    /// `GET /api/events`: Server-Sent Events, each `id: N`, `event: KIND` and `data:` the
    /// `DownloadEventRecord` (module `Carryon`) as JSON — what `carryon download --json` prints, for every task.
    /// With `Last-Event-ID` (a client reconnecting), the events after it that are still kept
    /// come first.
    private func eventStream(lastID header: String?) throws(APIError) -> Response {
        var lastID: Int?
        if let header {
            guard let value = Int(header.trimmingCharacters(in: .whitespaces)), value >= 0 else {
                throw APIError(400, "bad-request", "Last-Event-ID \"\(header)\" is not an event id")
            }
            lastID = value
        }
        let stream = events.subscribe(after: lastID)
        let body = ResponseBody { writer in
            // A comment first, so that a client sees the stream open before any event.
            try await writer.write(ByteBuffer(string: ": carryon events\n\n"))
            for await (id, record) in stream {
                let data = String(decoding: try APIJSON.encoder.encode(record), as: UTF8.self)
                try await writer.write(ByteBuffer(string: "id: \(id)\nevent: \(record.event)\ndata: \(data)\n\n"))
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
    }

    /// What `POST /api/assets` takes: the command line's download options.
    struct NewDownload: Decodable {
        /// The stream's URL; or, instead, the name of a stream of the catalog.
        var url: String?
        var catalog: String?
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

    /// What `PUT /api/storage` takes: the settings to change; `null` removes a quota or a
    /// reserve (the default reserve then applies), an absent key leaves it as it is.
    struct StorageChange: Decodable {
        var quotaBytes: Int??
        var minimumFreeBytes: Int??
        var purgeOnDownload: Bool?

        private enum CodingKeys: String, CodingKey { case quotaBytes, minimumFreeBytes, purgeOnDownload }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            func size(_ key: CodingKeys) throws -> Int?? {
                guard container.contains(key) else { return .none }
                return .some(try container.decodeNil(forKey: key) ? nil : container.decode(Int.self, forKey: key))
            }
            quotaBytes = try size(.quotaBytes)
            minimumFreeBytes = try size(.minimumFreeBytes)
            purgeOnDownload = try container.decodeIfPresent(Bool.self, forKey: .purgeOnDownload)
        }

        func applied(to settings: LibraryStorageSettings) throws(APIError) -> LibraryStorageSettings {
            var settings = settings
            for (name, value) in [("quotaBytes", quotaBytes), ("minimumFreeBytes", minimumFreeBytes)] {
                if case .some(.some(let bytes)) = value, bytes < 0 {
                    throw APIError(400, "bad-request", "\(name) \(bytes) is negative")
                }
            }
            if let quotaBytes { settings.quotaBytes = quotaBytes }
            if let minimumFreeBytes { settings.minimumFreeBytes = minimumFreeBytes }
            if let purgeOnDownload { settings.purgeOnDownload = purgeOnDownload }
            return settings
        }
    }

    /// The request's JSON body as `type`; `example` is shown in the hint when it is not.
    private static func decode<T: Decodable>(_ type: T.Type, from request: Request, example: String) async throws -> T {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: maximumBody)
        } catch {
            throw APIError(413, "too-large", "a request body is at most \(maximumBody) bytes")
        }
        do {
            return try JSONDecoder().decode(type, from: Data(body.readableBytesView))
        } catch {
            throw APIError(400, "bad-request", "the body is not what \(request.method.rawValue) \(request.uri.path.split(separator: "/").suffix(2).joined(separator: "/")) takes: \(describe(error))",
                           hint: "Send JSON such as \(example).")
        }
    }

    private func startDownload(_ request: Request) async throws -> Response {
        let new = try await Self.decode(NewDownload.self, from: request, example: #"{"url": "https://cdn.example/show/main.m3u8", "audio": "en,de"}"#)
        let given: String
        var headers: [HTTPHeader] = []
        var name = new.name
        switch (new.url, new.catalog) {
        case (let url?, nil):
            given = url
        case (nil, let entryName?):
            guard let entry = catalog?.entry(named: entryName) else {
                throw APIError(404, "unknown-stream", "the catalog has no stream named \"\(entryName)\"", hint: "GET /api/catalog lists its streams.")
            }
            given = entry.playlistURL
            headers = entry.headers
            name = name ?? entry.name
        case (nil, nil):
            throw APIError(400, "bad-request", "url is missing: give the stream's url, or the name of a catalog stream (catalog)",
                           hint: #"Send JSON such as {"url": "https://cdn.example/show/main.m3u8", "audio": "en,de"}."#)
        case (_?, _?):
            throw APIError(400, "bad-request", "give the stream's url or a catalog stream's name, not both")
        }
        let url = try streams.check(given)
        var options = DownloadOptions(audio: new.audio?.value ?? .automatic, subtitles: new.subtitles?.value ?? .automatic)
        options.minimumBitrate = new.minBitrate
        options.maximumBitrate = new.maxBitrate
        options.minimumResolution = try new.minResolution.map { try Self.resolution($0, field: "minResolution") }
        options.maximumResolution = try new.maxResolution.map { try Self.resolution($0, field: "maxResolution") }
        let task = try await session.makeTask(url: url, name: name, options: options, headers: headers)
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
