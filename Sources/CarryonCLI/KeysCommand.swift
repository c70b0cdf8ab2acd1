import ArgumentParser
import Carryon
import Foundation

/// `--key-expires`, `--rental-window`, `--playback-window`: a content key's lifetime, shared by
/// `download` and `keys renew`.
struct KeyLifetimeOptions: ParsableArguments {
    @Option(name: .customLong("key-expires"), help: ArgumentHelp(
        "When the content keys expire: a date (2026-12-31, 2026-12-31T18:00:00Z) or a time from now (30d).", valueName: "date"))
    var keyExpires: String?

    @Option(name: .customLong("rental-window"), help: ArgumentHelp(
        "How long after the download playback may begin (30d, 72h).", valueName: "duration"))
    var rentalWindow: String?

    @Option(name: .customLong("playback-window"), help: ArgumentHelp(
        "How long the keys play from the first playback (48h).", valueName: "duration"))
    var playbackWindow: String?

    var isEmpty: Bool { keyExpires == nil && rentalWindow == nil && playbackWindow == nil }

    func validate() throws {
        if let keyExpires {
            do { _ = try DateText.expiry(keyExpires, naming: "--key-expires") } catch { throw ValidationError(error.message) }
        }
        for (flag, value) in [("--rental-window", rentalWindow), ("--playback-window", playbackWindow)] {
            if let value, parseDuration(value) == nil {
                throw ValidationError("\(flag) must be a duration like 30d, 48h or 90m (got \(value))")
            }
        }
        do { try lifetime.check() } catch { throw ValidationError(error.message) }
    }

    var lifetime: KeyLifetime {
        KeyLifetime(expiresAt: keyExpires.flatMap { try? DateText.expiry($0, naming: "--key-expires") } ?? nil,
                    rentalWindow: rentalWindow.flatMap(parseDuration), playbackWindow: playbackWindow.flatMap(parseDuration))
    }
}

/// Reads `30d`, `48h`, `90m` or `45s` as seconds.
func parseDuration(_ text: String) -> TimeInterval? {
    guard let last = text.last, let amount = Double(text.dropLast()), amount.isFinite, amount > 0 else { return nil }
    switch last {
    case "d": return amount * 86_400
    case "h": return amount * 3_600
    case "m": return amount * 60
    case "s": return amount
    default: return nil
    }
}

struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "List, renew or invalidate the content keys of encrypted assets.",
        discussion: """
            Keys are fetched before any media and kept sealed (AES-GCM) under the library's \
            master key (master.key, mode 0600, or CARRYON_MASTER_KEY, or the file \
            CARRYON_MASTER_KEY_FILE names); no key is ever printed.

            Examples:
              carryon keys list
              carryon keys renew 7k2m9x4q1b --playback-window 48h
              carryon keys invalidate 7k2m9x4q1b
            """,
        subcommands: [KeysList.self, KeysPrefetch.self, KeysFetch.self, KeysRenew.self, KeysInvalidate.self]
    )
}

struct KeysList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List content keys: ids, methods, key formats, lifetimes and state — never the keys.",
        discussion: """
            Examples:
              carryon keys list
              carryon keys list 7k2m9x4q1b --json
            """
    )

    @Argument(help: "An asset's id (a unique prefix is enough); every asset's keys when omitted.")
    var id: String?

    @Flag(help: "Print one JSON array.")
    var json = false

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        let library = try library.open(existing: true)
        do {
            let keys: [ContentKeyInfo]
            do {
                var assetID: String?
                if let id { assetID = try await library.asset(id).id }
                keys = try await KeyStore(library: library).keys(of: assetID)
            } catch {
                throw fail(error, id: id)
            }
            if json { try printJSON(keys); return }
            let now = Date()
            let formatter = ISO8601DateFormatter()
            var table = TextTable(["ASSET", "KEY", "METHOD", "KEYFORMAT", "EXPIRES", "STATE", "URI"])
            for key in keys {
                let state = key.isInvalidated ? "invalidated" : key.isAvailable(at: now) ? "valid" : "expired"
                table.add([key.assetID, key.id, key.method, key.keyFormat, key.effectiveExpiry.map(formatter.string) ?? "never", state, key.uri])
            }
            print(keys.isEmpty ? "No content keys." : table.render(indent: 0))
        }
    }
}

struct KeysRenew: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "renew",
        abstract: "Obtain an asset's keys again, with a new lifetime, without downloading media again.",
        discussion: """
            The stream's playlists are read again for the keys they name, which are fetched (or \
            asked of the app's provider) and sealed anew. Keys that were invalidated play again.

            Examples:
              carryon keys renew 7k2m9x4q1b
              carryon keys renew 7k2m9x4q1b --rental-window 30d --playback-window 48h
            """
    )

    @Argument(help: "The asset's id (a unique prefix is enough).")
    var id: String

    @OptionGroup var lifetime: KeyLifetimeOptions

    @OptionGroup var heldKeys: HeldKeyOptions

    @Flag(help: "Print the asset's keys afterwards as a JSON array (the shape of `keys list --json`).")
    var json = false

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        try await library.withSession(existing: true) { session in
            do {
                let held = try heldKeys.heldKeys()
                try await heldKeys.apply(held, to: session, for: try await session.task(id: id).id)
                let ids = try await session.renewKeys(id, lifetime: lifetime.isEmpty ? nil : lifetime.lifetime)
                if json { try await printKeys(of: id, session); return }
                print(ids.isEmpty ? "The asset is not encrypted: no keys." : "renewed \(ids.joined(separator: ", "))")
            } catch {
                throw fail(error, id: id)
            }
        }
    }
}

struct KeysInvalidate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invalidate",
        abstract: "Delete an asset's keys: it stays on disk but no longer plays until they are renewed.",
        discussion: """
            Example:
              carryon keys invalidate 7k2m9x4q1b
            """
    )

    @Argument(help: "The asset's id (a unique prefix is enough).")
    var id: String

    @Flag(help: "Print the asset's keys afterwards as a JSON array (the shape of `keys list --json`).")
    var json = false

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        try await library.withSession(existing: true) { session in
            do {
                let assetID = try await session.task(id: id).id
                try await KeyStore(library: session.library).invalidate(assetID)
                if json { try await printKeys(of: assetID, session); return }
                print("invalidated the keys of \(assetID)")
            } catch {
                throw fail(error, id: id)
            }
        }
    }
}

struct KeysPrefetch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefetch",
        abstract: "Add a stream to the library and obtain its keys, without downloading media.",
        discussion: """
            The playlists are read, the variant and renditions chosen (the options are \
            `download`'s), and the content keys obtained and sealed; no media is fetched. The \
            asset waits, suspended: `carryon resume ID` downloads the media later. The last line \
            of output is the asset's id.

            Example:
              carryon keys prefetch https://cdn.example/rental/main.m3u8 --rental-window 30d --playback-window 48h
            """
    )

    /// What `keys prefetch --json` prints: the new asset's id (for `resume`) and its keys.
    struct Prefetched: Encodable {
        var id: String
        var keys: [ContentKeyInfo]
    }

    @OptionGroup var stream: StreamOptions
    @OptionGroup var lifetime: KeyLifetimeOptions
    @OptionGroup var heldKeys: HeldKeyOptions
    @Flag(help: "Print {\"id\": the new asset's id, \"keys\": its keys as `keys list --json` shows them}.")
    var json = false

    @OptionGroup var library: LibraryOptions
    @OptionGroup var network: NetworkOptions

    func run() async throws {
        let library = try self.library.open()
        var configuration = DownloadSession.Configuration()
        configuration.keyLifetime = lifetime.lifetime
        network.configure(&configuration)
        let session = try await openSession(library, configuration)
        do {
            var options = stream.options
            options.licenseURL = heldKeys.licenseURL
            let held = try heldKeys.heldKeys()
            let task = try await session.makeTask(url: stream.url, name: stream.name, options: options, headers: stream.requestHeaders)
            try await heldKeys.hold(held, in: session, for: task.id)
            try await session.prepare(task.id)
            let keys = try await KeyStore(library: library).keys(of: task.id)
            await session.shutdown()
            if json { try printJSON(Prefetched(id: task.id, keys: keys)); return }
            printNote(keys.isEmpty ? "the stream is not encrypted: no keys" : "obtained \(keys.map(\.id).joined(separator: ", "))")
            print(task.id)
        } catch {
            await session.shutdown()
            throw fail(error)
        }
    }
}

struct KeysFetch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Obtain the keys an asset does not have (downloaded with --no-prefetch-keys, or invalidated).",
        discussion: """
            Examples:
              carryon keys fetch 7k2m9x4q1b
              carryon keys fetch 7k2m9x4q1b --playback-window 48h
            """
    )

    @Argument(help: "The asset's id (a unique prefix is enough).")
    var id: String

    @OptionGroup var lifetime: KeyLifetimeOptions
    @OptionGroup var heldKeys: HeldKeyOptions
    @Flag(help: "Print the asset's keys afterwards as a JSON array (the shape of `keys list --json`).")
    var json = false

    @OptionGroup var library: LibraryOptions
    @OptionGroup var network: NetworkOptions

    func run() async throws {
        var configuration = DownloadSession.Configuration()
        network.configure(&configuration)
        try await library.withSession(configuration: configuration, existing: true) { session in
            do {
                let held = try heldKeys.heldKeys()
                try await heldKeys.apply(held, to: session, for: try await session.task(id: id).id)
                let ids = try await session.renewKeys(id, lifetime: lifetime.isEmpty ? nil : lifetime.lifetime, onlyMissing: true)
                if json { try await printKeys(of: id, session); return }
                print(ids.isEmpty ? "The asset has all its keys." : "fetched \(ids.joined(separator: ", "))")
            } catch {
                throw fail(error, id: id)
            }
        }
    }
}

/// Prints the keys of the asset `id` names as `keys list --json` does.
private func printKeys(of id: String, _ session: DownloadSession) async throws {
    let assetID = try await session.task(id: id).id
    try printJSON(try await KeyStore(library: session.library).keys(of: assetID))
}
