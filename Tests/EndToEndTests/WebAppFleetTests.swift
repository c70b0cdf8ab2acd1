import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// The fleet from the daemon's web app (issue 33): a person queues a stream for the fleet's
/// workers in the chooser, as `carryon enqueue` does, and sees a worker take it. Debian's
/// Chromium, driven by Playwright (`Tests/Browser/fleet.py`), does what the person does; the
/// worker is `carryon worker` on the same library, started only once the page says the
/// download waits, so that the daemon is seen not to run it itself.
@Suite("Queueing for the fleet in the web app", .heavy)
struct WebAppFleetTests {
    /// What `fleet.py` saw.
    struct Seen: Decodable {
        var fleetBefore: String
        var announced: String
        var queuedState: String
        var laterState: String
        var workerSeen: [String]
        var downloadedState: String
        var fleetAfter: String
        var errors: [String]
    }

    @Test("the chooser's Queue it for the fleet, which says no worker runs, leaves the download waiting, not run by the daemon; a worker started on the same library downloads it, the library's row naming the worker, the stream reads Downloaded, and the next chooser names the worker")
    func queuedForTheFleet() async throws {
        let python = try requireBrowserPython()
        try await withTemporaryDirectory { folder in
            // A slow link (30 kB/s a connection), so that the worker is seen downloading.
            let link = LinkProfile(latency: .milliseconds(30), bandwidth: 30_000)
            try await Origin(root: sampleMedia.path, profile: link).withRunning { origin in
                let catalog = folder.appendingPathComponent("streams.json")
                try Data(#"[{"name": "Sample", "playlist_url": "\#(origin.baseURL)/fmp4/main.m3u8"}, {"name": "Other", "playlist_url": "\#(origin.baseURL)/ts/main.m3u8"}]"#.utf8).write(to: catalog)
                let library = folder.appendingPathComponent("library").path
                let server = try RunningProcess(carryon: ["serve", "--catalog", catalog.path, "--library", library])
                defer { server.kill(SIGTERM) }
                var serverLines = server.lines.makeAsyncIterator()
                let base = try #require(await serverLines.next(), "serve prints its base URL first")
                let started = folder.appendingPathComponent("worker-started")
                let browser = try RunningProcess(python, [packageRoot.appendingPathComponent("Tests/Browser/fleet.py").path, base, "Sample", "Other", started.path])
                defer { browser.kill() }
                var lines = browser.lines.makeAsyncIterator()
                guard await lines.next() == "queued" else {
                    _ = await browser.wait()
                    throw TestSupportError("queueing in the web app failed: \(browser.standardError.suffix(4000))")
                }
                let worker = try RunningProcess(carryon: ["worker", "--allow-private-origins", "--name", "w1", "--library", library])
                try Data().write(to: started)
                let output = await lines.next() ?? ""
                let status = await browser.wait()
                worker.kill(SIGTERM)
                #expect(await worker.wait() == 0, "\(worker.standardError)")
                guard status == 0 else {
                    throw TestSupportError("the fleet's download in the web app failed (fleet.py status \(status)): \(browser.standardError.suffix(4000))")
                }
                let seen = try JSONDecoder().decode(Seen.self, from: Data(output.utf8))
                #expect(seen.errors.isEmpty, "\(seen.errors)")
                #expect(seen.fleetBefore == "No worker runs now: a download queued for the fleet waits until one starts.", "\(seen.fleetBefore)")
                #expect(seen.announced == "Queued Sample for the fleet's workers", "\(seen.announced)")
                #expect(seen.queuedState == "Waiting" && seen.laterState == "Waiting", "the daemon does not run it: \(seen.queuedState), 3 s later \(seen.laterState)")
                #expect(seen.workerSeen.contains { $0.hasPrefix("by w1 (pid \(worker.pid)") }, "the row named the worker: \(seen.workerSeen)")
                #expect(seen.downloadedState.hasPrefix("Downloaded · "), "\(seen.downloadedState)")
                #expect(seen.fleetAfter.hasPrefix("1 worker runs now: w1 (pid \(worker.pid) on "), "the chooser named the worker: \(seen.fleetAfter)")
            }
        }
    }
}
