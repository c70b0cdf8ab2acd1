import ArgumentParser
import Carryon
import Foundation

/// `carryon`: offline HLS for Linux.
@main
struct CarryonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "carryon",
        abstract: "Download HLS streams into offline bundles and play them back offline.",
        discussion: """
            Exit status: 0 on success, 1 when the work failed (the reason is on stderr), \
            64 for a usage error.
            """,
        version: "0.1.0",
        subcommands: [Inspect.self, OriginCommand.self]
    )
}

/// Prints an error the way every command does — `carryon: <what went wrong>` on stderr — and
/// exits with status 1.
func fail(_ message: String) -> ExitCode {
    var standardError = FileHandle.standardError
    print("carryon: \(message)", to: &standardError)
    return ExitCode.failure
}

extension FileHandle: @retroactive TextOutputStream {
    public func write(_ string: String) {
        write(Data(string.utf8))
    }
}
