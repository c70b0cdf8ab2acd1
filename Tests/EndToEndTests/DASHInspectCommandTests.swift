import CarryonTestSupport
import Foundation
import Testing

/// `carryon inspect` on an MPD: the JSON shape README.md gives, and the text form.
@Suite("carryon inspect on MPEG-DASH", .heavy)
struct DASHInspectCommandTests {
    @Test("inspect --json prints type dash, the Periods, AdaptationSets and Representations with their addressing and segment counts")
    func json() async throws {
        let result = try await runCarryon(["inspect", dashSampleMedia.appendingPathComponent("timeline/main.mpd").path, "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(report["type"] as? String == "dash" && report["presentation"] as? String == "static")
        #expect(report["duration"] as? Double == 8)
        let periods = try #require(report["periods"] as? [[String: Any]])
        let sets = try #require(periods.first?["adaptationSets"] as? [[String: Any]])
        #expect(sets.map { $0["contentType"] as? String } == ["video", "audio", "audio", "text"])
        let video = try #require(sets[0]["representations"] as? [[String: Any]])
        #expect(video.map { $0["width"] as? Int } == [192, 320])
        #expect(video.map { $0["addressing"] as? String } == ["timeline", "timeline"])
        #expect(video.map { $0["segmentCount"] as? Int } == [4, 4])
        let text = try #require(sets[3]["representations"] as? [[String: Any]])
        #expect(text.first?["addressing"] as? String == "url")
    }

    @Test("inspect of a SegmentBase MPD names the addressing and leaves the count to the index")
    func text() async throws {
        let result = try await runCarryon(["inspect", dashSampleMedia.appendingPathComponent("base/main.mpd").path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("MPEG-DASH, static, 8 s"))
        #expect(result.standardOutput.contains("1  120 kb/s  320x180  avc1.4d400c  base\n"), "\(result.standardOutput)")
    }

    @Test("inspect --sizes: exact for SegmentBase (the sidx read, no media), the bytes a download takes; estimated from @bandwidth for a template")
    func sizes() async throws {
        let base = try await runCarryon(["inspect", dashSampleMedia.appendingPathComponent("base/main.mpd").path, "--sizes", "--json"])
        #expect(base.status == 0, "\(base.standardError)")
        let size = try #require(try Self.representations(base.standardOutput).first { $0["id"] as? String == "1" }?["size"] as? [String: Any])
        // What a download keeps of stream1.mp4: every top-level box but the index and the trailing mfra.
        let file = try Data(contentsOf: dashSampleMedia.appendingPathComponent("base/stream1.mp4"))
        var kept = 0, position = 0
        while position + 8 <= file.count {
            let length = file[position..<position + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: file[position + 4..<position + 8], as: UTF8.self)
            if type != "sidx" && type != "mfra" { kept += length }
            position += length
        }
        #expect(size["estimatedBytes"] as? Int == kept && size["exact"] as? Bool == true, "\(size)")

        let number = try await runCarryon(["inspect", dashSampleMedia.appendingPathComponent("number/main.mpd").path, "--sizes"])
        #expect(number.status == 0, "\(number.standardError)")
        #expect(number.standardOutput.contains("1  120 kb/s  320x180  avc1.4d400c  template, 4 segments  size ~120 KB\n"), "\(number.standardOutput)")
    }

    /// Every Representation of an `inspect --json` report, in order.
    static func representations(_ json: String) throws -> [[String: Any]] {
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let periods = try #require(report["periods"] as? [[String: Any]])
        return periods.flatMap { ($0["adaptationSets"] as? [[String: Any]] ?? []).flatMap { $0["representations"] as? [[String: Any]] ?? [] } }
    }

    @Test("an MPD whose DOCTYPE declares an external entity is refused, naming why, and nothing of the named file is read or shown")
    func externalEntity() async throws {
        try await withTemporaryDirectory { folder in
            let secret = folder.appendingPathComponent("secret.txt")
            try "root:x:0:0:root:/root:/bin/bash\n".write(to: secret, atomically: true, encoding: .utf8)
            let mpd = folder.appendingPathComponent("evil.mpd")
            try """
                <?xml version="1.0"?>
                <!DOCTYPE MPD [<!ENTITY leak SYSTEM "file://\(secret.path)">]>
                <MPD type="static"><BaseURL>&leak;</BaseURL></MPD>
                """.write(to: mpd, atomically: true, encoding: .utf8)
            for arguments in [["inspect", mpd.path], ["download", mpd.path, "--library", folder.appendingPathComponent("library").path]] {
                let result = try await runCarryon(arguments)
                #expect(result.status == 1, "\(arguments[0]): \(result.standardOutput)")
                #expect(result.standardError.contains("line 2: the document's DOCTYPE declares entities"), "\(result.standardError)")
                #expect(!result.standardError.contains("root:") && !result.standardOutput.contains("root:"))
            }
        }
    }
}
