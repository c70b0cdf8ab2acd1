import Foundation
import HLS

/// Building a ``DownloadPlan`` from HLS media playlists already fetched: pure, so it is tested
/// without I/O.
extension DownloadPlan {
    /// One rendition's input to the plan.
    struct Input: Sendable {
        var type: String
        var name: String
        var language: String?
        var channels: String?
        var isMain: Bool
        var uri: String
        /// The media playlist as fetched, from which its local copy is written.
        var fetched: [UInt8]
        var media: MediaPlaylist
        /// Bits per second to estimate sizes with, when lengths are unknown.
        var estimatedBitrate: Int
    }

    /// Estimated bitrate of an audio rendition, which HLS does not state: 64 kbit/s per channel.
    static func audioBitrate(channels: String?) -> Int {
        let count = channels.flatMap { $0.split(separator: "/").first }.flatMap { Int($0) } ?? 2
        return 64_000 * max(1, count)
    }

    /// Estimated bitrate of a subtitle rendition.
    static let subtitleBitrate = 4_000

    /// Plans an asset.
    ///
    /// - Parameters:
    ///   - assetID: The asset's id.
    ///   - inputs: The renditions in selection order (main ones first), their media playlists
    ///     fetched and resolved.
    ///   - main: The multivariant playlist as parsed and resolved, or nil when the asset is a
    ///     single media playlist.
    ///   - selection: What was chosen from `main`.
    static func make(assetID: String, inputs: [Input], main: (playlist: Playlist, resolved: MultivariantPlaylist, fetched: [UInt8])?,
                     selection: MediaSelection?) throws(CarryonError) -> DownloadPlan {
        var keys: [String] = []
        var contentKeys: [PlannedKey] = []
        var planned: [PlannedRendition] = []
        var resources = PlannedResources(assetID: assetID)

        for (position, input) in inputs.enumerated() {
            let key = uniqueKey(for: input, taken: &keys)
            let rendition = resources.rendition(key)
            // Segment index → row of its resource, -1 for a gap.
            var segmentRows = [Int32](repeating: -1, count: input.media.segments.count)
            // Room for every segment up front: growing tables of a million entries cost a
            // second of rehashing.
            resources.reserve(input.media.segments.count + 1)
            var mapRows: [Int: Int] = [:]         // line number of EXT-X-MAP → row of its resource

            func add(uri: String, range: ResolvedByteRange?, kind: ResourceKind, start: Double, duration: Double) -> Int {
                let estimate: Int
                if let range {
                    estimate = range.length
                } else if kind == .initSection {
                    estimate = 2_000
                } else {
                    estimate = max(1, Int(Double(input.estimatedBitrate) * duration / 8))
                }
                return resources.add(uri: uri, range: range.map { ($0.offset, $0.length) }, kind: kind, rendition: rendition,
                                     start: start, duration: duration, estimate: estimate)
            }

            // EXT-X-KEY lines: the key each one names, for the key used (identity first), or
            // nil for the other key formats of the same segments, whose tags are left out.
            var keyLines: [Int: String?] = [:]
            func useKey(_ keys: [SegmentKey], chosen: SegmentKey?) {
                for key in keys where keyLines[key.line] == nil { keyLines[key.line] = .some(nil) }
                guard let chosen else { return }
                let id: String
                if let existing = contentKeys.first(where: { $0.uri == chosen.uri && $0.keyFormat == chosen.keyFormat }) {
                    id = existing.id
                } else {
                    id = "k\(contentKeys.count + 1)"
                    contentKeys.append(PlannedKey(id: id, uri: chosen.uri, method: chosen.method.rawValue, keyFormat: chosen.keyFormat,
                                                  keyFormatVersions: chosen.keyFormatVersions))
                }
                keyLines[chosen.line] = .some("../keys/\(id)")
            }
            for (index, segment) in input.media.segments.enumerated() {
                if segment.isGap { continue }
                useKey(segment.keys, chosen: segment.key)
                if let map = segment.initSection {
                    useKey(map.keys, chosen: map.keys.first { $0.keyFormat == "identity" } ?? map.keys.first)
                }
                if let map = segment.initSection, mapRows[map.line] == nil {
                    mapRows[map.line] = add(uri: map.uri, range: map.byteRange, kind: .initSection,
                                            start: segment.startTime, duration: 0)
                }
                segmentRows[index] = Int32(add(uri: segment.uri, range: segment.byteRange, kind: .segment,
                                               start: segment.startTime, duration: segment.duration))
            }
            let record = RenditionRecord(
                assetID: assetID, key: key, type: input.type, name: input.name, language: input.language,
                uri: input.uri, isMain: input.isMain, duration: input.media.duration, position: position)
            let local = try localMediaPlaylist(
                input: input, key: key,
                segmentFile: { index in segmentRows[index] < 0 ? nil : resources.fileName(at: Int(segmentRows[index])) },
                mapFile: { line in mapRows[line].map(resources.fileName(at:)) }, keyLines: keyLines)
            planned.append(PlannedRendition(record: record, originText: input.fetched, localText: local))
        }

        // EXT-X-SESSION-KEY: keys the multivariant playlist announces before any media playlist
        // is read. Those of the identity format are obtained with the others (the same URI and
        // format as a media playlist's key is one key); other formats only when a rendition uses them.
        for key in main?.resolved.sessionKeys ?? [] {
            guard key.method != .none, let uri = key.uri, (key.keyFormat ?? "identity") == "identity",
                  !contentKeys.contains(where: { $0.uri == uri && $0.keyFormat == "identity" }) else { continue }
            contentKeys.append(PlannedKey(id: "k\(contentKeys.count + 1)", uri: uri, method: key.method.rawValue, keyFormat: "identity",
                                          keyFormatVersions: key.keyFormatVersions))
        }

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
            localMain = try localMultivariantPlaylist(main.playlist, resolved: main.resolved, selection: selection,
                                                      // An audio-only variant may also be one of its renditions: one URI, two inputs.
                                                      keys: Dictionary(zip(inputs.map(\.uri), planned.map(\.record.key)),
                                                                       uniquingKeysWith: { first, _ in first }),
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
        var warnings: [PlaylistNotice] = []
        if let main { warnings = main.resolved.warnings.map { PlaylistNotice(playlist: main.resolved.url, warning: $0) } }
        for input in inputs {
            warnings += input.media.warnings.map { PlaylistNotice(playlist: input.media.url, warning: $0) }
        }
        return DownloadPlan(renditions: planned, resources: resources, localMain: localMain, originMain: main?.fetched,
                            duration: planned.map(\.record.duration).max() ?? 0, keys: contentKeys, warnings: warnings)
    }

    /// A group of renditions: a `GROUP-ID` within a `TYPE`.
    struct RenditionGroup: Hashable {
        var type: MediaType
        var id: String
    }

    /// `video`, `audio-en`, `audio-en-2`, `subtitles-de`, `media`: a readable folder name of
    /// letters, digits and dashes only.
    static func uniqueKey(for input: Input, taken: inout [String]) -> String {
        uniqueKey(type: input.type, label: input.language ?? input.name, taken: &taken)
    }

    /// The same for a rendition of `type` (`VIDEO`, `AUDIO`…) labelled by its language or name.
    static func uniqueKey(type: String, label: String, taken: inout [String]) -> String {
        var base: String
        switch type {
        case "VIDEO": base = "video"
        case "MEDIA": base = "media"
        case "AUDIO": base = "audio"
        case "SUBTITLES": base = "subtitles"
        default: base = "rendition"
        }
        if type == "AUDIO" || type == "SUBTITLES" {
            let label = slug(label)
            if !label.isEmpty { base += "-" + label }
        }
        var key = base
        var counter = 2
        while taken.contains(key) {
            key = "\(base)-\(counter)"
            counter += 1
        }
        taken.append(key)
        return key
    }

    static func slug(_ text: String) -> String {
        var result = ""
        for scalar in text.lowercased().unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                result.unicodeScalars.append(scalar)
            } else if !result.isEmpty, result.last != "-" {
                result += "-"
            }
            if result.count >= 24 { break }
        }
        while result.hasSuffix("-") { result.removeLast() }
        return result
    }

    /// The extension a local file gets: the origin path's, if it is 1–5 letters or digits;
    /// otherwise one that fits the kind.
    static func fileExtension(of uri: String, kind: ResourceKind) -> String {
        // Over the UTF-8 bytes: a million segments call this once each.
        let bytes = uri.utf8
        let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        let path = bytes[..<end]
        if let dot = path.lastIndex(of: UInt8(ascii: ".")) {
            let ext = path[path.index(after: dot)...]
            let isAlphanumeric = ext.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            }
            if (1...5).contains(ext.count), isAlphanumeric {
                return String(decoding: ext.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
            }
        }
        return kind == .initSection ? "mp4" : "bin"
    }

    /// `value` in decimal, zero-padded to at least `width` digits (`String(format:)` costs a
    /// microsecond a call, a second for a million segments).
    static func zeroPadded(_ value: Int, to width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// A path from one bundle-relative file's folder to another bundle-relative file.
    static func relativePath(_ target: String, fromFolder folder: String) -> String {
        let prefix = folder + "/"
        return target.hasPrefix(prefix) ? String(target.dropFirst(prefix.count)) : "../" + target
    }
}
