@testable import Carryon
import CarryonTestSupport
import Foundation
import HLS
import Testing

/// A recording's copy in its bundle grows by a journal line a round that only appended, and is
/// written whole when a round changed more; what is read back is what was recorded, whatever a
/// crash left.
@Suite("A recording's rounds are kept as journal lines")
struct RecordingJournalTests {
    static func noKey() throws(CarryonError) -> MasterKey { throw CarryonError(.keys, "no master key") }

    /// Merges the window `first...last` into `recording`.
    static func merge(_ recording: LiveRecording, _ first: Int, _ last: Int, extra: [String] = []) throws {
        let media = try RecordedPlaylistTests.window(first, last, extra: extra)
        _ = try recording.update(RecordedPlaylistTests.url) { (playlist: inout RecordedPlaylist, start, limit, anchor, _) throws(CarryonError) in
            do { return try playlist.merge(media, start: start, limit: limit, anchor: anchor) } catch { throw CarryonError(.playlist, "\(error)") }
        }
    }

    static func segments(_ recording: LiveRecording?) -> [String] {
        recording?.playlist(RecordedPlaylistTests.url)?.held.map { String($0.uri.split(separator: "/").last ?? "") } ?? []
    }

    @Test("rounds that only append add a line each, the copy left as it was; read back, the recording is whole")
    func appends() async throws {
        try await withTemporaryDirectory { bundle in
            let recording = LiveRecording(fromStart: true, limit: nil)
            try Self.merge(recording, 0, 2)
            try recording.save(to: bundle, masterKey: Self.noKey)
            let whole = try Data(contentsOf: LiveRecording.file(in: bundle))
            #expect(!FileManager.default.fileExists(atPath: LiveRecording.journal(in: bundle).path))
            try Self.merge(recording, 1, 4)
            try recording.save(to: bundle, masterKey: Self.noKey)
            try Self.merge(recording, 3, 6)
            try recording.save(to: bundle, masterKey: Self.noKey)
            #expect(try Data(contentsOf: LiveRecording.file(in: bundle)) == whole)
            let journal = try String(contentsOf: LiveRecording.journal(in: bundle), encoding: .utf8)
            #expect(journal.split(separator: "\n").count == 2)
            // The second line holds segments 5 and 6 only.
            #expect(!journal.split(separator: "\n")[1].contains("seg4.ts") && journal.split(separator: "\n")[1].contains("seg6.ts"))
            let loaded = try LiveRecording.load(from: bundle, masterKey: Self.noKey)
            #expect(Self.segments(loaded) == (0...6).map { "seg\($0).ts" })
            #expect(loaded?.playlist(RecordedPlaylistTests.url) == recording.playlist(RecordedPlaylistTests.url))
        }
    }

    @Test("a line a crash cut short is not read; a round that made a gap writes the copy whole, and the journal of the copy before is not read")
    func crashes() async throws {
        try await withTemporaryDirectory { bundle in
            let recording = LiveRecording(fromStart: true, limit: nil)
            try Self.merge(recording, 0, 2)
            try recording.save(to: bundle, masterKey: Self.noKey)
            try Self.merge(recording, 0, 4)
            try recording.save(to: bundle, masterKey: Self.noKey)
            let journal = LiveRecording.journal(in: bundle)
            let handle = try FileHandle(forWritingTo: journal)
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("{\"generation\":1,\"playlists\":{".utf8))
            try handle.close()
            #expect(Self.segments(try LiveRecording.load(from: bundle, masterKey: Self.noKey)) == (0...4).map { "seg\($0).ts" })

            // A segment made a gap: the copy is written whole; a journal of the generation
            // before, left by a crash before it was removed, is not read.
            let before = try Data(contentsOf: journal)
            #expect(recording.markMissing("\(RecordedPlaylistTests.url.dropLast(10))seg1.ts", offset: nil) == 1)
            try recording.save(to: bundle, masterKey: Self.noKey)
            #expect(!FileManager.default.fileExists(atPath: journal.path))
            try before.write(to: journal)
            let loaded = try #require(try LiveRecording.load(from: bundle, masterKey: Self.noKey))
            #expect(loaded.playlist(RecordedPlaylistTests.url) == recording.playlist(RecordedPlaylistTests.url))
            #expect(loaded.playlist(RecordedPlaylistTests.url)?.gapCount == 1)
        }
    }

    @Test("a journal line of a recording with an inline key is sealed: the key is not in the file, and it reads back with the master key")
    func sealed() async throws {
        try await withTemporaryDirectory { folder in
            let bundle = folder.appending(path: "abc123")
            let master = try MasterKey(bytes: Array(repeating: 7, count: 32))
            let recording = LiveRecording(fromStart: true, limit: nil)
            try Self.merge(recording, 0, 2)
            try recording.save(to: bundle, masterKey: { master })
            try Self.merge(recording, 2, 4, extra: ["#EXT-X-KEY:METHOD=AES-128,URI=\"\(SealedRecordingTests.key)\""])
            try recording.save(to: bundle, masterKey: { master })
            let journal = try Data(contentsOf: LiveRecording.journal(in: bundle))
            #expect(journal.starts(with: Data("sealed ".utf8)))
            #expect(journal.range(of: Data("MDEyMzQ1Njc4OWFiY2RlZg".utf8)) == nil && journal.range(of: Data("seg4.ts".utf8)) == nil)
            let loaded = try LiveRecording.load(from: bundle, masterKey: { master })
            #expect(loaded?.playlist(RecordedPlaylistTests.url) == recording.playlist(RecordedPlaylistTests.url))
            #expect(loaded?.holdsInlineKeys == true)
        }
    }

    @Test("a long recording lets go of the segments its copy holds but the last ones, and reads them back for what needs them all: a gap among them, the copy written whole, the whole text")
    func spills() async throws {
        try await withTemporaryDirectory { bundle in
            let recording = LiveRecording(fromStart: true, limit: nil)
            recording.readCopy { () throws(CarryonError) in try LiveRecording.load(from: bundle, masterKey: Self.noKey) }
            try Self.merge(recording, 0, 9)
            let whole = try #require(recording.playlist(RecordedPlaylistTests.url)).text()
            // Nothing is let go before the copy holds it.
            recording.spill(keeping: 3)
            #expect(recording.playlist(RecordedPlaylistTests.url)?.spilled.count == 0)
            try recording.save(to: bundle, masterKey: Self.noKey)
            recording.spill(keeping: 3)
            let spilled = try #require(recording.playlist(RecordedPlaylistTests.url))
            #expect(spilled.held.count == 3 && spilled.count == 10 && spilled.duration == 20)
            #expect(recording.duration == 20)

            // Appending goes on, a journal line at a time.
            try Self.merge(recording, 8, 12)
            try recording.save(to: bundle, masterKey: Self.noKey)
            #expect(FileManager.default.fileExists(atPath: LiveRecording.journal(in: bundle).path))
            #expect(recording.playlist(RecordedPlaylistTests.url)?.count == 13)

            // A segment let go found gone: read back, marked, and the copy written whole.
            #expect(recording.markMissing("\(RecordedPlaylistTests.url.dropLast(10))seg2.ts", offset: nil) == 1)
            let restored = try #require(recording.playlist(RecordedPlaylistTests.url))
            #expect(restored.spilled.count == 0 && restored.held.count == 13 && restored.gapCount == 1)
            try recording.save(to: bundle, masterKey: Self.noKey)
            #expect(!FileManager.default.fileExists(atPath: LiveRecording.journal(in: bundle).path))
            #expect(try LiveRecording.load(from: bundle, masterKey: Self.noKey)?.playlist(RecordedPlaylistTests.url) == restored)

            // Let go again, the whole text is the recording's.
            recording.spill(keeping: 3)
            #expect(recording.playlist(RecordedPlaylistTests.url)?.spilled.count == 10)
            #expect(throws: PlaylistError.self) { try recording.playlist(RecordedPlaylistTests.url)?.text() }
            let text = try #require(recording.manifest(at: RecordedPlaylistTests.url))
            // As before the segments were let go, up to the gap.
            let beforeGap = try #require(whole.range(of: "seg1.ts\n"))
            #expect(String(decoding: text, as: UTF8.self).hasPrefix(whole[..<beforeGap.upperBound]))
            #expect(try Self.segments(recording) == (0...12).map { "seg\($0).ts" })
            #expect(try RecordedPlaylistTests.read(try #require(recording.playlist(RecordedPlaylistTests.url))).segments.count == 13)
        }
    }
}
