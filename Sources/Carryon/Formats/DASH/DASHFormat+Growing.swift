import DASH
import Foundation
import HLS

/// A DASH recording in progress as players are served it: its local MPD (static, what the
/// recording holds so far) as a dynamic MPD whose `availabilityStartTime` puts the end of the
/// last segment at the moment it is served, so that a player starts near that end
/// (`suggestedPresentationDelay`: two segments) and reloads it (`minimumUpdatePeriod`: one
/// segment) as the recording grows. Every segment recorded stays within
/// `timeShiftBufferDepth`, and the Period starts at 0 with each Representation's first segment
/// at its `presentationTimeOffset`, as the local MPD has them.
///
/// The root element's attributes stay within the first 512 bytes of the text: GStreamer 1.22
/// recognises an MPD served over HTTP only when its `<MPD …>` tag closes there.
extension DASHFormat {
    func growing(_ text: String, of manifest: LocalManifest, now: Date) -> String {
        guard manifest == Self.localMPD, var mpd = try? MPD.read(Array(text.utf8)), mpd.type == .static,
              let duration = mpd.duration?.seconds, duration > 0 else { return text }
        var longest = 0.0
        for period in mpd.periods {
            for set in period.adaptationSets {
                for representation in set.representations {
                    guard let list = representation.segments.list, let timeline = list.timeline else { continue }
                    let timescale = Double(max(1, list.timescale ?? 1))
                    for entry in timeline.entries { longest = max(longest, Double(entry.duration) / timescale) }
                }
            }
        }
        if longest <= 0 { longest = 2 }
        guard let start = Self.dateTime(now.addingTimeInterval(-duration)), let published = Self.dateTime(now) else { return text }
        mpd.type = .dynamic
        mpd.availabilityStartTime = start
        mpd.publishTime = published
        mpd.minimumUpdatePeriod = Self.milliseconds(longest)
        mpd.suggestedPresentationDelay = Self.milliseconds(2 * longest)
        mpd.timeShiftBufferDepth = Self.milliseconds(duration + longest)
        mpd.mediaPresentationDuration = nil
        if !mpd.periods.isEmpty { mpd.periods[mpd.periods.count - 1].duration = nil }
        return mpd.written()
    }

    /// `date` as an `xs:dateTime` in UTC, to the millisecond.
    static func dateTime(_ date: Date) -> DateTime? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return DateTime(formatter.string(from: date))
    }

    private static func milliseconds(_ seconds: Double) -> MediaTime {
        MediaTime(Int64((seconds * 1000).rounded()), timescale: 1000)
    }
}
