import ArgumentParser
import Carryon

/// `--lease SECONDS` and `--no-owner-check`, for the commands that run downloads: download,
/// resume, serve. See README's "Who owns a download".
struct OwnershipOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Seconds a claim on a running download holds without renewal (renewed every third of it); another process may take over a download whose owner stopped renewing for that long.",
        valueName: "seconds"))
    var lease: Double = 30

    @Flag(help: "Tell a dead owner by its lease alone, as for owners on other hosts, not at once by its process id on this host.")
    var noOwnerCheck = false

    func validate() throws {
        // Renewed every third of it by a loop that runs twice a second: 2 s leaves room.
        guard lease >= 2, lease <= 3600 else { throw ValidationError("--lease must be between 2 and 3600 seconds") }
    }

    /// The session configuration with these settings.
    func configure(_ configuration: inout DownloadSession.Configuration) {
        configuration.lease = .milliseconds(Int64(lease * 1000))
        configuration.checksOwnerProcesses = !noOwnerCheck
    }
}
