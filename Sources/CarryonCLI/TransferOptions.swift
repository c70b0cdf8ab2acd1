import ArgumentParser
import Foundation
import Carryon

/// `--stall-timeout SECONDS` and the network's options (``NetworkOptions``), for the commands
/// that fetch: download, resume, add, inspect.
struct TransferOptions: ParsableArguments {
    @OptionGroup var network: NetworkOptions

    @Option(help: ArgumentHelp(
        "Seconds a request may receive nothing, or less than 1 KB/s on average, before it is tried again; when every try stalls a download is suspended (resume continues) and inspect fails.",
        valueName: "seconds"))
    var stallTimeout: Double = 30

    func validate() throws {
        guard stallTimeout >= 0.5, stallTimeout <= 3600 else {
            throw ValidationError("--stall-timeout must be between 0.5 and 3600 seconds")
        }
    }

    var stallDuration: Duration { .milliseconds(Int64(stallTimeout * 1000)) }

    /// The session configuration with these settings.
    func configure(_ configuration: inout DownloadSession.Configuration) {
        configuration.stallTimeout = stallDuration
        network.configure(&configuration)
    }
}

/// `--limit-rate RATE`, for the commands that download: download (kept with the asset), resume,
/// add, serve and play (for this process's tasks).
struct RateLimitOptions: ParsableArguments {
    @Option(name: .customLong("limit-rate"), help: ArgumentHelp(
        "The most bytes a second each download takes, over all its connections, as curl reads it: 500K, 2M, 1.5M (K = 1024 bytes).",
        valueName: "rate"))
    var limitRate: String?

    func validate() throws {
        if let limitRate, Self.bytesPerSecond(limitRate) == nil {
            throw ValidationError("--limit-rate must be a number of bytes a second, with K, M or G after it if you like (500K, 2M), not \(limitRate)")
        }
    }

    /// The limit in bytes a second, if one was given.
    var bytesPerSecond: Int? { limitRate.flatMap(Self.bytesPerSecond) }

    /// `2M` → 2097152: a positive number, optionally with a binary K, M or G (curl's reading).
    static func bytesPerSecond(_ text: String) -> Int? {
        var number = text.trimmingCharacters(in: .whitespaces)
        var factor = 1.0
        if let unit = number.last?.uppercased(), let power = ["K": 1.0, "M": 2.0, "G": 3.0][unit] {
            factor = pow(1024, power)
            number.removeLast()
        }
        guard let value = Double(number), value.isFinite, value > 0, value * factor >= 1, value * factor < 1e15 else { return nil }
        return Int(value * factor)
    }
}

extension RateLimitOptions {
    /// A session configuration with this limit for every task.
    var configuration: DownloadSession.Configuration {
        var configuration = DownloadSession.Configuration()
        configuration.maximumBytesPerSecond = bytesPerSecond
        return configuration
    }
}

/// `--refresh-command CMD`, for the commands that download: a command whose output is a fresh
/// manifest URL, for when the stored one has expired.
struct RefreshOptions: ParsableArguments {
    @Option(name: .customLong("refresh-command"), help: ArgumentHelp(
        "A shell command that prints a fresh manifest URL, run when the stored one no longer answers (a signed URL expired); it gets CARRYON_ASSET_ID and CARRYON_URL.",
        valueName: "command"))
    var refreshCommand: String?

    /// Sets the command as the configuration's manifest URL provider, when one was given.
    func configure(_ configuration: inout DownloadSession.Configuration) {
        if let refreshCommand { configuration.manifestURLProvider = CommandManifestURLProvider(command: refreshCommand) }
    }
}

/// Runs `--refresh-command` with `/bin/sh -c`: the first line it prints is the fresh URL.
struct CommandManifestURLProvider: ManifestURLProvider {
    let command: String

    func freshManifestURL(assetID: String, storedURL: String) async throws -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.environment = ProcessInfo.processInfo.environment.merging(["CARRYON_ASSET_ID": assetID, "CARRYON_URL": storedURL]) { $1 }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let (printed, complaint) = await withCheckedContinuation { (continuation: CheckedContinuation<(Data, Data), Never>) in
            Thread.detachNewThread {
                // readDataToEndOfFile() traps on a read error; a failed read here is no output,
                // which the checks below report.
                let printed = (try? output.fileHandleForReading.readToEnd()) ?? Data()
                let complaint = (try? errors.fileHandleForReading.readToEnd()) ?? Data()
                process.waitUntilExit()
                continuation.resume(returning: (printed, complaint))
            }
        }
        guard process.terminationStatus == 0 else {
            throw CarryonError(.expired, "--refresh-command \(command) exited \(process.terminationStatus): \(String(decoding: complaint, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        let url = String(decoding: printed, as: UTF8.self).split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) }
        guard let url, !url.isEmpty else {
            throw CarryonError(.expired, "--refresh-command \(command) printed no URL")
        }
        return url
    }
}
