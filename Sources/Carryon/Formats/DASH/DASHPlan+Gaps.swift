import DASH
import HLS

/// Time a Representation's timeline skips (a recording's missed segments) in the HLS playlists
/// of a DASH bundle: `EXT-X-GAP` segments, never fetched, so that HLS players keep the media's
/// times as DASH players do.
extension DASHPlan {
    /// The gap lines between a segment ending at `end` and `segment` (in `scale` units a second):
    /// none for a skip of less than half a segment (a packager's jitter), else pieces no longer
    /// than the segment (EXT-X-TARGETDURATION bounds them), each named with the extension of
    /// the file `after` names (ffmpeg refuses a segment whose extension is not a media file's)
    /// and the segment's `number`.
    static func gapLines(from end: Int64, to segment: SegmentAddressing.Segment, scale: Double, after name: String, number: Int32) -> [Line] {
        let (skip, overflow) = segment.time.subtractingReportingOverflow(end)
        guard !overflow, skip > 0, skip >= segment.duration / 2 else { return [] }
        let file = name.split(separator: "/").last ?? ""
        let fileExtension = file.lastIndex(of: ".").map { String(file[$0...]) } ?? ".m4s"
        let pieces = min(10_000, Int((Double(skip) / Double(max(1, segment.duration))).rounded(.up)))
        var lines: [Line] = []
        for piece in 0..<pieces {
            lines.append(Line(tag: .gap))
            lines.append(Line(tag: .inf(Inf(duration: Double(skip) / scale / Double(pieces)))))
            lines.append(Line(uri: "gap-\(number)-\(piece)\(fileExtension)"))
        }
        return lines
    }
}
