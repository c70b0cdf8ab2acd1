/// What a live recording's plan holds, for its next round to plan only the segments it
/// appended (``DownloadPlan/appendsTo``) instead of the whole recording again: so that a round
/// costs what it adds, and a recording of hours holds no more memory than one of minutes.
///
/// The next round appends when the recording only grew since: the same renditions, each
/// recorded playlist's header unchanged and no segment before the new ones edited
/// (``LiveRecording/edits``), no key it has not planned, no byte range, no resource the plan has
/// already (checked by the index as the rows are added). Anything else plans the whole
/// recording again, as every round did before, which then gives a new continuation.
///
/// Files are numbered by their place in the recording (a segment's its index, gaps counted; an
/// init section's the index of the segment that brings it), so that the rows a round appends
/// are named as a whole plan names them.
struct PlanContinuation: Sendable, Hashable {
    /// What the plan holds of one recorded playlist.
    struct Playlist: Sendable, Hashable {
        /// Its segments (gaps included) and their seconds.
        var segments: Int
        var seconds: Double
        /// The header its local playlist was written with: another means a whole plan.
        var header: String
    }

    /// By recorded playlist URI.
    var playlists: [String: Playlist]
    /// The renditions' URIs, in the plan's order.
    var renditions: [String]
    /// The content keys planned, whose ids new segments reuse.
    var keys: [DownloadPlan.PlannedKey]
    /// The plan's rows: the ordinal of the next.
    var rows: Int
    /// The recording's ``LiveRecording/edits`` when planned.
    var edits: Int
}
