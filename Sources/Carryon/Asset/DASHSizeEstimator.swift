import DASH

/// How many bytes each Representation of an MPD will take, before downloading it: exact when
/// byte ranges give every segment's length (a SegmentList's `@mediaRange`, a SegmentBase's
/// `sidx`, read with a Range request) and the init section's, otherwise estimated from its
/// `@bandwidth` times each segment's duration. Reads no media. Used by `carryon inspect --sizes`.
public struct DASHSizeEstimator: Sendable {
    /// How segment indexes are fetched.
    public var fetcher: PlaylistFetcher

    /// An estimator that reads SegmentBase indexes with `fetcher`.
    public init(fetcher: PlaylistFetcher) {
        self.fetcher = fetcher
    }

    /// Where a Representation is in its MPD: the indexes of its Period, its AdaptationSet, and
    /// itself.
    public struct Place: Sendable, Hashable {
        /// The Period's index in the MPD.
        public var period: Int
        /// The AdaptationSet's index in its Period.
        public var adaptationSet: Int
        /// The Representation's index in its AdaptationSet.
        public var representation: Int

        /// The place of the `representation`th Representation of the `adaptationSet`th
        /// AdaptationSet of the `period`th Period.
        ///
        ///     let first = DASHSizeEstimator.Place(period: 0, adaptationSet: 0, representation: 0)
        public init(period: Int, adaptationSet: Int, representation: Int) {
            self.period = period
            self.adaptationSet = adaptationSet
            self.representation = representation
        }
    }

    /// Estimates for every Representation of `mpd`, read from `url`, by its place.
    public func estimate(_ mpd: MPD, url: String) async -> [Place: SizeEstimator.Outcome] {
        // What the MPD names is read under its stream's rule: no local file for a remote MPD.
        let streamFetcher = fetcher.forStream(url)
        let timings = mpd.periodTimings
        var results: [Place: SizeEstimator.Outcome] = [:]
        for (periodIndex, period) in mpd.periods.enumerated() {
            for (setIndex, set) in period.adaptationSets.enumerated() {
                for (index, representation) in set.representations.enumerated() {
                    let place = Place(period: periodIndex, adaptationSet: setIndex, representation: index)
                    do throws(CarryonError) {
                        results[place] = .success(try await Self.estimate(representation, in: set, of: period, timing: timings[periodIndex],
                                                                          mpd: mpd, url: url, fetcher: streamFetcher))
                    } catch {
                        results[place] = .failure(error)
                    }
                }
            }
        }
        return results
    }

    /// The estimate for one Representation.
    static func estimate(_ representation: Representation, in set: AdaptationSet, of period: Period, timing: MPD.PeriodTiming,
                         mpd: MPD, url: String, fetcher: PlaylistFetcher) async throws(CarryonError) -> SizeEstimate {
        var addressing: SegmentAddressing
        do {
            addressing = try SegmentAddressing(representation, in: set, of: period, timing: timing, mpd: mpd, mpdURL: url)
        } catch {
            throw CarryonError(.playlist, "\(url), \(error)", cause: error)
        }
        let namedBy = "\(url), line \(representation.line) (Representation \(representation.id))"
        if addressing.mode == .base {
            try await DASHPlanner.readIndex(of: &addressing, fetcher: fetcher, namedBy: namedBy)
        }
        let bitrate = Double(representation.bandwidth ?? 0)
        let scale = Double(addressing.timescale)
        var exact = true
        var bytes: Int64 = 0
        var duration: Int64 = 0
        if let initialization = addressing.initialization {
            if let range = initialization.range { bytes += range.length } else { exact = false }
        }
        for segment in addressing.segments {
            duration += segment.duration
            if let range = segment.location.range {
                bytes += range.length
            } else {
                exact = false
                bytes += Int64(bitrate * Double(segment.duration) / scale / 8)
            }
        }
        return SizeEstimate(bytes: Int(bytes), isExact: exact, duration: Double(duration) / scale)
    }
}
