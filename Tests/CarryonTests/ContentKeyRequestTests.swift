@testable import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// The key request is the same whatever the manifest format: a key named by a KID with its
/// system's initialization data (DASH's `ContentProtection`) reaches the app's provider as one
/// named by a URI (HLS's `EXT-X-KEY`) does.
@Suite("Content key requests")
struct ContentKeyRequestTests {
    /// Records every request and answers a fixed key.
    final class RecordingProvider: ContentKeyProvider, @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [ContentKeyRequest] = []
        var requests: [ContentKeyRequest] { lock.withLock { seen } }

        func key(for request: ContentKeyRequest) async throws -> ContentKeyResponse {
            lock.withLock { seen.append(request) }
            return ContentKeyResponse(key: Array(repeating: 7, count: 16))
        }
    }

    static let clearKey = "urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e"

    @Test("a key named by its KID goes to the provider of its key system with the KID and the pssh; one named by a URI goes as before")
    func neutralRequest() async throws {
        let provider = RecordingProvider()
        let fetcher = ContentKeyFetcher(fetcher: PlaylistFetcher(client: PlaylistFetcher.sharedClient),
                                        providers: [Self.clearKey: provider, "skd": provider])
        let byKID = DownloadPlan.PlannedKey(id: "k1", uri: "https://licence.example/clearkey", method: "cenc", keyFormat: Self.clearKey,
                                            keyID: "0123456789abcdef0123456789abcdef", initData: [0, 0, 0, 32, 0x70, 0x73, 0x73, 0x68])
        let byURI = DownloadPlan.PlannedKey(id: "k2", uri: "skd://key-42", method: "SAMPLE-AES", keyFormat: "com.apple.streamingkeydelivery",
                                            keyFormatVersions: "1")
        #expect(try await fetcher.key(byKID, assetID: "a").key == Array(repeating: 7, count: 16))
        _ = try await fetcher.key(byURI, assetID: "a")
        #expect(provider.requests == [
            ContentKeyRequest(assetID: "a", uri: "https://licence.example/clearkey", method: "cenc", keyFormat: Self.clearKey,
                              keyID: "0123456789abcdef0123456789abcdef", initData: [0, 0, 0, 32, 0x70, 0x73, 0x73, 0x68]),
            ContentKeyRequest(assetID: "a", uri: "skd://key-42", method: "SAMPLE-AES", keyFormat: "com.apple.streamingkeydelivery",
                              keyFormatVersions: "1"),
        ])
    }
}
