@testable import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// A stream URL with a user and password: they are sent as the Authorization header they stand
/// for, and kept out of the URL the library keeps, lists, logs and quotes.
@Suite("Credentials in a stream URL", .heavy)
struct CredentialsInURLTests {
    @Test("https://user:secret@… downloads with Basic authorization; no secret in the asset's url, its snapshot or its logs")
    func credentials() async throws {
        try await withTemporaryDirectory { folder in
            let media = try Data(contentsOf: sampleMedia.appendingPathComponent("ts/180p/segment0.ts"))
            let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\ns.ts\n#EXT-X-ENDLIST\n"
            try await HostileOrigin.withRunning(["/p.m3u8": .body(Array(playlist.utf8)), "/s.ts": .body(Array(media))]) { origin in
                let url = origin.baseURL.replacingOccurrences(of: "http://", with: "http://viewer:s3cr%40t@") + "/p.m3u8"
                let downloaded = try await completedDownload(url, in: folder)
                #expect(downloaded.snapshot.url == origin.baseURL + "/p.m3u8")
                #expect(origin.requestHeads.count >= 2 && origin.requestHeads.allSatisfy { $0.contains("Authorization: Basic dmlld2VyOnMzY3JAdA==") },
                        "every request carries viewer:s3cr@t: \(origin.requestHeads)")
                let shown = String(decoding: try JSONEncoder().encode(downloaded.snapshot), as: UTF8.self)
                #expect(!shown.contains("s3cr"))
                let files = FileManager.default.enumerator(at: folder.appendingPathComponent("library/logs"), includingPropertiesForKeys: nil)?
                    .compactMap { $0 as? URL } ?? []
                for file in files where !file.hasDirectoryPath {
                    #expect(!(try String(contentsOf: file, encoding: .utf8)).contains("s3cr"), "\(file.path)")
                }
            }
        }
    }
}
