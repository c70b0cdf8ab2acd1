import DASH
import Foundation
import HLS

/// The clock a dynamic MPD's times are given by: the first of its `UTCTiming` elements
/// (ISO/IEC 23009-1 5.8.4.11) Carryon can read, as an offset from this machine's clock. A
/// recording of a `$Number$` template counts its segments from `@availabilityStartTime` by this
/// clock (`SegmentAddressing`), so a machine whose clock is off still asks for the segments the
/// origin has.
///
/// Read: `urn:mpeg:dash:utc:direct:2014` (the date in `@value`), and `http-iso`/`http-xsdate`
/// (2012 or 2014: a GET of `@value`, several URLs tried in turn, each under the stream's rule,
/// its body an ISO 8601 date, taken at the request's midpoint). Not read (`http-head`, `ntp`,
/// `sntp`, `http-ntp`) or failing: this machine's clock, with a warning naming why.
enum DASHClock {
    /// What reading the clock gave: the seconds to add to this machine's clock, and why it is
    /// this machine's when no UTCTiming could be read.
    struct Reading: Sendable {
        var offset: Double
        var warning: String?
    }

    static let direct: Set<String> = ["urn:mpeg:dash:utc:direct:2014", "urn:mpeg:dash:utc:direct:2012"]
    static let http: Set<String> = ["urn:mpeg:dash:utc:http-iso:2014", "urn:mpeg:dash:utc:http-xsdate:2014",
                                    "urn:mpeg:dash:utc:http-iso:2012", "urn:mpeg:dash:utc:http-xsdate:2012"]

    /// Reads `mpd`'s clock (read from `url`, just now) through `fetcher`.
    static func read(_ mpd: MPD, url: String, fetcher: PlaylistFetcher) async -> Reading {
        guard !mpd.utcTimings.isEmpty else { return Reading(offset: 0) }
        var failures: [String] = []
        for timing in mpd.utcTimings {
            let value = (timing.value ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            if direct.contains(timing.schemeIdUri) {
                let now = Date().timeIntervalSince1970
                if let date = date(value) { return Reading(offset: date - now) }
                failures.append("\(timing.schemeIdUri) \"\(value)\" is not a date")
            } else if http.contains(timing.schemeIdUri) {
                for location in value.split(whereSeparator: \.isWhitespace).map(String.init) {
                    let absolute = URIReference.resolve(location, against: url)
                    let before = Date().timeIntervalSince1970
                    do {
                        let body = try await fetcher.fetchManifest(absolute, namedBy: "\(url), UTCTiming")
                        let after = Date().timeIntervalSince1970
                        let text = String(decoding: body.bytes.prefix(256), as: UTF8.self)
                        guard let date = date(text) else {
                            failures.append("\(absolute) answered \"\(text.prefix(64))\", not a date")
                            continue
                        }
                        return Reading(offset: date - (before + after) / 2)
                    } catch {
                        failures.append("\(absolute): \(error.message)")
                    }
                }
            } else {
                failures.append("\(timing.schemeIdUri) is not a scheme Carryon reads")
            }
        }
        return Reading(offset: 0, warning: "the MPD's UTCTiming could not be read (\(failures.joined(separator: "; "))): its segments are timed by this machine's clock")
    }

    /// The instant an ISO 8601 date (a UTC one without a time zone) denotes.
    static func date(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return (DateTime(trimmed) ?? DateTime(trimmed + "Z"))?.secondsSince1970
    }
}
