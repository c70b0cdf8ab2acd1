// The libFuzzer entry point for the HLS module, built by Scripts/fuzz-hls.sh together with the
// module's sources (so it is not part of any SwiftPM target).
//
// Each input is read as a playlist leniently and strictly; what reads is resolved as the kind of
// playlist it is, written canonically and read again. A crash, a trap (an overflow, an index out
// of range, a force unwrap), a hang or a broken invariant stops the fuzzer with the input saved.

/// What a lenient read writes must read again: the writer never produces a playlist its own
/// parser refuses.
private func checkRoundTrip(_ playlist: Playlist) {
    var canonical = playlist
    for index in canonical.lines.indices { canonical.lines[index].makeCanonical() }
    for candidate in [playlist, canonical] {
        guard let written = try? candidate.write() else { continue }
        do {
            _ = try Playlist.parse(written)
        } catch {
            fatalError("a playlist written by Playlist.write() does not read again: \(error)\n---\n\(written)")
        }
    }
}

private func resolve(_ parsed: Playlist.Parsed, options: Playlist.ParseOptions) {
    let url = "https://cdn.example.com/vod/playlist.m3u8"
    switch parsed.playlist.kind {
    case .multivariant:
        _ = try? MultivariantPlaylist(parsed.playlist, url: url, warnings: parsed.warnings, options: options)
    case .media:
        _ = try? MediaPlaylist(parsed.playlist, url: url, imports: ["a": "b"], warnings: parsed.warnings, options: options)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHLS(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: count)
    if let lenient = try? Playlist.parse(bytes: bytes) {
        resolve(lenient, options: [])
        checkRoundTrip(lenient.playlist)
    }
    if let strict = try? Playlist.parse(bytes: bytes, options: .strict) {
        resolve(strict, options: .strict)
    }
    return 0
}
