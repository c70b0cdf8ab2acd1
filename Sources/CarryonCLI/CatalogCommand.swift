import ArgumentParser
import Carryon
import Foundation

struct Catalog: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
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

    /// One stream of `catalog --json`; `summary` is the human column only.
    struct Row: Encodable {
        var name: String
        var url: String
        /// `not-downloaded`, or the asset's ``DownloadState`` (`waiting`, `running`, …).
        var state: String
        var id: String?
        var fraction: Double?
        var bytesOnDisk: Int?
        var playableOffline: Bool
        var summary = "not downloaded"

        enum CodingKeys: String, CodingKey {
            case name, url, state, id, fraction, bytesOnDisk, playableOffline
        }
    }

    func run() async throws {
        let catalog: StreamCatalog
        do { catalog = try StreamCatalog(contentsOf: URL(fileURLWithPath: file)) } catch { throw fail(error) }
        try await library.withSession { session in
            var latest: [String: AssetSnapshot] = [:]
            do {
                for task in try await session.tasks() {
                    let snapshot = try await task.snapshot()
                    latest[snapshot.url] = snapshot   // tasks() is oldest first: the latest wins
                }
            } catch {
                throw fail(error)
            }
            let rows = catalog.entries.map { entry -> Row in
                guard let asset = latest[entry.playlistURL] else {
                    return Row(name: entry.name, url: entry.playlistURL, state: "not-downloaded", playableOffline: false)
                }
                let percent = "\(Int(asset.progress.fraction * 100))%"
                let summary = switch asset.state {
                case .completed: "downloaded \(formatBytes(asset.bytesOnDisk))"
                case .running, .waiting: "downloading \(percent)"
                case .suspended: "suspended at \(percent)"
                case .failed: "failed at \(percent)"
                case .cancelled: "not downloaded"
                }
                return Row(name: entry.name, url: entry.playlistURL, state: asset.state.rawValue, id: asset.id, fraction: asset.progress.fraction,
                           bytesOnDisk: asset.bytesOnDisk, playableOffline: asset.cache.isPlayableOffline, summary: summary)
            }
            if json { try printJSON(rows); return }
            var table = TextTable(["NAME", "STATE", "OFFLINE", "ID", "URL"])
            for row in rows {
                table.add([row.name, row.summary, row.playableOffline ? "playable" : "-", row.id ?? "-", row.url])
            }
            print(rows.isEmpty ? "The catalog is empty." : table.render(indent: 0))
        }
    }
}
