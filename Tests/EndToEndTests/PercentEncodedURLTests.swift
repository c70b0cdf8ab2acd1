@testable import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// Percent-encoding in a stream URL is sent as it is given, never encoded again (`%20` is not
/// `%2520`), and a name taken from the URL is decoded for people.
@Suite("Percent-encoded stream URLs", .heavy)
struct PercentEncodedURLTests {
    @Test("my%20show/main.m3u8 naming seg%20one.ts: both requested with %20, the asset named 'my show'")
    func percentEncoding() async throws {
        try await withTemporaryDirectory { folder in
            let media = try Data(contentsOf: sampleMedia.appendingPathComponent("ts/180p/segment0.ts"))
            let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nseg%20one.ts\n#EXT-X-ENDLIST\n"
            try await HostileOrigin.withRunning(["/my%20show/main.m3u8": .body(Array(playlist.utf8)),
                                                 "/my%20show/seg%20one.ts": .body(Array(media))]) { origin in
                let downloaded = try await completedDownload(origin.baseURL + "/my%20show/main.m3u8", in: folder)
                #expect(origin.requests == ["/my%20show/main.m3u8", "/my%20show/seg%20one.ts"], "\(origin.requests)")
                #expect(downloaded.snapshot.name == "my show")
                #expect(downloaded.snapshot.url == origin.baseURL + "/my%20show/main.m3u8")
            }
        }
    }
}
