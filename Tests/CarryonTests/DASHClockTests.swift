@testable import Carryon
import CarryonTestSupport
import DASH
import Foundation
import Testing

/// A dynamic MPD's clock (``DASHClock``): its `UTCTiming` elements in order, the first Carryon
/// can read giving the offset from this machine's clock; none readable, this machine's clock
/// with a warning naming each failure.
@Suite("The clock of a dynamic MPD")
struct DASHClockTests {
    static func mpd(_ timings: [(String, String)]) throws -> MPD {
        let elements = timings.map { "<UTCTiming schemeIdUri=\"\($0.0)\" value=\"\($0.1)\"/>" }.joined(separator: "\n")
        return try MPD.read(Array("""
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="dynamic" availabilityStartTime="2026-01-01T00:00:00Z">
            \(elements)
            <Period id="0"/>
            </MPD>
            """.utf8))
    }

    static let fetcher = PlaylistFetcher(client: PlaylistFetcher.sharedClient)

    @Test("direct: the date in @value; an MPD without UTCTiming: this machine's clock, no warning")
    func direct() async throws {
        let hourAhead = Date().addingTimeInterval(3600)
        let text = ISO8601DateFormatter().string(from: hourAhead)
        let reading = await DASHClock.read(try Self.mpd([("urn:mpeg:dash:utc:direct:2014", text)]), url: "https://cdn.example/live.mpd", fetcher: Self.fetcher)
        #expect(abs(reading.offset - 3600) < 5 && reading.warning == nil)
        let none = await DASHClock.read(try Self.mpd([]), url: "https://cdn.example/live.mpd", fetcher: Self.fetcher)
        #expect(none.offset == 0 && none.warning == nil)
    }

    @Test("http-xsdate: each URL of @value in turn, then the next element; none readable: this machine's clock, each failure named")
    func http() async throws {
        try await withTemporaryDirectory { folder in
            let mpdURL = folder.appending(path: "live.mpd").absoluteString
            // Written without a time zone: read as UTC.
            try Data("2026-11-28T06:00:00.5".utf8).write(to: folder.appending(path: "time.txt"))
            try Data("not a date".utf8).write(to: folder.appending(path: "garbled.txt"))
            let mpd = try Self.mpd([("urn:mpeg:dash:utc:ntp:2014", "pool.ntp.example"),
                                    ("urn:mpeg:dash:utc:http-xsdate:2014", "missing.txt garbled.txt time.txt")])
            let before = Date().timeIntervalSince1970
            let reading = await DASHClock.read(mpd, url: mpdURL, fetcher: Self.fetcher)
            let expected = 1_795_845_600.5 - before
            #expect(abs(reading.offset - expected) < 5 && reading.warning == nil)

            let failing = try Self.mpd([("urn:mpeg:dash:utc:ntp:2014", "pool.ntp.example"),
                                        ("urn:mpeg:dash:utc:http-iso:2014", "missing.txt garbled.txt")])
            let fallback = await DASHClock.read(failing, url: mpdURL, fetcher: Self.fetcher)
            #expect(fallback.offset == 0)
            let warning = try #require(fallback.warning)
            #expect(warning.contains("urn:mpeg:dash:utc:ntp:2014 is not a scheme Carryon reads"))
            #expect(warning.contains("missing.txt") && warning.contains("\"not a date\""))
            #expect(warning.contains("this machine's clock"))
        }
    }

    @Test("a hostile MPD cannot hold the recording up: three time requests at most, a clock years away not believed")
    func bounded() async throws {
        try await withTemporaryDirectory { folder in
            let mpdURL = folder.appending(path: "live.mpd").absoluteString
            try Data("2026-11-28T06:00:00Z".utf8).write(to: folder.appending(path: "time.txt"))
            let many = try Self.mpd([("urn:mpeg:dash:utc:http-iso:2014", "one.txt two.txt three.txt time.txt")])
            let capped = await DASHClock.read(many, url: mpdURL, fetcher: Self.fetcher)
            #expect(capped.offset == 0 && capped.warning?.contains("three.txt") == true && capped.warning?.contains("time.txt") == false,
                    "\(String(describing: capped.warning))")
            let far = try Self.mpd([("urn:mpeg:dash:utc:direct:2014", "2099-01-01T00:00:00Z")])
            let reading = await DASHClock.read(far, url: mpdURL, fetcher: Self.fetcher)
            #expect(reading.offset == 0 && reading.warning?.contains("days from this machine's clock") == true, "\(String(describing: reading.warning))")
        }
    }
}
