@testable import Carryon
import CarryonTestSupport
import Foundation
import HLS
import Testing

/// A recording whose playlist gives its key inline (`data:`) is kept sealed under the library's
/// master key: the key is not in the file; it opens with that key only, in its own bundle; any
/// other recording stays the JSON earlier releases wrote.
@Suite("A recording's inline keys are sealed at rest")
struct SealedRecordingTests {
    static let key = "data:text/plain;base64,MDEyMzQ1Njc4OWFiY2RlZg=="

    /// A recording of one reload of a live playlist, its key `keyURI`.
    static func recording(keyURI: String) throws -> LiveRecording {
        let recording = LiveRecording(fromStart: true, limit: nil)
        let media = try RecordedPlaylistTests.window(0, 3, extra: ["#EXT-X-KEY:METHOD=AES-128,URI=\"\(keyURI)\",IV=0x00000000000000000000000000000001"])
        _ = try recording.update(RecordedPlaylistTests.url) { (playlist: inout RecordedPlaylist, start, limit, anchor, _) throws(CarryonError) in
            do { return try playlist.merge(media, start: start, limit: limit, anchor: anchor) } catch { throw CarryonError(.playlist, "\(error)") }
        }
        return recording
    }

    @Test("sealed: the key not in the file, read back whole with the master key; refused with another, or in another bundle")
    func sealed() async throws {
        try await withTemporaryDirectory { folder in
            let bundle = folder.appending(path: "abc123")
            let master = try MasterKey(bytes: Array(repeating: 7, count: 32))
            let recording = try Self.recording(keyURI: Self.key)
            #expect(recording.holdsInlineKeys)
            try recording.save(to: bundle, masterKey: { master })
            let file = try Data(contentsOf: LiveRecording.file(in: bundle))
            #expect(file.starts(with: LiveRecording.sealedHeader))
            #expect(file.range(of: Data("MDEyMzQ1Njc4OWFiY2RlZg".utf8)) == nil && file.range(of: Data("seg0.ts".utf8)) == nil)
            let loaded = try #require(try LiveRecording.load(from: bundle, masterKey: { master }))
            #expect(loaded.playlist(RecordedPlaylistTests.url) == recording.playlist(RecordedPlaylistTests.url))

            let other = try MasterKey(bytes: Array(repeating: 8, count: 32))
            let wrongKey = #expect(throws: CarryonError.self) { try LiveRecording.load(from: bundle, masterKey: { other }) }
            #expect(wrongKey?.code == .library && wrongKey?.message.contains("master key") == true)
            let moved = folder.appending(path: "xyz789")
            try FileManager.default.copyItem(at: bundle, to: moved)
            #expect(throws: CarryonError.self) { try LiveRecording.load(from: moved, masterKey: { master }) }
        }
    }

    @Test("an inline key is found however it is written: DATA: in capitals, or in a manifest kept as read")
    func found() throws {
        #expect(try Self.recording(keyURI: "DATA:text/plain;base64,MDEyMzQ1Njc4OWFiY2RlZg==").holdsInlineKeys)
        let kept = try Self.recording(keyURI: "https://keys.example/k1")
        kept.remember(Array("#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=data:,0123456789abcdef\n".utf8), at: "https://cdn.example/live/first.m3u8")
        #expect(kept.holdsInlineKeys)
    }

    @Test("a recording without an inline key stays JSON, and the master key is not asked for")
    func plain() async throws {
        try await withTemporaryDirectory { folder in
            let recording = try Self.recording(keyURI: "https://keys.example/k1")
            #expect(!recording.holdsInlineKeys)
            let refuse = { () throws(CarryonError) -> MasterKey in throw CarryonError(.keys, "asked for the master key") }
            try recording.save(to: folder, masterKey: refuse)
            let file = try Data(contentsOf: LiveRecording.file(in: folder))
            #expect(file.first == UInt8(ascii: "{"))
            #expect(try LiveRecording.load(from: folder, masterKey: refuse)?.playlist(RecordedPlaylistTests.url) == recording.playlist(RecordedPlaylistTests.url))
        }
    }
}
