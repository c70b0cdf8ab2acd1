import Foundation

/// What Chromium played of an MPD (`Tests/Browser/mse-player.html`, driven by
/// `Tests/Browser/play.py`).
public struct BrowserPlayback: Decodable, Sendable {
    /// The video frames Chromium decoded (`getVideoPlaybackQuality().totalVideoFrames`).
    public var frames: Int
    /// Of those, the ones it dropped rather than showed.
    public var dropped: Int
    /// Where playback stopped, and the presentation's length, in seconds.
    public var currentTime: Double
    public var duration: Double?
    /// The Clear Key licence requests the page POSTed for the CDM, and their statuses.
    public var licenceRequests: Int
    public var licenceStatuses: [Int]
    /// The media or page error that stopped playback, if one did.
    public var error: String?
}

/// Plays `mpd` (a path under `base`, the playback server's base URL) in Debian's Chromium through
/// Media Source Extensions and, for W3C Clear Key, Encrypted Media Extensions with Chromium's own
/// Clear Key CDM: the browser judge of a DASH bundle. Throws a message saying what to install
/// when Chromium or Playwright is missing.
public func chromiumPlayback(base: String, mpd: String) async throws -> BrowserPlayback {
    let python = try requireBrowserPython()
    let script = packageRoot.appendingPathComponent("Tests/Browser/play.py").path
    let result = try await run(python, [script, base, mpd])
    guard result.status == 0 else {
        throw TestSupportError("Chromium could not play \(mpd) (play.py status \(result.status)): \(result.standardError.suffix(3000))")
    }
    do {
        return try JSONDecoder().decode(BrowserPlayback.self, from: Data(result.standardOutput.utf8))
    } catch {
        throw TestSupportError("play.py printed no playback report: \(result.standardOutput.suffix(2000)) \(result.standardError.suffix(2000))")
    }
}

/// The python3 that drives Chromium with Playwright (`Tests/Browser/*.py`); throws saying what
/// to install when there is none.
public func requireBrowserPython() throws -> URL {
    guard let python = findExecutable("python3") else {
        throw TestSupportError("python3 is not installed, and this test drives Chromium with Playwright from it: apt-get install -y python3 python3-pip")
    }
    return python
}
