import Carryon
import Foundation
import HLS
import Hummingbird
import NIOCore

/// The API's look at a stream before it is downloaded (`GET /api/streams`), and an asset's
/// storage policy (`PUT /api/assets/{id}/policy`).
extension DaemonAPI {
    /// `GET /api/streams?url=…` (or `?catalog=NAME`): what `carryon inspect --sizes --json`
    /// reports of the stream — its variants, renditions and each one's size for HLS, its
    /// Periods, Adaptation Sets and Representations for DASH — and, under `choices`, the same
    /// choices in every format's words (``StreamChoices``: variants best first, one audio and
    /// subtitle track per language, sizes), from which a client builds its chooser without
    /// reading any format's shape. A media playlist's segments are left out (its `segmentCount`
    /// and `duration` stay): a client choosing what to download needs its size, not a million lines.
    /// A stream that cannot be read (its origin fails, its manifest is not one) is a 422 with
    /// the engine's error code and message.
    func inspectStream(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        let (given, headers) = try stream(url: query.get("url"), catalogName: query.get("catalog"))
        var inspector = try Inspector(network: session.configuration.network, headers: headers, stallTimeout: session.configuration.stallTimeout)
        inspector.fetcher.rule = streams.locationRule
        let report = try await inspector.report(try streams.check(given), .init(sizes: true, segments: false))
        return try APIJSON.response(ReportWithChoices(report: report.value, choices: report.choices))
    }

    /// A stream's report with its ``StreamChoices`` as one more key, `choices`.
    struct ReportWithChoices: Encodable {
        var report: any Encodable
        var choices: StreamChoices

        private enum CodingKeys: String, CodingKey { case choices }

        func encode(to encoder: any Encoder) throws {
            try report.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(choices, forKey: .choices)
        }
    }

    /// The stream a request names: its `url`, or the catalog stream `catalogName` with the
    /// headers the catalog gives it; exactly one of the two.
    func stream(url: String?, catalogName: String?) throws(APIError) -> (url: String, headers: [HTTPHeader]) {
        switch (url, catalogName) {
        case (let url?, nil):
            return (url, [])
        case (nil, let name?):
            guard let entry = catalog?.entry(named: name) else {
                throw APIError(404, "unknown-stream", "the catalog has no stream named \"\(name)\"", hint: "GET /api/catalog lists its streams.")
            }
            return (entry.playlistURL, entry.headers)
        case (nil, nil):
            throw APIError(400, "bad-request", "url is missing: give the stream's url, or the name of a catalog stream (catalog)",
                           hint: #"Send JSON such as {"url": "https://cdn.example/show/main.m3u8", "audio": "en,de"}."#)
        case (_?, _?):
            throw APIError(400, "bad-request", "give the stream's url or a catalog stream's name, not both")
        }
    }

    /// What `PUT /api/assets/{id}/policy` takes: `expiresAt` (an ISO 8601 date and time that
    /// exists, at the latest 9999-12-31T23:59:59Z, or `null`: never) and `priority` (`default` or `important`); an absent key is left as it is.
    struct PolicyChange: Decodable {
        var expiresAt: String??
        var priority: String?

        private enum CodingKeys: String, CodingKey { case expiresAt, priority }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if container.contains(.expiresAt) {
                expiresAt = .some(try container.decodeNil(forKey: .expiresAt) ? nil : container.decode(String.self, forKey: .expiresAt))
            }
            priority = try container.decodeIfPresent(String.self, forKey: .priority)
        }
    }

    /// `PUT /api/assets/{id}/policy`: the asset's expiry and priority changed, then the asset.
    func changePolicy(_ request: Request, of task: DownloadTask) async throws -> Response {
        let change = try await Self.decode(PolicyChange.self, from: request, example: #"{"expiresAt": "2026-12-31T00:00:00Z", "priority": "important"}"#)
        let storage = StorageManager(library: session.library)
        var policy = try await storage.policy(for: task.id)
        if case .some(let text) = change.expiresAt {
            if let text {
                do {
                    policy.expiresAt = try DateText.date(text, naming: "expiresAt")
                } catch {
                    throw APIError(400, "bad-request", error.message, hint: "Send an ISO 8601 date and time such as 2026-12-31T00:00:00Z, at the latest 9999-12-31T23:59:59Z.")
                }
            } else {
                policy.expiresAt = nil
            }
        }
        if let text = change.priority {
            guard let priority = AssetPriority(rawValue: text) else {
                throw APIError(400, "bad-request", "priority \"\(text)\" is not default or important")
            }
            policy.priority = priority
        }
        try await storage.setPolicy(policy, for: task.id)
        return try APIJSON.response(try await task.snapshot())
    }
}
