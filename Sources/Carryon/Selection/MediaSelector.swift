import Foundation
import HLS

/// Chooses a variant and renditions from a ``Presentation`` (whatever its manifest format) by
/// ``DownloadOptions``, with AVFoundation's rules made explicit:
///
/// 1. The maximums (bitrate, resolution) are hard bounds: only the variants within them are
///    candidates.
/// 2. With minimums (bitrate, resolution), the lowest candidate that meets them is chosen: an
///    explicit bound beats the default preference, so the dynamic range (`prefersHDR`: PQ/HLG
///    first, else SDR first) chooses only between variants ranked equal to that one.
/// 3. With no minimums, or none met, the candidates are narrowed by dynamic range — with
///    `prefersHDR` to the PQ/HLG variants if there are any, without to the SDR ones if there are
///    any — and the highest is chosen. When no variant is within the maximums, the lowest of all
///    (of the preferred range if it has any).
///    "Highest" orders by `SCORE` when every variant has one, else by peak bandwidth, then
///    resolution.
/// 4. Audio and subtitle renditions come from the variant's groups, by
///    ``DownloadOptions/RenditionChoice``; renditions without a URI (carried in the variant)
///    need no download, and closed captions never do.
public struct MediaSelector: Sendable {
    /// The options the choice follows.
    public var options: DownloadOptions
    /// The environment read for the user's languages when the options give none.
    public var environment: [String: String]

    /// A selector that chooses by `options`, reading the user's languages (`LANGUAGE`, `LC_ALL`,
    /// `LC_MESSAGES`, `LANG`) from `environment` when the options give none; by default the
    /// process's environment.
    public init(options: DownloadOptions, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.options = options
        self.environment = environment
    }

    /// The languages automatic choices prefer, most preferred first.
    public var preferredLanguages: [String] {
        options.preferredLanguages ?? Languages.fromEnvironment(environment)
    }

    /// Chooses from `presentation` (its first period: every format read today has one).
    ///
    /// - Throws: ``CarryonError`` with code ``CarryonError/Code/selection`` when there is no
    ///   variant, or when a language asked for by name exists in no rendition of the chosen
    ///   variant's groups (the message lists what there is).
    ///
    /// - Parameters:
    ///   - presentation: The stream's tracks.
    ///   - pinnedVariant: The URI of the variant to take instead of choosing one (a bundle adding
    ///     renditions keeps its variant; one whose URI differs only in its query is the same
    ///     variant signed anew); the renditions are chosen for it.
    public func select(from presentation: Presentation, pinnedVariant: String? = nil) throws(CarryonError) -> MediaSelection {
        guard let period = presentation.periods.first else {
            throw CarryonError(.selection, "the stream has no period to download")
        }
        let variant: Presentation.Track
        if let pinnedVariant {
            // The same URI, or one that differs only in its query: a signed URL signed anew.
            let unsigned = { (uri: String) in uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? uri }
            guard let pinned = period.variants.first(where: { $0.uri == pinnedVariant })
                    ?? period.variants.first(where: { $0.uri.map(unsigned) == unsigned(pinnedVariant) }) else {
                throw CarryonError(.selection, "the stream no longer offers the variant \(pinnedVariant)")
            }
            variant = pinned
        } else {
            variant = try chooseVariant(period.variants)
        }
        var renditions: [MediaSelection.Rendition] = []
        let audio = try chooseRenditions(period.renditions(.audio, inGroup: variant.groups.audio), choice: options.audio,
                                         kind: "audio", fallbackToDefault: true)
        for (index, rendition) in audio.enumerated() {
            renditions.append(selected(rendition, isMain: index == 0))
        }
        if let video = variant.groups.video {
            // Alternative video: the group's default rendition, when it has its own playlist.
            let group = period.renditions(.video, inGroup: video)
            if let chosen = group.first(where: \.isDefault) ?? group.first, chosen.uri != nil {
                renditions.insert(selected(chosen, isMain: true), at: 0)
            }
        }
        let subtitles = try chooseRenditions(period.renditions(.subtitles, inGroup: variant.groups.subtitles),
                                             choice: options.subtitles, kind: "subtitles", fallbackToDefault: false)
        renditions += subtitles.map { selected($0, isMain: false) }
        return MediaSelection(variant: Self.selected(variant), renditions: renditions.filter { !$0.uri.isEmpty })
    }

    static func selected(_ variant: Presentation.Track) -> MediaSelection.Variant {
        .init(uri: variant.uri ?? "", bandwidth: variant.bandwidth, averageBandwidth: variant.averageBandwidth,
              resolution: variant.resolution?.description, codecs: variant.codecs,
              videoRange: variant.videoRange?.rawValue, frameRate: variant.frameRate)
    }

    private func selected(_ rendition: Presentation.Track, isMain: Bool) -> MediaSelection.Rendition {
        MediaSelection.Rendition(type: rendition.kind.selectionType, groupID: rendition.groupID ?? "", name: rendition.name,
                                 language: rendition.language, channels: rendition.channels,
                                 isDefault: rendition.isDefault, forced: rendition.forced, uri: rendition.uri ?? "",
                                 isMain: isMain)
    }

    // MARK: Variant

    func chooseVariant(_ all: [Presentation.Track]) throws(CarryonError) -> Presentation.Track {
        guard !all.isEmpty else {
            throw CarryonError(.selection, "the stream offers no variant to download")
        }
        // The maximums are hard bounds: the dynamic-range preference chooses only among what they allow.
        let withinMaximums = all.filter { variant in
            if let maximum = options.maximumBitrate, let bandwidth = variant.bandwidth ?? variant.averageBandwidth,
               bandwidth > maximum { return false }
            if let maximum = options.maximumResolution, let resolution = variant.resolution,
               resolution.width > maximum.width || resolution.height > maximum.height { return false }
            return true
        }
        guard !withinMaximums.isEmpty else { return Self.ordered(preferredRange(all)).first! }
        let meetingMinimums = withinMaximums.filter { variant in
            if let minimum = options.minimumBitrate, (variant.bandwidth ?? variant.averageBandwidth ?? -1) < minimum { return false }
            if let minimum = options.minimumResolution {
                guard let resolution = variant.resolution, resolution.width >= minimum.width,
                      resolution.height >= minimum.height else { return false }
            }
            return true
        }
        let hasMinimums = options.minimumBitrate != nil || options.minimumResolution != nil
        guard hasMinimums, !meetingMinimums.isEmpty else { return Self.ordered(preferredRange(withinMaximums)).last! }
        // An explicit minimum beats the default preference: the lowest variant that meets it,
        // the dynamic range choosing only between variants ranked equal to it.
        let lowest = Self.ordered(meetingMinimums).first!
        let useScore = meetingMinimums.allSatisfy { $0.score != nil }
        let equal = meetingMinimums.filter { Self.rank($0, useScore: useScore) == Self.rank(lowest, useScore: useScore) }
        return Self.ordered(preferredRange(equal)).first!
    }

    /// What orders variants: `SCORE` when every one has one, else peak bandwidth (unknown lowest).
    private static func rank(_ variant: Presentation.Track, useScore: Bool) -> Double {
        useScore ? variant.score! : Double(variant.bandwidth ?? variant.averageBandwidth ?? -1)
    }

    /// Of `variants`: with `prefersHDR` the PQ and HLG ones if there are any; without, the SDR
    /// ones (or those that do not say) if there are any; otherwise all of them.
    private func preferredRange(_ variants: [Presentation.Track]) -> [Presentation.Track] {
        let preferred = variants.filter { ($0.videoRange?.isHDR == true) == options.prefersHDR }
        return preferred.isEmpty ? variants : preferred
    }

    /// `variants` from lowest to highest: by `SCORE` when every one has one, else by peak
    /// bandwidth (unknown lowest, so chosen last), then resolution.
    private static func ordered(_ variants: [Presentation.Track]) -> [Presentation.Track] {
        let useScore = variants.allSatisfy { $0.score != nil }
        return variants.sorted { lhs, rhs in
            if useScore, lhs.score != rhs.score { return lhs.score! < rhs.score! }
            let left = lhs.bandwidth ?? lhs.averageBandwidth ?? -1
            let right = rhs.bandwidth ?? rhs.averageBandwidth ?? -1
            if left != right { return left < right }
            return (lhs.resolution?.pixels ?? 0) < (rhs.resolution?.pixels ?? 0)
        }
    }

    // MARK: Renditions

    func chooseRenditions(_ group: [Presentation.Track], choice: DownloadOptions.RenditionChoice, kind: String,
                          fallbackToDefault: Bool) throws(CarryonError) -> [Presentation.Track] {
        switch choice {
        case .none:
            return []
        case .all:
            return group
        case .languages(let wanted):
            var chosen: [Presentation.Track] = []
            for want in wanted {
                let matches = group.filter { rendition in
                    rendition.name.caseInsensitiveCompare(want) == .orderedSame
                        || rendition.language.map { Languages.matches($0, range: want) } == true
                }
                guard !matches.isEmpty else {
                    let available = group.map { "\($0.language ?? "?") (\($0.name))" }.joined(separator: ", ")
                    throw CarryonError(.selection, "no \(kind) rendition matches \"\(want)\"; the stream offers: \(available.isEmpty ? "none" : available)")
                }
                for rendition in channelChoice(matches) where !chosen.contains(rendition) { chosen.append(rendition) }
            }
            return chosen
        case .automatic:
            for language in preferredLanguages {
                let matches = group.filter { $0.language.map { Languages.matches($0, range: language) } == true }
                if !matches.isEmpty { return channelChoice(matches) }
                // A preference `de-AT` also accepts plain `de` renditions.
                if let primary = language.split(separator: "-").first.map(String.init), primary != language {
                    let broader = group.filter { $0.language.map { Languages.matches($0, range: primary) } == true }
                    if !broader.isEmpty { return channelChoice(broader) }
                }
            }
            guard fallbackToDefault, !group.isEmpty else { return [] }
            let fallback = group.first(where: \.isDefault) ?? group.first(where: \.autoselect) ?? group[0]
            let sameLanguage = group.filter { $0.language == fallback.language }
            return fallback.language == nil ? [fallback] : channelChoice(sameLanguage)
        }
    }

    /// Of one language's renditions: with `prefersMultichannel` all of them, stereo first;
    /// without, only those of the fewest channels.
    private func channelChoice(_ renditions: [Presentation.Track]) -> [Presentation.Track] {
        let audio = renditions.filter { $0.kind == .audio }
        guard audio.count > 1 else { return renditions }
        let ordered = renditions.sorted { ($0.channelCount ?? 2) < ($1.channelCount ?? 2) }
        if options.prefersMultichannel { return ordered }
        let fewest = ordered[0].channelCount ?? 2
        return ordered.filter { ($0.channelCount ?? 2) == fewest }
    }
}
