import CarryonTestSupport
import Foundation
import Testing

/// `--stall-timeout` as a user meets it: no command waits for ever on a server that stops
/// sending. A stalled download ends suspended, exit 1, naming the resource and the stall, and
/// `carryon resume` finishes it once the server answers.
@Suite("carryon against a server that stalls", .heavy)
struct StallCommandTests {
    static let body = (0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 13) }

    @Test("inspect ends with a stall error for a playlist that never answers or trickles")
    func inspectStalls() async throws {
        try await HostileOrigin.withRunning { origin in
            origin.answer("/silent.m3u8", with: .silent)
            origin.answer("/trickle.m3u8", with: .trickle([UInt8](repeating: 0x23, count: 1000), every: .milliseconds(200)))
            for (path, stall) in [("/silent.m3u8", "nothing arrived for 2 s"), ("/trickle.m3u8", "slower than 1 KB/s")] {
                let result = try await runCarryon(["inspect", origin.baseURL + path, "--stall-timeout", "2"])
                #expect(result.status == 1, "\(result.standardError)")
                #expect(result.standardError.contains(path) && result.standardError.contains(stall), "\(result.standardError)")
                #expect(result.standardError.contains("hint: "), "\(result.standardError)")
            }
        }
    }

    @Test("a download whose segment stalls is suspended with exit 1; resume completes it from the bytes kept")
    func downloadStallsThenResumes() async throws {
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning { origin in
                origin.answer("/media.m3u8", with: .body([UInt8]("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns1.ts\n#EXTINF:4,\ns2.ts\n#EXT-X-ENDLIST\n".utf8)))
                origin.answer("/s1.ts", with: .body(Self.body))
                origin.answer("/s2.ts", with: .stall(sent: Array(Self.body.prefix(1000)), length: Self.body.count))
                let library = ["--library", folder.path]
                let download = try await runCarryon(["download", origin.baseURL + "/media.m3u8", "--stall-timeout", "2"] + library)
                #expect(download.status == 1, "\(download.standardError)")
                #expect(download.standardError.contains("suspended") && download.standardError.contains("/s2.ts")
                        && download.standardError.contains("stalled: "), "\(download.standardError)")
                #expect(download.standardError.contains("carryon resume"), "the hint says how to continue: \(download.standardError)")
                let list = try await runCarryon(["list", "--json"] + library)
                #expect(list.standardOutput.contains("\"suspended\""), "\(list.standardOutput)")

                origin.answer("/s2.ts", with: .body(Self.body))
                let resume = try await runCarryon(["resume", "--stall-timeout", "2"] + library)
                #expect(resume.status == 0, "\(resume.standardError)")
                let lastHead = try #require(origin.requestHeads.last { $0.hasPrefix("GET /s2.ts ") })
                #expect(lastHead.lowercased().contains("range: bytes=1000-"), "resumed from the bytes kept: \(lastHead)")
            }
        }
    }

    @Test("a process stopped for longer than the stall timeout (SIGSTOP, then SIGCONT) does not take its own pause for the server's: the download completes with no stall")
    func stoppedProcessIsNoStall() async throws {
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning { origin in
                let body = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
                origin.answer("/media.m3u8", with: .body([UInt8]("#EXTM3U\n#EXT-X-TARGETDURATION:8\n#EXTINF:8,\ns1.ts\n#EXT-X-ENDLIST\n".utf8)))
                // 5 KB/s, steadily, for 8 s: never a stall by the server's doing.
                origin.answer("/s1.ts", with: .paced(body, chunk: 1000, every: .milliseconds(200)))
                let download = try RunningProcess(carryon: ["download", origin.baseURL + "/media.m3u8", "--stall-timeout", "2", "--library", folder.path])
                // Once the segment is flowing, stop the process for 5 s.
                for _ in 0..<100 where !origin.requests.contains("/s1.ts") { try await Task.sleep(for: .milliseconds(50)) }
                try await Task.sleep(for: .seconds(1))
                download.kill(SIGSTOP)
                try await Task.sleep(for: .seconds(5))
                download.kill(SIGCONT)
                let status = await download.wait()
                #expect(status == 0)
                let list = try await runCarryon(["list", "--json", "--library", folder.path])
                let id = try #require(list.standardOutput.split(separator: "\"").first { $0.count == 10 && $0.allSatisfy { $0.isLetter || $0.isNumber } })
                let errors = try await runCarryon(["logs", String(id), "--error", "--library", folder.path])
                #expect(!errors.standardOutput.contains("stalled"), "the pause was taken for a stall: \(errors.standardOutput)")
                #expect(origin.requests.filter { $0 == "/s1.ts" }.count == 1, "fetched once: \(origin.requests)")
            }
        }
    }
}
