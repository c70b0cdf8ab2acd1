@testable import Carryon
import CarryonIndexTestSupport
import CarryonTestSupport
import Foundation
import Testing

/// Where the library lives when the user does not say: `$CARRYON_HOME`, else the XDG data
/// folder, else `~/.local/share/carryon`.
@Suite("Finding the library folder")
struct OfflineLibraryTests {
    @Test("CARRYON_HOME is the library folder itself")
    func carryonHome() {
        let root = OfflineLibrary.defaultRoot(environment: ["CARRYON_HOME": "/srv/media", "XDG_DATA_HOME": "/x", "HOME": "/home/u"])
        #expect(root.path == "/srv/media")
    }

    @Test("without CARRYON_HOME, the library is carryon in XDG_DATA_HOME")
    func xdgDataHome() {
        let root = OfflineLibrary.defaultRoot(environment: ["XDG_DATA_HOME": "/home/u/data", "HOME": "/home/u"])
        #expect(root.path == "/home/u/data/carryon")
    }

    @Test("without either, the library is ~/.local/share/carryon")
    func homeFallback() {
        #expect(OfflineLibrary.defaultRoot(environment: ["HOME": "/home/u"]).path == "/home/u/.local/share/carryon")
    }

    @Test("empty variables are as if they were not set")
    func emptyVariables() {
        let root = OfflineLibrary.defaultRoot(environment: ["CARRYON_HOME": "", "XDG_DATA_HOME": "", "HOME": "/home/u"])
        #expect(root.path == "/home/u/.local/share/carryon")
    }

    @Test("a relative XDG_DATA_HOME is ignored, as the XDG Base Directory specification asks")
    func relativeXDGDataHome() {
        let root = OfflineLibrary.defaultRoot(environment: ["XDG_DATA_HOME": "data", "HOME": "/home/u"])
        #expect(root.path == "/home/u/.local/share/carryon")
    }

    @Test("the library's folders and index are created when it is opened")
    func opening() async throws {
        try await withTemporaryDirectory { folder in
            let root = folder.appendingPathComponent("a/b/library")
            let library = try OfflineLibrary(testingAt: root)
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("bundles").path))
            // The index is in the folder, unless it is a PostgreSQL database.
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("index.sqlite").path) == !TestIndex.isPostgres)
            #expect(library.bundleURL(for: "abc").path == root.appendingPathComponent("bundles/abc").path)
        }
    }
}

/// The manifest's JSON, written a file at a time, reads back as what was written.
@Suite("The bundle manifest")
struct BundleManifestTests {
    @Test("a manifest with files encodes to JSON that decodes to the same manifest, a file a line", arguments: [0, 1, 3, 500])
    func roundTrip(count: Int) throws {
        let manifest = BundleManifest(
            id: "abc", name: "A \"quoted\" name / with slash", url: "https://cdn.example/x.m3u8", state: .completed,
            playlist: "main.m3u8", duration: 12.5, createdAt: Date(timeIntervalSince1970: 1_800_000_000), completedAt: nil,
            variant: nil, renditions: [.init(key: "video", type: "VIDEO", name: "v", language: nil, playlist: "video/index.m3u8",
                                             uri: "https://cdn.example/v.m3u8", duration: 12.5)],
            files: (0..<count).map { .init(path: "video/\($0).ts", bytes: $0 * 1_000, uri: "https://cdn.example/\($0).ts?a=\"b\"") })
        let data = try manifest.encoded()
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(BundleManifest.self, from: data) == manifest)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("    {\"bytes\"") }.count == count)
    }
}
