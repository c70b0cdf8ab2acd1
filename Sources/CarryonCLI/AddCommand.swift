import ArgumentParser
import Carryon
import Foundation

/// `carryon add`: download more media selections into an existing bundle.
struct Add: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Download more audio languages, subtitles or a better variant into an asset's bundle, fetching only what is missing.",
        discussion: """
            The stream's playlists are read again and what is asked for is added to the \
            bundle; what is already there is kept, only the new renditions' segments are \
            fetched, and the local playlists offer them from then on. Output as for `download`.

            With --min-bitrate, --max-bitrate, --min-resolution or --max-resolution, the variant \
            those bounds choose (as for `download`) is added as well: a better variant for a \
            bundle first downloaded small. The local multivariant playlist then offers both.

            With --start, --duration or --end, a download of part of the stream grows to the \
            smallest part that holds both: only the segments it adds are fetched.

            Examples:
              carryon add 7k2m9x4q1b --audio de
              carryon add 7k2m9x4q1b --subtitles all
              carryon add 7k2m9x4q1b --min-resolution 1280x720
              carryon add 7k2m9x4q1b --start 0 --end 30:00
            """
    )

    @Argument(help: "The asset's id (a unique prefix is enough).")
    var id: String

    @Option(help: ArgumentHelp("Audio renditions to add: languages or names (de,fr), or all.", valueName: "langs|all"))
    var audio: String?

    @Option(help: ArgumentHelp("Subtitle renditions to add: languages or names, or all.", valueName: "langs|all"))
    var subtitles: String?

    @OptionGroup var variant: VariantBounds

    @OptionGroup var part: TimeRangeOptions

    @Flag(help: "Print one JSON event per line instead of a progress bar.")
    var json = false

    @OptionGroup var heldKeys: HeldKeyOptions

    @OptionGroup var library: LibraryOptions

    @OptionGroup var transfer: TransferOptions

    @OptionGroup var rate: RateLimitOptions

    @OptionGroup var refresh: RefreshOptions

    func validate() throws {
        guard audio != nil || subtitles != nil || !variant.isEmpty || !part.isEmpty else {
            throw ValidationError("say what to add: --audio, --subtitles, a variant (--min-bitrate, --min-resolution, …) or a wider part (--start, --end)")
        }
        for (flag, value) in [("--audio", audio), ("--subtitles", subtitles)] {
            if let value, ["none", "auto", "automatic", "default"].contains(value.lowercased()) {
                throw ValidationError("\(flag) takes languages, names or all here (got \(value))")
            }
        }
    }

    func run() async throws {
        var configuration = DownloadSession.Configuration()
        transfer.configure(&configuration)
        configuration.maximumBytesPerSecond = rate.bytesPerSecond
        refresh.configure(&configuration)
        let session = try await openSession(try library.open(existing: true), configuration)
        let task: DownloadTask
        do {
            let held = try heldKeys.heldKeys()
            task = try await session.task(id: id)
            try await heldKeys.apply(held, to: session, for: task.id)
            let added = try await session.addMediaSelections(
                task.id, audio: audio.map(DownloadOptions.RenditionChoice.init(parsing:)) ?? .none,
                subtitles: subtitles.map(DownloadOptions.RenditionChoice.init(parsing:)) ?? .none,
                variant: variant.isEmpty ? nil : variant.options, timeRange: try part.timeRange())
            if !json {
                if !added.isEmpty { printNote("adding \(added.joined(separator: ", ")) to \(task.id)") }
                if let range = try await task.snapshot().timeRange, !part.isEmpty { printNote("\(task.id) now holds \(range) of the stream") }
            }
        } catch {
            await session.shutdown()
            throw fail(error, id: id)
        }
        try await TaskRunner(session: session, json: json).run([task])
    }
}
