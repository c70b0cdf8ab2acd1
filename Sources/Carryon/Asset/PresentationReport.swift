import Foundation

/// The report of a stream whose format has no report of its own: the tracks its
/// ``Presentation`` offers, Period by Period (`"type"` the format's name).
struct PresentationReport: Codable, Sendable {
    /// One track.
    struct Track: Codable, Sendable, Hashable {
        var kind: String
        var uri: String?
        var name: String?
        var language: String?
        var bandwidth: Int?
        var resolution: String?
        var codecs: String?
    }

    /// One Period's tracks.
    struct Period: Codable, Sendable, Hashable {
        var variants: [Track]
        var renditions: [Track]
    }

    var type: String
    var url: String
    var periods: [Period]

    /// The report of `presentation`, read from `url` by format `format` (`displayName` to people).
    static func report(of presentation: Presentation, format: String, displayName: String, url: String) -> StreamReport {
        func track(_ track: Presentation.Track) -> Track {
            Track(kind: track.kind.selectionType, uri: track.uri, name: track.name, language: track.language, bandwidth: track.bandwidth,
                  resolution: track.resolution.map { "\($0.width)x\($0.height)" }, codecs: track.codecs)
        }
        let report = PresentationReport(type: format, url: url, periods: presentation.periods.map {
            Period(variants: $0.variants.map(track), renditions: $0.renditions.map(track))
        })
        var text = "\(displayName) \(url)\n"
        for (index, period) in report.periods.enumerated() {
            if report.periods.count > 1 { text += "\nPeriod \(index + 1)\n" }
            var table = TextTable(["KIND", "BANDWIDTH", "RESOLUTION", "LANGUAGE", "NAME", "URI"])
            for track in period.variants + period.renditions {
                table.add([track.kind, track.bandwidth.map { formatBitrate($0) } ?? "-", track.resolution ?? "-", track.language ?? "-",
                           track.name ?? "-", track.uri.map { relative($0, to: url) } ?? "(in variant)"])
            }
            text += table.render(indent: 2)
        }
        let written = text
        return StreamReport(format: format, value: { report }, text: { written }, choices: { Self.choices(presentation) })
    }
}

extension PresentationReport {
    /// The first Period's variants (or video tracks, when it has no variants), audio and subtitles.
    static func choices(_ presentation: Presentation) -> StreamChoices {
        guard let period = presentation.periods.first else { return StreamChoices() }
        let videos = period.variants.isEmpty ? period.renditions.filter { $0.kind == .video } : period.variants
        func tracks(_ kind: Presentation.Track.Kind) -> [StreamChoices.Track] {
            period.renditions.filter { $0.kind == kind }.compactMap { track in
                track.language.map { StreamChoices.Track(language: $0, name: track.name, isDefault: track.isDefault) }
            }
        }
        return StreamChoices(
            variants: videos.map {
                StreamChoices.Variant(bandwidth: $0.bandwidth, resolution: $0.resolution.map { "\($0.width)x\($0.height)" }, codecs: $0.codecs)
            },
            audio: tracks(.audio), subtitles: tracks(.subtitles))
    }
}
