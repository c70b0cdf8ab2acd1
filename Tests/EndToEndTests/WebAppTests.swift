import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// The daemon's web app in a real browser: `carryon serve --catalog`, Debian's Chromium driven by
/// Playwright (`Tests/Browser/webapp.py`) doing what a person does — Download, watch the
/// progress, Play, Verify and Repair, Delete — under the page's own Content-Security-Policy.
@Suite("The web app in Chromium", .heavy)
struct WebAppTests {
    /// What `webapp.py` saw.
    struct Journey: Decodable {
        var errors: [String]
        var csp: String?
        var initialState: String
        var choices: [String]
        var rangeRefusal: String
        var assetsAfterRefusal: Int
        var progressSeen: [Double]
        var downloadedState: String
        var currentTime: Double
        var frames: Int
        var kpis: String
        var unlabelled: [String]
        var tabStops: [String]
        var deletedState: String
        var phoneOverflow: Int
        var verifiedIntact: String
        var damageTitle: String
        var damageLines: [String]
        var repairedIdentical: Bool
        var verifiedAfterRepair: String
    }

    @Test("a catalog stream is downloaded with its Download button, its progress seen to completion, played with Play past 3 s, verified, damaged and repaired, and deleted with Delete")
    func journey() async throws {
        let python = try requireBrowserPython()
        try await withTemporaryDirectory { folder in
            // A link slow enough (30 kB/s a connection: about 6 s for the stream) that the progress
            // shows on the way, also to a browser the loaded machine keeps waiting.
            let link = LinkProfile(latency: .milliseconds(30), bandwidth: 30_000)
            try await Origin(root: sampleMedia.path, profile: link).withRunning { origin in
                let catalog = folder.appendingPathComponent("streams.json")
                try Data(#"[{"name": "Sample", "playlist_url": "\#(origin.baseURL)/fmp4/main.m3u8"}, {"name": "Other", "playlist_url": "\#(origin.baseURL)/ts/main.m3u8"}]"#.utf8)
                    .write(to: catalog)
                let server = try RunningProcess(carryon: ["serve", "--catalog", catalog.path, "--library", folder.appendingPathComponent("library").path])
                defer { server.kill(SIGTERM) }
                var lines = server.lines.makeAsyncIterator()
                let base = try #require(await lines.next(), "serve prints its base URL first")
                // CARRYON_SCREENSHOTS=Documentation keeps the pictures the README shows.
                let shots = ProcessInfo.processInfo.environment["CARRYON_SCREENSHOTS"].map { URL(fileURLWithPath: $0) }
                    ?? folder.appendingPathComponent("screenshots")
                let result = try await run(python, [packageRoot.appendingPathComponent("Tests/Browser/webapp.py").path, base, "Sample", shots.path])
                guard result.status == 0 else {
                    throw TestSupportError("the web app journey failed (webapp.py status \(result.status)): \(result.standardError.suffix(4000))")
                }
                let journey = try JSONDecoder().decode(Journey.self, from: Data(result.standardOutput.utf8))

                #expect(journey.errors.isEmpty, "the page ran without an error, its policy kept: \(journey.errors)")
                #expect(journey.csp?.contains("script-src 'self'") == true && journey.csp?.contains("default-src 'none'") == true)
                #expect(journey.initialState == "Not downloaded")
                #expect(journey.choices.contains { $0.hasPrefix("Best quality: 640x360") } && journey.choices.contains { $0.hasPrefix("Fast download: 320x180") },
                        "the chooser offers WWDC's presets: \(journey.choices)")
                #expect(journey.choices.contains { $0.hasPrefix("Deutsch (de) · ~") && $0.hasSuffix("kB") }, "each language with its size: \(journey.choices)")
                #expect(journey.rangeRefusal == #"From "1:75" is not a time such as 90, 1:30 or 1:02:03.5"# && journey.assetsAfterRefusal == 0,
                        "a part typed wrong is refused before anything starts: \(journey.rangeRefusal)")
                let between = journey.progressSeen.filter { $0 > 0.05 && $0 < 0.95 }
                #expect(between.count >= 2 && journey.progressSeen.allSatisfy { (0...1).contains($0) },
                        "the bar moved on the way (then the stream reads Downloaded): \(journey.progressSeen)")
                #expect(journey.downloadedState.hasPrefix("Downloaded · "), "\(journey.downloadedState)")
                #expect(journey.currentTime > 3 && journey.frames > 0, "played past 3 s: \(journey.currentTime) s, \(journey.frames) frames")
                #expect(journey.kpis.contains("Startup time") && journey.kpis.contains("Indicated bitrate\n455 kbit/s"), "\(journey.kpis)")
                #expect(journey.verifiedIntact.hasPrefix("Sample is intact: "), "\(journey.verifiedIntact)")
                #expect(journey.damageTitle == "Sample: 1 damaged" && journey.damageLines.count == 1
                        && journey.damageLines.first?.hasPrefix("altered: ") == true, "\(journey.damageTitle) \(journey.damageLines)")
                #expect(journey.repairedIdentical, "Repair put the segment back as the origin has it")
                #expect(journey.verifiedAfterRepair.hasPrefix("Sample is intact: "), "\(journey.verifiedAfterRepair)")
                #expect(journey.deletedState == "Not downloaded")
                #expect(journey.unlabelled.isEmpty, "every control is labelled: \(journey.unlabelled)")
                #expect(journey.tabStops.contains("Play Sample") && journey.tabStops.contains("Delete Sample"),
                        "the keyboard reaches the buttons: \(journey.tabStops)")
                #expect(journey.phoneOverflow <= 0, "no sideways scrolling at a phone's width: \(journey.phoneOverflow) px")
                for picture in ["webapp.png", "webapp-downloading.png", "webapp-phone.png"] {
                    #expect(FileManager.default.fileExists(atPath: shots.appendingPathComponent(picture).path), "\(picture)")
                }
            }
        }
    }
}
