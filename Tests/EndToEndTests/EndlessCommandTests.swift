import CarryonTestSupport
import Foundation
import Testing

/// A segment served chunked, without a length, for ever, as a user meets it: the library's
/// quota stops the download the moment it would pass (not at a full disk), the download is
/// suspended with the sizes named and exit 1, and after a larger quota `carryon resume`
/// continues from the bytes kept.
@Suite("carryon against a response that never ends", .heavy)
struct EndlessCommandTests {
    @Test("an endless segment stops at a 20 MiB quota, suspended; a larger quota and resume finish it from the bytes kept")
    func quotaStopsEndlessSegment() async throws {
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning { origin in
                // 8 Mbit/s: a 4-second segment is expected at about 4 MB and may grow to 64 MB,
                // so the quota is what stops it.
                origin.answer("/main.m3u8", with: .body(Array("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=8000000\nmedia.m3u8\n".utf8)))
                origin.answer("/media.m3u8", with: .body(Array("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns1.ts\n#EXT-X-ENDLIST\n".utf8)))
                origin.answer("/s1.ts", with: .endless(chunk: 64 << 10))
                let library = ["--library", folder.path]
                let quota = try await runCarryon(["storage", "--quota", "20M"] + library)
                #expect(quota.status == 0, "\(quota.standardError)")

                let download = try await runCarryon(["download", origin.baseURL + "/main.m3u8"] + library)
                #expect(download.status == 1, "\(download.standardError)")
                #expect(download.standardError.contains("suspended: ") && download.standardError.contains("/s1.ts")
                        && download.standardError.contains("would pass the library's quota")
                        && download.standardError.contains("of its 20971520"), "\(download.standardError)")
                #expect(download.standardError.contains("carryon resume"), "the hint says how to continue: \(download.standardError)")
                #expect(!download.standardError.contains("99%"), "no share claimed of a size the bytes left behind: \(download.standardError)")
                let bundles = try Self.bundleBytes(in: folder)
                // 20M is 20 MiB; the index beside the bundles is not the bundles' space.
                #expect(bundles <= 20 << 20 && bundles > 19 << 20, "the library stays under its quota: \(bundles) bytes")
                let kept = try Self.files(in: folder).filter { $0.path.hasSuffix(".ts.part") }.reduce(0) { $0 + $1.bytes }
                #expect(kept > 19_000_000, "the segment's bytes are kept: \(kept)")
                let list = try await runCarryon(["list", "--json"] + library)
                #expect(list.standardOutput.contains("\"suspended\""), "\(list.standardOutput)")

                // The server now ends the segment; a larger quota lets it finish from the bytes kept.
                let body = [UInt8](repeating: 0x47, count: 21_000_000)
                origin.answer("/s1.ts", with: .body(body))
                _ = try await runCarryon(["storage", "--quota", "100M"] + library)
                let resume = try await runCarryon(["resume"] + library)
                #expect(resume.status == 0, "\(resume.standardError)")
                let lastHead = try #require(origin.requestHeads.last { $0.hasPrefix("GET /s1.ts ") })
                #expect(lastHead.lowercased().contains("range: bytes=\(kept)-"), "resumed from the \(kept) bytes kept: \(lastHead)")
                let segment = try #require(FileManager.default.enumerator(atPath: folder.path)?
                    .compactMap { $0 as? String }.first { $0.hasSuffix("00001.ts") })
                #expect(try Data(contentsOf: folder.appendingPathComponent(segment)) == Data(body))
            }
        }
    }

    /// The bytes of every file in the library's bundles (the folders beside its index).
    static func bundleBytes(in library: URL) throws -> Int {
        try files(in: library).reduce(0) { $0 + $1.bytes }
    }

    /// Every regular file in the library's bundles, with its size.
    static func files(in library: URL) throws -> [(path: String, bytes: Int)] {
        var files: [(String, Int)] = []
        for bundle in try FileManager.default.contentsOfDirectory(at: library, includingPropertiesForKeys: [.isDirectoryKey])
        where (try bundle.resourceValues(forKeys: [.isDirectoryKey])).isDirectory == true {
            for case let path as String in FileManager.default.enumerator(atPath: bundle.path) ?? .init() {
                let attributes = try FileManager.default.attributesOfItem(atPath: bundle.appendingPathComponent(path).path)
                if attributes[.type] as? FileAttributeType == .typeRegular {
                    files.append((path, (attributes[.size] as? Int) ?? 0))
                }
            }
        }
        return files
    }
}
