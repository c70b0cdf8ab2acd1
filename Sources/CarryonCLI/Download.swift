import ArgumentParser
import Carryon
import Foundation
import HLS

/// `carryon download`: download a stream into the library.
struct Download: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download a stream (a variant and its renditions) into an offline bundle.",
        discussion: """
            By default: the highest-quality variant (HDR preferred), the audio renditions of \
            your language (from $LANG; stereo and multichannel), and subtitles in your language. \
            Progress shows on a terminal; with --json, one JSON event per line. Without --json \
            the last line of output is the asset's id. Ctrl-C suspends cleanly (exit 130); \
            `carryon resume ID` continues, fetching only what is missing.

            A live stream (an HLS playlist without EXT-X-ENDLIST, an MPD of type dynamic) is recorded: from the live \
            edge (or the oldest segment still there, with --from-start), reloading the \
            playlists as the stream updates them, until the stream ends, --duration of media \
            is recorded, or Ctrl-C, SIGTERM or `carryon suspend ID` stops it (exit 0): the \
            bundle is then complete, a VOD that plays everywhere. After a crash, `carryon \
            resume ID` goes on from the next segment the window still holds, marking what it \
            no longer holds as a gap (EXT-X-GAP).

            The stream is an HLS playlist or an MPEG-DASH MPD, with the same options: a DASH \
            bundle has a local main.mpd and HLS playlists of the same files, so it plays in \
            DASH and HLS players alike.

            A common-encryption stream (cenc, cbcs) whose keys you hold downloads with \
            --key KID:KEY or --keys-file FILE: each key is checked against the first samples it \
            decrypts before the media is fetched, sealed at rest, never printed.

            Examples:
              carryon download https://example.com/main.m3u8 --name "Big Buck Bunny"
              carryon download https://example.com/dash/manifest.mpd --audio all
              carryon download URL --max-resolution 1280x720 --audio en,de --subtitles none
              carryon download URL --min-bitrate 2000000 --no-hdr --header 'Cookie: session=abc'
              carryon download URL --start 10:00 --duration 2:00    (the segments from 10:00 to 12:00)
              carryon download https://example.com/live.m3u8 --duration 30:00    (record half an hour of a live stream)
              carryon download --catalog Streams.plist "Advanced Stream"
              carryon download https://cdn.corp/show/main.m3u8 --cacert corp-root.pem --proxy http://user:pass@proxy.corp:3128
              carryon download https://cdn.example/show/main.mpd --keys-file keys.txt    (one KID:KEY a line)
            """
    )

    @OptionGroup var stream: StreamOptions

    @Option(help: ArgumentHelp("A stream catalog (Streams.plist or JSON): URL is then a stream's name in it.", valueName: "file"))
    var catalog: String?

    @Option(help: "Requests in flight at once, and connections to one host, fixed (without it the link decides, from 8 up to --max-connections).")
    var concurrency: Int?

    @Option(help: ArgumentHelp("The most requests in flight the link may be given (default 32).", valueName: "n"))
    var maxConnections: Int?

    @OptionGroup var policy: PolicyOptions

    @OptionGroup var keyLifetime: KeyLifetimeOptions

    @OptionGroup var heldKeys: HeldKeyOptions

    @Flag(help: "Print one JSON event per line instead of a progress bar.")
    var json = false

    @OptionGroup var library: LibraryOptions

    @OptionGroup var transfer: TransferOptions

    @OptionGroup var rate: RateLimitOptions

    @OptionGroup var refresh: RefreshOptions

    @OptionGroup var ownership: OwnershipOptions

    @Flag(inversion: .prefixedNo, help: "Whether the content keys of an encrypted stream are obtained before any media (they are by default); without, `carryon keys fetch ID` gets them later.")
    var prefetchKeys = true

    func validate() throws {
        if let concurrency, !(1...64).contains(concurrency) { throw ValidationError("--concurrency must be between 1 and 64") }
        if let maxConnections, !(1...128).contains(maxConnections) { throw ValidationError("--max-connections must be between 1 and 128") }
        if !prefetchKeys, !heldKeys.isEmpty {
            throw ValidationError("--key, --keys-file and --license-url are used when the keys are obtained, before the media; without --no-prefetch-keys, or later with `carryon keys fetch ID --key KID:KEY`")
        }
        if concurrency != nil, maxConnections != nil { throw ValidationError("--concurrency fixes the requests in flight; --max-connections bounds the number the link chooses: give one") }
    }

    func run() async throws {
        let library = try self.library.open()
        var configuration = DownloadSession.Configuration()
        if let concurrency {
            // Requests and connections alike: a request beyond the pool's connections only waits.
            configuration.maximumRequestsPerTask = concurrency
            configuration.maximumConcurrentRequests = concurrency
            configuration.maximumConnectionsPerHost = concurrency
            configuration.adaptsConcurrency = false
        }
        if let maxConnections { configuration.maximumConnections = maxConnections }
        configuration.keyLifetime = keyLifetime.lifetime
        configuration.prefetchKeys = prefetchKeys
        transfer.configure(&configuration)
        refresh.configure(&configuration)
        ownership.configure(&configuration)
        let session = try await openSession(library, configuration)
        let task: DownloadTask
        do {
            var url = stream.url
            var name = stream.name
            var headers = stream.requestHeaders
            if let catalog {
                let entries = try StreamCatalog(contentsOf: URL(fileURLWithPath: catalog))
                guard let entry = entries.entry(named: stream.url) else {
                    throw fail("\(catalog) has no stream called \"\(stream.url)\"; it has: \(entries.entries.map(\.name).joined(separator: ", "))",
                               hint: "Names are matched exactly; `carryon catalog \(catalog)` lists them.")
                }
                url = entry.playlistURL
                name = name ?? entry.name
                headers = entry.headers + headers
            }
            var options = stream.options
            options.maximumBytesPerSecond = rate.bytesPerSecond
            options.licenseURL = heldKeys.licenseURL
            let held = try heldKeys.heldKeys()
            task = try await session.makeTask(url: url, name: name, options: options, headers: headers)
            try await heldKeys.hold(held, in: session, for: task.id)
            if !policy.isEmpty {
                try await StorageManager(library: library).setPolicy(policy.applied(to: StoragePolicy()), for: task.id)
            }
        } catch let exit as ExitCode {
            await session.shutdown()
            throw exit
        } catch {
            await session.shutdown()
            throw fail(error)
        }
        try await TaskRunner(session: session, json: json).run([task])
    }
}

/// Opens a session, failing the command with the error's message.
func openSession(_ library: OfflineLibrary, _ configuration: DownloadSession.Configuration = .init()) async throws -> DownloadSession {
    do {
        return try await DownloadSession(library: library, configuration: configuration)
    } catch {
        throw fail(error)
    }
}

/// The stream and what to take of it, shared by `download` and `keys prefetch`.
struct StreamOptions: ParsableArguments {
    @Argument(help: "The stream: an HLS multivariant or media playlist, or an MPEG-DASH MPD (http, https, file URL or path).")
    var url: String

    @Option(help: "A name for the asset (default: from the URL).")
    var name: String?

    @OptionGroup var variant: VariantBounds

    @Flag(name: .customLong("no-hdr"), help: "Prefer SDR variants over HDR (PQ, HLG) ones. Either way the maximums bound the choice first, and with a minimum the range chooses only between variants of equal bandwidth.")
    var noHDR = false

    @Flag(name: .customLong("no-multichannel"), help: "Take only the stereo rendition of each audio language.")
    var noMultichannel = false

    @Option(help: ArgumentHelp("Audio renditions: languages or names (en,de), all, or none.", valueName: "langs|all|none"))
    var audio: String?

    @Option(help: ArgumentHelp("Subtitle renditions: languages or names, all, or none.", valueName: "langs|all|none"))
    var subtitles: String?

    @Option(name: .customLong("header"), help: ArgumentHelp("A request header 'Name: value' for every request (repeatable).", valueName: "header"))
    var headers: [String] = []

    @OptionGroup var part: TimeRangeOptions

    @Flag(name: .customLong("from-start"), help: "For a live stream: record from the oldest segment its window still holds, not from the live edge (three target durations from the end, where players start).")
    var fromStart = false

    func validate() throws {
        for header in headers where parseHeader(header) == nil {
            throw ValidationError("--header must look like 'Name: value', not '\(header)'")
        }
    }

    var options: DownloadOptions {
        var options = variant.options
        options.prefersHDR = !noHDR
        options.prefersMultichannel = !noMultichannel
        options.audio = audio.map(DownloadOptions.RenditionChoice.init(parsing:)) ?? .automatic
        options.subtitles = subtitles.map(DownloadOptions.RenditionChoice.init(parsing:)) ?? .automatic
        // Checked by validate().
        options.timeRange = try? part.timeRange()
        if fromStart { options.live = LiveOptions(fromStart: true) }
        return options
    }

    var requestHeaders: [HTTPHeader] {
        headers.compactMap(parseHeader)
    }
}

/// `--min-bitrate`, `--max-bitrate`, `--min-resolution`, `--max-resolution`: the bounds that
/// choose a variant, for `download` and `add`.
struct VariantBounds: ParsableArguments {
    @Option(name: .customLong("min-bitrate"), help: ArgumentHelp("The lowest variant of at least this many bits per second.", valueName: "bps"))
    var minimumBitrate: Int?

    @Option(name: .customLong("max-bitrate"), help: ArgumentHelp("No variant above this many bits per second.", valueName: "bps"))
    var maximumBitrate: Int?

    @Option(name: .customLong("min-resolution"), help: ArgumentHelp("The lowest variant at least this large.", valueName: "WxH"))
    var minimumResolution: String?

    @Option(name: .customLong("max-resolution"), help: ArgumentHelp("No variant larger than this.", valueName: "WxH"))
    var maximumResolution: String?

    /// Whether any bound was given.
    var isEmpty: Bool { minimumBitrate == nil && maximumBitrate == nil && minimumResolution == nil && maximumResolution == nil }

    func validate() throws {
        for (flag, value) in [("--min-resolution", minimumResolution), ("--max-resolution", maximumResolution)] {
            if let value, Resolution(value) == nil { throw ValidationError("\(flag) must look like 1280x720, not '\(value)'") }
        }
        for (flag, value) in [("--min-bitrate", minimumBitrate), ("--max-bitrate", maximumBitrate)] {
            if let value, value <= 0 { throw ValidationError("\(flag) must be a positive number of bits per second") }
        }
    }

    /// Options with these bounds and the defaults otherwise.
    var options: DownloadOptions {
        DownloadOptions(minimumBitrate: minimumBitrate, minimumResolution: minimumResolution.flatMap(Resolution.init),
                        maximumBitrate: maximumBitrate, maximumResolution: maximumResolution.flatMap(Resolution.init))
    }
}

/// `--start`, `--duration`, `--end`: the part of a stream to download (``TimeRange``), for
/// `download`, `enqueue`, `keys prefetch` and `add`.
struct TimeRangeOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Only the part of the stream from this time on: seconds (90, 90.5), M:SS or H:MM:SS[.s]; the first segment is the one that contains it. Of a live stream, from the start of its window (the DVR window).", valueName: "time"))
    var start: String?

    @Option(help: ArgumentHelp("Only this much of the stream from --start (or its beginning), as --start takes a time; of a live stream, this much recorded.", valueName: "time"))
    var duration: String?

    @Option(help: ArgumentHelp("Only the part of the stream before this time, as --start takes one.", valueName: "time"))
    var end: String?

    /// Whether none was given.
    var isEmpty: Bool { start == nil && duration == nil && end == nil }

    func validate() throws {
        _ = try timeRange()
    }

    /// The part of the stream `--start`, `--duration` and `--end` give; nil without any.
    func timeRange() throws -> TimeRange? {
        func seconds(_ flag: String, _ text: String?) throws -> Double? {
            guard let text else { return nil }
            guard let seconds = TimeRange.seconds(parsing: text) else {
                if TimeRange.isPastLatest(text) {
                    throw ValidationError("\(flag) must be at most 100 years (3155760000 seconds), not '\(text)'")
                }
                throw ValidationError("\(flag) must be a time such as 90, 90.5, 1:30 or 1:02:03.5, not '\(text)'")
            }
            return seconds
        }
        let start = try seconds("--start", start), duration = try seconds("--duration", duration), end = try seconds("--end", end)
        if duration != nil, end != nil { throw ValidationError("--duration and --end both say where the part ends: give one") }
        if duration == 0 { throw ValidationError("--duration must be longer than 0") }
        guard start != nil || duration != nil || end != nil else { return nil }
        let range = TimeRange(start: start ?? 0, end: end ?? duration.map { (start ?? 0) + $0 })
        do { try range.check() } catch { throw ValidationError(error.message) }
        return range
    }
}
