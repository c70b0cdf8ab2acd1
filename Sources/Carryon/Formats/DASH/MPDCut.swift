import DASH

/// The local `main.mpd` of an asset that is neither complete nor downloading, cut to what is on
/// disk, as its HLS media playlists are: each Representation's SegmentList ends before its
/// first segment (or init section) not on disk, and the presentation ends where the first
/// Period that lost anything has every one of its audio and video Representations: that
/// Period's duration and the MPD's are cut there, later Periods dropped. A text file (a bare
/// BaseURL) not on disk is left out, and does not shorten anything.
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
            var whole = true
            var available = timings[index].duration
            for setIndex in period.adaptationSets.indices {
                let set = period.adaptationSets[setIndex]
                var representations: [Representation] = []
                for representation in set.representations {
                    let addressing: SegmentAddressing
                    do {
                        addressing = try SegmentAddressing(representation, in: set, of: period, timing: timings[index], mpd: mpd, mpdURL: base)
                    } catch {
                        throw CarryonError(.playlist, "the local main.mpd cannot be addressed: \(error)", cause: error)
                    }
                    if addressing.mode == .url {
                        if addressing.segments.allSatisfy({ present($0.location) }) { representations.append(representation) }
                        continue
                    }
                    let count = addressing.initialization.map(present) == false ? 0
                        : addressing.segments.prefix { present($0.location) }.count
                    guard count < addressing.segments.count, var list = representation.segments.list else {
                        representations.append(representation)
                        continue
                    }
                    whole = false
                    // With none of its segments, it is left out (its init section may be missing too).
                    if count > 0 {
                        list.segmentURLs = Array((list.segmentURLs ?? []).prefix(count))
                        list.timeline = DASHPlan.listTimeline(addressing.segments.prefix(count))
                        var cut = representation
                        cut.segments.list = list
                        representations.append(cut)
                    }
                    let end = count == 0 ? addressing.presentationTimeOffset
                        : addressing.segments[count - 1].time + addressing.segments[count - 1].duration
                    let ends = MediaTime(max(0, end - addressing.presentationTimeOffset), timescale: addressing.timescale)
                    available = min(available ?? ends, ends)
                }
                kept.adaptationSets[setIndex].representations = representations
            }
            kept.adaptationSets.removeAll { $0.representations.isEmpty }
            local.periods.append(kept)
            if !whole {
                let duration = available ?? .zero
                local.periods[local.periods.count - 1].duration = duration
                local.mediaPresentationDuration = timings[index].start + duration
                break
            }
        }
        return local.written()
    }
}
