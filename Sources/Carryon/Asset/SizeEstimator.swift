import HLS

/// How many bytes a variant or rendition will take, before downloading it: exact when its
/// playlist gives every segment's byte range, otherwise estimated from its bitrate
/// (`AVERAGE-BANDWIDTH`, else `BANDWIDTH`, for variants; 64 kbit/s per channel for audio; a
/// few kbit/s for subtitles) times its duration.
public struct SizeEstimate: Sendable, Hashable, Codable {
    /// The bytes expected.
    public var bytes: Int
    /// Whether ``bytes`` is exact.
    public var isExact: Bool
    /// The media's duration in seconds.
    public var duration: Double
}

/// Estimates the size of every variant and rendition of a multivariant playlist, reading their
/// media playlists (a few at a time) but no media. Used by `carryon inspect --sizes`.
public struct SizeEstimator: Sendable {
    /// How media playlists are fetched.
    public var fetcher: PlaylistFetcher
    /// Media playlists read at once.
    public var concurrency: Int

    /// An estimator that reads media playlists with `fetcher`, `concurrency` at a time (6 by
    /// default).
    public init(fetcher: PlaylistFetcher, concurrency: Int = 6) {
        self.fetcher = fetcher
        self.concurrency = concurrency
    }

    /// An estimate, or why there is none.
    public typealias Outcome = Result<SizeEstimate, CarryonError>

    /// Estimates for each variant and rendition, by the URI of its media playlist.
    public func estimate(_ main: MultivariantPlaylist) async -> [String: Outcome] {
        var jobs: [(uri: String, bitrate: Int?, namedBy: String)] = []
        for variant in main.variants where !jobs.contains(where: { $0.uri == variant.uri }) {
            jobs.append((variant.uri, variant.averageBandwidth ?? variant.bandwidth, "\(main.url), line \(variant.line)"))
        }
        for rendition in main.renditions {
            guard let uri = rendition.uri, !jobs.contains(where: { $0.uri == uri }) else { continue }
            let bitrate = rendition.type == .audio ? DownloadPlan.audioBitrate(channels: rendition.channels) : DownloadPlan.subtitleBitrate
            jobs.append((uri, bitrate, main.url))
        }
        // What the playlist names is read under its stream's rule: no local file for a stream
        // fetched over HTTP.
        let estimator = SizeEstimator(fetcher: fetcher.forStream(main.url), concurrency: concurrency)
        // Each child returns a named struct, and awaits before building it. A child that returns
        // a tuple built around a `try await` — `(uri, try await estimate(…))` — is miscompiled
        // by Swift 6.3's optimizer: the part written before the suspension is lost, and the
        // release build crashed in `swift_taskGroup_wait_next_throwing` (swiftlang/swift#91911,
        // reverted in #92155, so not fixed in the toolchain we build with).
        return await withTaskGroup(of: Estimated.self) { group in
            var results: [String: Outcome] = [:]
            var pending = jobs.makeIterator()
            func startNext() {
                guard let job = pending.next() else { return }
                group.addTask {
                    let outcome: Outcome
                    do throws(CarryonError) {
                        let estimate = try await estimator.estimate(job.uri, imports: main.variables, bitrate: job.bitrate,
                                                                    namedBy: job.namedBy)
                        outcome = .success(estimate)
                    } catch {
                        outcome = .failure(error)
                    }
                    return Estimated(uri: job.uri, outcome: outcome)
                }
            }
            for _ in 0..<max(concurrency, 1) { startNext() }
            while let estimated = await group.next() {
                results[estimated.uri] = estimated.outcome
                startNext()
            }
            return results
        }
    }

    /// What one child task of the multivariant estimate found.
    private struct Estimated: Sendable {
        var uri: String
        var outcome: Outcome
    }

    /// The estimate for one media playlist, at `bitrate` bits per second where lengths are not
    /// given. `namedBy` says where `uri` was written, for the error when the fetcher's rule
    /// refuses it.
    public func estimate(_ uri: String, imports: [String: String]?, bitrate: Int?,
                         namedBy: String? = nil) async throws(CarryonError) -> SizeEstimate {
        let manifest = try await fetcher.fetchManifest(uri, namedBy: namedBy)
        guard case .media(let media) = try fetcher.read(manifest, imports: imports) else {
            throw CarryonError(.playlist, "\(manifest.url) is a multivariant playlist where a media playlist was expected")
        }
        return Self.estimate(media, bitrate: bitrate)
    }

    /// The estimate for a resolved media playlist.
    public static func estimate(_ media: MediaPlaylist, bitrate: Int?) -> SizeEstimate {
        var exact = true
        var bytes = 0
        var initSections: Set<String> = []
        for segment in media.segments where !segment.isGap {
            if let range = segment.byteRange {
                bytes += range.length
            } else {
                exact = false
                let rate = segment.bitrate.map { $0 * 1000 } ?? bitrate ?? 0
                bytes += Int(Double(rate) * segment.duration / 8)
            }
            if let map = segment.initSection, initSections.insert("\(map.uri) \(map.byteRange?.description ?? "")").inserted {
                if let range = map.byteRange { bytes += range.length } else { exact = false }
            }
        }
        return SizeEstimate(bytes: bytes, isExact: exact, duration: media.duration)
    }
}
