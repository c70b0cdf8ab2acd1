import ArgumentParser
import Carryon

/// `carryon suspend`: pause a download wherever it runs.
struct Suspend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suspend",
        abstract: "Pause a download, wherever it runs: this machine's daemon, another terminal's download, a worker on another host.",
        discussion: """
            The process running the download is asked through the library's index and stops it \
            within a second, keeping what is on disk; a queued download leaves its queue. \
            Prints the state the asset ended in. `carryon resume ID` continues it, from any \
            process.

            Example:
              carryon suspend 7k2m9x4q1b
            """
    )

    @OptionGroup var target: SteeredAsset

    func run() async throws {
        try await target.steer { (task: DownloadTask) async throws(CarryonError) in try await task.suspend() }
    }
}

/// `carryon cancel`: stop a download and remove its data.
struct Cancel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Stop a download and remove what it downloaded (the asset stays listed as cancelled).",
        discussion: """
            A download another process runs (the daemon, another terminal) is stopped by that \
            process, asked through the library's index. Prints the state the asset ended in.

            Example:
              carryon cancel 7k2m9x4q1b
            """
    )

    @OptionGroup var target: SteeredAsset

    func run() async throws {
        try await target.steer { (task: DownloadTask) async throws(CarryonError) in try await task.cancel() }
    }
}

/// The asset `suspend` and `cancel` steer, and how they report it.
struct SteeredAsset: ParsableArguments {
    @Argument(help: "The asset's id.")
    var id: String

    @Flag(help: "Print the asset as JSON afterwards.")
    var json = false

    @OptionGroup var library: LibraryOptions

    /// Applies `request` to the asset, wherever it runs, and prints the state it ended in.
    func steer(_ request: @escaping (DownloadTask) async throws(CarryonError) -> DownloadState) async throws {
        try await library.withSession(existing: true) { session in
            do {
                let task = try await session.task(id: id)
                let state = try await request(task)
                if json { try printJSON(try await task.snapshot()) } else { print("\(task.id) \(state.rawValue)") }
            } catch let error as CarryonError {
                throw fail(error, id: id)
            }
        }
    }
}
