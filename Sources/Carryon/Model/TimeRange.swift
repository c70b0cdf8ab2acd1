import Foundation

/// A part of a stream's timeline to download: from ``start`` to ``end`` seconds from the start
/// of the presentation (the playlist's first segment, the MPD's first Period).
///
/// A download of a range fetches the segments that cover it, whole, in every rendition chosen —
/// the first is the one that contains ``start``, the last the one that contains the instant
/// before ``end`` — what Media3's `DownloadRequest` time range and N_m3u8DL-RE's
/// `--custom-range` give. The bundle's playlists list those segments alone and play from the
/// first, so what is offline starts up to a segment before ``start`` and ends up to a
/// segment after ``end``.
///
/// ```swift
/// var options = DownloadOptions()
/// options.timeRange = TimeRange(start: 600, duration: 120)   // 10:00 to 12:00
/// ```
public struct TimeRange: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Seconds from the start of the presentation.
    public var start: Double
    /// Seconds from the start of the presentation; nil: to the stream's end.
    public var end: Double?

    /// The range from `start` to `end` (nil: to the end).
    public init(start: Double = 0, end: Double? = nil) {
        self.start = start
        self.end = end
    }

    /// The `duration` seconds from `start`.
    public init(start: Double = 0, duration: Double) {
        self.init(start: start, end: start + duration)
    }

    /// The longest time a range names: 100 years of seconds.
    static let latest = 3_155_760_000.0

    /// Checks that the range is one a stream can have: `start` from 0, `end` after it, both
    /// finite and at most 100 years.
    ///
    /// - Throws: ``CarryonError/Code/invalidValue`` naming what is wrong.
    public func check() throws(CarryonError) {
        guard start.isFinite, (0...Self.latest).contains(start) else {
            throw CarryonError(.invalidValue, "the range's start \(start) is not a time from 0 to \(Int(Self.latest)) seconds")
        }
        if let end {
            guard end.isFinite, end <= Self.latest else {
                throw CarryonError(.invalidValue, "the range's end \(end) is not a time up to \(Int(Self.latest)) seconds")
            }
            guard end > start else {
                throw CarryonError(.invalidValue, "the range ends at \(Self.text(end)), not after its start \(Self.text(start))")
            }
        }
    }

    /// How far two times of the same instant may differ: segment times are sums of durations,
    /// which floating point leaves a hair off the boundary a user types.
    private static let tolerance = 1e-6

    /// Whether the segment that starts at `segmentStart` and lasts `duration` seconds is one a
    /// download of the range fetches: it ends after ``start`` and starts before ``end``. A
    /// segment of unknown duration (0) counts from its start.
    public func covers(start segmentStart: Double, duration: Double) -> Bool {
        if let end, segmentStart >= end - Self.tolerance { return false }
        return segmentStart + duration > start + Self.tolerance || segmentStart >= start - Self.tolerance
    }

    /// The smallest range that holds both this one and `other`: from the earlier start to the
    /// later end (none when either has none).
    public func extended(to other: TimeRange) -> TimeRange {
        TimeRange(start: min(start, other.start), end: end.flatMap { end in other.end.map { max(end, $0) } })
    }

    /// `0:10:00.0-0:12:00.0`, or `from 0:10:00.0` without an end.
    public var description: String {
        end.map { "\(Self.text(start))-\(Self.text($0))" } ?? "from \(Self.text(start))"
    }

    /// A time as ranges show it: `h:mm:ss.s`.
    static func text(_ seconds: Double) -> String {
        guard seconds.isFinite else { return String(seconds) }
        let tenths = Int64((seconds * 10).rounded())
        let hours = tenths / 36000, minutes = (tenths / 600) % 60, secs = tenths % 600
        return "\(hours):" + (minutes < 10 ? "0" : "") + "\(minutes):" + (secs < 100 ? "0" : "") + "\(secs / 10).\(secs % 10)"
    }

    /// The seconds `text` gives: `90`, `90.5`, `1:30`, `01:02:03` or `1:02:03.250` (hours,
    /// minutes and seconds; minutes and seconds below 60 after the first field); nil for
    /// anything else, a negative time included, and a time past 100 years (see
    /// ``isPastLatest(_:)``).
    public static func seconds(parsing text: String) -> Double? {
        guard let total = uncapped(text) else { return nil }
        return total <= latest ? total : nil
    }

    /// Whether `text` is written as a time but names one past 100 years, the longest a range
    /// takes: what makes ``seconds(parsing:)`` nil for a time otherwise well written.
    public static func isPastLatest(_ text: String) -> Bool {
        uncapped(text).map { $0 > latest } ?? false
    }

    /// The seconds `text` gives, however many.
    private static func uncapped(_ text: String) -> Double? {
        let fields = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count) else { return nil }
        var total = 0.0
        for (index, field) in fields.enumerated() {
            let last = index == fields.count - 1
            // Digits, and a fraction in the last field only: no sign, no exponent, no "inf".
            guard !field.isEmpty, field.allSatisfy({ $0.isASCII && ($0.isNumber || (last && $0 == ".")) }),
                  field.filter({ $0 == "." }).count <= 1, field.first != ".", field.last != ".",
                  let value = Double(field) else { return nil }
            if index > 0, value >= 60 { return nil }
            total = total * 60 + value
        }
        return total.isFinite ? total : nil
    }

    /// The seconds of media a recording of a live stream takes for this range: its duration
    /// when it has an end (a recording counts from where it starts), else nil.
    var recordingLimit: Double? {
        guard let end else { return nil }
        return end - start
    }

    /// Where a recording of a live stream starts for this range: seconds from the start of the
    /// stream's window (the DVR window), or nil from 0 (where `--from-start` or the live edge
    /// says).
    var recordingOffset: Double? {
        start > 0 ? start : nil
    }
}
