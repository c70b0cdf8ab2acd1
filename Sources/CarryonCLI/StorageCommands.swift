import ArgumentParser
import Carryon
import Foundation

/// Reads a byte count: `1000000`, `500M`, `2G`, `1.5T` (powers of 1024), or `none`.
func parseSize(_ text: String) -> Int?? {
    if text.lowercased() == "none" { return .some(nil) }
    let units: [Character: Double] = ["K": 1_024, "M": 1_048_576, "G": 1_073_741_824, "T": 1_099_511_627_776]
    var number = Substring(text.uppercased())
    if number.hasSuffix("IB") || number.hasSuffix("B") && number.count > 1 && units[number.dropLast().last ?? " "] != nil {
        number = number.hasSuffix("IB") ? number.dropLast(2) : number.dropLast()
    }
    var scale = 1.0
    if let last = number.last, let unit = units[last] { scale = unit; number = number.dropLast() }
    guard let value = Double(number), value >= 0, value * scale < Double(Int.max) else { return nil }
    return Int(value * scale)
}

/// `--expires` and `--priority`, shared by `download` and `policy`.
struct PolicyOptions: ParsableArguments {
    @Option(help: ArgumentHelp("When the asset expires: never, a date (2026-12-31, 2026-12-31T18:00:00Z), or a time from now (30d, 48h).",
                               valueName: "date"))
    var expires: String?

    @Option(help: ArgumentHelp("Its priority in a purge: important or default.", valueName: "priority"))
    var priority: String?

    var isEmpty: Bool { expires == nil && priority == nil }

    func validate() throws {
        if let expires {
            do { _ = try DateText.expiry(expires, naming: "--expires") } catch { throw ValidationError(error.message) }
        }
        if let priority, AssetPriority(rawValue: priority) == nil {
            throw ValidationError("--priority must be important or default (got \(priority))")
        }
    }

    /// `policy` with what was given changed.
    func applied(to policy: StoragePolicy) -> StoragePolicy {
        var policy = policy
        if let expires, let date = try? DateText.expiry(expires, naming: "--expires") { policy.expiresAt = date }
        if let priority, let value = AssetPriority(rawValue: priority) { policy.priority = value }
        return policy
    }
}

struct Policy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "policy",
        abstract: "Show or set an asset's storage policy: when it expires, and its priority in a purge.",
        discussion: """
            `carryon purge` removes expired assets first, then `default` ones before \
            `important` ones, least recently played first. With no option, prints the policy.

            --expires takes `never`, a date (2026-12-31, 2026-12-31T18:00:00Z) or a time from \
            now (30d, 48h, 90m).

            Examples:
              carryon policy 7k2m9x4q1b --expires 30d --priority important
              carryon policy 7k2m9x4q1b --expires never
            """
    )

    @Argument(help: "The asset's id (a unique prefix is enough).")
    var id: String

    @OptionGroup var change: PolicyOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        try await library.withSession(existing: true) { session in
            let storage = StorageManager(library: session.library)
            var policy: StoragePolicy
            let id: String
            do {
                id = try await session.task(id: self.id).id
                policy = change.applied(to: try await storage.policy(for: id))
                if !change.isEmpty { try await storage.setPolicy(policy, for: id) }
            } catch {
                throw fail(error, id: self.id)
            }
            if json {
                try printJSON(policy)
            } else {
                print("\(id)  expires \(policy.expiresAt.map { ISO8601DateFormatter().string(from: $0) } ?? "never")  priority \(policy.priority.rawValue)")
            }
        }
    }
}

struct Storage: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storage",
        abstract: "Show or set the library's storage rules: a quota, free space to keep, and purging on download.",
        discussion: """
            A download that would break a rule either purges by the rules first (with \
            --purge-on-download) or stops before it starts, with the sizes involved. Every chunk \
            a server sends is counted against the rules before it is written: a download that \
            reaches one is suspended, its bytes kept, and `carryon resume` continues once there \
            is room. Without --keep-free, downloads keep a reserve of 1 GiB (5 % of a disk \
            smaller than 20 GiB) free; --keep-free 0 turns it off. Sizes take K, M, G or T \
            (powers of 1024), or none.

            Examples:
              carryon storage
              carryon storage --quota 20G --keep-free 2G --purge-on-download
              carryon storage --quota none
            """
    )

    @Option(help: ArgumentHelp("The most the library's bundles may take (20G), or none.", valueName: "size"))
    var quota: String?

    @Option(name: .customLong("keep-free"), help: ArgumentHelp("Free disk space to keep (2G), 0 for none, or none for the default reserve.", valueName: "size"))
    var keepFree: String?

    @Flag(inversion: .prefixedNo, help: "Whether a download that would break a rule purges first (else it stops).")
    var purgeOnDownload: Bool?

    @Flag(help: "Print one JSON object.")
    var json = false

    @OptionGroup var library: LibraryOptions

    func validate() throws {
        for (flag, value) in [("--quota", quota), ("--keep-free", keepFree)] {
            if let value, parseSize(value) == nil { throw ValidationError("\(flag) must be a size like 500M or 20G, or none (got \(value))") }
        }
    }

    func run() async throws {
        let storage = StorageManager(library: try library.open())
        do {
            var settings = try await storage.settings()
            if let quota, let value = parseSize(quota) { settings.quotaBytes = value }
            if let keepFree, let value = parseSize(keepFree) { settings.minimumFreeBytes = value }
            if let purgeOnDownload { settings.purgeOnDownload = purgeOnDownload }
            if quota != nil || keepFree != nil || purgeOnDownload != nil { try await storage.setSettings(settings) }
            let report = try await storage.report()
            if json { try printJSON(report); return }
            print("Library     \(formatBytes(report.libraryBytes))\(settings.quotaBytes.map { " of a \(formatBytes($0)) quota" } ?? " (no quota)")")
            let reserve = settings.minimumFreeBytes.map { ", keeping \(formatBytes($0)) free" }
                ?? ", keeping \(formatBytes(DiskSpace.fileSystem(at: storage.library.root.path).defaultReserve)) free (the default reserve)"
            print("Free        \(formatBytes(report.freeBytes))\(reserve)")
            print("On download \(settings.purgeOnDownload ? "purge by the rules when a download needs room" : "stop when a download needs room (suspended, for resume)")")
        } catch {
            throw fail(error)
        }
    }
}

struct Purge: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge",
        abstract: "Remove expired assets, then others by priority and last playback, until the storage rules hold.",
        discussion: """
            Expired assets go first (always); then, while the quota or the free-space rule is \
            broken, `default` assets before `important` ones, least recently played first \
            (never played counts from when it was added). An asset downloading, or being played \
            by a running playback server (`carryon play`, `carryon serve`, an app's), is never \
            removed: it is listed as kept, with the process that holds it. --dry-run shows what \
            would go.

            Examples:
              carryon purge --dry-run
              carryon purge --json
            """
    )

    @Flag(name: .customLong("dry-run"), help: "Show what would be removed, and remove nothing.")
    var dryRun = false

    @Flag(help: "Print one JSON object.")
    var json = false

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        try await library.withSession { session in
            let storage = StorageManager(library: session.library)
            let plan: PurgePlan
            do {
                plan = dryRun ? try await storage.plan() : try await storage.purge(with: session)
            } catch {
                throw fail(error)
            }
            if json { try printJSON(plan); return }
            for removal in plan.removals {
                print("\(dryRun ? "would remove" : "removed")  \(removal.id)  \(formatBytes(removal.bytes))  (\(removal.reason.rawValue))")
            }
            for kept in plan.kept {
                let holder = switch kept.use {
                case .downloading: "being downloaded"
                case .playing: "being played by process \(kept.processes.map(String.init).joined(separator: ", "))"
                }
                print("kept  \(kept.id)  \(formatBytes(kept.bytes))  (\(kept.reason.rawValue), but \(holder))")
            }
            print("\(dryRun ? "would free" : "freed") \(formatBytes(plan.bytesFreed)); the library holds \(formatBytes(plan.libraryBytesAfter))"
                  + (plan.satisfied ? "" : "; the rules still need \(formatBytes(plan.shortfall)) more"))
        }
    }
}

struct Logs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logs",
        abstract: "Print an asset's access and error logs (W3C Extended Log File Format).",
        discussion: """
            One line per request of its downloads (x-event download) and of its playback \
            sessions (x-event playback), with the fields of AVPlayerItem's access and error logs \
            that apply: date, time, URI, server, status, bytes, transfer duration, observed and \
            indicated bitrate, playback session id; the error log adds the error's domain, code \
            and comment. Both logs unless --access or --error.

            Examples:
              carryon logs 7k2m9x4q1b --access
              carryon logs 7k2m9x4q1b --error
              carryon logs 7k2m9x4q1b --json | jq '.access[] | select(."x-event" == "playback")'
            """
    )

    @Argument(help: "The asset's id (a unique prefix is enough).")
    var id: String

    @Flag(help: "The access log only.")
    var access = false

    @Flag(help: "The error log only.")
    var error = false

    @Flag(help: "Print one JSON object: \"access\" and \"error\", each an array of entries keyed by the W3C field names (a field logged as \"-\" is left out).")
    var json = false

    @OptionGroup var library: LibraryOptions

    func run() async throws {
        let library = try library.open(existing: true)
        do {
            let id: String
            do { id = try await library.asset(self.id).id } catch { throw fail(error, id: self.id) }
            let logs = AssetLogs(library: library)
            var files: [URL] = []
            if access || !error { files.append(logs.accessLogURL(for: id)) }
            if error || !access { files.append(logs.errorLogURL(for: id)) }
            if json {
                do {
                    try printJSON(try logs.entries(of: id, access: access || !error, error: error || !access))
                } catch let failure as CarryonError {
                    throw fail(failure.message, hint: "The log was changed by hand or cut short; `carryon logs \(id)` prints it as it is.")
                }
                return
            }
            for file in files {
                if let data = FileManager.default.contents(atPath: file.path) {
                    FileHandle.standardOutput.write(data)
                } else if access != error {
                    printNote("\(id) has no \(file.deletingPathExtension().lastPathComponent) log yet")
                }
            }
        }
    }
}
