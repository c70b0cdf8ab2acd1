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
/// `sntp`, `http-ntp`) or failing: this machine's clock, with a warning naming why. A hostile
/// MPD cannot hold a recording up on its clock: at most ``maximumRequests`` time requests, each
/// tried once within ``requestTimeout`` and read up to 4 KiB; a clock more than a year from this
/// machine's is not believed.
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

    static let maximumRequests = 3
    static let requestTimeout = Duration.seconds(5)

    /// Reads `mpd`'s clock (read from `url`, just now) through `fetcher`.
    static func read(_ mpd: MPD, url: String, fetcher: PlaylistFetcher) async -> Reading {
        guard !mpd.utcTimings.isEmpty else { return Reading(offset: 0) }
        var fetcher = fetcher
        fetcher.retry = RetryPolicy(maximumAttempts: 1)
        fetcher.timeout = requestTimeout
        fetcher.stallTimeout = requestTimeout
        fetcher.maximumPlaylistBytes = 4096
        var failures: [String] = []
        var requests = 0
        // Believed only within a year of this machine's clock.
        func believed(_ offset: Double, from source: String) -> Reading? {
            guard abs(offset) <= 366 * 86_400 else {
                failures.append("\(source) is \(Int(offset / 86_400)) days from this machine's clock")
                return nil
            }
            return Reading(offset: offset)
        }
        for timing in mpd.utcTimings.prefix(8) {
            let value = (timing.value ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            if direct.contains(timing.schemeIdUri) {
                let now = Date().timeIntervalSince1970
                if let date = date(value) {
                    if let reading = believed(date - now, from: "\(timing.schemeIdUri) \"\(value.prefix(64))\"") { return reading }
                    continue
                }
                failures.append("\(timing.schemeIdUri) \"\(value.prefix(64))\" is not a date")
            } else if http.contains(timing.schemeIdUri) {
                for location in value.split(whereSeparator: \.isWhitespace).map(String.init) {
                    guard requests < maximumRequests else { break }
                    requests += 1
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
                        if let reading = believed(date - (before + after) / 2, from: absolute) { return reading }
                    } catch {
                        failures.append("\(absolute): \(error.message)")
                    }
                }
            } else {
                failures.append("\(timing.schemeIdUri.prefix(80)) is not a scheme Carryon reads")
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
