import CarryonTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HLS
import Testing

// Helpers shared by the HLS tests: fixtures, one-tag parsing, error expectations and a seeded
// random generator (CarryonTestSupport).

/// The HLS tag, not Swift Testing's `Tag`.
typealias Tag = HLS.Tag

/// A playlist file in `Tests/HLSTests/Fixtures`.
enum Fixture {
    /// The names (without extension) of every `.m3u8` fixture, sorted.
    static var all: [String] {
        guard let folder = Bundle.module.url(forResource: "Fixtures", withExtension: nil),
              let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        else { return [] }
        return names.filter { $0.hasSuffix(".m3u8") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// The text of the fixture `name.m3u8`.
    static func text(_ name: String) throws -> String {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "m3u8", subdirectory: "Fixtures"),
                               "no fixture \(name).m3u8")
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// The bytes of the fixture `name.m3u8`.
    static func bytes(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "m3u8", subdirectory: "Fixtures"),
                               "no fixture \(name).m3u8")
        return try [UInt8](Data(contentsOf: url))
    }
}

/// Parses `#EXTM3U` followed by `line` and returns the tag on the second line.
func parseTag(_ line: String, options: Playlist.ParseOptions = [],
              sourceLocation: SourceLocation = #_sourceLocation) throws -> Tag {
    let playlist = try Playlist(parsing: "#EXTM3U\n\(line)\n", options: options)
    return try #require(playlist.lines[1].tag, "line 2 is not a tag", sourceLocation: sourceLocation)
}

/// Parses `#EXTM3U` followed by `line` and returns the warnings.
func warnings(parsing line: String) throws -> [PlaylistWarning] {
    try Playlist.parse("#EXTM3U\n\(line)\n").warnings
}

/// Expects `body` to throw a ``PlaylistError`` with `code` on `line`, and returns it.
@discardableResult
func expectPlaylistError(
    _ code: PlaylistError.Code, line: Int?, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> PlaylistError? {
    do {
        try body()
        Issue.record("expected PlaylistError \(code) on line \(line.map(String.init) ?? "nil"), but nothing was thrown",
                     sourceLocation: sourceLocation)
        return nil
    } catch let error as PlaylistError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        #expect(error.line == line, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected PlaylistError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A media playlist resolved from text at a fixed URL.
func media(_ text: String, url: String = "https://cdn.example.com/vod/video.m3u8",
           imports: [String: String]? = nil) throws -> MediaPlaylist {
    try MediaPlaylist(parsing: text, url: url, imports: imports)
}

/// A multivariant playlist resolved from text at a fixed URL.
func multivariant(_ text: String, url: String = "https://cdn.example.com/vod/main.m3u8") throws -> MultivariantPlaylist {
    try MultivariantPlaylist(parsing: text, url: url)
}

/// Runs `body` on a thread of its own and waits for it without holding a thread: heavy
/// synchronous work (seconds of it) would otherwise hold one of the test process's cooperative
/// threads — as many as there are cores, two here — and every asynchronous test of the process
/// would wait its turn on what is left. Expectations belong after it, in the test: `body`
/// returns what they check.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// The CPU time the calling thread spends running `body`: the work's own cost, whatever else
/// the machine is doing. Wall-clock time would count the waits for a core too, and the whole
/// test run shares two.
func elapsed(_ body: () throws -> Void) rethrows -> Duration {
    func threadTime() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
    let start = threadTime()
    try body()
    return threadTime() - start
}
