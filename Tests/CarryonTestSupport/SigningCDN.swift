import Foundation

/// A CDN that signs its URLs for a while: a media playlist whose segment URIs carry the current
/// signature (`s3.ts?sig=7`), each answered slowly; a signature is good for `lifetime`
/// signings, and a 403 answers any older one — the expiring signed URLs that make downloads die
/// half way. With
/// `signsManifest` the playlist's own URL is signed too (`media.m3u8?sig=7`), and
/// ``manifestURLFile`` always holds the current one, for a `--refresh-command` to `cat`.
public final class SigningCDN: @unchecked Sendable {
    /// The origin underneath, with its record of requests.
    public let origin: HostileOrigin
    /// The segments' bytes, in order.
    public let segments: [[UInt8]]
    /// A file that always holds the manifest's current URL.
    public let manifestURLFile: URL
    private let signsManifest: Bool
    private let chunk: Int
    private let interval: Duration
    private let lock = NSLock()
    private var generation = 0
    /// The paths of each signature still good, oldest first.
    private var signed: [[String]] = []
    /// How many signings a signature stays good for.
    private let lifetime: Int
    /// Segments that are refused whatever their signature (by index).
    private let alwaysRefused: Set<Int>

    /// `count` segments of `size` bytes each, sent `chunk` bytes every `interval`; a signature
    /// stays good until `lifetime` newer ones were made. The first is made at once.
    public init(segments count: Int, size: Int, chunk: Int, every interval: Duration, signsManifest: Bool = false,
                lifetime: Int = 1, alwaysRefused: Set<Int> = [], manifestURLFile: URL) throws {
        origin = try HostileOrigin()
        origin.answerUnknown(with: 403)
        segments = (0..<count).map { index in (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index &* 7) } }
        self.signsManifest = signsManifest
        self.chunk = chunk
        self.interval = interval
        self.alwaysRefused = alwaysRefused
        self.manifestURLFile = manifestURLFile
        self.lifetime = max(1, lifetime)
        rotate()
    }

    /// The manifest's URL now.
    public var manifestURL: String {
        lock.withLock { origin.baseURL + "/media.m3u8" + (signsManifest ? "?sig=\(generation)" : "") }
    }

    /// Signs anew: the paths of the signature `lifetime` signings old are refused from now on.
    public func rotate() {
        lock.withLock {
            if signed.count >= lifetime {
                for path in signed.removeFirst() { origin.forget(path) }
            }
            generation += 1
            var current: [String] = []
            var playlist = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n"
            for (index, body) in segments.enumerated() {
                let path = "/s\(index).ts?sig=\(generation)"
                playlist += "#EXTINF:4,\n" + String(path.dropFirst()) + "\n"
                guard !alwaysRefused.contains(index) else { continue }
                origin.answer(path, with: .paced(body, chunk: chunk, every: interval))
                current.append(path)
            }
            playlist += "#EXT-X-ENDLIST\n"
            let manifestPath = "/media.m3u8" + (signsManifest ? "?sig=\(generation)" : "")
            origin.answer(manifestPath, with: .body([UInt8](playlist.utf8)))
            if signsManifest { current.append(manifestPath) }
            signed.append(current)
            try? Data((origin.baseURL + manifestPath + "\n").utf8).write(to: manifestURLFile, options: .atomic)
        }
    }

    /// Signs anew every `period` until the returned timer is cancelled. The timer runs on a
    /// dispatch queue of its own, scheduled by the system rather than by Swift's cooperative
    /// pool, so a test run that keeps the pool's threads busy does not stretch a signature's life.
    public func rotating(every period: Duration) -> any DispatchSourceTimer {
        let nanoseconds = Int(period.components.seconds) * 1_000_000_000 + Int(period.components.attoseconds / 1_000_000_000)
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "SigningCDN.rotation"))
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds), leeway: .milliseconds(5))
        timer.setEventHandler { [weak self] in self?.rotate() }
        timer.resume()
        return timer
    }

    /// Stops the origin.
    public func stop() { origin.stop() }
}
