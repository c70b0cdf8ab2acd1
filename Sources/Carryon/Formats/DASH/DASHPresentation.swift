import DASH
import HLS

/// What an MPD offers, as the format-neutral ``Presentation`` ``MediaSelector`` chooses from:
/// each video Representation a variant (with the audio and subtitle groups the Period has),
/// each audio AdaptationSet one audio track (its best Representation), each text AdaptationSet
/// one subtitle track, trick-mode sets apart. An MPD without video offers its audio
/// Representations as the variants.
///
/// A track's URI names its Representation: the MPD's URL with the fragment
/// `#period=<id>&rep=<id>`, so a bundle's selection is stable across readings.
enum DASHPresentation {
    /// The kind of content of an AdaptationSet, from `@contentType`, else the mime type, else
    /// the codecs.
    enum Content: Equatable {
        case video, audio, text, other
    }

    static func content(of set: AdaptationSet) -> Content {
        let representation = set.representations.first.map { $0.common.inheriting(from: set.common) } ?? set.common
        let mime = (representation.mimeType ?? "").lowercased()
        let codecs = (representation.codecs ?? "").lowercased()
        switch set.contentType?.lowercased() {
        case "video": return .video
        case "audio": return .audio
        case "text": return .text
        case "image": return .other
        default: break
        }
        if mime.hasPrefix("video/") { return .video }
        if mime.hasPrefix("audio/") { return .audio }
        if mime.hasPrefix("text/") || mime.contains("ttml") || codecs.hasPrefix("stpp") || codecs.hasPrefix("wvtt") { return .text }
        if codecs.hasPrefix("avc") || codecs.hasPrefix("hvc") || codecs.hasPrefix("hev") || codecs.hasPrefix("av01") || codecs.hasPrefix("vp") { return .video }
        if codecs.hasPrefix("mp4a") || codecs.hasPrefix("ac-3") || codecs.hasPrefix("ec-3") || codecs.hasPrefix("opus") { return .audio }
        return .other
    }

    /// The URI that names `representation` of the Period with `periodKey`.
    static func trackURI(mpdURL: String, periodKey: String, representation: Representation) -> String {
        "\(mpdURL.split(separator: "#", maxSplits: 1).first.map(String.init) ?? mpdURL)#period=\(periodKey)&rep=\(representation.id)"
    }

    /// A Period's key: its `@id`, else its position from 1.
    static func periodKey(_ period: Period, at index: Int) -> String {
        period.id ?? String(index + 1)
    }

    /// The Representation of an audio set that stands for it: the highest bandwidth.
    static func best(of set: AdaptationSet) -> Representation? {
        set.representations.max { ($0.bandwidth ?? 0) < ($1.bandwidth ?? 0) }
    }

    static func presentation(of mpd: MPD, url: String) -> Presentation {
        let timings = mpd.periodTimings
        let periods = mpd.periods.enumerated().map { index, period in
            self.period(period, key: periodKey(period, at: index), timing: timings[index], mpd: mpd, url: url)
        }
        return Presentation(periods: periods)
    }

    static func period(_ period: Period, key: String, timing: MPD.PeriodTiming, mpd: MPD, url: String) -> Presentation.Period {
        let sets = period.adaptationSets
        let videoSets = sets.filter { content(of: $0) == .video && !$0.isTrickMode }
        let audioSets = sets.filter { content(of: $0) == .audio }
        let textSets = sets.filter { content(of: $0) == .text }
        var renditions: [Presentation.Track] = []
        for set in audioSets {
            guard let representation = best(of: set) else { continue }
            let common = mpd.effective(representation, in: set)
            renditions.append(Presentation.Track(
                kind: .audio, uri: trackURI(mpdURL: url, periodKey: key, representation: representation), groupID: "audio",
                name: name(of: set, fallback: "audio"), language: set.language.map(Languages.bcp47), characteristics: characteristics(of: set),
                channels: common.channels.map(String.init), codecs: common.codecs, bandwidth: representation.bandwidth,
                isDefault: isMain(set), autoselect: true))
        }
        for set in textSets {
            guard let representation = set.representations.first else { continue }
            let common = mpd.effective(representation, in: set)
            renditions.append(Presentation.Track(
                kind: .subtitles, uri: trackURI(mpdURL: url, periodKey: key, representation: representation), groupID: "subtitles",
                name: name(of: set, fallback: "subtitles"), language: set.language.map(Languages.bcp47), characteristics: characteristics(of: set),
                codecs: common.codecs, bandwidth: representation.bandwidth, isDefault: isMain(set), autoselect: true,
                forced: set.roles.contains { $0.value == "forced-subtitle" }))
        }
        let groups = Presentation.Track.Groups(audio: audioSets.isEmpty ? nil : "audio", subtitles: textSets.isEmpty ? nil : "subtitles")
        var variants: [Presentation.Track] = []
        for set in videoSets {
            for representation in set.representations {
                variants.append(variant(representation, in: set, mpd: mpd, url: url, key: key, groups: groups))
            }
        }
        if videoSets.isEmpty {
            // Audio alone: its Representations are the variants.
            for set in audioSets {
                for representation in set.representations {
                    variants.append(variant(representation, in: set, mpd: mpd, url: url, key: key, groups: .init()))
                }
            }
            renditions.removeAll { $0.kind == .audio }
        }
        let trickPlay = sets.filter(\.isTrickMode).flatMap { set in
            set.representations.map { variant($0, in: set, mpd: mpd, url: url, key: key, groups: .init()) }
        }
        return Presentation.Period(id: period.id, start: timing.start.seconds, duration: timing.duration?.seconds,
                                   variants: variants, renditions: renditions, trickPlay: trickPlay)
    }

    private static func variant(_ representation: Representation, in set: AdaptationSet, mpd: MPD, url: String, key: String,
                                groups: Presentation.Track.Groups) -> Presentation.Track {
        let common = mpd.effective(representation, in: set)
        var resolution: Resolution?
        if let width = common.width, let height = common.height { resolution = Resolution(width: width, height: height) }
        let range: VideoRange? = switch common.transferCharacteristics {
        case 16: .pq
        case 18: .hlg
        case nil: nil
        default: .sdr
        }
        return Presentation.Track(kind: .variant, uri: trackURI(mpdURL: url, periodKey: key, representation: representation),
                                  groups: groups, name: representation.id, language: set.language.map(Languages.bcp47), codecs: common.codecs,
                                  bandwidth: representation.bandwidth, resolution: resolution, frameRate: common.frameRate?.value,
                                  videoRange: range)
    }

    private static func name(of set: AdaptationSet, fallback: String) -> String {
        set.labels.first ?? set.language.map(Languages.bcp47) ?? set.id.map { "\(fallback) \($0)" } ?? fallback
    }

    private static func isMain(_ set: AdaptationSet) -> Bool {
        set.roles.contains { $0.schemeIdUri == Descriptor.role && $0.value == "main" }
    }

    /// HLS's characteristics for DASH's roles and accessibility: described video, captions.
    private static func characteristics(of set: AdaptationSet) -> [String] {
        var result: [String] = []
        let values = (set.roles + set.accessibility).compactMap(\.value)
        if values.contains("description") { result.append("public.accessibility.describes-video") }
        if values.contains("caption") { result.append("public.accessibility.transcribes-spoken-dialog") }
        return result
    }
}
