@testable import Carryon
import HLS
import Foundation
import Testing

/// Dates as people type them: read strictly (a day that does not exist is refused, not moved to
/// the next month) and only within what the library's index can write and read back.
@Suite("DateText")
struct DateTextTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    func date(_ text: String) throws(CarryonError) -> Date { try DateText.date(text, naming: "expiresAt") }

    @Test("reads days, dates and times with their zone, and fractions of a second")
    func reads() throws {
        #expect(try date("2026-12-31") == Date(timeIntervalSince1970: 1_798_675_200))
        #expect(try date("2026-12-31T18:00:00Z") == Date(timeIntervalSince1970: 1_798_740_000))
        #expect(try date("2026-12-31 18:00:00z") == Date(timeIntervalSince1970: 1_798_740_000))
        #expect(try date("2026-12-31T20:00:00+02:00") == Date(timeIntervalSince1970: 1_798_740_000))
        #expect(try date("2026-12-31T13:30:00-0430") == Date(timeIntervalSince1970: 1_798_740_000))
        #expect(try date("2026-12-31T18:00Z") == Date(timeIntervalSince1970: 1_798_740_000))
        #expect(try date("2026-12-31T18:00:00.250Z") == Date(timeIntervalSince1970: 1_798_740_000.25))
        #expect(try date("2024-02-29") == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(try date("9999-12-31T23:59:59Z") == DateText.latest)
        #expect(try DateText.expiry("never", naming: "--expires") == nil)
        #expect(try DateText.expiry("30d", now: Self.now, naming: "--expires") == Self.now.addingTimeInterval(30 * 86_400))
        #expect(try DateText.expiry("1.5h", now: Self.now, naming: "--expires") == Self.now.addingTimeInterval(5_400))
    }

    @Test("refuses days that do not exist, times past 23:59:59, no zone, and other text", arguments: [
        ("2026-02-30", "does not exist"), ("2025-02-29", "does not exist"), ("2026-13-01", "does not exist"),
        ("2026-04-31", "does not exist"), ("2026-00-10", "does not exist"), ("2026-12-31T24:00:00Z", "time that does not exist"),
        ("2026-12-31T12:60:00Z", "time that does not exist"), ("2026-12-31T12:00:00", "no time zone"),
        ("2026-12-31T12:00:00+25:00", "no time zone"), ("31/12/2026", "is not a date"), ("2026-1-5", "is not a date"),
        ("", "is not a date"), ("2026-12-31T12:00:00Zjunk", "is not a date"),
    ])
    func refuses(text: String, words: String) {
        #expect {
            try date(text)
        } throws: { error in
            let error = error as? CarryonError
            return error?.code == .invalidValue && error?.message.contains(words) == true && error?.message.contains("expiresAt") == true
        }
    }

    @Test("refuses what the index could not read back: past 9999-12-31, before 1970, a time from now that ends past 9999")
    func refusesOutOfRange() {
        for text in ["10000-01-01T00:00:00Z", "+010000-01-01T00:00:00.000Z", "1969-12-31T23:59:59Z"] {
            #expect(throws: CarryonError.self, "\(text)") { try date(text) }
        }
        for text in ["3000000d", "1e308d", "infd", "-5d", "nand"] {
            #expect(throws: CarryonError.self, "\(text)") { try DateText.expiry(text, now: Self.now, naming: "--expires") }
        }
        #expect(throws: CarryonError.self) { try DateText.check(Date(timeIntervalSince1970: 1e12), naming: "the expiry") }
        #expect(throws: CarryonError.self) { try KeyLifetime(expiresAt: Date(timeIntervalSince1970: 1e12)).check() }
        #expect(throws: CarryonError.self) { try KeyLifetime(rentalWindow: -1).check() }
        #expect(throws: CarryonError.self) { try KeyLifetime(playbackWindow: .infinity).check() }
        #expect(throws: Never.self) { try KeyLifetime(expiresAt: Self.now, rentalWindow: 86_400, playbackWindow: 3_600).check() }
    }

    @Test("an error quotes a short, printable excerpt of what was given")
    func excerpts() {
        let long = String(repeating: "x", count: 5_000) + "\u{1b}[31m"
        #expect(throws: CarryonError.self) { try date(long) }
        do { _ = try date(long) } catch { #expect(error.message.count < 200) }
        #expect(DateText.excerpt("a\u{1b}[2Jb\n") == "\"a?[2Jb?\"")
    }
}

/// A download's bounds are ones a stream can have: a careless or hostile number is refused with
/// its name, before anything is recorded.
@Suite("Download options' bounds")
struct DownloadOptionsBoundsTests {
    @Test("negative, zero and absurd bitrates, resolutions and byte rates are refused; a minimum above its maximum too")
    func bounds() {
        var cases: [DownloadOptions] = []
        for bitrate in [-1, 0, 1_000_000_000_001, Int.max] {
            cases.append(DownloadOptions(minimumBitrate: bitrate))
            cases.append(DownloadOptions(maximumBitrate: bitrate))
            var limited = DownloadOptions()
            limited.maximumBytesPerSecond = bitrate
            cases.append(limited)
        }
        for resolution in [Resolution(width: 99_999_999_999, height: 720), Resolution(width: 1280, height: 0), Resolution(width: -1, height: -1)] {
            cases.append(DownloadOptions(minimumResolution: resolution))
            cases.append(DownloadOptions(maximumResolution: resolution))
        }
        cases.append(DownloadOptions(minimumBitrate: 2_000_000, maximumBitrate: 1_000_000))
        for options in cases {
            #expect(throws: CarryonError.self, "\(options)") { try options.check() }
        }
        #expect(throws: Never.self) {
            try DownloadOptions(minimumBitrate: 100_000, minimumResolution: Resolution(width: 640, height: 360),
                                maximumBitrate: 8_000_000, maximumResolution: Resolution(width: 3840, height: 2160)).check()
        }
    }
}
