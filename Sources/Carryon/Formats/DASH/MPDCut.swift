import DASH

/// The local `main.mpd` of an asset that is neither complete nor downloading, cut to what is on
/// disk, as its HLS media playlists are: each Representation's SegmentList ends before its
/// first segment (or init section) not on disk, one with none is left out, and of one
/// AdaptationSet (Representations a player switches between) only those that play as far as its
/// longest stay. A Period plays as
/// long as its video and its audio each can, in the Representation of each that has the most
/// on disk: the first Period where that is short of its end is cut there (its duration and the
/// MPD's), later Periods dropped. So an extra language not begun, or cut short, shortens nothing
/// while another audio Representation is whole; a Period with no video, or no audio, on disk
/// ends at its start. Subtitles and a text file (a bare BaseURL) not on disk shorten nothing.
enum MPDCut {
    static func cut(_ text: String, onDisk: Set<String>) throws(CarryonError) -> String {
        let base = "carryon-bundle:///main.mpd"
        let mpd: MPD
        do { mpd = try MPD.read(Array(text.utf8)) } catch {
            throw CarryonError(.playlist, "the local main.mpd cannot be read: \(error)", cause: error)
        }
        func present(_ location: SegmentAddressing.Location) -> Bool {
            guard location.url.hasPrefix("carryon-bundle:///") else { return false }
            let path = String(location.url.dropFirst("carryon-bundle:///".count))
            return onDisk.contains(ResourceRecord.onDiskKey(path, offset: location.range.map { Int($0.first) }))
        }
        var local = mpd
        local.periods = []
        let timings = mpd.periodTimings
        for (index, period) in mpd.periods.enumerated() {
            var kept = period
            var available = timings[index].duration
            // Of each content (video, audio…) cut short: the most one of its Representations has
            // on disk; and the contents one Representation of which is whole.
            var longest: [DASHPresentation.Content: MediaTime] = [:]
            var whole: Set<DASHPresentation.Content> = []
            for setIndex in period.adaptationSets.indices {
                let set = period.adaptationSets[setIndex]
                let content = DASHPresentation.content(of: set)
                // Each Representation kept, with how far it plays (nil: whole).
                var representations: [(representation: Representation, end: MediaTime?)] = []
                for representation in set.representations {
                    let addressing: SegmentAddressing
                    do {
                        addressing = try SegmentAddressing(representation, in: set, of: period, timing: timings[index], mpd: mpd, mpdURL: base)
                    } catch {
                        throw CarryonError(.playlist, "the local main.mpd cannot be addressed: \(error)", cause: error)
                    }
                    if addressing.mode == .url {
                        if addressing.segments.allSatisfy({ present($0.location) }) { representations.append((representation, nil)) }
                        continue
                    }
                    let count = addressing.initialization.map(present) == false ? 0
                        : addressing.segments.prefix { present($0.location) }.count
                    guard count < addressing.segments.count, var list = representation.segments.list else {
                        representations.append((representation, nil))
                        whole.insert(content)
                        continue
                    }
                    // With none of its segments, it is left out (its init section may be missing too).
                    guard count > 0 else {
                        longest[content] = longest[content] ?? .zero
                        continue
                    }
                    list.segmentURLs = Array((list.segmentURLs ?? []).prefix(count))
                    list.timeline = DASHPlan.listTimeline(addressing.segments.prefix(count))
                    var cut = representation
                    cut.segments.list = list
                    let end = addressing.segments[count - 1].time + addressing.segments[count - 1].duration
                    let ends = MediaTime(max(0, end - addressing.presentationTimeOffset), timescale: addressing.timescale)
                    representations.append((cut, ends))
                    longest[content] = max(longest[content] ?? ends, ends)
                }
                // One set's Representations are switched between (a variant added to the bundle
                // beside the main one): only those that play as far as the set's longest stay.
                let reach = representations.contains { $0.end == nil } ? nil : representations.compactMap(\.end).max()
                kept.adaptationSets[setIndex].representations = representations.filter { item in
                    guard let reach else { return item.end == nil }
                    return item.end.map { !($0 < reach) } ?? true
                }.map(\.representation)
            }
            // The Period plays as long as its video and its audio each can, in the Representation
            // of each that has the most: an extra language cut short, or not begun, shortens
            // nothing while another of its content is whole or longer.
            let bounds = longest.filter { !whole.contains($0.key) && ($0.key == .video || $0.key == .audio) }.values
            if let end = bounds.min() { available = min(available ?? end, end) }
            kept.adaptationSets.removeAll { $0.representations.isEmpty }
            local.periods.append(kept)
            if !bounds.isEmpty {
                let duration = available ?? .zero
                local.periods[local.periods.count - 1].duration = duration
                local.mediaPresentationDuration = timings[index].start + duration
                break
            }
        }
        return local.written()
    }
}
