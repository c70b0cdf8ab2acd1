import Foundation

/// What a stream offers, read for inspection by its format: the report `carryon inspect --json`
/// prints and the daemon's `GET /api/streams` answers (its `type` says what was read: `dash`,
/// HLS's `multivariant` or `media`), and the text `carryon inspect` shows people. Made by
/// ``Inspector/report(_:_:)``; the JSON and the text are made when asked for (a million-segment
/// playlist's are large).
public struct StreamReport: Sendable {
    /// What to read and report.
    public struct Request: Sendable, Hashable {
        /// Whether to estimate each choice's size on disk (fetching what that needs: media
        /// playlists, segment indexes).
        public var sizes: Bool
        /// Whether the JSON lists a media playlist's segments (a client choosing tracks needs
        /// their count and duration, not a million lines).
        public var segments: Bool
        /// Whether the text lists every segment, not the first and last few.
        public var allSegments: Bool

        /// A request for `sizes`, the JSON's `segments` and the text's `allSegments`.
        public init(sizes: Bool = false, segments: Bool = true, allSegments: Bool = false) {
            self.sizes = sizes
            self.segments = segments
            self.allSegments = allSegments
        }
    }

    /// The name of the stream's format (`hls`, `dash`).
    public let format: String
    private let makeValue: @Sendable () -> any Encodable & Sendable
    private let makeText: @Sendable () -> String
    private let makeChoices: @Sendable () -> StreamChoices
    /// Writes the report's JSON (pretty, keys sorted) to `sink`, piece by piece.
    private let writer: @Sendable (_ sink: (Data) throws -> Void) throws -> Void

    /// The report, for an encoder of its own (the daemon's).
    public var value: any Encodable & Sendable { makeValue() }
    /// The report for people.
    public var text: String { makeText() }
    /// What a person chooses between, in the same words for every format (the daemon's
    /// `GET /api/streams` answers them as `choices`, beside the report's own keys).
    public var choices: StreamChoices { makeChoices() }

    /// A report of a `format` stream: `value` as JSON, `text` for people and the `choices` among
    /// its tracks, each made when asked for; `writer`, when given, writes the JSON in pieces (else
    /// `value` is encoded whole).
    init(format: String, value: @escaping @Sendable () -> any Encodable & Sendable, text: @escaping @Sendable () -> String,
         choices: @escaping @Sendable () -> StreamChoices,
         writer: (@Sendable (_ sink: (Data) throws -> Void) throws -> Void)? = nil) {
        self.format = format
        self.makeValue = value
        self.makeText = text
        self.makeChoices = choices
        self.writer = writer ?? { sink in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try sink(try encoder.encode(value()) + Data("\n".utf8))
        }
    }

    /// Writes the report's JSON (pretty, keys sorted, a newline last) to `sink` piece by piece:
    /// a media playlist of a million segments is never whole in memory.
    public func writeJSON(to sink: (Data) throws -> Void) throws {
        try writer(sink)
    }
}

/// A format with a report of its own for `carryon inspect` and `GET /api/streams` (HLS, DASH);
/// a format without one is reported by the tracks of its ``StreamFormat/presentation(of:fetcher:)``.
protocol ReportingFormat: StreamFormat {
    /// The report of the stream whose first manifest is `manifest`, read with `inspector`'s fetcher.
    func report(_ manifest: FetchedManifest, inspector: Inspector, request: StreamReport.Request) async throws(CarryonError) -> StreamReport
}

extension Inspector {
    /// Reads the stream at `location` as its format reads it and reports it (see
    /// ``StreamReport``): HLS playlists, MPEG-DASH MPDs, or any format the inspector is given.
    ///
    /// - Throws: ``CarryonError``: the manifest could not be fetched or read (code
    ///   ``CarryonError/Code/playlist`` names the line).
    public func report(_ location: String, _ request: StreamReport.Request = .init()) async throws(CarryonError) -> StreamReport {
        let manifest = try await fetcher.fetchManifest(location)
        let format = formats.format(of: manifest)
        if let reporting = format as? any ReportingFormat {
            return try await reporting.report(manifest, inspector: self, request: request)
        }
        return PresentationReport.report(of: try await format.presentation(of: manifest, fetcher: fetcher), format: format.name,
                                         displayName: format.displayName, url: manifest.url)
    }
}
