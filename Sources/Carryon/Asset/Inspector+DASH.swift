import DASH

extension Inspector {
    /// An MPD read for inspection: the model as the lenient reader read it (its warnings in
    /// `MPD.warnings`, module `DASH`), dynamic ones included.
    public struct MPDInspection: Sendable {
        /// The URL it was read from, after redirects.
        public var url: String
        /// The MPD as read.
        public var mpd: MPD

        /// How `representation` addresses its segments, and how many there are when that is
        /// known without fetching an index (nil for SegmentBase, or when it cannot be worked out).
        public func addressing(of representation: Representation, in set: AdaptationSet, periodIndex: Int) -> (mode: String, segmentCount: Int?) {
            let period = mpd.periods[periodIndex]
            let mode = SegmentAddressing.mode(of: mpd.segmentInformation(of: representation, in: set, of: period))
            // Counted, not made: an MPD may describe millions of segments in a few bytes.
            let count = SegmentAddressing.segmentCount(representation, in: set, of: period, timing: mpd.periodTimings[periodIndex], mpd: mpd)
            return (mode.rawValue, count)
        }
    }
}
