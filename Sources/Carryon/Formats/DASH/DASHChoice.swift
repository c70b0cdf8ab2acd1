import DASH

/// A ``MediaSelection`` of a DASH presentation followed through every Period: the chosen
/// Representation of the Period it was chosen in, and its counterpart in each other Period —
/// the same id in a set of the same kind and language, else the nearest bandwidth (video), the
/// set of the same language (audio, subtitles).
struct DASHChoice {
    /// One Representation of one Period.
    struct Part {
        var periodIndex: Int
        var period: Period
        var timing: MPD.PeriodTiming
        var set: AdaptationSet
        var representation: Representation
    }

    /// A chosen track through the Periods.
    struct Track {
        /// `VIDEO`, `AUDIO` or `SUBTITLES`.
        var kind: String
        var isMain: Bool
        var uri: String
        var name: String
        var language: String?
        var channels: String?
        var parts: [Part]
    }

    var tracks: [Track] = []

    init(mpd: MPD, url: String, selection: MediaSelection) throws(CarryonError) {
        let timings = mpd.periodTimings
        for (position, variant) in selection.variants.enumerated() {
            let parts = try Self.follow(variant.uri, mpd: mpd, url: url, timings: timings)
            let kind = parts.first.map { DASHPresentation.content(of: $0.set) } == .audio ? "AUDIO" : "VIDEO"
            tracks.append(Track(kind: kind, isMain: position == 0, uri: variant.uri, name: variant.resolution ?? (kind == "AUDIO" ? "audio" : "video"),
                                language: nil, channels: nil, parts: parts))
        }
        for rendition in selection.renditions {
            let parts = try Self.follow(rendition.uri, mpd: mpd, url: url, timings: timings)
            tracks.append(Track(kind: rendition.type, isMain: rendition.isMain, uri: rendition.uri, name: rendition.name,
                                language: rendition.language, channels: rendition.channels, parts: parts))
        }
    }

    /// The Representation `uri` names, and its counterparts in every Period, in order.
    private static func follow(_ uri: String, mpd: MPD, url: String, timings: [MPD.PeriodTiming]) throws(CarryonError) -> [Part] {
        guard let (periodIndex, set, chosen) = find(uri, in: mpd) else {
            throw CarryonError(.selection, "the stream no longer offers the Representation \(uri)")
        }
        let content = DASHPresentation.content(of: set)
        var parts: [Part] = []
        for (index, period) in mpd.periods.enumerated() {
            if index == periodIndex {
                parts.append(Part(periodIndex: index, period: period, timing: timings[index], set: set, representation: chosen))
                continue
            }
            let candidates = period.adaptationSets.filter {
                DASHPresentation.content(of: $0) == content && !$0.isTrickMode && (content == .video || $0.language == set.language)
            }
            var match: (AdaptationSet, Representation)?
            for candidate in candidates {
                if let same = candidate.representations.first(where: { $0.id == chosen.id }) { match = (candidate, same); break }
            }
            if match == nil, content == .video {
                let all = candidates.flatMap { set in set.representations.map { (set, $0) } }
                let target = chosen.bandwidth ?? 0
                let below = all.filter { ($0.1.bandwidth ?? 0) <= target }.max { ($0.1.bandwidth ?? 0) < ($1.1.bandwidth ?? 0) }
                match = below ?? all.min { ($0.1.bandwidth ?? 0) < ($1.1.bandwidth ?? 0) }
            } else if match == nil, let candidate = candidates.first {
                let representation = content == .audio ? DASHPresentation.best(of: candidate) : candidate.representations.first
                match = representation.map { (candidate, $0) }
            }
            if let (matchedSet, representation) = match {
                parts.append(Part(periodIndex: index, period: period, timing: timings[index], set: matchedSet, representation: representation))
            }
        }
        return parts
    }

    /// The Representation a track URI names: its fragment `period=<key>&rep=<id>` as
    /// ``DASHPresentation/trackURI(mpdURL:periodKey:representation:)`` writes it, the ids as
    /// they are (an id may hold `&` or `=`, so the fragment is matched whole, not split), else
    /// with the fields percent-encoded (`rep=v%261` for `v&1`). URIs an earlier release recorded
    /// in a library are of the first form.
    static func find(_ uri: String, in mpd: MPD) -> (Int, AdaptationSet, Representation)? {
        guard let fragment = uri.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).dropFirst().first else { return nil }
        // As written: "period=" + key + "&rep=" + id.
        for (index, period) in mpd.periods.enumerated() {
            let prefix = "period=\(DASHPresentation.periodKey(period, at: index))&rep="
            guard fragment.hasPrefix(prefix) else { continue }
            let id = fragment.dropFirst(prefix.count)
            for set in period.adaptationSets {
                if let representation = set.representations.first(where: { $0.id == id }) { return (index, set, representation) }
            }
        }
        // Percent-encoded fields.
        var fields: [String: String] = [:]
        for pair in fragment.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = percentDecoded(parts[1]) { fields[String(parts[0])] = value }
        }
        guard let periodKey = fields["period"], let id = fields["rep"] else { return nil }
        for (index, period) in mpd.periods.enumerated() where DASHPresentation.periodKey(period, at: index) == periodKey {
            for set in period.adaptationSets {
                if let representation = set.representations.first(where: { $0.id == id }) { return (index, set, representation) }
            }
        }
        return nil
    }

    /// `text` with each `%XX` decoded (UTF-8); nil when an escape is malformed or the bytes are
    /// not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var utf8 = text.utf8.makeIterator()
        func hex(_ byte: UInt8?) -> UInt8? {
            switch byte {
            case let b? where b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"): b - UInt8(ascii: "0")
            case let b? where b >= UInt8(ascii: "a") && b <= UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
            case let b? where b >= UInt8(ascii: "A") && b <= UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = hex(utf8.next()), let low = hex(utf8.next()) else { return nil }
            bytes.append(high << 4 | low)
        }
        let decoded = String(decoding: bytes, as: UTF8.self)
        return decoded.utf8.elementsEqual(bytes) ? decoded : nil
    }
}
