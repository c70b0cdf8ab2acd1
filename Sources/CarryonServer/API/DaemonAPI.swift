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
/// | `POST /api/assets` | starts a download of `{url, name, audio, subtitles, minBitrate, maxBitrate, minResolution, maxResolution, limitRate}` (or of `{catalog: NAME, …}`, a catalog stream with its headers): 201 and the asset |
/// | `GET /api/catalog` | the catalog's streams with their offline state (`StreamCatalog.OfflineState`s; none without a catalog) |
/// | `GET /api/assets/{id}` | one asset |
/// | `DELETE /api/assets/{id}` | deletes it, its bundle and keys: 204 |
/// | `POST /api/assets/{id}/cancel`, `…/suspend`, `…/resume` | steers its download: the asset |
/// | `POST /api/assets/{id}/verify` | checks the bundle as `carryon verify` does (`?record=true` records missing digests): `{report, repairing, asset}`; `?repair=true` starts mending the damage from the origin: 202 |
/// | `GET /api/verification` | the library's last background check (`serve --verify-daily`): `{last, everySeconds, nextAt}`, `last` a `LibraryVerification` or `null` |
/// | `POST /api/assets/{id}/selections` | adds `{audio, subtitles, minBitrate, maxBitrate, minResolution, maxResolution}` as `carryon add` does, and resumes: 202, `{added, asset}` |
/// | `PUT /api/assets/{id}/policy` | changes `{expiresAt, priority}` (an ISO 8601 date or `null`; `default` or `important`): the asset |
/// | `GET /api/streams?url=…` (or `?catalog=NAME`) | what `carryon inspect --sizes --json` reports of the stream, a media playlist's segments left out: its tracks and their sizes, to choose from |
/// | `GET /api/assets/{id}/logs` | its access and error logs, as `carryon logs ID --json` gives them |
/// | `GET /api/storage`, `PUT /api/storage` | the storage settings and use (`StorageReport`); `PUT` changes `{quotaBytes, minimumFreeBytes, purgeOnDownload}` (`null` removes a limit) |
/// | `GET /api/events` | Server-Sent Events: every task's `DownloadEventRecord`s, numbered; `Last-Event-ID` replays what a reconnecting client missed |
/// | `POST /api/purge` | removes what the storage rules ask, as `carryon purge` does: the plan carried out (`PurgePlan`); `?dryRun=true` only says what it would remove |
/// | `GET /api/openapi.json` | the OpenAPI 3.1 document of all of the above |
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
    /// How often the library is checked in the background (`carryon serve --verify-daily`), for
    /// `GET /api/verification`; nil when it is not.
    public var verificationInterval: Duration?

    /// The largest request body read.
    static let maximumBody = 64 << 10

    /// An API over `session`'s library, taking the stream URLs `streams` allows and offering
    /// `catalog`'s streams by name.
    ///
    /// `streams` checks the URL a caller gives; what a local stream names in turn (variants,
    /// segments, keys) is checked by the session's rule: make the session with
    /// `configuration.locationRule = streams.locationRule`, as `carryon serve` does, or a
    /// playlist inside an allowed folder can name a file outside it.
    public init(session: DownloadSession, streams: StreamURLRule = StreamURLRule(), catalog: StreamCatalog? = nil) {
        self.session = session
        self.streams = streams
        self.catalog = catalog
        events = EventFeed(session: session)
    }

    /// Answers `request`, whose path below the token is `api/` and then `path`, received over
    /// `scheme` (`http`, or `https` with ``PlaybackServer/tls``): the web app's own Origin.
    func respond(to request: Request, path: [Substring], scheme: String = "http") async -> Response {
        do {
            if [.post, .put, .delete, .patch].contains(request.method), let origin = request.headers[.origin],
               origin != "\(scheme)://\(request.head.authority ?? "")" {
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

    /// A request the API answers: a method and a path below `api/`, `{id}` standing for an
    /// asset's id. The OpenAPI document describes each (`DaemonAPITests` checks both ways).
    struct Route: Sendable, Hashable {
        var method: String
        var pattern: String

        init(_ method: String, _ pattern: String) {
            self.method = method
            self.pattern = pattern
        }

        /// The asset id `parts` give for ``pattern``, or `""` when the pattern names none; nil
        /// when they do not match.
        func match(_ parts: [String]) -> String? {
            let expected = pattern.split(separator: "/").map(String.init)
            guard expected.count == parts.count else { return nil }
            var id = ""
            for (want, got) in zip(expected, parts) {
                if want == "{id}" { id = got } else if want != got { return nil }
            }
            return id
        }
    }

    static let routes: [Route] = [
        Route("GET", "assets"), Route("POST", "assets"),
        Route("GET", "assets/{id}"), Route("DELETE", "assets/{id}"),
        Route("POST", "assets/{id}/cancel"), Route("POST", "assets/{id}/suspend"), Route("POST", "assets/{id}/resume"),
        Route("POST", "assets/{id}/selections"), Route("PUT", "assets/{id}/policy"), Route("GET", "assets/{id}/logs"),
        Route("POST", "assets/{id}/verify"), Route("GET", "verification"), Route("GET", "fleet"),
        Route("GET", "streams"), Route("GET", "catalog"), Route("GET", "storage"), Route("PUT", "storage"), Route("POST", "purge"),
        Route("GET", "events"), Route("GET", "openapi.json"),
    ]

    private func route(_ request: Request, path: [Substring]) async throws -> Response {
        let parts = path.map(String.init)
        let matching = Self.routes.filter { $0.match(parts) != nil }
        guard !matching.isEmpty else {
            // The path is not echoed: an answer says only what the API has.
            throw APIError(404, "not-found", "no path of the API matches the request", hint: "GET /api/openapi.json describes it.")
        }
        guard let route = matching.first(where: { $0.method == request.method.rawValue }), let id = route.match(parts) else {
            let allowed = matching.map(\.method).joined(separator: " or ")
            throw APIError(405, "method-not-allowed", "\(request.method.rawValue) is not allowed on /api/\(matching[0].pattern); \(allowed) is")
        }
        switch (route.method, route.pattern) {
        case ("GET", "assets"): return try await listAssets(request)
        case ("POST", "assets"): return try await startDownload(request)
        case ("GET", "assets/{id}"): return try APIJSON.response(try await session.task(id: id).snapshot())
        case ("DELETE", "assets/{id}"):
            try await session.delete(try await session.task(id: id).id)
            return Response(status: .noContent, headers: [.cacheControl: "no-store"])
        case ("POST", "assets/{id}/cancel"), ("POST", "assets/{id}/suspend"), ("POST", "assets/{id}/resume"):
            let task = try await session.task(id: id)
            switch parts[2] {
            case "cancel": try await task.cancel()
            case "suspend": try await task.suspend()
            default: try await task.resume()
            }
            return try APIJSON.response(try await task.snapshot())
        case ("POST", "assets/{id}/selections"): return try await addSelections(request, to: try await session.task(id: id))
        case ("PUT", "assets/{id}/policy"): return try await changePolicy(request, of: try await session.task(id: id))
        case ("POST", "assets/{id}/verify"): return try await verify(request, task: try await session.task(id: id))
        case ("GET", "verification"): return try APIJSON.response(verificationState())
        case ("GET", "fleet"): return try APIJSON.response(try await fleetState())
        case ("GET", "streams"): return try await inspectStream(request)
        case ("GET", "assets/{id}/logs"): return try await logs(request, of: try await session.task(id: id).id)
        case ("GET", "catalog"):
            guard let catalog else { return try APIJSON.response([StreamCatalog.OfflineState]()) }
            return try APIJSON.response(catalog.offlineStates(given: try await session.latestSnapshots(of: catalog.entries.map(\.playlistURL))))
        case ("GET", "storage"): return try APIJSON.response(try await StorageManager(library: session.library).report())
        case ("PUT", "storage"): return try await changeStorage(request)
        case ("POST", "purge"): return try await purge(request)
        case ("GET", "events"):
            return try eventStream(lastID: request.headers.first { $0.name.canonicalName == "last-event-id" }?.value)
        default:
            return APIJSON.response(status: 200, data: Data(OpenAPIDocument.json.utf8))
        }
    }
}
