import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An asset's access and error logs, for its downloads and its playback sessions, in the W3C
/// Extended Log File Format with the fields AVPlayerItemAccessLog and AVPlayerItemErrorLog
/// offer where they apply. They live in `logs/<id>/access.log` and `logs/<id>/error.log` under
/// the library, and go with the asset.
///
/// `x-event` says whose line it is: `download` or `playback`.
public struct AssetLogs: Sendable {
    /// The library whose `logs` folder holds the logs.
    public let library: OfflineLibrary

    /// Creates the logs of `library`'s assets. Nothing is read or written until a line is
    /// appended or a log is read.
    public init(library: OfflineLibrary) {
        self.library = library
    }

    /// The access log's fields.
    public static let accessFields = ["date", "time", "x-event", "cs-uri", "s-ip", "sc-status", "sc-bytes", "c-transfer-duration",
                                      "c-observed-bitrate", "sc-indicated-bitrate", "x-playback-session-id"]
    /// The error log's fields.
    public static let errorFields = ["date", "time", "x-event", "cs-uri", "s-ip", "sc-status", "x-error-domain", "x-error-code",
                                     "x-comment", "x-playback-session-id"]

    /// What a log line says of one request.
    public struct Entry: Sendable {
        /// When the request was made: the `date` and `time` fields, in UTC to the millisecond.
        public var date: Date
        /// `download` or `playback`.
        public var event: String
        /// `cs-uri`: the absolute URL fetched, for a download; the path in the bundle the player
        /// asked for, for playback.
        public var uri: String
        /// The server's address (host, or host and port).
        public var server: String?
        /// `sc-status`: the response's HTTP status code; nil is written as `-`.
        public var status: Int?
        /// `sc-bytes`: the body bytes transferred; nil is written as `-`. With ``duration`` it gives
        /// `c-observed-bitrate`, in bits per second.
        public var bytes: Int?
        /// Seconds the transfer took.
        public var duration: Double?
        /// Bits per second the variant declares.
        public var indicatedBitrate: Int?
        /// `x-playback-session-id`: the player's playback session, for playback lines; nil for
        /// downloads.
        public var sessionID: String?
        /// For the error log: the error's domain (`carryon`, `http`) and code, and what happened.
        public var errorDomain: String?
        /// `x-error-code`: the raw value of a ``CarryonError/Code``, or `http` for an HTTP error
        /// status.
        public var errorCode: String?
        /// `x-comment`: what went wrong, in words (the error's message).
        public var comment: String?

        /// Creates an entry; a field left nil is written as `-`.
        public init(date: Date, event: String, uri: String, server: String? = nil, status: Int? = nil, bytes: Int? = nil,
                    duration: Double? = nil, indicatedBitrate: Int? = nil, sessionID: String? = nil, errorDomain: String? = nil,
                    errorCode: String? = nil, comment: String? = nil) {
            self.date = date
            self.event = event
            self.uri = uri
            self.server = server
            self.status = status
            self.bytes = bytes
            self.duration = duration
            self.indicatedBitrate = indicatedBitrate
            self.sessionID = sessionID
            self.errorDomain = errorDomain
            self.errorCode = errorCode
            self.comment = comment
        }

        var values: [String: W3CLogValue] {
            var values = W3CLogValue.timestamp(date)
            values["x-event"] = .string(event)
            values["cs-uri"] = .string(AssetLogs.bounded(uri, AssetLogs.maximumURICharacters))
            values["s-ip"] = server.map { .string($0) } ?? .missing
            values["sc-status"] = status.map { .integer($0) } ?? .missing
            values["sc-bytes"] = bytes.map { .integer($0) } ?? .missing
            values["c-transfer-duration"] = duration.map { .decimal($0, digits: 3) } ?? .missing
            if let bytes, let duration, duration > 0 {
                values["c-observed-bitrate"] = .integer(Int(Double(bytes) * 8 / duration))
            }
            values["sc-indicated-bitrate"] = indicatedBitrate.map { .integer($0) } ?? .missing
            values["x-playback-session-id"] = sessionID.map { .string($0) } ?? .missing
            values["x-error-domain"] = errorDomain.map { .string($0) } ?? .missing
            values["x-error-code"] = errorCode.map { .string($0) } ?? .missing
            values["x-comment"] = comment.map { .string(AssetLogs.bounded($0, AssetLogs.maximumCommentCharacters)) } ?? .missing
            return values
        }
    }

    /// The folder of an asset's logs.
    public func folder(for id: String) -> URL {
        library.root.appending(path: "logs", directoryHint: .isDirectory).appending(path: id, directoryHint: .isDirectory)
    }

    /// The access log of asset `id`: `logs/<id>/access.log` under the library. The file exists
    /// only once a line was written.
    public func accessLogURL(for id: String) -> URL { folder(for: id).appending(path: "access.log", directoryHint: .notDirectory) }
    /// The error log of asset `id`: `logs/<id>/error.log` under the library. The file exists
    /// only once a line was written.
    public func errorLogURL(for id: String) -> URL { folder(for: id).appending(path: "error.log", directoryHint: .notDirectory) }

    /// Appends a line to the access log of asset `id`.
    public func access(_ entry: Entry, for id: String) {
        append(entry, to: folderPath(for: id) + "/access.log", fields: Self.accessFields)
    }

    /// Appends a line to the error log of asset `id`.
    public func error(_ entry: Entry, for id: String) {
        append(entry, to: folderPath(for: id) + "/error.log", fields: Self.errorFields)
    }

    /// ``folder(for:)``'s path, made without a `URL` (a line a request, for a busy server).
    private func folderPath(for id: String) -> String {
        library.rootPath + "/logs/" + id
    }

    /// The most characters of a URI a line keeps; a longer one (a request made to fill the
    /// log) is cut, with `…`.
    public static let maximumURICharacters = 2_048
    /// The most characters of a comment (an error's message) a line keeps.
    public static let maximumCommentCharacters = 1_024
    /// The size at which a log is rotated: `error.log` becomes `error.log.1` (replacing the one
    /// before) and a new `error.log` begins. An asset's logs take at most twice this, each kind.
    public static let maximumLogBytes = 1 << 20

    static func bounded(_ text: String, _ limit: Int) -> String {
        text.count > limit ? String(text.prefix(limit)) + "…" : text
    }

    /// The log rotated out of `url` (`error.log.1`), read before it.
    func rotatedURL(_ url: URL) -> URL {
        url.deletingLastPathComponent().appending(path: url.lastPathComponent + ".1", directoryHint: .notDirectory)
    }

    /// Removes an asset's logs.
    public func remove(_ id: String) {
        try? FileManager.default.removeItem(at: folder(for: id))
    }

    /// Logging never fails the work it records: a line that cannot be written is dropped.
    /// Lines are appended with O_APPEND, one write each, so processes writing the same log do
    /// not interleave within a line.
    private func append(_ entry: Entry, to path: String, fields: [String]) {
        var descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        if descriptor < 0, errno == ENOENT {
            // The asset's first line: its folder is made then, not looked for at every line.
            try? FileManager.default.createDirectory(atPath: String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]),
                                                     withIntermediateDirectories: true)
            descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        }
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let writer = W3CLogWriter(fields: fields, startDate: entry.date)
        let line = writer.line(entry.values)
        var info = stat()
        if fstat(descriptor, &info) == 0, Int(info.st_size) + line.utf8.count > Self.maximumLogBytes, info.st_size > 0 {
            // Rotated: the full log replaces the one rotated before, and this line begins a new one.
            if rename(path, path + ".1") == 0 {
                close(descriptor)
                descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
                guard descriptor >= 0 else { return }
            }
        }
        var text = ""
        if fstat(descriptor, &info) == 0, info.st_size == 0 { text = writer.header() }
        text += line
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    // MARK: Playback figures

    /// What the playback access log tells of an asset's playback, as a server can know it: the
    /// segments counted and the startup time are of the requests
    /// ``LocalManifest/isMediaRequest(_:)`` says are media.
    public func playbackSummary(for id: String) -> PlaybackSummary? {
        guard let data = FileManager.default.contents(atPath: accessLogURL(for: id).path) else { return nil }
        // Only the directives and the playback lines are read: a long download logs thousands
        // of lines, which a summary of playback does not need.
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("#") || $0.contains(" playback ") }
        guard lines.contains(where: { !$0.hasPrefix("#") }),
              let log = try? W3CLog(parsing: lines.joined(separator: "\n") + "\n") else { return nil }
        return PlaybackSummary(entries: log.entries.filter { $0["x-event"] == "playback" },
                               isMedia: LocalManifest.isMediaRequest)
    }
}

/// Playback figures from an access log: the sample app's KPIs a server can know.
public struct PlaybackSummary: Sendable, Hashable, Codable {
    /// Playback sessions seen: each HLS session (the playback server starts one at each
    /// `main.m3u8`), and each play of a manifest that starts none (`main.mpd`): a request for it
    /// followed by media.
    public var sessions: Int
    /// Seconds from the latest play's manifest request to its first media request: the first
    /// request of the latest session that played media, or, of plays without a session, the
    /// latest manifest request that media followed.
    public var startupSeconds: Double?
    /// Body bytes served, in all sessions.
    public var bytesServed: Int
    /// Media segments served (requests for media files, not manifests, playlists, keys or
    /// licences), in all sessions.
    public var segmentsServed: Int
    /// The indicated bitrate averaged over the time between media requests, in bits per second.
    public var timeWeightedIndicatedBitrate: Double?

    init?(entries: [[String: String]], isMedia isMediaPath: @escaping (String) -> Bool) {
        guard !entries.isEmpty else { return nil }
        // The log's `yyyy-MM-dd HH:mm:ss.SSS` (every release wrote milliseconds), read
        // arithmetically: a DateFormatter made per entry took 0.52 s for 5,000 entries in a debug
        // build, this 0.02 s.
        func time(_ entry: [String: String]) -> Date? {
            guard let date = entry["date"], let time = entry["time"] else { return nil }
            return IndexDate.date(fromStoredText: "\(date) \(time)")
        }
        let isMedia: ([String: String]) -> Bool = { isMediaPath($0["cs-uri"] ?? "") }
        // A manifest at the top of a bundle (`main.mpd`); not a licence request.
        let isManifest: ([String: String]) -> Bool = { entry in
            let uri = entry["cs-uri"] ?? ""
            return !uri.isEmpty && !uri.contains("/") && uri != "clearkey"
        }
        let sessionless = entries.filter { ($0["x-playback-session-id"] ?? "-") == "-" }
        // The manifest requests without a session that media followed before the next one.
        var plays: [Int] = []
        var pending: Int?
        for (index, entry) in sessionless.enumerated() {
            if isManifest(entry) { pending = index } else if isMedia(entry), let start = pending {
                plays.append(start)
                pending = nil
            }
        }
        sessions = Set(entries.compactMap { $0["x-playback-session-id"] }.filter { $0 != "-" }).count + plays.count
        bytesServed = entries.reduce(0) { $0 + (Int($1["sc-bytes"] ?? "") ?? 0) }
        let media = entries.filter(isMedia)
        segmentsServed = media.count
        // The latest session that played media: a manifest fetched alone later does not hide it.
        let latest = (media.last ?? entries.last)?["x-playback-session-id"] ?? "-"
        let session = latest == "-" ? Array(sessionless[(plays.last ?? 0)...]) : entries.filter { $0["x-playback-session-id"] == latest }
        if let first = session.first.flatMap(time), let firstMedia = session.first(where: isMedia).flatMap(time) {
            startupSeconds = max(0, firstMedia.timeIntervalSince(first))
        }
        // Each media request's indicated bitrate holds until the next one.
        var weighted = 0.0
        var total = 0.0
        let timed = media.compactMap { entry in time(entry).map { ($0, Double(entry["sc-indicated-bitrate"] ?? "")) } }
        for (index, (start, bitrate)) in timed.enumerated() where index + 1 < timed.count {
            guard let bitrate else { continue }
            let span = timed[index + 1].0.timeIntervalSince(start)
            weighted += bitrate * span
            total += span
        }
        if total > 0 {
            timeWeightedIndicatedBitrate = weighted / total
        } else {
            let bitrates = timed.compactMap(\.1)
            timeWeightedIndicatedBitrate = bitrates.isEmpty ? nil : bitrates.reduce(0, +) / Double(bitrates.count)
        }
    }
}
