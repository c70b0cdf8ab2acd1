@testable import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import GRDB
import Testing

/// Several `carryon` processes on one library — a daemon, terminals, a paused process, a
/// killed one — as issue 31 found them: the index decides who runs what, and no process's
/// downloads are flipped, stolen, failed or fetched twice by another's.
@Suite("Who owns a download: processes sharing a library", .heavy)
struct OwnershipCommandTests {
    /// An origin serving `count` copies of the sample HLS stream, at `/s0/main.m3u8`… — one
    /// per asset, so that the origin's log tells each asset's requests apart — paced so that a
    /// download of the smallest variant takes about `seconds`.
    static func withOrigin(copies count: Int, bandwidth: Int, _ body: @Sendable (OriginHandle, URL) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            let root = folder.appendingPathComponent("origin")
            for index in 0..<count {
                try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
                try FileManager.default.copyItem(at: sampleMedia.appendingPathComponent("ts"), to: root.appendingPathComponent("s\(index)"))
            }
            try await Origin(root: root.path, profile: LinkProfile(bandwidth: bandwidth)).withRunning { origin in
                try await body(origin, folder.appendingPathComponent("library"))
            }
        }
    }

    /// What each download takes: the smallest variant, English audio, no subtitles.
    static let small = ["--max-resolution", "320x180", "--audio", "en", "--subtitles", "none", "--no-hdr"]

    /// The GETs the origin answered whole, by path: each resource at most `most` times.
    static func expectFetchedAtMost(_ most: Int, _ requests: [OriginRequest], sourceLocation: SourceLocation = #_sourceLocation) {
        let counts = Dictionary(grouping: requests.filter { $0.method == "GET" && $0.isComplete && $0.status < 300 && !$0.path.hasSuffix(".m3u8") },
                                by: \.path).mapValues(\.count)
        let over = counts.filter { $0.value > most }
        #expect(over.isEmpty, "fetched more than \(most) times: \(over.sorted { $0.key < $1.key })", sourceLocation: sourceLocation)
    }

    /// Every bundle file of asset `id` is the origin's bytes.
    static func expectIdentical(_ id: String, library: URL, origin: OriginHandle, root: URL,
                                sourceLocation: SourceLocation = #_sourceLocation) throws {
        let bundle = library.appendingPathComponent("bundles/\(id)")
        let manifest = try JSONDecoder.iso8601.decode(BundleManifest.self, from: Data(contentsOf: bundle.appendingPathComponent("manifest.json")))
        #expect(!manifest.files.isEmpty, sourceLocation: sourceLocation)
        for file in manifest.files {
            let local = try Data(contentsOf: bundle.appendingPathComponent(file.path))
            let source = try Data(contentsOf: root.appendingPathComponent(String(file.uri.dropFirst(origin.baseURL.count))))
            #expect(local == source, "\(id): \(file.path)", sourceLocation: sourceLocation)
        }
    }

    /// The state `carryon show` gives asset `id`.
    static func shownState(_ id: String, _ library: String, extra: [String] = []) async throws -> String {
        let shown = try await runCarryon(["show", id, "--library", library, "--json"] + extra)
        return (try? JSONSerialization.jsonObject(with: Data(shown.standardOutput.utf8)) as? [String: Any])?["state"] as? String ?? "?"
    }

    /// Starts `carryon download --json` and returns it once its task has an id and has made
    /// progress past `fraction`.
    static func downloadUnderWay(_ arguments: [String], past fraction: Double) async throws -> (RunningProcess, String) {
        let process = try RunningProcess(carryon: ["download", "--json"] + arguments)
        var id: String?
        for await line in process.lines {
            guard let event = try? JSONDecoder().decode(CrashResumeTests.Event.self, from: Data(line.utf8)) else { continue }
            id = event.id
            if event.event == "progress", (event.fraction ?? 0) > fraction { break }
        }
        return (process, try #require(id, "the download printed no event: \(process.standardError)"))
    }

    @Test("resume from a second process of an asset the first is downloading is busy, names the process, and changes nothing: nothing fetched twice, nothing failed")
    func resumeWhileRunning() async throws {
        try await Self.withOrigin(copies: 1, bandwidth: 40_000) { origin, library in
            let (first, id) = try await Self.downloadUnderWay([origin.baseURL + "/s0/main.m3u8", "--library", library.path] + Self.small, past: 0.05)
            let second = try await runCarryon(["resume", id, "--library", library.path])
            #expect(second.status == 1, "\(second.standardError)")
            #expect(second.standardError.contains("\(id) is being downloaded by another process (pid \(first.pid) on "), "\(second.standardError)")
            #expect(try await Self.shownState(id, library.path) == "running")
            #expect(await first.wait() == 0, "\(first.standardError)")
            #expect(try await Self.shownState(id, library.path) == "completed")
            Self.expectFetchedAtMost(1, await origin.requests())
        }
    }

    @Test("a run whose lease was taken over while it was paused (SIGSTOP) writes nothing after its successor claimed, once it is continued; the bundle is the origin's bytes")
    func fencedAfterPause() async throws {
        try await Self.withOrigin(copies: 1, bandwidth: 30_000) { origin, library in
            let lease = ["--lease", "2"]
            let (paused, id) = try await Self.downloadUnderWay([origin.baseURL + "/s0/main.m3u8", "--library", library.path] + Self.small + lease, past: 0.1)
            paused.kill(SIGSTOP)
            // Held while its lease lasts (its process is alive, only paused), then no one's.
            let refused = try await runCarryon(["resume", id, "--library", library.path] + lease)
            #expect(refused.status == 1 && refused.standardError.contains("another process"), "\(refused.standardError)")
            var state = ""
            for _ in 0..<100 where state != "suspended" {
                try await Task.sleep(for: .milliseconds(100))
                state = try await Self.shownState(id, library.path)
            }
            #expect(state == "suspended", "the paused owner's lease did not run out")
            let successor = try await runCarryon(["resume", id, "--library", library.path] + lease)
            #expect(successor.status == 0, "\(successor.standardError)")
            let index = try OfflineLibrary(root: library).sqlite
            func rows() async throws -> String {
                try await index.read { db in
                    let asset = try Row.fetchAll(db, sql: "SELECT * FROM asset WHERE id = ?", arguments: [id]).description
                    let resources = try Row.fetchAll(db, sql: "SELECT * FROM resource WHERE assetId = ? ORDER BY id", arguments: [id]).description
                    return asset + resources
                }
            }
            let before = try await rows()
            #expect(before.contains("state:\"completed\""), "\(before.prefix(400))")
            let files = try FileManager.default.subpathsOfDirectory(atPath: library.appendingPathComponent("bundles/\(id)").path).sorted()
            paused.kill(SIGCONT)
            // It finds its claim lost and stops, saying so.
            #expect(await paused.wait() == 1)
            #expect(paused.standardError.contains("another process"), "\(paused.standardError)")
            #expect(try await rows() == before, "the paused run wrote to the index after its successor's claim")
            #expect(try FileManager.default.subpathsOfDirectory(atPath: library.appendingPathComponent("bundles/\(id)").path).sorted() == files)
            try Self.expectIdentical(id, library: library, origin: origin, root: library.deletingLastPathComponent().appendingPathComponent("origin"))
            // Only what was in flight at the takeover is fetched twice.
            Self.expectFetchedAtMost(2, await origin.requests())
        }
    }

    @Test("kill -9 of the owner: with the process check off, another process's resume is busy until the lease runs out, then takes the download over to the end")
    func takeoverAfterLease() async throws {
        try await Self.withOrigin(copies: 1, bandwidth: 30_000) { origin, library in
            let options = ["--lease", "3", "--no-owner-check"]
            let (killed, id) = try await Self.downloadUnderWay([origin.baseURL + "/s0/main.m3u8", "--library", library.path] + Self.small + options, past: 0.1)
            killed.kill(SIGKILL)
            let killedAt = ContinuousClock.now
            #expect(await killed.wait() == 128 + SIGKILL)
            // Its lease still holds, for a process that cannot tell the owner is dead.
            let early = try await runCarryon(["resume", id, "--library", library.path] + options)
            #expect(early.status == 1 && early.standardError.contains("being downloaded by another process"), "\(early.standardError)")
            let waited = ContinuousClock.now - killedAt
            if waited < .seconds(3) { try await Task.sleep(for: .seconds(3) - waited + .milliseconds(300)) }
            let resumed = try await runCarryon(["resume", id, "--library", library.path] + options)
            #expect(resumed.status == 0, "\(resumed.standardError)")
            #expect(try await Self.shownState(id, library.path) == "completed")
            try Self.expectIdentical(id, library: library, origin: origin, root: library.deletingLastPathComponent().appendingPathComponent("origin"))
            Self.expectFetchedAtMost(2, await origin.requests())
        }
    }
}
