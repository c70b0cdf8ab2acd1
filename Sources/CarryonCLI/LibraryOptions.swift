import ArgumentParser
import Carryon
import Foundation

/// `--library DIR`, shared by every command that works on a library.
struct LibraryOptions: ParsableArguments {
    @Option(name: .customLong("library"), help: ArgumentHelp(
        "The library folder (default $CARRYON_HOME, else $XDG_DATA_HOME/carryon, else ~/.local/share/carryon).",
        valueName: "dir"))
    var path: String?

    @Option(name: .customLong("index"), help: ArgumentHelp(
        "Where the library's index is: sqlite (index.sqlite in the library folder, the default), or a PostgreSQL URL that a fleet's machines share, postgres://user:password@host:5432/database?sslmode=require (default $CARRYON_INDEX). The password is never printed.",
        valueName: "url"))
    var index: String?

    /// The index `--index` names, else `CARRYON_INDEX`, else SQLite.
    func indexLocation() throws(CarryonError) -> IndexLocation {
        if let index { return try IndexLocation(parsing: index) }
        return try IndexLocation.fromEnvironment()
    }

    /// Opens the library, made where it is not yet. With `existing` (a command that reads it
    /// or works on assets it must already hold: list, show, logs, verify, keys list, workers;
    /// resume ID, suspend, cancel, delete, add, play, policy, keys renew, fetch and invalidate), a
    /// folder named by `--library` or
    /// `CARRYON_HOME` that does not exist is refused, not made, when the index is in it
    /// (SQLite): a typo'd path would otherwise become a new, empty library ("The library is
    /// empty") beside the real one. A PostgreSQL index is read as it is, from a machine that
    /// may not mount the fleet's folder (whose bundles the library then says it does not see,
    /// and keeps no figure of). The default location is made as ever: a fresh
    /// machine's library is empty.
    func open(existing: Bool = false) throws -> OfflineLibrary {
        let root = path.map { URL(fileURLWithPath: $0) } ?? OfflineLibrary.defaultRoot()
        let named = path ?? ProcessInfo.processInfo.environment["CARRYON_HOME"].flatMap { $0.isEmpty ? nil : $0 }
        var isFolder: ObjCBool = false
        let inFolder = (try? indexLocation()) == .sqlite
        if existing, inFolder, let named, !(FileManager.default.fileExists(atPath: root.path, isDirectory: &isFolder) && isFolder.boolValue) {
            let option = path != nil ? "--library" : "CARRYON_HOME"
            throw fail("no library at \(named): there is no such folder", hint: "Check \(option) for a typo; `carryon download URL --library \(named)` makes a library there.")
        }
        do {
            return try OfflineLibrary(root: root, index: indexLocation())
        } catch {
            throw fail(error)
        }
    }

    /// Opens the library and a session over it, runs `body`, and shuts the session down
    /// (``withDownloadSession(library:configuration:logger:_:)``). A session that cannot be
    /// opened fails with its hint; `body`'s own errors pass as they are. With `existing`, a
    /// library folder that is not there is refused (see ``open(existing:)``).
    func withSession<T: Sendable>(configuration: DownloadSession.Configuration = .init(), existing: Bool = false,
                                  _ body: (DownloadSession) async throws -> T) async throws -> T {
        let library = try open(existing: existing)
        do {
            return try await withDownloadSession(library: library, configuration: configuration) { session in
                do { return try await body(session) } catch { throw BodyError(error: error) }
            }
        } catch let error as BodyError {
            throw error.error
        } catch {
            throw fail(error)
        }
    }
}

/// An error of a session's body, told apart from the session's own.
private struct BodyError: Error {
    var error: any Error
}

/// Prints a value as pretty JSON on stdout.
func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

/// Prints a value as one line of JSON on stdout, flushed (for event streams).
func printJSONLine<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
    fflush(nil)
}

/// Bytes done of bytes expected, as the progress lines show them: "12.0 MB of ~56.1 MB"; once
/// a resource has passed its estimate, "56.1 MB, size unknown (44.0 MB in a resource past its
/// estimate)", since a size the bytes have left behind is no size to show a share of.
func formatProgressBytes(_ progress: DownloadProgress) -> String {
    if let past = progress.bytesPastEstimate {
        return "\(formatBytes(progress.bytesDone)), size unknown (\(formatBytes(past)) in resources past their estimate)"
    }
    return "\(formatBytes(progress.bytesDone)) of \(progress.isExact ? "" : "~")\(formatBytes(progress.bytesExpected))"
}
