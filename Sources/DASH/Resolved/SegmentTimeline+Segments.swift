extension SegmentTimeline {
    /// The shortest timeline of `segments`, in order: a segment that starts where the one
    /// before ended with the same duration is a repeat (`@r`); one that does not gets its own
    /// `@t`.
    public init(covering segments: some Sequence<SegmentAddressing.Segment>) {
        var entries: [Entry] = []
        var expectedTime: Int64?
        for segment in segments {
            if let last = entries.last, expectedTime == segment.time, last.duration == segment.duration {
                entries[entries.count - 1].repeatCount += 1
            } else {
                entries.append(Entry(time: expectedTime == segment.time ? nil : segment.time, duration: segment.duration))
            }
            expectedTime = segment.time + segment.duration
        }
        self.init(entries: entries)
    }
}
