import ArgumentParser
import Carryon
import Foundation
import CCarryonSystem

/// `carryon`: offline HLS for Linux.
@main
struct CarryonCommand: AsyncParsableCommand {
    /// Runs the command, mapping the exit statuses commands signal with ``ExitCodeError``.
    static func main() async {
        // glibc gives every thread that meets a locked arena a new one, up to 8 per core, and
        // keeps what each has held: on a long download, half of the peak memory was arenas'
        // free space, and a second arena still held about 10 MiB at 180 minutes
        // (Benchmarks/README.md). One arena costs no measurable speed here: each thread's
        // tcache serves most allocations without the arena's lock.
        _ = carryon_limit_malloc_arenas(1)
        if let message = CommandSuggestion.unknownCommand(in: Array(CommandLine.arguments.dropFirst()), root: self) {
            FileHandle.standardError.write(Data((hidingKeys(in: message) + "\n").utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch ExitCodeError.failure {
            Foundation.exit(1)
        } catch ExitCodeError.interrupted(let signal) {
            Foundation.exit(128 + signal)
        } catch {
            // A usage error quotes what it could not place: `--key KID KEY` (a space for the
            // colon) would print the key. Whatever could be a key is hidden.
            let message = fullMessage(for: error)
            let hidden = hidingKeys(in: message)
            guard hidden != message else { exit(withError: error) }
            FileHandle.standardError.write(Data((hidden + "\n").utf8))
            Foundation.exit(exitCode(for: error).rawValue)
        }
    }

    /// `message` with whatever of the command line could be a key (``possibleKeys(in:)``)
    /// written `<hidden>`.
    static func hidingKeys(in message: String) -> String {
        possibleKeys(in: CommandLine.arguments).filter { message.contains($0) }.reduce(message) { $0.replacingOccurrences(of: $1, with: "<hidden>") }
    }

    /// The arguments that may hold a content key: the two after `--key` (unless a location or an
    /// option), a `--key=` value, and
    /// any argument written as a key is (32 hexadecimal digits or more, with nothing but dashes,
    /// colons and `0x` besides) — not a path or URL that has a UUID in it.
    static func possibleKeys(in arguments: [String]) -> [String] {
        var found: [String] = []
        for (index, argument) in arguments.enumerated() {
            if argument == "--key" {
                // Not a location or an option, which may follow a key.
                found += arguments.dropFirst(index + 1).prefix(2).filter { !$0.contains("/") && !$0.hasPrefix("-") }
            } else if argument.hasPrefix("--key=") {
                found.append(String(argument.dropFirst(6)))
            } else if looksLikeKey(argument) {
                found.append(argument)
            }
        }
        return found.filter { !$0.isEmpty }
    }

    private static func looksLikeKey(_ argument: String) -> Bool {
        let digits = argument.replacingOccurrences(of: "0x", with: "").replacingOccurrences(of: "0X", with: "")
        return digits.allSatisfy { $0.isHexDigit || $0 == "-" || $0 == ":" } && digits.filter(\.isHexDigit).count >= 32
    }

    static let configuration = CommandConfiguration(
        commandName: "carryon",
        abstract: "Download HLS and MPEG-DASH streams into offline bundles and play them back offline.",
        discussion: """
            Start with `carryon demo`: it downloads the built-in sample from an origin on \
            loopback, plays it back offline, and says where everything is.

            Examples:
              carryon demo
              carryon inspect https://cdn.example/show/main.m3u8
              carryon download https://cdn.example/show/main.m3u8 --audio en,de --max-resolution 1280x720
              carryon download https://cdn.example/show/manifest.mpd --audio all
              carryon list
              carryon play 7k2m9x4q1b

            Output: results on stdout, progress and notes on stderr; every command takes --json \
            for scripts (shapes in README.md). Colour and progress bars only on a terminal; \
            NO_COLOR (set and not empty) or TERM=dumb turns colour off.

            Errors: one line saying what went wrong, then a hint line saying what to do.
            Exit status: 0 on success, 1 when the work failed, 64 for a usage error, 130 when \
            interrupted, 143 on SIGTERM (a download is suspended, not lost).

            Shell completions: carryon --generate-completion-script bash|zsh|fish \
            (README.md says where to put them).
            """,
        version: "0.1.0",
        subcommands: [Demo.self, Catalog.self, Inspect.self, Download.self, Enqueue.self, Worker.self, Workers.self, ListCommand.self, Show.self, Resume.self, Verify.self, Suspend.self, Cancel.self, Delete.self, Add.self, Serve.self, Play.self, Policy.self, Storage.self, Purge.self, Logs.self, Keys.self, OriginCommand.self]
    )
}

extension FileHandle: @retroactive TextOutputStream {
    public func write(_ string: String) {
        write(Data(string.utf8))
    }
}
