import DASH
import HLS

/// Building a ``DownloadPlan`` from an MPD whose chosen Representations are addressed (their
/// segment indexes read): pure, so it is tested without I/O.
///
/// The bundle gets both manifests of the same files: a local `main.mpd` (static; each chosen
/// Representation a SegmentList of local files, with a SegmentTimeline of the origin's exact
/// times) for DASH players, and HLS playlists (`main.m3u8`: fMP4 with `EXT-X-MAP`, byte ranges
/// where the origin used them, a discontinuity and a new init section at each Period boundary,
/// WebVTT files as subtitle renditions) so that every HLS player plays a DASH download too.
enum DASHPlan {
    /// One Representation of one Period, addressed.
    struct Part {
        var periodIndex: Int
        var timing: MPD.PeriodTiming
        var period: Period
        var set: AdaptationSet
        var representation: Representation
        var common: CommonAttributes
        var addressing: SegmentAddressing
        /// The key its media is encrypted with (its `id` names it in the key store), if any.
        var key: DownloadPlan.PlannedKey? = nil
        /// The size of a SegmentBase's file, when the server said it on reading its index.
        var fileSize: Int64? = nil
    }

    /// A chosen track (see ``DASHChoice``) with its Parts addressed.
    struct Track {
        var chosen: DASHChoice.Track
        var parts: [Part]

        var choice: String { chosen.kind }
        var isMain: Bool { chosen.isMain }
        var uri: String { chosen.uri }
        var name: String { chosen.name }
        var language: String? { chosen.language }
        var channels: String? { chosen.channels }
    }

    /// A track planned: its key, its local HLS lines, and each Part's local Representation.
    struct Planned {
        var track: Track
        var key: String
        var duration: Double
        var bytes: Int
        var hlsPlaylist: String
        var localRepresentations: [Int: Representation]
        /// Whether HLS players can play it (WebVTT files and media segments; not TTML).
        var isHLSPlayable: Bool
        /// With a time range: by Period index, the start of its first segment planned and the
        /// end of its last, from the Period's start (exact, in the Representation's timescale).
        var windows: [Int: (start: MediaTime, end: MediaTime)] = [:]
    }

    /// The plan of `tracks`; with `range`, of the segments that cover it alone (see
    /// ``TimeRange``): a Period it does not reach is left out, and each Period kept starts at
    /// its first segment planned (each Representation's presentationTimeOffset moved there).
    static func make(assetID: String, mpd: MPD, tracks: [Track], origin: [UInt8],
                     warnings: [DownloadPlan.PlaylistNotice], range: TimeRange? = nil) throws(CarryonError) -> DownloadPlan {
        let timeRange = range
        var taken: [String] = []
        var resources = PlannedResources(assetID: assetID)
        var planned: [Planned] = []
        // Whether the range covers any segment.
        var covered = false

        for track in tracks {
            let key = DownloadPlan.uniqueKey(type: track.choice, label: track.language ?? track.name, taken: &taken)
            var lines: [Line] = [Line(tag: .m3u), Line(tag: .version(7)), Line(tag: .independentSegments),
                                 Line(tag: .playlistType(.vod))]
            var body: [Line] = []
            var longest = 0.0
            var duration = 0.0
            var bytes = 0
            var localRepresentations: [Int: Representation] = [:]
            let isText = DASHPresentation.content(of: track.parts.first?.set ?? AdaptationSet()) == .text
            var isHLSPlayable = true
            var windows: [Int: (start: MediaTime, end: MediaTime)] = [:]
            // The Part planned before (a Part the range does not reach is not).
            var previous: Part?

            let rendition = resources.rendition(key)
            // With a range, each file is numbered by its place in the whole track, planned or not
            // (see `PlannedResources.add`): a wider range names the files it shares alike.
            var segmentsBefore: Int32 = 0, initSectionsBefore: Int32 = 0
            var fileNumbers: [String: Int32] = [:]
            func add(_ location: SegmentAddressing.Location, kind: ResourceKind, start: Double, length: Double,
                     bitrate: Int, number: Int32? = nil) -> String {
                let range = location.range
                let estimate = range.map { Int($0.length) } ?? (kind == .initSection ? 2_000 : max(1, Int(Double(bitrate) * length / 8)))
                let count = resources.count
                let number = timeRange == nil ? nil : range == nil ? number : fileNumbers[location.url]
                let row = resources.add(uri: location.url, range: range.map { (Int($0.first), Int($0.length)) }, kind: kind,
                                        rendition: rendition, start: start, duration: length, estimate: estimate, number: number)
                if row == count { bytes += estimate }
                return resources.fileName(at: row)
            }

            for part in track.parts {
                let addressing = part.addressing
                let periodStart = part.timing.start.seconds
                let bitrate = part.representation.bandwidth ?? (isText ? DownloadPlan.subtitleBitrate : HLSPlanner.unknownBitrate)
                let scale = Double(addressing.timescale)
                // The segments the range covers (a whole file — a BaseURL alone — is one
                // segment): all without a range.
                let segments = range.map { range in
                    // The ones a range covers follow each other.
                    let covered = addressing.segments.indices.filter { index in
                        let segment = addressing.segments[index]
                        return range.covers(start: periodStart + Double(segment.time - addressing.presentationTimeOffset) / scale,
                                            duration: Double(segment.duration) / scale)
                    }
                    return covered.first.map { addressing.segments[$0...covered[covered.count - 1]] } ?? []
                } ?? addressing.segments[...]
                let segmentBase = segmentsBefore, initNumber = initSectionsBefore + 1
                segmentsBefore += Int32(clamping: addressing.segments.count)
                if addressing.initialization != nil { initSectionsBefore += 1 }
                if range != nil {
                    for location in [addressing.initialization].compactMap({ $0 }) + addressing.segments.map(\.location)
                    where location.range != nil && fileNumbers[location.url] == nil {
                        fileNumbers[location.url] = Int32(clamping: fileNumbers.count + 1)
                    }
                }
                if range != nil {
                    guard let first = segments.first, let last = segments.last else { continue }
                    covered = true
                    // A whole file (a BaseURL alone: subtitles) is not cut, and moves no Period's start.
                    let offset = addressing.presentationTimeOffset
                    if addressing.mode != .url {
                        windows[part.periodIndex] = (MediaTime(first.time - offset, timescale: addressing.timescale),
                                                     MediaTime(last.time + last.duration - offset, timescale: addressing.timescale))
                    }
                }
                if previous != nil { body.append(Line(tag: .discontinuity)) }
                if let tag = Self.keyTag(for: part.key, after: previous?.key) {
                    body.append(Line(tag: .key(tag)))
                }
                previous = part
                var local = Representation()
                local.id = part.representation.id
                local.bandwidth = part.representation.bandwidth
                // The set keeps what it declares; the Representation its own. A licence server is
                // the origin's: not for offline players.
                local.common = Self.offline(part.representation.common)
                var list = SegmentInfo()
                list.timescale = addressing.timescale
                list.presentationTimeOffset = addressing.presentationTimeOffset == 0 ? nil : addressing.presentationTimeOffset
                if let initialization = addressing.initialization {
                    let name = add(initialization, kind: .initSection, start: periodStart, length: 0, bitrate: bitrate, number: initNumber)
                    list.initialization = URLReference(sourceURL: name, range: initialization.range)
                    body.append(Line(tag: .map(Map(uri: DownloadPlan.relativePath(name, fromFolder: key),
                                                   byteRange: initialization.range.map { HLS.ByteRange(length: Int($0.length), offset: Int($0.first)) }))))
                }
                var urls: [SegmentURL] = []
                var end: Int64?
                for (index, segment) in zip(segments.indices, segments) {
                    let start = periodStart + Double(segment.time - addressing.presentationTimeOffset) / scale
                    let length = Double(segment.duration) / scale
                    let name = add(segment.location, kind: .segment, start: start, length: length, bitrate: bitrate,
                                   number: segmentBase + Int32(clamping: index + 1))
                    if let end { body += Self.gapLines(from: end, to: segment, scale: scale, after: name, number: segmentBase + Int32(clamping: index)) }
                    end = segment.time.addingReportingOverflow(segment.duration).partialValue
                    body.append(Line(tag: .inf(Inf(duration: length))))
                    if let range = segment.location.range {
                        body.append(Line(tag: .byteRange(HLS.ByteRange(length: Int(range.length), offset: Int(range.first)))))
                    }
                    body.append(Line(uri: DownloadPlan.relativePath(name, fromFolder: key)))
                    longest = max(longest, length)
                    urls.append(SegmentURL(media: name, mediaRange: segment.location.range))
                }
                // The bytes of a ranged file no range names — a SegmentBase's `sidx`, boxes
                // between fragments, an `mfra` — are fetched too: the bundle's file is the
                // origin's, byte for byte, and plays alone.
                // A range takes the segments that cover it alone.
                let named = ([addressing.initialization] + addressing.segments.map(\.location)).compactMap { $0 }
                let sizes = part.fileSize.flatMap { size in addressing.index.map { [$0.url: size] } } ?? [:]
                for gap in range == nil ? Self.gaps(in: named, sizes: sizes) : [] {
                    _ = add(gap, kind: .initSection, start: periodStart, length: 0, bitrate: bitrate)
                }
                if addressing.mode == .url {
                    // One resource: a file the local MPD names by its BaseURL.
                    local.baseURLs = [BaseURL(url: urls.first?.media ?? "")]
                    let mime = (part.common.mimeType ?? "").lowercased()
                    if isText && !(mime == "text/vtt" || urls.first?.media?.hasSuffix(".vtt") == true) { isHLSPlayable = false }
                } else {
                    list.timeline = Self.listTimeline(segments)
                    list.segmentURLs = urls
                    local.segments = SegmentInformation(list: list)
                    if isText { isHLSPlayable = false }
                }
                localRepresentations[part.periodIndex] = local
                if let window = windows[part.periodIndex] {
                    duration += (window.end - window.start).seconds
                } else {
                    duration += part.timing.duration?.seconds ?? addressing.duration
                }
            }
            lines.append(Line(tag: .targetDuration(max(1, Int(longest.rounded(.up))))))
            let playlist: String
            do {
                playlist = try Playlist(lines: lines + body + [Line(tag: .endList)]).write()
            } catch {
                throw CarryonError(.playlist, "cannot write the local playlist of \(key): \(error)", cause: error)
            }
            planned.append(Planned(track: track, key: key, duration: duration, bytes: bytes, hlsPlaylist: playlist,
                                   localRepresentations: localRepresentations, isHLSPlayable: isHLSPlayable, windows: windows))
        }
        if let range, !covered {
            throw CarryonError(.invalidValue, "the range \(range) holds no segment of the stream, which lasts \(TimeRange.text(mpd.duration?.seconds ?? 0))")
        }

        // Playback order: the main selection first (init sections before the segments they
        // start), interleaved by time across tracks; then the extra selections likewise.
        resources.putInPlaybackOrder(mainKeys: Set(planned.filter(\.track.isMain).map(\.key)),
                                     positions: Dictionary(uniqueKeysWithValues: planned.enumerated().map { ($1.key, $0) }))

        let renditions = planned.enumerated().map { position, item in
            DownloadPlan.PlannedRendition(
                record: RenditionRecord(assetID: assetID, key: item.key, type: TrackType(rawValue: item.track.choice) ?? .media, name: item.track.name,
                                        language: item.track.language, uri: item.track.uri, isMain: item.track.isMain,
                                        duration: item.duration, position: position),
                originText: [], localText: item.hlsPlaylist)
        }
        var plan = DownloadPlan(renditions: renditions, resources: resources, localMain: try localMain(planned),
                                originMain: origin, duration: planned.map(\.duration).max() ?? 0, warnings: warnings)
        plan.localManifests[DASHFormat.localMPD.path] = localMPD(mpd, planned: planned, ranged: range != nil)
        return plan
    }

    /// The timeline of a local SegmentList: one `S` a segment, never a repeat (`@r`). GStreamer's
    /// MPD client (dashdemux and dashdemux2 alike) pairs the SegmentURLs with the `S` elements
    /// one to one, and plays an `S` of `r="1"` as its first URL twice, never the second.
    static func listTimeline(_ segments: some Sequence<SegmentAddressing.Segment>) -> SegmentTimeline {
        var entries: [SegmentTimeline.Entry] = []
        var expectedTime: Int64?
        for segment in segments {
            entries.append(SegmentTimeline.Entry(time: expectedTime == segment.time ? nil : segment.time, duration: segment.duration))
            expectedTime = segment.time + segment.duration
        }
        return SegmentTimeline(entries: entries)
    }

    /// The longest gap ``gaps(in:sizes:)`` fetches — an index, boxes between fragments, the tail
    /// after the last one — where what a server or an index claims is believed.
    static let maximumTail: Int64 = 16 << 20

    /// The byte ranges of each file that `locations` leave out, from its first byte to its last
    /// (`sizes` gives a file's size, when known; else to the last byte they name): what a file
    /// assembled from them needs to be the origin's, byte for byte. A gap longer than
    /// ``maximumTail`` is not believed (a hostile `sidx` offset of a terabyte): left a hole.
    static func gaps(in locations: [SegmentAddressing.Location], sizes: [String: Int64] = [:]) -> [SegmentAddressing.Location] {
        var gaps: [SegmentAddressing.Location] = []
        for (url, ranged) in Dictionary(grouping: locations.filter { $0.range != nil }, by: \.url).sorted(by: { $0.key < $1.key }) {
            var next: Int64 = 0
            for range in ranged.compactMap(\.range).sorted(by: { $0.first < $1.first }) {
                if range.first > next, range.first - next <= maximumTail {
                    gaps.append(.init(url: url, range: ByteRange(first: next, last: range.first - 1)))
                }
                next = max(next, range.last + 1)
            }
            // The tail after the last fragment (an `mfra`) when the server said the size, and it
            // is a tail, not a claim of gigabytes no index names.
            if let size = sizes[url], size > next, size - next <= maximumTail { gaps.append(.init(url: url, range: ByteRange(first: next, last: size - 1))) }
        }
        return gaps
    }
}
