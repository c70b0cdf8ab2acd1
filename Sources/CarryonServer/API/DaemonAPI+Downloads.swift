import Carryon
import Foundation
import HLS
import Hummingbird
import NIOCore

/// The API's downloads: starting one, adding media selections.
extension DaemonAPI {
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
        /// The most bytes a second the download takes (kept with it).
        var limitRate: Int?
        /// Queued for the fleet's workers (`carryon worker`, `serve --worker` on any machine)
        /// rather than started in this process.
        var fleet: Bool?
        /// Only part of the stream (``TimeRange``): from `start` seconds, to `end` seconds or for
        /// `duration` seconds (one of the two).
        var start: Double?
        var end: Double?
        var duration: Double?
        /// For a live stream: record from the oldest segment its window holds, not the live edge.
        var fromStart: Bool?
        /// Content keys the caller holds, `KID:KEY` in hexadecimal each (``HeldKeys``): sealed,
        /// never answered back.
        var keys: [String]?
        /// A Clear Key licence server for DASH keys the MPD names none for.
        var licenseURL: String?

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

    func startDownload(_ request: Request) async throws -> Response {
        let new = try await Self.decode(NewDownload.self, from: request, example: #"{"url": "https://cdn.example/show/main.m3u8", "audio": "en,de"}"#)
        let (given, headers) = try stream(url: new.url, catalogName: new.catalog)
        let name = new.name ?? new.catalog.flatMap { catalog?.entry(named: $0)?.name }
        let url = try streams.check(given)
        var options = DownloadOptions(audio: new.audio?.value ?? .automatic, subtitles: new.subtitles?.value ?? .automatic)
        options.minimumBitrate = new.minBitrate
        options.maximumBitrate = new.maxBitrate
        options.minimumResolution = try new.minResolution.map { try Self.resolution($0, field: "minResolution") }
        options.maximumResolution = try new.maxResolution.map { try Self.resolution($0, field: "maxResolution") }
        if let rate = new.limitRate, rate < 1 {
            throw APIError(400, "bad-request", "limitRate \(rate) is not a number of bytes a second (at least 1)")
        }
        options.maximumBytesPerSecond = new.limitRate
        options.timeRange = try Self.timeRange(start: new.start, end: new.end, duration: new.duration)
        if new.fromStart == true { options.live = LiveOptions(fromStart: true) }
        options.licenseURL = new.licenseURL
        let held = try HeldKeys(new.keys ?? [])
        let task = try await session.makeTask(url: url, name: name, options: options, headers: headers)
        if new.fleet == true {
            // Sealed now for the worker that claims it, another process.
            try await KeyStore(library: session.library).hold(held, for: task.id, lifetime: session.configuration.keyLifetime)
            try await session.enqueueForFleet(task.id)
        } else {
            try await session.hold(held, for: task.id)
            try await task.resume()
        }
        return try APIJSON.response(status: 201, try await task.snapshot(), headers: [.location: "assets/\(task.id)"])
    }

    /// What `POST /api/assets/{id}/selections` takes: more audio, subtitles, or a variant by
    /// its bounds — `carryon add`'s options.
    struct NewSelections: Decodable {
        var audio: NewDownload.Choice?
        var subtitles: NewDownload.Choice?
        var minBitrate: Int?
        var maxBitrate: Int?
        var minResolution: String?
        var maxResolution: String?
        /// A wider part of the stream, for a download of part of it (`start`, and `end` or `duration`).
        var start: Double?
        var end: Double?
        var duration: Double?
    }

    /// The part of a stream `start`, `end` and `duration` give (nil: none given); checked as
    /// the download takes it.
    private static func timeRange(start: Double?, end: Double?, duration: Double?) throws(APIError) -> TimeRange? {
        if end != nil, duration != nil {
            throw APIError(400, "bad-request", "end and duration both say where the part ends: give one")
        }
        guard start != nil || end != nil || duration != nil else { return nil }
        let from = start ?? 0
        return TimeRange(start: from, end: end ?? duration.map { from + $0 })
    }

    /// Adds the selections to the bundle and resumes the download, which fetches only what
    /// they need: 202 and `{added: [rendition keys], asset}`.
    func addSelections(_ request: Request, to task: DownloadTask) async throws -> Response {
        let new = try await Self.decode(NewSelections.self, from: request, example: #"{"audio": "de", "subtitles": "all"}"#)
        var variant = DownloadOptions()
        variant.minimumBitrate = new.minBitrate
        variant.maximumBitrate = new.maxBitrate
        variant.minimumResolution = try new.minResolution.map { try Self.resolution($0, field: "minResolution") }
        variant.maximumResolution = try new.maxResolution.map { try Self.resolution($0, field: "maxResolution") }
        let bounded = new.minBitrate != nil || new.maxBitrate != nil || new.minResolution != nil || new.maxResolution != nil
        let range = try Self.timeRange(start: new.start, end: new.end, duration: new.duration)
        guard new.audio != nil || new.subtitles != nil || bounded || range != nil else {
            throw APIError(400, "bad-request", "nothing to add: give audio, subtitles, a variant's bounds (minBitrate, minResolution, …) or a wider part (start, end)")
        }
        let added = try await session.addMediaSelections(task.id, audio: new.audio?.value ?? .none, subtitles: new.subtitles?.value ?? .none,
                                                         variant: bounded ? variant : nil, timeRange: range)
        try await task.resume()
        struct Added: Encodable { var added: [String]; var asset: AssetSnapshot }
        return try APIJSON.response(status: 202, Added(added: added, asset: try await task.snapshot()))
    }

    private static func resolution(_ text: String, field: String) throws(APIError) -> Resolution {
        guard let resolution = Resolution(text) else {
            throw APIError(400, "bad-request", "\(field) \"\(text)\" is not WIDTHxHEIGHT (1280x720)")
        }
        return resolution
    }

    /// A decoding error in a sentence: the field and what was wrong with it.
    static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _)?: "\(key.stringValue) is missing"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type"
        case .dataCorrupted?: "it is not JSON"
        default: "\(error)"
        }
    }
}
