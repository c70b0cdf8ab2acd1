import Foundation
import Hummingbird
import NIOCore

/// The daemon's web app (`carryon serve`): plain HTML, CSS and JavaScript modules, compiled into
/// the binary — a copied `carryon` serves it with no file beside it, and nothing is fetched
/// from anywhere else. The page is at the base URL (`/<token>/`), its files under
/// `/<token>/app/`; it drives the daemon through ``DaemonAPI`` and plays through the playback
/// server.
///
/// | file | what it holds |
/// | --- | --- |
/// | `index.html` (``page``) | the page: streams, library and storage, player, dialogs |
/// | `app/app.css` (``style``) | its look, from a phone's width up |
/// | `app/app.js` (``main``) | the state, the event stream, rendering |
/// | `app/api.js` (``client``) | requests to the API and its errors |
/// | `app/dom.js` (``dom``) | building elements, formatting sizes and times, dialogs |
/// | `app/streams.js` (``streams``) | the catalog's streams and the download chooser |
/// | `app/progress.js` (``progress``) | bytes, rate, ETA and loaded time ranges |
/// | `app/player.js` (``player``) | the `<video>`, its KPIs and logs |
/// | `app/library.js` (``library``) | every asset with its policy; storage and purge |
///
/// Every response carries a Content-Security-Policy that lets the page run only its own
/// scripts and styles and connect only to its own server.
enum WebApp {
    /// A file of the app: its media type and text.
    struct File: Sendable {
        var contentType: String
        var text: String
    }

    /// The files, by path below the token.
    static let files: [String: File] = [
        "": File(contentType: "text/html; charset=utf-8", text: page),
        "app/app.css": File(contentType: "text/css; charset=utf-8", text: style),
        "app/app.js": File(contentType: "text/javascript; charset=utf-8", text: main),
        "app/api.js": File(contentType: "text/javascript; charset=utf-8", text: client),
        "app/dom.js": File(contentType: "text/javascript; charset=utf-8", text: dom),
        "app/streams.js": File(contentType: "text/javascript; charset=utf-8", text: streams),
        "app/progress.js": File(contentType: "text/javascript; charset=utf-8", text: progress),
        "app/player.js": File(contentType: "text/javascript; charset=utf-8", text: player),
        "app/library.js": File(contentType: "text/javascript; charset=utf-8", text: library),
    ]

    /// The policy every app and API response carries: the app's own scripts, styles, media
    /// and requests only; no frames, no forms sent elsewhere, no plugins.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self' blob:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The headers that keep the page to itself: the policy and no type sniffing. (The page
    /// sends no `Referer` either, by its `referrer` meta tag: the token is in every URL.)
    static var securityHeaders: HTTPFields {
        [.contentSecurityPolicy: contentSecurityPolicy, .xContentTypeOptions: "nosniff"]
    }

    /// The answer for `path` (below the token; nil when the request had nothing after the token),
    /// or nil when the path is not the app's.
    static func response(to request: Request, path: [Substring]) -> Response? {
        guard !path.isEmpty else {
            // `/<token>`: the page's relative URLs need the slash.
            return Response(status: .permanentRedirect, headers: [.location: request.uri.path + "/", .cacheControl: "no-store"])
        }
        guard let file = files[path.joined(separator: "/")] else { return nil }
        guard request.method == .get || request.method == .head else {
            return Response(status: .methodNotAllowed, headers: [.allow: "GET, HEAD"])
        }
        var headers = securityHeaders
        headers[.contentType] = file.contentType
        headers[.cacheControl] = "no-cache"
        let body = ByteBuffer(string: file.text)
        headers[.contentLength] = String(body.readableBytes)
        return Response(status: .ok, headers: headers, body: request.method == .head ? .init() : .init(byteBuffer: body))
    }
}
