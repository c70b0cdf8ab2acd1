import HLS

/// Builds an HLS ``DownloadPlan`` a rendition at a time and a segment at a time, so that a
/// planner fed by the one-pass reader holds neither the playlist's lines nor its segments: each
/// segment becomes a row of the plan's ``PlannedResources`` as it is resolved.
///
/// For each rendition, in selection order (main ones first): ``begin(_:expectedSegments:)``,
/// ``add(_:)`` for every segment, ``end(media:fetched:)``; then ``finish(main:selection:)``.
struct HLSPlanBuilder {
    let assetID: String
    /// The part of the stream planned; nil: all of it.
    var range: TimeRange?
    private var taken: [String] = []
    private var contentKeys: [DownloadPlan.PlannedKey] = []
    private var planned: [DownloadPlan.PlannedRendition] = []
    private var resources: PlannedResources
    /// Each rendition's URI (two may share one: an audio-only variant that is also a rendition).
    private var uris: [String] = []
    private var warnings: [DownloadPlan.PlaylistNotice] = []
    private var current: Rendition?
    /// A recording's plan so far, when this one plans only what its round appended.
    private var continuing: PlanContinuation?
    /// Why this plan cannot be only what was appended, once something says so.
    private var unappendable: String?

    /// Where a rendition's segments stand in a recording numbered by place
    /// (``PlanContinuation``): the index and start of the first, and for a round's segments
    /// alone, the header of their playlist, which the lines to append leave out.
    struct Place: Sendable {
        var first: Int
        var seconds: Double
        var header: String?
    }

    /// The rendition being fed.
    private struct Rendition {
        var input: DownloadPlan.Rendition
        var key: String
        var number: Int32
        var place: Place?
        /// Segment index → row of its resource, -1 for a gap.
        var segmentRows: [Int32] = []
        /// Line of an EXT-X-MAP → row of its resource.
        var mapRows: [Int: Int] = [:]
        /// EXT-X-KEY lines: the key each one names, for the key used (identity first), or nil
        /// for the other key formats of the same segments, whose tags are left out.
        var keyLines: [Int: String?] = [:]
        /// The sum of the planned segments' durations, gaps included.
        var duration = 0.0
        /// The sum of all its segments' durations, planned or not.
        var streamDuration = 0.0
        /// The segments the range covers (nil: none yet), with a range.
        var window: PlaylistWindow?
        /// With a range, the numbers of the files named so far in the whole playlist, planned
        /// or not (see ``number(of:_:_:in:)``): each init section by its tag's line, each file
        /// whose ranges are segments by its URI.
        var initNumbers: [Int: Int32] = [:]
        var fileNumbers: [String: Int32] = [:]
    }

    /// The longest rendition's duration, and whether any rendition has a segment the range
    /// covers, with a range.
    private var streamDuration = 0.0
    private var covered = false

    init(assetID: String, range: TimeRange? = nil) {
        self.assetID = assetID
        self.range = range
        resources = PlannedResources(assetID: assetID)
    }

    /// Makes this the plan of what a recording's round appended to the plan `continuation`
    /// describes: its keys keep their ids, its rows follow.
    mutating func `continue`(_ continuation: PlanContinuation) {
        continuing = continuation
        contentKeys = continuation.keys
    }

    /// Whether this plans only what a recording's round appended.
    var isAppending: Bool { continuing != nil }

    /// Starts the rendition `input` describes, of about `expectedSegments` segments; `place`,
    /// for a recording numbered by place.
    mutating func begin(_ input: DownloadPlan.Rendition, expectedSegments: Int, place: Place? = nil) {
        let key = DownloadPlan.uniqueKey(type: input.type, label: input.language ?? input.name, taken: &taken)
        var rendition = Rendition(input: input, key: key, number: resources.rendition(key), place: place)
        if isAppending, place?.header == nil { unappendable = "\(input.uri) is not a recording's new segments" }
        // Room for every segment up front: growing tables of a million entries cost a second
        // of rehashing.
        resources.reserve(expectedSegments + 1)
        rendition.segmentRows.reserveCapacity(expectedSegments)
        current = rendition
    }

    /// The next segment of the rendition begun.
    mutating func add(_ segment: Segment) {
        guard var rendition = current else { preconditionFailure("a segment added before its rendition began") }
        current = nil
        defer { current = rendition }
        let index = rendition.segmentRows.count
        // In a recording numbered by place: the number of the segment's file, and its start in
        // the whole recording.
        let placeNumber = rendition.place.map { Int32(clamping: $0.first + index + 1) }
        let start = segment.startTime + (rendition.place?.seconds ?? 0)
        if isAppending, segment.byteRange != nil || segment.initSection?.byteRange != nil { unappendable = "a segment is a byte range" }
        rendition.streamDuration += segment.duration
        if let range {
            // Every file numbered by its place in the whole playlist, planned or not.
            if !segment.isGap {
                if let map = segment.initSection { _ = Self.number(of: map.uri, map.byteRange, map.line, in: &rendition) }
                _ = Self.number(of: segment.uri, segment.byteRange, nil, in: &rendition)
            }
            guard range.covers(start: segment.startTime, duration: segment.duration) else {
                rendition.segmentRows.append(-1)
                return
            }
            if let first = rendition.window?.segments?.lowerBound {
                rendition.window?.segments = first...index
            } else {
                rendition.window = PlaylistWindow(first: segment, at: index)
            }
        }
        rendition.duration += segment.duration
        guard !segment.isGap else {
            rendition.segmentRows.append(-1)
            return
        }
        useKey(segment.keys, chosen: segment.key, in: &rendition, probing: segment)
        if let map = segment.initSection {
            useKey(map.keys, chosen: map.keys.first { $0.keyFormat == "identity" } ?? map.keys.first, in: &rendition, probing: nil)
            if rendition.mapRows[map.line] == nil {
                let number = range == nil ? placeNumber : Self.number(of: map.uri, map.byteRange, map.line, in: &rendition)
                rendition.mapRows[map.line] = add(map.uri, map.byteRange, .initSection, start: start, duration: 0,
                                                  to: rendition, number: number)
            }
        }
        let number = range == nil ? placeNumber : segment.byteRange == nil ? Int32(clamping: index + 1)
            : Self.number(of: segment.uri, segment.byteRange, nil, in: &rendition)
        rendition.segmentRows.append(Int32(add(segment.uri, segment.byteRange, .segment, start: start,
                                               duration: segment.duration, to: rendition, number: number)))
    }

    /// The number of the file of a resource at `uri` in a plan of a range, as a plan of the
    /// whole playlist would name it (see `PlannedResources.add`): a segment's own file by its
    /// index (given by the caller), an init section of its own by the order of `EXT-X-MAP`
    /// lines (`mapLine`), a file whose ranges are resources by the order of their URIs.
    private static func number(of uri: String, _ range: ResolvedByteRange?, _ mapLine: Int?, in rendition: inout Rendition) -> Int32 {
        if range != nil {
            if let number = rendition.fileNumbers[uri] { return number }
            let number = Int32(clamping: rendition.fileNumbers.count + 1)
            rendition.fileNumbers[uri] = number
            return number
        }
        guard let mapLine else { return 0 }
        if let number = rendition.initNumbers[mapLine] { return number }
        let number = Int32(clamping: rendition.initNumbers.count + 1)
        rendition.initNumbers[mapLine] = number
        return number
    }

    /// The sum of the durations of the segments of the rendition begun, so far.
    var duration: Double { current?.duration ?? 0 }

    /// Sets the bitrate the rendition begun estimates its segments with, for a stream that
    /// turns out to give none.
    mutating func reestimate(bitrate: Int) {
        guard let rendition = current else { return }
        current?.input.estimatedBitrate = bitrate
        resources.reestimate(rendition: rendition.number) { kind, duration in
            kind == .initSection ? 2_000 : max(1, Int(Double(bitrate) * duration / 8))
        }
    }

    private mutating func add(_ uri: String, _ range: ResolvedByteRange?, _ kind: ResourceKind, start: Double, duration: Double,
                              to rendition: Rendition, number: Int32? = nil) -> Int {
        let estimate: Int
        if let range {
            estimate = range.length
        } else if kind == .initSection {
            estimate = 2_000
        } else {
            estimate = max(1, Int(Double(rendition.input.estimatedBitrate) * duration / 8))
        }
        return resources.add(uri: uri, range: range.map { ($0.offset, $0.length) }, kind: kind, rendition: rendition.number,
                             start: start, duration: duration, estimate: estimate, number: number)
    }

    /// Names the key `chosen` (of `keys`, the tags in effect) for the rendition begun; `probing`,
    /// a segment of fMP4 it encrypts, is kept among the key's first samples (see `KeyProbe`).
    private mutating func useKey(_ keys: [SegmentKey], chosen: SegmentKey?, in rendition: inout Rendition, probing segment: Segment?) {
        for key in keys where rendition.keyLines[key.line] == nil { rendition.keyLines[key.line] = .some(nil) }
        guard let chosen else { return }
        let id: String
        if let existing = contentKeys.first(where: { $0.uri == chosen.uri && $0.keyFormat == chosen.keyFormat }) {
            id = existing.id
        } else {
            // Ids follow the order of first use over the whole recording, which a whole plan
            // gives: a new key's is found so.
            if isAppending { unappendable = "a key the plan does not have" }
            id = "k\(contentKeys.count + 1)"
            contentKeys.append(DownloadPlan.PlannedKey(id: id, uri: chosen.uri, method: chosen.method.rawValue, keyFormat: chosen.keyFormat,
                                                       keyFormatVersions: chosen.keyFormatVersions,
                                                       namedBy: "the EXT-X-KEY on line \(chosen.line) of \(rendition.input.uri)"))
        }
        if let segment, let map = segment.initSection, chosen.method == .sampleAES || chosen.method == .sampleAESCTR,
           let index = contentKeys.firstIndex(where: { $0.id == id }) {
            Self.probe(&contentKeys[index], segment: segment, map: map, rendition: rendition.input.uri)
        }
        rendition.keyLines[chosen.line] = .some("../keys/\(id)")
    }

    /// Keeps `segment` (with its init section `map`) among the first samples `key` encrypts in
    /// `rendition`: three segments after one init section, four renditions at most.
    private static func probe(_ key: inout DownloadPlan.PlannedKey, segment: Segment, map: InitSection, rendition: String) {
        func location(_ uri: String, _ range: ResolvedByteRange?) -> DownloadPlan.KeyProbe.Location {
            // An empty range (EXT-X-BYTERANGE:0@…) is read whole: the check reads what it can.
            .init(uri: uri, range: range.flatMap { $0.length > 0 ? Int64($0.offset)...(Int64($0.offset) + Int64($0.length) - 1) : nil })
        }
        let place = location(segment.uri, segment.byteRange)
        if let index = key.probes.firstIndex(where: { $0.rendition == rendition }) {
            if key.probes[index].segments.count < 3, key.probes[index].initSection == location(map.uri, map.byteRange) {
                key.probes[index].segments.append(place)
            }
        } else if key.probes.count < 4 {
            key.probes.append(DownloadPlan.KeyProbe(initSection: location(map.uri, map.byteRange), segments: [place], rendition: rendition))
        }
    }

    /// Ends the rendition begun: `media` is its playlist resolved (its segments, if it keeps
    /// them, were added already), `fetched` its bytes as fetched, from which its local copy is
    /// written.
    mutating func end(media: MediaPlaylist, fetched: [UInt8]) throws(CarryonError) {
        guard let rendition = current else { preconditionFailure("a rendition ended before it began") }
        current = nil
        let record = RenditionRecord(
            assetID: assetID, key: rendition.key, type: TrackType(rawValue: rendition.input.type) ?? .media, name: rendition.input.name,
            language: rendition.input.language, uri: rendition.input.uri, isMain: rendition.input.isMain,
            duration: rendition.duration, position: planned.count)
        // Locals, not `self`'s: a closure reading a property in a mutating method copies the
        // whole of `resources` (every column retained) at each of a million calls.
        let rows = rendition.segmentRows, mapRows = rendition.mapRows, resources = resources
        // With a range, the segments it covers alone.
        let window = range == nil ? nil : rendition.window ?? .empty
        var local = try DownloadPlan.localMediaPlaylist(
            media: media, fetched: fetched, key: rendition.key,
            segmentFile: { index in index < rows.count && rows[index] >= 0 ? resources.fileName(at: Int(rows[index])) : nil },
            mapFile: { line in mapRows[line].map(resources.fileName(at:)) }, keyLines: rendition.keyLines, window: window)
        if isAppending {
            // The lines to append to the local playlist: the header it has already left out.
            guard let header = rendition.place?.header, local.utf8.starts(with: header.utf8) else {
                throw HLSPlanner.WholePlanNeeded.error("the local playlist of \(rendition.input.uri) does not start with its header")
            }
            local = String(decoding: local.utf8.dropFirst(header.utf8.count), as: UTF8.self)
        }
        if let unappendable { throw HLSPlanner.WholePlanNeeded.error(unappendable) }
        if range != nil {
            streamDuration = max(streamDuration, rendition.streamDuration)
            covered = covered || rendition.window != nil
        }
        planned.append(DownloadPlan.PlannedRendition(record: record, originText: fetched, localText: local))
        uris.append(rendition.input.uri)
        warnings += media.warnings.map { DownloadPlan.PlaylistNotice(playlist: media.url, warning: $0) }
    }

    /// The plan: the renditions ended, `main` the multivariant playlist as parsed, resolved and
    /// fetched (nil for a stream given by its media playlist), `selection` what was chosen from it.
    mutating func finish(main: (playlist: Playlist, resolved: MultivariantPlaylist, fetched: [UInt8])?,
                         selection: MediaSelection?) throws(CarryonError) -> DownloadPlan {
        if let range, !covered {
            throw CarryonError(.invalidValue, "the range \(range) holds no segment of the stream, which lasts \(TimeRange.text(streamDuration))")
        }
        // EXT-X-SESSION-KEY: keys the multivariant playlist announces before any media playlist
        // is read. Those of the identity format are obtained with the others (the same URI and
        // format as a media playlist's key is one key); other formats only when a rendition uses them.
        for key in main?.resolved.sessionKeys ?? [] {
            guard key.method != .none, let uri = key.uri, (key.keyFormat ?? "identity") == "identity",
                  !contentKeys.contains(where: { $0.uri == uri && $0.keyFormat == "identity" }) else { continue }
            if isAppending { unappendable = "a session key the plan does not have" }
            contentKeys.append(DownloadPlan.PlannedKey(id: "k\(contentKeys.count + 1)", uri: uri, method: key.method.rawValue,
                                                       keyFormat: "identity", keyFormatVersions: key.keyFormatVersions))
        }

        if let unappendable { throw HLSPlanner.WholePlanNeeded.error(unappendable) }
        if let continuing { resources.firstOrdinal = continuing.rows }
        // Playback order: the main selection first (init sections before the segments they
        // start), interleaved by time across renditions; then the extra selections likewise.
        resources.putInPlaybackOrder(mainKeys: Set(planned.filter { $0.record.isMain }.map(\.record.key)),
                                     positions: Dictionary(uniqueKeysWithValues: planned.map { ($0.record.key, $0.record.position) }))

        let localMain: String
        if let main, let selection {
            // For a variant that declares no BANDWIDTH (read leniently): its planned bytes over its duration.
            let plannedBytes = resources.estimatedBytesByRendition
            var estimatedBandwidth: [String: Int] = [:]
            for rendition in planned where rendition.record.duration > 0 {
                estimatedBandwidth[rendition.record.uri] = Int(Double(plannedBytes[rendition.record.key, default: 0] * 8) / rendition.record.duration)
            }
            localMain = try DownloadPlan.localMultivariantPlaylist(
                main.playlist, resolved: main.resolved, selection: selection,
                // An audio-only variant may also be one of its renditions: one URI, two inputs.
                keys: Dictionary(zip(uris, planned.map(\.record.key)), uniquingKeysWith: { first, _ in first }),
                estimatedBandwidth: estimatedBandwidth)
        } else {
            let rendition = planned[0]
            let bytes = resources.estimatedBytesByRendition.values.reduce(0, +)
            let bandwidth = rendition.record.duration > 0 ? Int(Double(bytes * 8) / rendition.record.duration) : 1
            let stream = StreamInf(bandwidth: max(1, bandwidth))
            do {
                localMain = try Playlist(lines: [Line(tag: .m3u), Line(tag: .streamInf(stream)), Line(.uri("\(rendition.record.key)/index.m3u8"))]).write()
            } catch {
                throw CarryonError(.playlist, "cannot write the local multivariant playlist: \(error)", cause: error)
            }
        }
        var notices: [DownloadPlan.PlaylistNotice] = []
        if let main { notices = main.resolved.warnings.map { DownloadPlan.PlaylistNotice(playlist: main.resolved.url, warning: $0) } }
        return DownloadPlan(renditions: planned, resources: resources, localMain: localMain, originMain: main?.fetched,
                            duration: planned.map(\.record.duration).max() ?? 0, keys: contentKeys, warnings: notices + warnings,
                            appendsTo: continuing?.rows)
    }
}
