import ArgumentParser
import Carryon
import Foundation

struct Catalog: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "List the streams of a catalog (Apple's Streams.plist, or JSON) with their offline state.",
        discussion: """
            A catalog is an array of entries with `name` and `playlist_url` — the file Apple's \
            sample app reads — and optionally `headers` (request headers for that stream). Each \
            stream is matched to the library's latest asset with its URL: not downloaded, \
            downloading with its progress, suspended or failed, or downloaded with its size and \
            whether it plays offline.

            Examples:
              carryon catalog Streams.plist
              carryon download --catalog Streams.plist "Advanced Stream"
            """
    )

    @Argument(help: "The catalog file.")
    var file: String

    @Flag(help: "Print one JSON array.")
    var json = false

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        let catalog: StreamCatalog
        do { catalog = try StreamCatalog(contentsOf: URL(fileURLWithPath: file)) } catch { throw fail(error) }
        try await library.withSession { session in
            let assets: [AssetSnapshot]
            do { assets = try await session.latestSnapshots(of: catalog.entries.map(\.playlistURL)) } catch { throw fail(error) }
            let rows = catalog.offlineStates(given: assets)
            if json { try printJSON(rows); return }
            var table = TextTable(["NAME", "STATE", "OFFLINE", "ID", "URL"])
            for row in rows {
                table.add([row.name, Self.summary(of: row), row.playableOffline ? "playable" : "-", row.id ?? "-", row.url])
            }
            print(rows.isEmpty ? "The catalog is empty." : table.render(indent: 0))
        }
    }

    /// The STATE column: what the sample app would say.
    static func summary(of row: StreamCatalog.OfflineState) -> String {
        let percent = "\(Int((row.fraction ?? 0) * 100))%"
        return switch row.state {
        case "completed": "downloaded \(formatBytes(row.bytesOnDisk ?? 0))"
        case "running", "waiting": "downloading \(percent)"
        case "suspended": "suspended at \(percent)"
        case "failed": "failed at \(percent)"
        default: "not downloaded"
        }
    }
}
