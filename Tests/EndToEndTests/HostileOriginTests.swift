import CarryonTestSupport
import Foundation
import Testing

/// A stream served over HTTP that names local files — as a variant, a rendition, an I-frame
/// variant, a segment, or behind a redirect — is refused with the line named, and the file is
/// never opened: the canary playlist's secret never shows, and the segment it names is never
/// requested.
@Suite("Hostile origins: no local file through a remote stream", .heavy)
struct HostileOriginTests {
    static let secret = "CANARY-7f3a9c-NOT-TO-BE-READ"

    /// A local media playlist that would betray a read: a line only it holds, and a segment on
    /// the hostile origin that only a reader of it would ask for.
    func writeCanary(in folder: URL, origin: HostileOrigin) throws -> String {
        let canary = try folder.write("""
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            ##\(Self.secret)
            #EXTINF:4,
            \(origin.baseURL)/canary-segment.ts
            #EXT-X-ENDLIST

            """, to: "canary.m3u8")
        return canary.absoluteString
    }

    static let media = """
        #EXTM3U
        #EXT-X-TARGETDURATION:4
        #EXTINF:4,
        s1.ts
        #EXT-X-ENDLIST

        """

    /// The multivariant playlists of each case, given the canary's `file:` URL; `line` is the
    /// line that names it.
    static func cases(canary: String) -> [(name: String, main: String, line: Int)] {
        [
            ("a variant", """
                #EXTM3U
                #EXT-X-STREAM-INF:BANDWIDTH=800000
                \(canary)

                """, 2),
            ("an audio rendition", """
                #EXTM3U
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",LANGUAGE="en",DEFAULT=YES,URI="\(canary)"
                #EXT-X-STREAM-INF:BANDWIDTH=800000,AUDIO="a"
                v.m3u8

                """, 2),
            ("an I-frame variant", """
                #EXTM3U
                #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=80000,URI="\(canary)"
                #EXT-X-STREAM-INF:BANDWIDTH=800000
                v.m3u8

                """, 2),
        ]
    }

    func expectRefused(_ result: ProcessResult, naming uri: String, line: Int?, origin: HostileOrigin) {
        let output = result.standardOutput + result.standardError
        #expect(result.status != 0, "\(output)")
        #expect(output.contains(uri), "the error names the refused location: \(output)")
        if let line { #expect(output.contains("line \(line)"), "the error names the line: \(output)") }
        #expect(output.contains("file:"), "\(output)")
        #expect(!output.contains(Self.secret), "the canary's contents leaked: \(output)")
        #expect(!origin.requests.contains("/canary-segment.ts"), "the canary was read: \(origin.requests)")
    }

    /// Runs `body` with a hostile origin serving `v.m3u8` (an ordinary media playlist), the
    /// canary written beside it, and each case's playlist at `/caseN.m3u8`.
    func withCases(_ body: (HostileOrigin, URL, String) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning { origin in
                origin.answer("/v.m3u8", with: .body([UInt8](Self.media.utf8)))
                origin.answer("/s1.ts", with: .body([0x47]))
                let canary = try writeCanary(in: folder, origin: origin)
                for (index, hostile) in Self.cases(canary: canary).enumerated() {
                    origin.answer("/case\(index).m3u8", with: .body([UInt8](hostile.main.utf8)))
                }
                try await body(origin, folder, canary)
            }
        }
    }

    @Test("download refuses a local file named by a remote variant, rendition or I-frame variant, naming the line")
    func downloadRefusesLocalFiles() async throws {
        try await withCases { origin, folder, canary in
            for (index, hostile) in Self.cases(canary: canary).enumerated() {
                let result = try await runCarryon(["download", origin.baseURL + "/case\(index).m3u8",
                                                   "--library", folder.appendingPathComponent("library").path])
                expectRefused(result, naming: canary, line: hostile.line, origin: origin)
            }
        }
    }

    @Test("inspect --sizes does not read a local file a remote variant or rendition names")
    func sizesRefuseLocalFiles() async throws {
        try await withCases { origin, _, canary in
            for index in 0..<2 {
                let result = try await runCarryon(["inspect", origin.baseURL + "/case\(index).m3u8", "--sizes", "--json"])
                #expect(result.status == 0, "the playlist itself is fine: \(result.standardError)")
                let output = result.standardOutput + result.standardError
                #expect(output.contains("refuses") || output.contains("does not read"), "\(output)")
                #expect(!output.contains(Self.secret), "the canary's contents leaked: \(output)")
                #expect(!origin.requests.contains("/canary-segment.ts"), "the canary was read: \(origin.requests)")
            }
        }
    }

    @Test("a redirect from the origin to a local file is refused, for a playlist and for a segment")
    func redirectToLocalFile() async throws {
        try await withCases { origin, folder, canary in
            origin.answer("/redirected.m3u8", with: .redirect(canary))
            origin.answer("/main.m3u8", with: .body([UInt8]("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000\nredirected.m3u8\n".utf8)))
            let playlist = try await runCarryon(["download", origin.baseURL + "/main.m3u8",
                                                 "--library", folder.appendingPathComponent("library").path])
            expectRefused(playlist, naming: canary, line: nil, origin: origin)
            #expect((playlist.standardError).contains("redirects"), "\(playlist.standardError)")

            origin.answer("/segment-redirect.ts", with: .redirect(canary))
            origin.answer("/media.m3u8", with: .body([UInt8]("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nsegment-redirect.ts\n#EXT-X-ENDLIST\n".utf8)))
            let segment = try await runCarryon(["download", origin.baseURL + "/media.m3u8",
                                                "--library", folder.appendingPathComponent("library2").path])
            expectRefused(segment, naming: canary, line: nil, origin: origin)
        }
    }

    @Test("a remote media playlist's segment that is a local file is refused with its line")
    func segmentIsLocalFile() async throws {
        try await withCases { origin, folder, canary in
            origin.answer("/local-segment.m3u8", with: .body([UInt8]("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\n\(canary)\n#EXT-X-ENDLIST\n".utf8)))
            let result = try await runCarryon(["download", origin.baseURL + "/local-segment.m3u8",
                                               "--library", folder.appendingPathComponent("library").path])
            expectRefused(result, naming: canary, line: 4, origin: origin)
        }
    }

    @Test("inspect reads a gzip'ed playlist; a gzip bomb stops at the 64 MiB limit with a too-large error")
    func gzipPlaylists() async throws {
        let playlist = Array(Self.media.utf8)
        // 5 members of 16 MiB of zeros: 80 MiB decoded, past the default limit of 64 MiB.
        let member = try gzipped([UInt8](repeating: 0, count: 16 << 20))
        try await HostileOrigin.withRunning { origin in
            origin.answer("/media.m3u8", with: .body(headers: [("Content-Encoding", "gzip")], try gzipped(playlist)))
            origin.answer("/bomb.m3u8", with: .body(headers: [("Content-Encoding", "gzip")], Array([[UInt8]](repeating: member, count: 5).joined())))
            let inspect = try await runCarryon(["inspect", origin.baseURL + "/media.m3u8", "--json"])
            #expect(inspect.status == 0, "\(inspect.standardError)")
            #expect(inspect.standardOutput.contains("\"media\""), "\(inspect.standardOutput)")
            let bomb = try await runCarryon(["inspect", origin.baseURL + "/bomb.m3u8"])
            #expect(bomb.status == 1)
            #expect(bomb.standardError.contains("/bomb.m3u8: the playlist is larger than the limit of \(64 << 20) bytes"), "\(bomb.standardError)")
        }
    }
}
