import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// `carryon inspect --sizes`: what a download will weigh, before it starts.
@Suite("carryon inspect --sizes", .heavy)
struct InspectSizesTests {
    func sizes(_ path: String) async throws -> [String: Any] {
        let output = try await Origin(root: sampleMedia.path).withRunning { origin in
            let result = try await runCarryon(["inspect", origin.baseURL + path, "--sizes", "--json"])
            #expect(result.status == 0, "\(result.standardError)")
            return result.standardOutput
        }
        return try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
    }

    @Test("byte-range variants and renditions get exact sizes: the bytes of their files")
    func exact() async throws {
        let report = try await sizes("/byterange/main.m3u8")
        let variants = try #require(report["variants"] as? [[String: Any]])
        let top = try #require(variants.last?["size"] as? [String: Any])
        #expect(top["exact"] as? Bool == true)
        let file = try FileManager.default.attributesOfItem(atPath: sampleMedia.appendingPathComponent("byterange/360p/media.ts").path)
        #expect(top["estimatedBytes"] as? Int == (file[.size] as? Int))
        let renditions = try #require(report["renditions"] as? [[String: Any]])
        let audio = try #require(renditions.first?["size"] as? [String: Any])
        #expect(audio["exact"] as? Bool == true)
    }

    @Test("segments of unknown length get an estimate from the bandwidth, marked inexact")
    func estimated() async throws {
        let report = try await sizes("/ts/main.m3u8")
        let variants = try #require(report["variants"] as? [[String: Any]])
        let size = try #require(variants.first?["size"] as? [String: Any])
        #expect(size["exact"] as? Bool == false)
        let duration = try #require(size["duration"] as? Double)
        let bandwidth = try #require(variants.first?["averageBandwidth"] as? Int)
        // Each segment's share is rounded down on its own: within a byte per segment.
        #expect(abs((size["estimatedBytes"] as? Int ?? 0) - Int(Double(bandwidth) * duration / 8)) <= 3)
    }

    /// A multivariant playlist with one variant and `count` audio renditions of one group, each
    /// URI made distinct by a query, over the sample's 360p and English audio media.
    func manyRenditions(_ count: Int, in folder: URL) throws {
        for name in ["360p", "audio_en"] {
            try FileManager.default.copyItem(at: sampleMedia.appendingPathComponent("fmp4/\(name)"),
                                              to: folder.appendingPathComponent(name))
        }
        var playlist = "#EXTM3U\n#EXT-X-VERSION:6\n"
        for index in 1...count {
            playlist += "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\",NAME=\"A\(index)\",LANGUAGE=\"en\",URI=\"audio_en/index.m3u8?\(index)\"\n"
        }
        playlist += "#EXT-X-STREAM-INF:BANDWIDTH=1100000,RESOLUTION=640x360,AUDIO=\"aud\"\n360p/index.m3u8\n"
        try folder.write(playlist, to: "main.m3u8")
    }

    /// The release binary crashed here 9 runs in 10 (a task group's children returned tuples
    /// built around a `try await`, which Swift 6.3's optimizer miscompiles); CI runs this suite
    /// against the release binary. Each case runs a few times: the crash was a race.
    @Test("every one of 4 or 32 renditions in one group gets a size", arguments: [4, 32])
    func manyRenditionsInOneGroup(count: Int) async throws {
        try await withTemporaryDirectory { folder in
            try manyRenditions(count, in: folder)
            let audioBytes = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("audio_en").path)
                .filter { $0.hasSuffix(".m4s") || $0.hasSuffix(".mp4") }
                .reduce(0) { total, name in
                    let attributes = try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("audio_en/\(name)").path)
                    return total + ((attributes?[.size] as? Int) ?? 0)
                }
            try await Origin(root: folder.path).withRunning { origin in
                for _ in 1...3 {
                    let result = try await runCarryon(["inspect", origin.baseURL + "/main.m3u8", "--sizes", "--json"])
                    #expect(result.status == 0, "exit \(result.status): \(result.standardError)")
                    let report = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
                    let renditions = try #require(report["renditions"] as? [[String: Any]])
                    #expect(renditions.count == count)
                    for rendition in renditions {
                        let size = try #require(rendition["size"] as? [String: Any], "no size for \(rendition["name"] ?? "?")")
                        let bytes = try #require(size["estimatedBytes"] as? Int)
                        // Estimated from 2 channels' bitrate, not read from the files: the
                        // same order of magnitude as the media on disk.
                        #expect(bytes > audioBytes / 4 && bytes < audioBytes * 4, "\(bytes) vs \(audioBytes) on disk")
                    }
                    let variants = try #require(report["variants"] as? [[String: Any]])
                    #expect(variants.first?["size"] as? [String: Any] != nil)
                }
            }
        }
    }
}
