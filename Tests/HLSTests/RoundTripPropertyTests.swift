import HLS
import Testing

/// For every playlist built from typed values, writing it and reading the text back gives the
/// same playlist (and writing that gives the same text).
@Suite("Round trip property")
struct RoundTripPropertyTests {
    /// Checks one random playlist; returns a description of the failure, if any.
    private func check(_ playlist: Playlist) -> String? {
        let text: String
        do {
            text = try playlist.write()
        } catch {
            return "writing failed: \(error)\n\(playlist)"
        }
        do {
            let read = try Playlist(parsing: text)
            if read != playlist {
                let differences = zip(read.lines, playlist.lines).enumerated()
                    .filter { $0.element.0 != $0.element.1 }
                    .map { "line \($0.offset + 1): read \($0.element.0.content)\n  wrote \($0.element.1.content)" }
                return "read back differently (\(read.lines.count) lines, \(playlist.lines.count) written; "
                    + "newline \(read.endsWithNewline) vs \(playlist.endsWithNewline)):\n"
                    + differences.prefix(3).joined(separator: "\n") + "\n--- text ---\n\(text)"
            }
            if try read.write() != text { return "writing what was read gave other text:\n\(text)" }
        } catch {
            return "reading failed: \(error)\n--- text ---\n\(text)"
        }
        return nil
    }

    @Test(arguments: [Playlist.Kind.media, .multivariant])
    func writtenPlaylistReadsBackEqual(kind: Playlist.Kind) {
        var failures = 0
        for seed in UInt64(1)...1500 {
            var generator = PlaylistGenerator(seed: seed &* 0x9E37_79B9 &+ (kind == .media ? 0 : 1))
            let playlist = generator.playlist(kind: kind)
            if let failure = check(playlist) {
                failures += 1
                // Report a few, with the seed to replay them.
                if failures <= 3 { Issue.record("seed \(seed): \(failure)") }
            }
        }
        #expect(failures == 0)
    }

    @Test func generatorMakesEveryKindOfTag() {
        var names: Set<String> = []
        for seed in UInt64(1)...300 {
            var generator = PlaylistGenerator(seed: seed)
            for kind in [Playlist.Kind.media, .multivariant] {
                for (_, tag) in generator.playlist(kind: kind).tags { names.insert(tag.isUnknown ? "unknown" : tag.name) }
            }
        }
        // Every known tag (32 names) and unknown ones.
        #expect(names.count == 33, "\(names.sorted())")
    }
}
