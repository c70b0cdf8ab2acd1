@testable import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// Issue 39: the sizes on disk that a listing keeps in each asset's row of the index (its
/// figures, see `AssetFigures`) equal a walk of the bundles after every command that changes
/// them — a download, `add`, a download suspended mid-way, a kill -9 and `resume`, `delete`
/// and `purge` — each run as the real `carryon` binary.
///
/// After each step, before anything lists the library, figures a row holds as current must
/// already be the bundle's: a change to a bundle that the index did not count leaves them
/// current and wrong, and listings would show them until the next counted change. Then
/// `carryon list --json` shows each bundle's walk, and keeps figures that are current again
/// (for every asset no process owns), so the next step starts from current figures.
@Suite("Sizes on disk kept in the index equal a walk of the bundles after every command", .heavy)
struct ListingFiguresTests {
    /// The suite whose origin and processes this one reuses.
    typealias Commands = OwnershipCommandTests

    /// The bytes of asset `id`'s bundle by top-level folder or file, as a walk finds them now
    /// (files whose name starts with "." left out, as a listing leaves them out).
    static func walk(_ library: OfflineLibrary, _ id: String) -> [String: Int] {
        BundleFiles.usage(of: library.bundleURL(for: id)).filter { !$0.key.hasPrefix(".") }
    }

    /// Checks the invariant after `step`, for every asset in `library`:
    ///  (a) before anything lists: a row's current figures are its bundle's walk, and the
    ///      assets in `untouched` (which the step left alone) still have current figures;
    ///  (b) `carryon list --json` shows each bundle's walk, and after it every row no process
    ///      owns holds current figures equal to the walk.
    /// Returns the listing.
    @discardableResult
    static func check(_ step: String, _ library: OfflineLibrary, untouched: [String] = [],
                      sourceLocation: SourceLocation = #_sourceLocation) async throws -> [AssetSnapshot] {
        let ids = try await library.index.assetStates().map(\.id)
        for id in untouched {
            #expect(ids.contains(id), "\(step): \(id) is gone", sourceLocation: sourceLocation)
        }
        // (a) The rows as the step left them.
        for id in ids {
            let record = try #require(try await library.index.asset(id), sourceLocation: sourceLocation)
            if untouched.contains(id) {
                #expect(record.figuresAreCurrent, "\(step): the figures of \(id), which the step left alone, are not current (\(record.figuresOf.map(String.init) ?? "none") of \(record.changes) changes)",
                        sourceLocation: sourceLocation)
            }
            guard record.figuresAreCurrent else { continue }
            let stored = try #require(record.figures.flatMap(AssetFigures.decoded), "\(step): \(id)'s figures cannot be read", sourceLocation: sourceLocation)
            let walked = walk(library, id)
            #expect(stored.bytesByRendition == walked,
                    "\(step), before listing: \(id)'s figures are current (at \(record.changes) changes) but not its bundle's — stored \(stored.bytesByRendition.sorted { $0.key < $1.key }), walked \(walked.sorted { $0.key < $1.key })",
                    sourceLocation: sourceLocation)
        }
        // (b) A listing, by another process, shows the walks and keeps what it computed.
        let listed = try await runCarryon(["list", "--json", "--library", library.root.path])
        #expect(listed.status == 0, "\(step): list: \(listed.standardError)", sourceLocation: sourceLocation)
        let assets = try JSONDecoder.iso8601.decode([AssetSnapshot].self, from: Data(listed.standardOutput.utf8))
        #expect(Set(assets.map(\.id)) == Set(ids), "\(step): listed \(assets.map(\.id)), the index has \(ids)", sourceLocation: sourceLocation)
        let ownerships = try await library.index.ownerships(library.ownershipContext())
        for asset in assets {
            let walked = walk(library, asset.id)
            #expect(asset.bytesByRendition == walked && asset.bytesOnDisk == walked.values.reduce(0, +),
                    "\(step): list shows \(asset.id) with \(asset.bytesOnDisk) bytes \(asset.bytesByRendition.sorted { $0.key < $1.key }), walked \(walked.sorted { $0.key < $1.key })",
                    sourceLocation: sourceLocation)
            let record = try #require(try await library.index.asset(asset.id), sourceLocation: sourceLocation)
            let owner = ownerships[asset.id]?.row.owner
            if owner == nil {
                #expect(record.figuresAreCurrent, "\(step): the listing did not keep \(asset.id)'s figures (\(record.figuresOf.map(String.init) ?? "none") of \(record.changes) changes)",
                        sourceLocation: sourceLocation)
            }
            guard record.figuresAreCurrent else { continue }
            let stored = try #require(record.figures.flatMap(AssetFigures.decoded), sourceLocation: sourceLocation)
            #expect(stored.bytesByRendition == walked && record.bytesOnDisk == walked.values.reduce(0, +),
                    "\(step), after listing: \(asset.id) keeps \(record.bytesOnDisk ?? -1) bytes \(stored.bytesByRendition.sorted { $0.key < $1.key }), walked \(walked.sorted { $0.key < $1.key })",
                    sourceLocation: sourceLocation)
        }
        return assets
    }

    /// The whole media segments (not playlists, not partial files) in asset `id`'s bundle,
    /// outside its hidden folders.
    static func mediaFiles(_ library: OfflineLibrary, _ id: String) -> [String] {
        let paths = (try? FileManager.default.subpathsOfDirectory(atPath: library.bundleURL(for: id).path)) ?? []
        return paths.filter { $0.hasSuffix(".ts") && !$0.hasPrefix(".") }
    }

    @Test("the bytes on disk each row keeps equal a walk of its bundle, and list shows the walk, after a download, add, a download suspended mid-way, kill -9 and resume, delete and purge")
    func figuresFollowEveryCommand() async throws {
        // A slow origin for the downloads stopped mid-way (about 7 s each at 10 KB/s a
        // connection: the short last audio segment whole within a second, the others after 4 to
        // 7 s), a fast one on the same files for the others.
        try await Commands.withOrigin(copies: 3, bandwidth: 10_000) { slow, folder in
            let originRoot = folder.deletingLastPathComponent().appendingPathComponent("origin")
            try await Origin(root: originRoot.path).withRunning { fast in
                let path = folder.path
                func listed(_ assets: [AssetSnapshot], _ id: String) throws -> AssetSnapshot {
                    try #require(assets.first { $0.id == id }, "\(id) is not listed")
                }

                // 1. A complete download.
                let download = try await runCarryon(["download", fast.baseURL + "/s0/main.m3u8", "--library", path] + Commands.small)
                #expect(download.status == 0, "\(download.standardError)")
                let first = try #require(download.standardOutput.split(separator: "\n").last.map(String.init))
                let library = try OfflineLibrary(root: folder)
                var assets = try await Self.check("download", library)
                let downloaded = try listed(assets, first)
                #expect(downloaded.state == .completed && downloaded.progress.fraction == 1, "\(downloaded.state)")
                #expect(downloaded.bytesOnDisk > 200_000, "\(downloaded.bytesByRendition)")

                // 2. `add` of a second audio language, downloaded to the end.
                let add = try await runCarryon(["add", first, "--audio", "de", "--library", path])
                #expect(add.status == 0, "\(add.standardError)")
                assets = try await Self.check("add", library)
                let added = try listed(assets, first)
                #expect(added.state == .completed)
                #expect(added.bytesOnDisk > downloaded.bytesOnDisk + 100_000, "\(downloaded.bytesByRendition) then \(added.bytesByRendition)")
                #expect(Set(added.bytesByRendition.keys).subtracting(downloaded.bytesByRendition.keys).count == 1,
                        "one rendition folder more: \(downloaded.bytesByRendition.keys.sorted()) then \(added.bytesByRendition.keys.sorted())")

                // 3. A download suspended mid-way, from another process.
                let (running, second) = try await Commands.downloadUnderWay([slow.baseURL + "/s1/main.m3u8", "--library", path] + Commands.small, past: 0)
                // Stopped once a segment is whole on disk, the others partial files beside it.
                for _ in 0..<500 where Self.mediaFiles(library, second).isEmpty { try await Task.sleep(for: .milliseconds(20)) }
                let suspend = try await runCarryon(["suspend", second, "--library", path])
                #expect(suspend.status == 0, "\(suspend.standardError)")
                #expect(await running.wait() == 0, "\(running.standardError)")
                assets = try await Self.check("a download suspended mid-way", library, untouched: [first])
                let partial = try listed(assets, second)
                #expect(partial.state == .suspended && partial.progress.fraction > 0 && partial.progress.fraction < 1,
                        "\(partial.state) at \(partial.progress.fraction)")
                #expect(!Self.mediaFiles(library, second).isEmpty, "no segment on disk")

                // 4. kill -9 mid-way: the dead owner's row may keep no figures until it is resumed,
                // but what is current is the bundle's. Then `resume` to the end.
                let (killed, third) = try await Commands.downloadUnderWay([slow.baseURL + "/s2/main.m3u8", "--library", path] + Commands.small, past: 0.3)
                killed.kill(SIGKILL)
                #expect(await killed.wait() == 128 + SIGKILL)
                assets = try await Self.check("kill -9 mid-way", library, untouched: [first, second])
                let crashed = try listed(assets, third)
                #expect(crashed.state == .suspended && crashed.progress.fraction < 1, "\(crashed.state) at \(crashed.progress.fraction)")
                let resume = try await runCarryon(["resume", third, "--library", path])
                #expect(resume.status == 0, "\(resume.standardError)")
                assets = try await Self.check("resume after kill -9", library, untouched: [first, second])
                #expect(try listed(assets, third).state == .completed)
                try Commands.expectIdentical(third, library: folder, origin: slow, root: originRoot)

                // 5. `delete` of the suspended one: its row and bundle gone, the others as they were.
                let delete = try await runCarryon(["delete", second, "--library", path])
                #expect(delete.status == 0, "\(delete.standardError)")
                assets = try await Self.check("delete", library, untouched: [first, third])
                #expect(assets.map(\.id) == [first, third])
                #expect(!FileManager.default.fileExists(atPath: library.bundleURL(for: second).path))

                // 6. `purge` of the first, expired by `policy`.
                let policy = try await runCarryon(["policy", first, "--expires", "0s", "--library", path])
                #expect(policy.status == 0, "\(policy.standardError)")
                try await Self.check("policy", library, untouched: [first, third])
                let purge = try await runCarryon(["purge", "--library", path])
                #expect(purge.status == 0 && purge.standardOutput.contains("removed  \(first)"), "\(purge.standardOutput) \(purge.standardError)")
                assets = try await Self.check("purge", library, untouched: [third])
                #expect(assets.map(\.id) == [third])
                #expect(!FileManager.default.fileExists(atPath: library.bundleURL(for: first).path))
                #expect(try listed(assets, third).bytesOnDisk == Self.walk(library, third).values.reduce(0, +))
            }
        }
    }
}
