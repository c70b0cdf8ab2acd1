import ArgumentParser
import Carryon
import Foundation

/// `carryon verify`: check bundles against what was downloaded, and mend them from the origin.
struct Verify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check bundles against what was downloaded; --repair mends what is damaged from the origin.",
        discussion: """
            Every file of each asset is read once: each resource's bytes against the SHA-256 \
            recorded as it was downloaded, and for the structure a player reads (MPEG-TS sync \
            bytes, MP4 boxes that add up, a WebVTT header). Missing, truncated, altered and \
            malformed files are named with their rendition. Assets downloaded before digests \
            were recorded are checked by length and structure; --record records their digests. \
            The manifests players read first are checked too: main.m3u8, each rendition's \
            playlist and main.mpd must read strictly and name only files of the bundle, each \
            rendition's playlist every file of its rendition, and manifest.json must be the \
            asset's.

            --repair fetches exactly the damaged resources again (byte ranges included), as \
            `resume` would — expired signed URLs read again, keys renewed — each put in place \
            only once it is whole. Damaged manifests are written again: manifest.json from the \
            index, the playlists from the stream's, read again with the asset's selection, when \
            they plan exactly the files the bundle holds; a live recording's from the recording \
            the bundle keeps (the stream has moved on). What cannot be mended is left as it \
            was, and said.

            Exit status: 0 when every bundle is intact (or was mended), 1 when damage remains.

            Examples:
              carryon verify
              carryon verify 7k2m9x4q1b --json
              carryon verify 7k2m9x4q1b --repair
              carryon verify --record
            """
    )

    @Argument(help: "The assets' ids; every asset when none is given.")
    var ids: [String] = []

    @Flag(help: "Fetch the damaged resources again from the origin and write damaged manifests again.")
    var repair = false

    @Flag(help: "Record the SHA-256 of resources downloaded before digests were, once they pass.")
    var record = false

    @Flag(help: "Print the reports (and repairs) as JSON.")
    var json = false

    @OptionGroup var library: LibraryOptions

    @OptionGroup var transfer: TransferOptions

    @OptionGroup var refresh: RefreshOptions

    @OptionGroup var ownership: OwnershipOptions

    /// What `--json` prints.
    struct Output: Encodable {
        var assets: [VerificationReport]
        var repairs: [Repaired]
    }

    struct Repaired: Encodable {
        var id: String
        var outcome: DownloadSession.RepairOutcome
    }

    func run() async throws {
        var configuration = DownloadSession.Configuration()
        transfer.configure(&configuration)
        refresh.configure(&configuration)
        ownership.configure(&configuration)
        let session = try await openSession(try library.open(existing: true), configuration)
        var reports: [VerificationReport] = []
        var repairs: [DownloadSession.Repair] = []
        do {
            let targets = ids.isEmpty ? try await session.tasks().map(\.id) : ids
            for id in targets {
                let report = try await session.verify(id, record: record)
                reports.append(report)
                if !json { show(report) }
            }
            if repair {
                for report in reports where !report.isIntact {
                    repairs.append(try await session.beginRepair(report.id, damage: report.damage, manifests: report.manifests))
                }
            }
        } catch {
            await session.shutdown()
            throw fail(error)
        }
        guard !repairs.isEmpty else {
            await session.shutdown()
            if json { try printJSON(Output(assets: reports, repairs: [])) }
            if reports.contains(where: { !$0.isIntact }) { throw ExitCodeError.failure }
            return
        }
        let outcomes = Locked<[Repaired]>([])
        let started = repairs
        @Sendable func endRepairs() async {
            for repair in started {
                do throws(CarryonError) {
                    let outcome = try await session.endRepair(repair)
                    outcomes.withLock { $0.append(Repaired(id: repair.task.id, outcome: outcome)) }
                } catch {
                    printError("\(repair.task.id): the repair could not be ended: \(error.message)", hint: hint(for: error, id: repair.task.id))
                }
            }
        }
        // A repair of manifests alone wrote them already: its task does not run.
        let fetching = repairs.filter(\.fetches)
        if fetching.isEmpty {
            await endRepairs()
            await session.shutdown()
        } else {
            var runner = TaskRunner(session: session, json: false, printID: false)
            runner.beforeShutdown = { await endRepairs() }
            if !json { printNote("repairing \(fetching.map(\.task.id).joined(separator: ", ")) from the origin") }
            // Its failure is told by the outcome (what stays damaged, and why).
            do { try await runner.run(fetching.map(\.task)) } catch ExitCodeError.failure {}
        }
        let repaired = outcomes.withLock { $0 }
        if json {
            try printJSON(Output(assets: reports, repairs: repaired))
        } else {
            for item in repaired { show(item) }
        }
        let unmended = repaired.contains { !$0.outcome.unmended.isEmpty || !$0.outcome.manifestsLeft.isEmpty } || repaired.count < repairs.count
        if unmended { throw ExitCodeError.failure }
    }

    private func show(_ report: VerificationReport) {
        let checked = "\(report.resources) resource\(report.resources == 1 ? "" : "s") in \(report.files) file\(report.files == 1 ? "" : "s"), "
            + "\(formatBytes(report.bytes)) read in \(String(format: "%.2f", report.seconds)) s"
        let how = report.hashed == report.resources ? "SHA-256"
            : "\(report.hashed) by SHA-256, \(report.resources - report.hashed) by length and structure"
        let recorded = report.recorded > 0 ? "; \(report.recorded) digests recorded" : ""
        if report.resources == 0, report.isIntact {
            print("\(report.id)  \(report.name): nothing on disk to check")
        } else if report.isIntact {
            let manifests = report.manifestsChecked ? "its manifests read" : "its manifests not checked: it downloads, or has none yet"
            print("\(report.id)  \(report.name): intact (\(checked); \(how)\(recorded); \(manifests))")
        } else {
            print("\(report.id)  \(report.name): \(report.damageCount) damaged (\(checked); \(how)\(recorded))")
            for damage in report.manifests { print("  \(damage.line)") }
            for damage in report.damage { print("  \(damage.line)") }
        }
    }

    private func show(_ repaired: Repaired) {
        let outcome = repaired.outcome
        if !outcome.manifests.isEmpty {
            print("\(repaired.id): wrote again \(outcome.manifests.joined(separator: ", "))")
        }
        for left in outcome.manifestsLeft { print("\(repaired.id): \(left.line)") }
        if outcome.unmended.isEmpty {
            print("\(repaired.id): mended \(outcome.mended.count) of \(outcome.mended.count) from the origin")
        } else {
            print("\(repaired.id): mended \(outcome.mended.count) of \(outcome.mended.count + outcome.unmended.count); not mended (left as it was):")
            for damage in outcome.unmended { print("  \(damage.line)") }
            if let error = outcome.error { print("  why: \(error)") }
        }
        for file in outcome.changedAtOrigin {
            printNote("\(repaired.id): \(file) mended with the bytes the origin serves now, which are not those first downloaded")
        }
    }
}
