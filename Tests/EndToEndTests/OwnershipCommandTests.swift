@testable import Carryon
@testable import CarryonIndexTestSupport
import CarryonServer
import CarryonTestSupport
import Foundation
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
            // Its own task's events only, whatever else runs in the library.
            #expect(id == nil || id == event.id, "another task's event in a download's output: \(line)")
            id = event.id
            if event.event == "progress", (event.fraction ?? 0) > fraction { break }
        }
        return (process, try #require(id, "the download printed no event: \(process.standardError)"))
    }

    @Test("resume from a second process of an asset the first is downloading is busy, names the process, and changes nothing: nothing fetched twice, nothing failed")
    func resumeWhileRunning() async throws {
        // About 5 s for the download: still running when the second process asks, however busy the machine.
        try await Self.withOrigin(copies: 1, bandwidth: 10_000) { origin, library in
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

    /// Pauses `process` (SIGSTOP) at a moment it holds no write transaction on the library's
    /// index. A process paused inside one holds SQLite's write lock, and every other process's
    /// writes wait for it (README: "Who owns a download"); this test is about leases, so it
    /// pauses between writes, as a process mostly is.
    static func pause(_ process: RunningProcess, outsideWritesTo library: URL) async throws {
        let index = try LibraryIndexFile(libraryAt: library, busyTimeout: 0.3)
        for _ in 0..<50 {
            process.kill(SIGSTOP)
            if await index.writeLockIsFree() { return }
            process.kill(SIGCONT)
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the process held the index's write lock at every pause")
    }

    @Test("a run whose lease was taken over while it was paused (SIGSTOP) writes nothing after its successor claimed, once it is continued; the bundle is the origin's bytes")
    func fencedAfterPause() async throws {
        try await Self.withOrigin(copies: 1, bandwidth: 30_000) { origin, library in
            let lease = ["--lease", "2"]
            let (paused, id) = try await Self.downloadUnderWay([origin.baseURL + "/s0/main.m3u8", "--library", library.path] + Self.small + lease, past: 0.1)
            try await Self.pause(paused, outsideWritesTo: library)
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
            let opened = try OfflineLibrary(root: library)
            func rows() async throws -> String {
                try await opened.storedRows(of: id)
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
            // A lease long enough that the first resume comes before it ends on a busy machine.
            let options = ["--lease", "6", "--no-owner-check"]
            let (killed, id) = try await Self.downloadUnderWay([origin.baseURL + "/s0/main.m3u8", "--library", library.path] + Self.small + options, past: 0.1)
            killed.kill(SIGKILL)
            let killedAt = ContinuousClock.now
            #expect(await killed.wait() == 128 + SIGKILL)
            // Its lease still holds, for a process that cannot tell the owner is dead.
            let early = try await runCarryon(["resume", id, "--library", library.path] + options)
            #expect(early.status == 1 && early.standardError.contains("being downloaded by another process"), "\(early.standardError)")
            let waited = ContinuousClock.now - killedAt
            #expect(waited < .seconds(6), "the first resume came after the lease: \(waited)")
            if waited < .seconds(6) { try await Task.sleep(for: .seconds(6) - waited + .milliseconds(300)) }
            let resumed = try await runCarryon(["resume", id, "--library", library.path] + options)
            #expect(resumed.status == 0, "\(resumed.standardError)")
            #expect(try await Self.shownState(id, library.path) == "completed")
            try Self.expectIdentical(id, library: library, origin: origin, root: library.deletingLastPathComponent().appendingPathComponent("origin"))
            Self.expectFetchedAtMost(2, await origin.requests())
        }
    }

    @Test("a daemon's queued downloads stay queued while other processes use the library — list, show, keys, storage, purge, a fifth download, a resume of a queued one (busy) — and all complete, none failed, nothing fetched twice; the daemon shows the terminal's download and its progress")
    func daemonQueueUntouched() async throws {
        try await Self.withOrigin(copies: 5, bandwidth: 15_000) { origin, library in
            // The daemon's downloads held to about 12 s each, so that its queue waits while the
            // other processes come and go, however slow the machine.
            let server = try RunningProcess(carryon: ["serve", "--limit-rate", "30K", "--library", library.path])
            var lines = server.lines.makeAsyncIterator()
            let base = try #require(await lines.next().flatMap(URL.init(string:)), "serve printed no base URL: \(server.standardError)")
            let daemon = try #require(DaemonClient(base: base))
            func states(_ ids: [String]) async throws -> [String] {
                var states: [String] = []
                for id in ids { states.append(try await daemon.call("GET", "assets/\(id)").json?["state"] as? String ?? "?") }
                return states
            }
            var ids: [String] = []
            for index in 0..<4 {
                let body = #"{"url": "\#(origin.baseURL)/s\#(index)/main.m3u8", "maxResolution": "320x180", "audio": "en", "subtitles": "none"}"#
                let started = try await daemon.call("POST", "assets", body: body)
                #expect(started.status == 201)
                ids.append(try #require(started.json?["id"] as? String))
            }
            // Two run, two wait in the daemon's queue.
            let queued = Array(ids.suffix(2))
            #expect(try await states(queued) == ["waiting", "waiting"])

            // Other processes open the library; the queue is the daemon's, as every process reads it.
            for command in [["list"], ["show", queued[0]], ["keys", "list"], ["storage"], ["purge"]] {
                let result = try await runCarryon(command + ["--library", library.path])
                #expect(result.status == 0, "\(command): \(result.standardError)")
                #expect(try await states(queued) == ["waiting", "waiting"], "after \(command)")
                #expect(try await Self.shownState(queued[1], library.path) == "waiting", "after \(command)")
            }
            let (fifth, fifthID) = try await Self.downloadUnderWay([origin.baseURL + "/s4/main.m3u8", "--library", library.path] + Self.small, past: 0)
            // The daemon's event stream and API show the terminal's download making progress.
            let stream = try await rawHTTPStream(port: daemon.port, "GET \(base.path)/api/events HTTP/1.1\r\nHost: 127.0.0.1:\(daemon.port)\r\n\r\n", seconds: 20) { text in
                text.split(separator: "\n").contains { $0.contains("\"progress\"") && $0.contains(fifthID) }
            }
            #expect(stream.contains(fifthID))
            let shown = try await daemon.call("GET", "assets/\(fifthID)").json
            #expect(shown?["state"] as? String == "running", "\(shown ?? [:])")
            #expect(((shown?["progress"] as? [String: Any])?["bytesDone"] as? Int ?? 0) > 0, "\(shown ?? [:])")
            // Resuming what the daemon queued is busy, names the daemon, and changes nothing.
            let resumed = try await runCarryon(["resume", queued[1], "--library", library.path])
            #expect(resumed.status == 1 && resumed.standardError.contains("is queued by another process (pid \(server.pid) on "), "\(resumed.standardError)")
            #expect(await fifth.wait() == 0, "\(fifth.standardError)")
            // Its output is its own download's, though the daemon's ran beside it.
            for await line in fifth.lines where line.hasPrefix("{") {
                #expect(line.contains("\"id\":\"\(fifthID)\""), "\(line)")
            }

            var done: [String] = []
            for _ in 0..<600 {
                done = try await states(ids)
                if done.allSatisfy({ ["completed", "failed", "suspended", "cancelled"].contains($0) }) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(done == ["completed", "completed", "completed", "completed"])
            server.kill(SIGTERM)
            #expect(await server.wait() == 0)
            let root = library.deletingLastPathComponent().appendingPathComponent("origin")
            for id in ids + [fifthID] { try Self.expectIdentical(id, library: library, origin: origin, root: root) }
            Self.expectFetchedAtMost(1, await origin.requests())
        }
    }

    @Test("probes — a purge's plan, a player asking whether an asset downloads, a listing — in a tight loop never make a starting download fail")
    func probesNeverFailAStart() async throws {
        try await Self.withOrigin(copies: 1, bandwidth: 2_000_000) { origin, folder in
            let library = try OfflineLibrary(root: folder)
            var configuration = DownloadSession.Configuration(maximumConcurrentTasks: 4)
            configuration.lease = .seconds(5)
            try await withDownloadSession(library: library, configuration: configuration) { session in
                let options = DownloadOptions(maximumResolution: .init(width: 320, height: 180), audio: .none, subtitles: .none)
                var tasks: [DownloadTask] = []
                for _ in 0..<12 { tasks.append(try await session.makeTask(url: origin.baseURL + "/s0/main.m3u8", options: options)) }
                let ids = tasks.map(\.id)
                let probing = Task {
                    let source = PlaybackSource(library: library)
                    var probes = 0
                    while !Task.isCancelled {
                        _ = try? await StorageManager(library: library).plan()
                        for id in ids { _ = await source.isDownloading(id) }
                        _ = try? await library.assets()
                        probes += 1
                    }
                    return probes
                }
                for task in tasks { try await task.resume() }
                var states: [DownloadState] = []
                for task in tasks { states.append(await task.waitUntilFinished()) }
                probing.cancel()
                #expect(await probing.value > 0)
                #expect(states == Array(repeating: .completed, count: 12), "\(states)")
            }
        }
    }

    @Test("stress: 3 processes at a time on one library, each downloading its share of 20 assets and resuming any of them at random, one killed mid-way, end with every asset completed and byte-identical, none failed, each resource fetched at most twice")
    func threeProcessesTwentyAssets() async throws {
        try await Self.withOrigin(copies: 20, bandwidth: 60_000) { origin, library in
            let seed = UInt64.random(in: 1...UInt64.max)
            let known = Locked<[String]>([])
            let problems = Locked<[String]>([])
            /// One worker: its downloads and resumes, one process at a time, in a random order.
            @Sendable func worker(_ number: Int) async throws {
                var generator = SeededGenerator(seed: seed &+ UInt64(number))
                let mine = (0..<20).filter { $0 % 3 == number }
                var steps = mine.map { Optional($0) } + Array(repeating: nil, count: 20 - mine.count)
                steps.shuffle(using: &generator)
                var downloads = 0
                for step in steps {
                    if let index = step {
                        let url = origin.baseURL + "/s\(index)/main.m3u8"
                        downloads += 1
                        if number == 0 && downloads == 2 {
                            // Killed mid-way: its download is no one's, for any resume to take over.
                            let (killed, id) = try await Self.downloadUnderWay([url, "--library", library.path] + Self.small, past: 0.3)
                            killed.kill(SIGKILL)
                            _ = await killed.wait()
                            known.withLock { $0.append(id) }
                            continue
                        }
                        let result = try await runCarryon(["download", url, "--library", library.path] + Self.small)
                        if result.status != 0 { problems.withLock { $0.append("download s\(index): \(result.standardError)") } }
                        if let id = result.standardOutput.split(separator: "\n").last.map(String.init) { known.withLock { $0.append(id) } }
                    } else {
                        guard let id = known.withLock({ $0.randomElement(using: &generator) }) else { continue }
                        let result = try await runCarryon(["resume", id, "--library", library.path])
                        // Done, or busy because another process runs it: nothing else.
                        if result.status != 0 && !result.standardError.contains("by another process") {
                            problems.withLock { $0.append("resume \(id): \(result.status) \(result.standardError)") }
                        }
                    }
                }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for number in 0..<3 { group.addTask { try await worker(number) } }
                try await group.waitForAll()
            }
            #expect(problems.withLock { $0 }.isEmpty, "seed \(seed): \(problems.withLock { $0 })")
            // What no worker happened to resume after the kill.
            let rest = try await runCarryon(["resume", "--library", library.path])
            #expect(rest.status == 0, "\(rest.standardError)")
            let listed = try await runCarryon(["list", "--json", "--library", library.path])
            let assets = try JSONDecoder.iso8601.decode([AssetSnapshot].self, from: Data(listed.standardOutput.utf8))
            #expect(assets.count == 20)
            #expect(assets.allSatisfy { $0.state == .completed }, "seed \(seed): \(assets.map { "\($0.id) \($0.state)" })")
            let root = library.deletingLastPathComponent().appendingPathComponent("origin")
            for asset in assets { try Self.expectIdentical(asset.id, library: library, origin: origin, root: root) }
            Self.expectFetchedAtMost(2, await origin.requests())
            // None ever failed: no error log names a failure.
            for asset in assets {
                let logs = try await runCarryon(["logs", asset.id, "--error", "--library", library.path])
                #expect(!logs.standardOutput.contains("failed"), "\(asset.id): \(logs.standardOutput)")
            }
        }
    }

    @Test("carryon suspend from another process stops a download where it runs, within a second or two, and prints the state it ended in; resume from a third process finishes it")
    func suspendFromAnotherProcess() async throws {
        try await Self.withOrigin(copies: 1, bandwidth: 20_000) { origin, library in
            let (running, id) = try await Self.downloadUnderWay([origin.baseURL + "/s0/main.m3u8", "--library", library.path] + Self.small, past: 0.05)
            let started = ContinuousClock.now
            let suspended = try await runCarryon(["suspend", id, "--library", library.path])
            #expect(suspended.status == 0 && suspended.standardOutput == "\(id) suspended\n", "\(suspended.standardOutput) \(suspended.standardError)")
            #expect(ContinuousClock.now - started < .seconds(5))
            // The downloading process ends with its task suspended, not failed.
            #expect(await running.wait() == 0, "\(running.standardError)")
            #expect(try await Self.shownState(id, library.path) == "suspended")
            let resumed = try await runCarryon(["resume", id, "--library", library.path])
            #expect(resumed.status == 0, "\(resumed.standardError)")
            #expect(try await Self.shownState(id, library.path) == "completed")
            try Self.expectIdentical(id, library: library, origin: origin, root: library.deletingLastPathComponent().appendingPathComponent("origin"))
            Self.expectFetchedAtMost(2, await origin.requests())
        }
    }

    @Test("two sessions on one library, as two processes: one deletes and cancels downloads the other runs, the other applies each within a second, and nothing of a deleted asset is left")
    func steeringAnotherSession() async throws {
        // About 10 s a download: both still run when they are steered, however busy the machine.
        try await Self.withOrigin(copies: 2, bandwidth: 3_000) { origin, folder in
            let library = try OfflineLibrary(root: folder)
            let options = DownloadOptions(maximumResolution: .init(width: 320, height: 180), audio: .none, subtitles: .none)
            try await withDownloadSession(library: library) { owner in
                let doomed = try await owner.makeTask(url: origin.baseURL + "/s0/main.m3u8", options: options)
                let stopped = try await owner.makeTask(url: origin.baseURL + "/s1/main.m3u8", options: options)
                try await doomed.resume()
                try await stopped.resume()
                let waiters = (Task { await doomed.waitUntilFinished() }, Task { await stopped.waitUntilFinished() })
                try await withDownloadSession(library: library) { other in
                    // Both under way in the owner.
                    for _ in 0..<100 where try await library.asset(doomed.id).progress.bytesDone == 0 { try await Task.sleep(for: .milliseconds(50)) }
                    let resumed = await #expect(throws: CarryonError.self) { try await other.task(id: stopped.id).resume() }
                    #expect(resumed?.code == .busy)
                    let clock = ContinuousClock()
                    let start = clock.now
                    try await other.delete(doomed.id)
                    #expect(try await other.task(id: stopped.id).cancel() == .cancelled)
                    #expect(clock.now - start < .seconds(5))
                }
                #expect(await waiters.0.value == .cancelled)
                #expect(await waiters.1.value == .cancelled)
                #expect(try await library.index.asset(doomed.id) == nil)
                #expect(!FileManager.default.fileExists(atPath: library.bundleURL(for: doomed.id).path))
                #expect(try await library.asset(stopped.id).state == .cancelled)
            }
        }
    }
}
