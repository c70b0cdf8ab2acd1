import ArgumentParser
import Carryon

/// `--stall-timeout SECONDS`, for the commands that fetch: download, resume, add, inspect.
struct TransferOptions: ParsableArguments {
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
    }
}
