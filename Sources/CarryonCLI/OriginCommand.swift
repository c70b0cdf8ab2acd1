import ArgumentParser
import CarryonServer
import Foundation

/// `carryon origin`: serve a folder of HLS media over HTTP on loopback, over a link that can be
/// made slow and unreliable on purpose.
struct OriginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "origin",
        abstract: "Serve a folder of HLS media over HTTP, as a CDN would, over a link as slow and unreliable as you ask.",
        discussion: """
            Serves every file below FOLDER with byte ranges (suffix ranges included), If-Range, \
            HEAD, ETag and the HLS content types, on 127.0.0.1 unless --host says otherwise. \
            Nothing outside FOLDER can be read. The first line of output is the base URL, the \
            second the link profile in effect; the server runs until interrupted (Ctrl-C).

            The link: --latency delays every response (503s included) before its first byte; \
            --bandwidth caps each connection, body bytes being sent in a steady stream at that \
            rate. Faults, as shares of all requests: --fail-rate answers 503 with Retry-After, \
            --reset-rate resets the connection (TCP RST) partway through the body, \
            --truncate-rate sends less than Content-Length and closes the connection. They add \
            up to at most 1, as a request gets at most one fault. Faults hit playlists too, \
            unless --no-faults-on-playlists.

            Faults come from a generator started from --seed (0 unless given): the same seed \
            and the same order of requests give the same faults on the same requests. A client \
            making requests concurrently changes their order, and with it which requests fail.

            Profiles (explicit flags override their values):
              3g     100 ms, 780 kbit/s, no faults
              lte     50 ms, 50000 kbit/s, no faults
              wifi     1 ms, 40000 kbit/s, no faults
              lossy   40 ms, no bandwidth cap, 5% 503s, 2% resets, 2% truncations

            Examples:
              carryon origin ./media
              carryon origin ./media --port 8080
              carryon origin ./media --profile 3g
              carryon origin ./media --profile lossy --seed 7
              carryon origin ./media --latency 40 --bandwidth 8000
              carryon origin ./media --profile lte --fail-rate 0.1 --retry-after 0
            """
    )

    @Argument(help: "The folder to serve.")
    var folder: String

    @Option(help: "The port to listen on (0 picks a free one).")
    var port: Int = 0

    @Option(help: "The address to listen on.")
    var host: String = "127.0.0.1"

    @Flag(help: "Print one JSON line once listening: the base URL, the folder and the link profile (latencyMilliseconds, bandwidthBytesPerSecond, failRate, resetRate, truncateRate, retryAfterSeconds, seed, faultsOnPlaylists).")
    var json = false

    @Option(help: ArgumentHelp(
        "A link profile to start from: 3g, lte, wifi or lossy (see above).", valueName: "name"))
    var profile: String?

    @Option(help: ArgumentHelp(
        "Milliseconds to wait before each response.", valueName: "ms"))
    var latency: Int?

    @Option(help: ArgumentHelp(
        "The cap per connection, in kilobits per second (8000 = 1 MB/s); 0 removes a profile's cap.",
        valueName: "kbps"))
    var bandwidth: Int?

    @Option(help: ArgumentHelp(
        "The share of requests answered 503 Service Unavailable, from 0 to 1 (0.05 = 5 %).",
        valueName: "fraction"))
    var failRate: Double?

    @Option(help: ArgumentHelp(
        "The seconds the 503s ask clients to wait in Retry-After (default 1).", valueName: "seconds"))
    var retryAfter: Int?

    @Option(help: ArgumentHelp(
        "The share of requests whose connection is reset partway through the body, from 0 to 1.",
        valueName: "fraction"))
    var resetRate: Double?

    @Option(help: ArgumentHelp(
        "The share of requests whose body is cut short of its Content-Length, from 0 to 1.",
        valueName: "fraction"))
    var truncateRate: Double?

    @Option(help: ArgumentHelp(
        "Where the fault generator starts (default 0); the same seed repeats the same faults.",
        valueName: "n"))
    var seed: UInt64?

    @Flag(inversion: .prefixedNo, help: "Whether playlists get faults too (they do by default).")
    var faultsOnPlaylists = true

    @OptionGroup var connections: ConnectionLimitOptions

    func validate() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("\(folder) is not a folder")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        if let profile, LinkProfile.preset(named: profile) == nil {
            let names = LinkProfile.presets.map(\.name).joined(separator: ", ")
            throw ValidationError("--profile must be one of \(names) (got \(profile))")
        }
        if let latency, latency < 0 {
            throw ValidationError("--latency must be a number of milliseconds, 0 or more (got \(latency))")
        }
        if let bandwidth, bandwidth < 0 || bandwidth > Int.max / 125 {
            throw ValidationError("--bandwidth must be in kilobits per second, 0 for no cap (got \(bandwidth))")
        }
        if let retryAfter, retryAfter < 0 {
            throw ValidationError("--retry-after must be a number of seconds, 0 or more (got \(retryAfter))")
        }
        for (flag, rate) in [("--fail-rate", failRate), ("--reset-rate", resetRate), ("--truncate-rate", truncateRate)] {
            if let rate, !(0...1).contains(rate) {
                throw ValidationError("\(flag) must be a fraction from 0 to 1, e.g. 0.05 for 5 % (got \(rate))")
            }
        }
        let effective = linkProfile
        let total = effective.failRate + effective.resetRate + effective.truncateRate
        if total > 1 + 1e-9 {
            throw ValidationError(
                "--fail-rate, --reset-rate and --truncate-rate add up to \(String(format: "%g", total)), more than 1: a request gets at most one fault")
        }
        do {
            try effective.validate()
        } catch {
            throw ValidationError("the link profile cannot be used: \(error)")
        }
    }

    /// The profile named by --profile (or a perfect link), with the explicit flags over it.
    var linkProfile: LinkProfile {
        var result = profile.flatMap(LinkProfile.preset(named:)) ?? .perfect
        if let latency { result.latency = .milliseconds(latency) }
        if let bandwidth { result.bandwidth = bandwidth == 0 ? nil : max(1, bandwidth * 125) }
        if let failRate { result.failRate = failRate }
        if let retryAfter { result.retryAfterSeconds = retryAfter }
        if let resetRate { result.resetRate = resetRate }
        if let truncateRate { result.truncateRate = truncateRate }
        if let seed { result.seed = seed }
        result.faultsOnPlaylists = faultsOnPlaylists
        return result
    }

    /// What `origin --json` prints once it listens.
    struct Listening: Encodable {
        var event = "listening"
        var url: String
        var folder: String
        var profile: LinkProfile
    }

    func run() async throws {
        do {
            let json = self.json
            let folder = self.folder
            var server = Origin(root: folder, host: host, port: port, profile: linkProfile)
            server.limits = connections.limits
            try await server.run { origin in
                if json {
                    try? printJSONLine(Listening(url: origin.baseURL, folder: folder, profile: origin.profile))
                } else {
                    print(origin.baseURL)
                    print("link: \(origin.profile)")
                }
                fflush(nil)
            }
        } catch {
            throw fail("the origin stopped: \(oneLine(String(describing: error)))", hint: "Check that the port is free and the address is this machine's (--port 0 picks a free port).")
        }
    }
}
