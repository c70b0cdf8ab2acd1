import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// `carryon inspect --sizes`: what a download will weigh, before it starts.
@Suite("carryon inspect --sizes")
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
}
