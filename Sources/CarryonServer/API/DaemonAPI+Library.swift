import Carryon
import Foundation
import Hummingbird
import NIOCore

/// The API's library-wide requests: storage, purge, the event stream; and reading request bodies.
extension DaemonAPI {
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

    /// `PUT /api/storage`: the settings changed, then the report.
    func changeStorage(_ request: Request) async throws -> Response {
        let storage = StorageManager(library: session.library)
        let change = try await Self.decode(StorageChange.self, from: request, example: #"{"quotaBytes": 21474836480, "minimumFreeBytes": null}"#)
        try await storage.setSettings(try change.applied(to: try await storage.settings()))
        return try APIJSON.response(try await storage.report())
    }

    /// `POST /api/purge[?dryRun=true]`: the plan, carried out unless it is a dry run.
    func purge(_ request: Request) async throws -> Response {
        let dryRun = try Self.flag("dryRun", in: request)
        let storage = StorageManager(library: session.library)
        return try APIJSON.response(dryRun ? try await storage.plan() : try await storage.purge(with: session))
    }

    /// `GET /api/events`: Server-Sent Events, each `id: N`, `event: KIND` and `data:` the
    /// `DownloadEventRecord` (module `Carryon`) as JSON — what `carryon download --json` prints, for every task.
    /// With `Last-Event-ID` (a client reconnecting), the events after it that are still kept
    /// come first.
    func eventStream(lastID header: String?) throws(APIError) -> Response {
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

    /// `GET /api/assets[?state=S[,S…]&q=TEXT&order=O&limit=N&cursor=C]`: a page of the library
    /// (every asset, oldest first, without a limit), an array as before paging; a `Link` header
    /// (`<assets?…&cursor=C>; rel="next"`, RFC 8288) names the next page when there is one.
    func listAssets(_ request: Request) async throws -> Response {
        let parameters = request.uri.queryParameters
        var query = AssetQuery()
        for text in parameters.getAll("state") {
            for name in text.split(separator: ",", omittingEmptySubsequences: true) {
                guard let state = DownloadState(rawValue: String(name)) else {
                    throw APIError(400, "bad-request", "state \(DateText.excerpt(String(name), limit: 40)) is not one of \(DownloadState.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                query.states.insert(state)
            }
        }
        if let text = parameters.get("q"), !text.isEmpty {
            guard text.count <= 200 else { throw APIError(400, "bad-request", "q is at most 200 characters") }
            query.text = text
        }
        if let text = parameters.get("order") {
            guard let order = AssetQuery.Order(rawValue: text) else {
                throw APIError(400, "bad-request", "order \(DateText.excerpt(text, limit: 40)) is not one of \(AssetQuery.Order.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            query.order = order
        }
        if let text = parameters.get("limit") {
            guard let limit = Int(text), (1...AssetQuery.maximumLimit).contains(limit) else {
                throw APIError(400, "bad-request", "limit must be a whole number from 1 to \(AssetQuery.maximumLimit)")
            }
            query.limit = limit
        }
        query.cursor = parameters.get("cursor")
        let page = try await session.snapshots(query)
        var headers: HTTPFields = [:]
        if let next = page.next {
            var items = [("cursor", next)]
            if !query.states.isEmpty { items.append(("state", query.states.map(\.rawValue).sorted().joined(separator: ","))) }
            if let text = query.text { items.append(("q", text)) }
            if query.order != .created { items.append(("order", query.order.rawValue)) }
            if let limit = query.limit { items.append(("limit", String(limit))) }
            // Every character but the unreserved ones written out (`&`, `=`, `+` and `>` in q too).
            let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~,")
            let target = items.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")" }.joined(separator: "&")
            headers[.init("Link")!] = "<assets?\(target)>; rel=\"next\""
        }
        return try APIJSON.response(page.assets, headers: headers)
    }

    /// The most log entries of each kind one answer holds.
    static let maximumLogPage = 10_000

    /// `GET /api/assets/{id}/logs[?limit=N&offset=M]`: the newest `limit` entries (1,000 by
    /// default, at most 10,000) of the access and error logs, after the newest `offset`, oldest
    /// first, and how many each log holds: `{"access": […], "error": […], "total": {"access": N, "error": N}}`.
    func logs(_ request: Request, of id: String) async throws -> Response {
        let query = request.uri.queryParameters
        func number(_ name: String, default value: Int, in range: ClosedRange<Int>) throws(APIError) -> Int {
            guard let text = query.get(name) else { return value }
            guard let number = Int(text), range.contains(number) else {
                throw APIError(400, "bad-request", "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }
        let limit = try number("limit", default: 1_000, in: 1...Self.maximumLogPage)
        let offset = try number("offset", default: 0, in: 0...Int(Int32.max))
        let page = try AssetLogs(library: session.library).page(of: id, limit: limit, skipping: offset)
        struct Page: Encodable {
            var access: [[String: String]]
            var error: [[String: String]]
            var total: [String: Int]
        }
        return try APIJSON.response(Page(access: page.entries["access"] ?? [], error: page.entries["error"] ?? [], total: page.totals))
    }

    /// The request's JSON body as `type`; `example` is shown in the hint when it is not.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, example: String) async throws -> T {
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
}
