// DASHBenchmark: times reading a large MPD (`MPD.read`), and reading it and working out every
// Representation's segments (`SegmentAddressing`).
//
//     swift run -c release DASHBenchmark [--runs N] [--write FILE]
//
// The MPD is generated here, about 2 MB: one Period with a video Representation addressed by a
// SegmentTemplate with a 10,000-entry SegmentTimeline (every `S` with its own `@t` and a varying
// `@d`, so nothing repeats), and an audio Representation addressed by a 10,000-entry SegmentList
// of byte ranges. After warm-up runs, N timed runs with `ContinuousClock`; the median and the
// minimum are printed. The target (issue 12): reading under 20 ms (median). `--write FILE` also
// writes the MPD, for other tools. Benchmarks/dash.sh runs this.

import DASH

#if canImport(Glibc)
import Glibc
#endif

func generate() -> String {
    var text = """
    <?xml version="1.0" encoding="utf-8"?>
    <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT5H33M20S" minBufferTime="PT2S">
      <Period id="1">
        <AdaptationSet contentType="video" mimeType="video/mp4" codecs="avc1.64001f" width="1280" height="720" frameRate="25">
          <Representation id="video-720p" bandwidth="3000000">
            <SegmentTemplate timescale="90000" initialization="$RepresentationID$/init.mp4" media="$RepresentationID$/$Time$.m4s">
              <SegmentTimeline>

    """
    var time: Int64 = 0
    for index in 0..<10_000 {
        let duration: Int64 = 180_000 + Int64(index % 7) * 90
        text += "            <S t=\"\(time)\" d=\"\(duration)\"/>\n"
        time += duration
    }
    text += """
              </SegmentTimeline>
            </SegmentTemplate>
          </Representation>
        </AdaptationSet>
        <AdaptationSet contentType="audio" mimeType="audio/mp4" codecs="mp4a.40.2" lang="en">
          <Representation id="audio-en" bandwidth="128000">
            <BaseURL>audio/en/media-of-the-whole-presentation.mp4</BaseURL>
            <SegmentList timescale="48000" duration="96000">
              <Initialization range="0-799"/>

    """
    var offset = 800
    for index in 0..<10_000 {
        let length = 32_000 + index % 1_000
        text += "          <SegmentURL media=\"audio/en/segment-\(index).m4s?token=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822c&amp;expires=1893456000\" mediaRange=\"\(offset)-\(offset + length - 1)\"/>\n"
        offset += length
    }
    text += """
            </SegmentList>
          </Representation>
        </AdaptationSet>
      </Period>
    </MPD>

    """
    return text
}

var runs = 50
var writePath: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--runs": runs = arguments.popFirst().flatMap { Int($0) } ?? runs
    case "--write": writePath = arguments.popFirst()
    default:
        print("usage: DASHBenchmark [--runs N] [--write FILE]")
        exit(2)
    }
}

let bytes = Array(generate().utf8)
if let writePath, let file = fopen(writePath, "w") {
    _ = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
    fclose(file)
}

/// Milliseconds to two decimals.
func milliseconds(_ value: Double) -> String {
    "\((value * 100).rounded() / 100)"
}

func measure(_ label: String, runs: Int, target: Double?, _ body: () throws -> Int) rethrows {
    var checksum = 0
    for _ in 0..<3 { checksum &+= try body() }
    var times: [Double] = []
    let clock = ContinuousClock()
    for _ in 0..<runs {
        var result = 0
        let elapsed = try clock.measure { result = try body() }
        checksum &+= result
        times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
    }
    times.sort()
    let median = times[times.count / 2]
    let verdict = target.map { median <= $0 ? "met (target \($0) ms)" : "MISSED (target \($0) ms)" } ?? ""
    print("\(label): median \(milliseconds(median)) ms, min \(milliseconds(times[0])) ms over \(runs) runs  \(verdict)  [checksum \(checksum)]")
}

print("MPD: \(bytes.count) bytes, a 10,000-entry SegmentTimeline and a 10,000-entry SegmentList")
try measure("MPD.read", runs: runs, target: 20) {
    let mpd = try MPD.read(bytes)
    return mpd.periods[0].adaptationSets.count
}
try measure("MPD.read + SegmentAddressing of both Representations", runs: runs, target: nil) {
    let mpd = try MPD.read(bytes)
    let period = mpd.periods[0]
    var segments = 0
    for set in period.adaptationSets {
        for representation in set.representations {
            segments += try SegmentAddressing(representation, in: set, of: period, timing: mpd.periodTimings[0], mpd: mpd,
                                              mpdURL: "https://cdn.example.com/vod/manifest.mpd").segments.count
        }
    }
    return segments
}
