import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// An HTTP origin that serves a folder of HLS media on loopback, the way a CDN would: correct
/// byte ranges (suffix ranges included), `If-Range`, `HEAD`, validators and content types.
///
/// Carryon's tests download from it, and users get it as `carryon origin` to try Carryon on
/// their own streams without publishing them. Nothing outside `root` can be read through it.
///
/// ```swift
/// try await Origin(root: "/srv/hls").withRunning { baseURL in
///     // baseURL is e.g. "http://127.0.0.1:49152"
///     let inspection = try await Inspector().inspect(baseURL + "/main.m3u8")
/// }
/// ```
public struct Origin: Sendable {
    /// The folder served.
    public var root: String
    /// The address to listen on: `127.0.0.1` unless told otherwise.
    public var host: String
    /// The port; 0 lets the operating system pick a free one.
    public var port: Int
    /// Where the server logs (warnings and errors only by default).
    public var logger: Logger

    public init(root: String, host: String = "127.0.0.1", port: Int = 0, logger: Logger? = nil) {
        self.root = URL(fileURLWithPath: root).standardizedFileURL.resolvingSymlinksInPath().path
        self.host = host
        self.port = port
        self.logger = logger ?? {
            var logger = Logger(label: "carryon.origin")
            logger.logLevel = .warning
            return logger
        }()
    }

    /// Serves until the task is cancelled or the process receives SIGINT or SIGTERM; calls
    /// `onReady` with the base URL (`http://host:port`) once the socket is listening.
    public func run(onReady: @escaping @Sendable (String) async -> Void = { _ in }) async throws {
        let app = makeApplication(onReady: onReady)
        let group = ServiceGroup(configuration: .init(
            services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// Runs the origin for as long as `body` runs, and stops it after.
    public func withRunning<T: Sendable>(_ body: @Sendable (String) async throws -> T) async throws -> T {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        let app = makeApplication { url in continuation.yield(url); continuation.finish() }
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = stream.makeAsyncIterator()
            guard let url = await iterator.next() else {
                // The server stopped before listening: its error says why.
                try await tasks.waitForAll()
                throw CancellationError()
            }
            do {
                let result = try await body(url)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return result
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
        }
    }

    private func makeApplication(onReady: @escaping @Sendable (String) async -> Void) -> some Service {
        let router = Router()
        let files = FileResponder(root: root)
        router.get("**") { request, context in try await files.respond(to: request, context: context, includeBody: true) }
        router.head("**") { request, context in try await files.respond(to: request, context: context, includeBody: false) }
        let host = self.host
        return Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "carryon-origin"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let shownHost = host.contains(":") ? "[\(host)]" : host
                await onReady("http://\(shownHost):\(port)")
            },
            logger: logger
        )
    }
}

/// Answers GET and HEAD for files under a root folder.
struct FileResponder: Sendable {
    let root: String
    let fileIO = FileIO()

    /// The file a request path names, or nil when it would leave the root or is not a regular file.
    func file(forRequestPath rawPath: String) -> (path: String, size: Int, modified: Date)? {
        guard let decoded = rawPath.removingPercentEncoding, !decoded.contains("\0") else { return nil }
        let segments = decoded.split(separator: "/", omittingEmptySubsequences: true)
        guard !segments.contains(where: { $0 == ".." || $0 == "." }) else { return nil }
        let path = root + "/" + segments.joined(separator: "/")
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard resolved == root || resolved.hasPrefix(root + "/") else { return nil }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: resolved),
              attributes[.type] as? FileAttributeType == .typeRegular,
              let size = attributes[.size] as? Int
        else { return nil }
        return (resolved, size, attributes[.modificationDate] as? Date ?? Date(timeIntervalSince1970: 0))
    }

    func respond(to request: Request, context: some RequestContext, includeBody: Bool) async throws -> Response {
        guard let file = file(forRequestPath: request.uri.path) else {
            return Response(status: .notFound, headers: [.contentType: "text/plain"],
                            body: .init(byteBuffer: ByteBuffer(string: "not found\n")))
        }
        let etag = "\"\(String(file.size, radix: 16))-\(String(Int(file.modified.timeIntervalSince1970 * 1000), radix: 16))\""
        var headers: HTTPFields = [
            .contentType: MediaTypes.contentType(forPath: file.path),
            .acceptRanges: "bytes",
            .eTag: etag,
            .lastModified: httpDate(file.modified),
        ]
        var range = HTTPRange(header: request.headers[.range], size: file.size)
        if let ifRange = request.headers[.ifRange], ifRange != etag, ifRange != httpDate(file.modified) {
            range = .whole
        }
        switch range {
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(file.size)"
            headers[.contentLength] = "0"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        case .whole:
            headers[.contentLength] = String(file.size)
            guard includeBody, file.size > 0 else { return Response(status: .ok, headers: headers) }
            let body = try await fileIO.loadFile(path: file.path, range: 0...(file.size - 1), context: context)
            return Response(status: .ok, headers: headers, body: body)
        case .partial(let bytes):
            headers[.contentRange] = "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(file.size)"
            headers[.contentLength] = String(bytes.count)
            guard includeBody else { return Response(status: .partialContent, headers: headers) }
            let body = try await fileIO.loadFile(path: file.path, range: bytes, context: context)
            return Response(status: .partialContent, headers: headers, body: body)
        }
    }
}

/// An IMF-fixdate (RFC 9110 section 5.6.7), e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
func httpDate(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: date)
}
