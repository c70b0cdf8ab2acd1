// The libFuzzer entry point for the DASH module, built by Scripts/fuzz-dash.sh together with the
// module's sources (so it is not part of any SwiftPM target); the HLS module it uses for
// URIReference is built beside it.
//
// Each input is read as an MPD; what reads has every Representation's segment addressing worked
// out, is written and read again; the input is also read as a segment index. A crash, a trap (an
// overflow, an index out of range, a force unwrap), a hang or a broken invariant stops the
// fuzzer with the input saved.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDASH(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    _ = try? SegmentIndex.parse(bytes, at: Int64(count))
    guard let mpd = try? MPD.read(bytes) else { return 0 }
    let timings = mpd.periodTimings
    precondition(timings.count == mpd.periods.count, "a timing per Period")
    for (index, period) in mpd.periods.enumerated() {
        for set in period.adaptationSets {
            for representation in set.representations {
                _ = mpd.effective(representation, in: set)
                _ = SegmentAddressing.mode(of: mpd.segmentInformation(of: representation, in: set, of: period))
                // Counted first: a few bytes may describe two million segments, which are made
                // in linear time; the fuzzer looks for faults, not for that.
                let count = SegmentAddressing.segmentCount(representation, in: set, of: period, timing: timings[index], mpd: mpd)
                guard (count ?? 0) <= 50_000 else { continue }
                if var addressing = try? SegmentAddressing(representation, in: set, of: period, timing: timings[index], mpd: mpd,
                                                           mpdURL: "https://cdn.example.com/vod/manifest.mpd") {
                    precondition(addressing.segments.count <= SegmentAddressing.maximumSegments)
                    if addressing.mode == .base, let reading = try? addressing.reading(index: bytes, at: 0) {
                        addressing.segments += reading.segments
                    }
                    _ = addressing.duration
                }
            }
        }
    }
    // What the writer writes, the reader reads: with as many Periods and Representations.
    let written = mpd.written()
    do {
        let again = try MPD.read(Array(written.utf8))
        precondition(again.periods.count == mpd.periods.count, "a written MPD lost Periods:\n\(written)")
        precondition(again.periods.map { $0.adaptationSets.map(\.representations.count) }
                     == mpd.periods.map { $0.adaptationSets.map(\.representations.count) },
                     "a written MPD lost Representations:\n\(written)")
    } catch {
        fatalError("an MPD written by MPD.written() does not read again: \(error)\n---\n\(written)")
    }
    return 0
}
