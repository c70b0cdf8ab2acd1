import ArgumentParser
import Carryon
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether output goes to a person at a terminal, and so may carry colour and redrawn progress.
///
/// Colour follows the common convention (no-color.org): only on a terminal, never when
/// `NO_COLOR` is set to anything but the empty string or `TERM` is `dumb`. Piped output is plain.
enum Terminal {
    /// Whether stdout gets colour.
    static let colorsStandardOutput = wantsColor(isTerminal: isatty(STDOUT_FILENO) == 1, environment: ProcessInfo.processInfo.environment)
    /// Whether stderr gets colour.
    static let colorsStandardError = wantsColor(isTerminal: isatty(STDERR_FILENO) == 1, environment: ProcessInfo.processInfo.environment)

    static func wantsColor(isTerminal: Bool, environment: [String: String]) -> Bool {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        if environment["TERM"] == "dumb" { return false }
        return isTerminal
    }

    /// SGR styles the commands use.
    enum Style: String {
        case bold = "1"
        case dim = "2"
        case red = "31"
        case green = "32"
        case yellow = "33"
        case cyan = "36"
    }

    /// `text` in `style` when the stream it is for gets colour, else `text` unchanged.
    static func paint(_ text: String, _ style: Style, forStandardError: Bool = false) -> String {
        guard forStandardError ? colorsStandardError : colorsStandardOutput, !text.isEmpty else { return text }
        return "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m"
    }

    /// A download state's name, coloured by what it means: green done, red failed, yellow
    /// stopped, cyan at work.
    static func paint(_ state: DownloadState) -> String {
        switch state {
        case .completed: paint(state.rawValue, .green)
        case .failed, .cancelled: paint(state.rawValue, .red)
        case .suspended: paint(state.rawValue, .yellow)
        default: paint(state.rawValue, .cyan)
        }
    }

    /// How many columns `text` takes: its characters less any colour sequences.
    static func visibleWidth(_ text: String) -> Int {
        TextTable.visibleWidth(text)
    }
}

/// Reports a failure the way every command does and returns exit status 1 to throw:
/// `carryon: <what went wrong>` and `  hint: <what to do>` on stderr, one line each.
func fail(_ message: String, hint: String) -> ExitCode {
    printError(message, hint: hint)
    return ExitCode.failure
}

/// Reports `error` with the hint its kind calls for (see ``hint(for:id:)``), and returns exit
/// status 1 to throw. `id` is the asset the command worked on, when it had one.
func fail(_ error: any Error, id: String? = nil) -> ExitCode {
    fail(oneLine(String(describing: error)), hint: hint(for: error, id: id))
}

/// Prints `carryon: <message>` on stderr and, when given, `  hint: <hint>` under it.
func printError(_ message: String, hint: String? = nil) {
    var standardError = FileHandle.standardError
    print("\(Terminal.paint("carryon:", .red, forStandardError: true)) \(oneLine(message))", to: &standardError)
    if let hint {
        print("  \(Terminal.paint("hint:", .dim, forStandardError: true)) \(hint)", to: &standardError)
    }
}

/// Prints `carryon: warning: <message>` on stderr.
func printWarning(_ message: String) {
    var standardError = FileHandle.standardError
    print("\(Terminal.paint("carryon: warning:", .red, forStandardError: true)) \(oneLine(message))", to: &standardError)
}

/// What a person can do about `error`, in one line that names the command to run.
func hint(for error: any Error, id: String? = nil) -> String {
    let asset = id ?? "ID"
    guard let error = error as? CarryonError else {
        return "`carryon help` lists the commands and their options."
    }
    if error.message.contains("the library index postgres://") {
        // The PostgreSQL index (a fleet's), not the folder nor an origin.
        return "Check --index or CARRYON_INDEX: the host and port, the database, the user and password, and sslmode (with sslrootcert=FILE for the server's own authority); Documentation/Fleet.md says how."
    }
    switch error.code {
    case .invalidLocation:
        return "Give an http(s) URL or the path of a local .m3u8 playlist."
    case .http:
        return "Check the URL, the network and the server"
            + (id.map { "; once it answers, `carryon resume \($0)` continues the download." } ?? ".")
    case .certificate:
        return "If you trust the server's certificate authority, pass its PEM certificate with --cacert FILE (or SSL_CERT_FILE); an expired certificate or one for another name is for the server to fix."
    case .file:
        return "Check that the file exists and that you may read it (a catalog: a Streams.plist, or a JSON array of {name, playlist_url})."
    case .tooLarge:
        return "A playlist past the limit is usually not a playlist: check that the URL names an HLS playlist (.m3u8). A segment far past its variant's bandwidth is the origin's fault."
    case .library:
        return "Check that the library folder (--library, $CARRYON_HOME) exists and that you may write to it; `carryon list` names any asset whose stored values cannot be read."
    case .unknownAsset:
        return "`carryon list` shows the ids in this library (--library picks another)."
    case .unsupported:
        return "Carryon downloads video-on-demand HLS whose resources are http(s); `carryon inspect URL` shows what this stream is."
    case .transfer:
        return "`carryon resume \(asset)` continues where it stopped; `carryon logs \(asset) --error` shows the failed requests."
    case .disk:
        return "Free disk space (`carryon purge` removes expired assets), then `carryon resume \(asset)` continues where it stopped."
    case .invalidValue:
        return "Dates are 2026-12-31, 2026-12-31T18:00:00Z or a time from now (30d), at the latest 9999-12-31; bitrates and resolutions are positive and a minimum is at most its maximum; `carryon help COMMAND` shows what each option takes."
    case .invalidState:
        return "`carryon show \(asset)` shows the asset's state."
    case .busy:
        return "Another carryon process (a download, resume or serve, on this host or another) runs or has queued \(asset), as the message says: `carryon show \(asset)` shows its progress, `carryon suspend \(asset)` stops it there."
    case .cancelled:
        return "`carryon show \(asset)` shows its state; a suspended download continues with `carryon resume \(asset)`."
    case .notFound:
        return "`carryon show \(asset)` lists what the bundle holds; `carryon resume \(asset)` fetches what is not downloaded yet, `carryon add \(asset)` more renditions."
    case .storage:
        return "`carryon storage` shows the rules and the space used, `carryon list` what each asset takes; `carryon purge`, `carryon storage --quota SIZE`, `--keep-free SIZE` or `--purge-on-download` makes room"
            + (id.map { ", then `carryon resume \($0)` continues where it stopped." } ?? ".")
    case .keys:
        return "`carryon keys list \(asset)` shows the keys' state; `carryon keys fetch \(asset)` obtains missing ones, `carryon keys renew \(asset)` all of them again; a key you hold goes with --key KID:KEY (or --keys-file FILE)."
    case .keySystem:
        return "If you hold the stream's keys, pass each with --key KID:KEY (or --keys-file FILE, one KID:KEY a line); a Clear Key licence server goes with --license-url URL; an app embedding Carryon registers a ContentKeyProvider for the key system."
    case .selection:
        return "`carryon inspect URL` lists the variants and renditions the stream offers."
    case .stalled:
        return id.map { "The server stopped sending; what arrived is kept. `carryon resume \($0)` continues once it answers again (--stall-timeout waits longer)." }
            ?? "The server stopped sending: try again later, or give it longer with --stall-timeout."
    case .refusedLocation:
        return "A stream fetched over HTTP may lead only to http(s) resources; nothing was read from the refused one. A stream saved on disk may name local files."
    case .playlist:
        return "The playlist breaks the HLS specification at the line named: its publisher must fix it."
    default:
        return "`carryon help` lists the commands and their options."
    }
}

/// `text` on one line: line breaks become "; ".
func oneLine(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "; ")
}

/// Prints `carryon: <message>` on stderr: what the command is doing, for people (stdout stays
/// for results and scripts).
func printNote(_ message: String) {
    var standardError = FileHandle.standardError
    print("carryon: \(message)", to: &standardError)
}
