import HLS

/// Where each Period starts and how long it lasts, and what a Representation inherits: the
/// values ISO/IEC 23009-1 derives rather than states.
extension MPD {
    /// A Period's start and duration in the presentation.
    public struct PeriodTiming: Sendable, Hashable {
        /// Its start in the presentation.
        public var start: MediaTime
        /// Nil only for the last Period of an MPD with no `@mediaPresentationDuration`.
        public var duration: MediaTime?

        /// A Period starting at `start`, lasting `duration`.
        public init(start: MediaTime, duration: MediaTime?) {
            self.start = start
            self.duration = duration
        }
    }

    /// Each Period's timing (5.3.2.1): `@start`, else the end of the Period before (0 for the
    /// first); the duration `@duration`, else up to the next Period's start or the
    /// presentation's end.
    public var periodTimings: [PeriodTiming] {
        var starts: [MediaTime] = []
        var previousEnd: MediaTime? = .zero
        for period in periods {
            let start = period.start ?? previousEnd ?? .zero
            starts.append(start)
            previousEnd = period.duration.map { start + $0 }
        }
        return periods.indices.map { index in
            let start = starts[index]
            if let duration = periods[index].duration { return PeriodTiming(start: start, duration: duration) }
            if index + 1 < periods.count { return PeriodTiming(start: start, duration: starts[index + 1] - start) }
            return PeriodTiming(start: start, duration: mediaPresentationDuration.map { $0 - start })
        }
    }

    /// The presentation's duration: `@mediaPresentationDuration`, else the end of the last
    /// Period whose duration is known.
    public var duration: MediaTime? {
        mediaPresentationDuration ?? periodTimings.last.flatMap { timing in timing.duration.map { timing.start + $0 } }
    }

    /// `representation`'s attributes with what it inherits from `set`.
    public func effective(_ representation: Representation, in set: AdaptationSet) -> CommonAttributes {
        representation.common.inheriting(from: set.common)
    }

    /// `representation`'s segment information with what it inherits from `set`, `period` and
    /// nothing above (the MPD level has none).
    public func segmentInformation(of representation: Representation, in set: AdaptationSet, of period: Period) -> SegmentInformation {
        representation.segments.inheriting(from: set.segments.inheriting(from: period.segments))
    }

    /// The absolute base URL of `representation`: the first `BaseURL` at each level, each
    /// resolved against the one above, the first against `mpdURL` (the URL the MPD was read
    /// from after redirects).
    public func baseURL(of representation: Representation, in set: AdaptationSet, of period: Period, mpdURL: String) -> String {
        baseURLs(of: representation, in: set, of: period, mpdURL: mpdURL, limit: 1)[0]
    }

    /// Every absolute base URL of `representation`, in the order a client tries them: the
    /// first ``baseURL(of:in:of:mpdURL:)``, then each choice of one `BaseURL` per level that
    /// names several (ISO/IEC 23009-1 5.6.4: alternative locations of the same files), the
    /// deeper levels varying first; at most `limit`, each once.
    public func baseURLs(of representation: Representation, in set: AdaptationSet, of period: Period, mpdURL: String,
                         limit: Int = 8) -> [String] {
        var urls = [mpdURL]
        for level in [baseURLs, period.baseURLs, set.baseURLs, representation.baseURLs] where !level.isEmpty {
            var next: [String] = []
            for url in urls {
                for base in level where next.count < limit {
                    let resolved = URIReference.resolve(base.url, against: url)
                    if !next.contains(resolved) { next.append(resolved) }
                }
            }
            urls = next
        }
        return urls
    }
}
