import DASH

extension DASHFormat: ReportingFormat {
    /// The MPD's Periods, Adaptation Sets and Representations, with each Representation's size
    /// estimated when asked (see ``DASHSizeEstimator``).
    func report(_ manifest: FetchedManifest, inspector: Inspector, request: StreamReport.Request) async throws(CarryonError) -> StreamReport {
        let mpd: MPD
        do { mpd = try MPD.read(manifest.bytes) } catch { throw CarryonError(.playlist, "\(manifest.url): \(error)", cause: error) }
        let sizes = request.sizes ? await DASHSizeEstimator(fetcher: inspector.fetcher).estimate(mpd, url: manifest.url) : nil
        let report = InspectDASH(inspection: Inspector.MPDInspection(url: manifest.url, mpd: mpd), sizes: sizes)
        return StreamReport(format: name, value: { report.report }, text: { report.render() }, choices: { report.choices })
    }
}

extension InspectDASH {
    /// The first Period's choices: each video Representation of a set that is not trick play, and
    /// one track per audio and text set with a language (its first Representation's size; a set
    /// whose Role is `main` the default).
    var choices: StreamChoices {
        var variants: [StreamChoices.Variant] = []
        var audio: [StreamChoices.Track] = []
        var subtitles: [StreamChoices.Track] = []
        for set in report.periods.first?.adaptationSets ?? [] {
            let kind = set.contentType ?? set.mimeType?.split(separator: "/").first.map(String.init)
            if kind == "video" && !set.trickMode {
                variants += set.representations.map { representation in
                    StreamChoices.Variant(
                        bandwidth: representation.bandwidth,
                        resolution: representation.width.flatMap { width in representation.height.map { "\(width)x\($0)" } },
                        codecs: representation.codecs ?? set.codecs, size: StreamChoices.Size(representation.size))
                }
            }
            guard let language = set.lang else { continue }
            let track = StreamChoices.Track(language: language, name: set.label ?? language, isDefault: set.roles.contains("main"),
                                            size: StreamChoices.Size(set.representations.first?.size))
            if kind == "audio" { audio.append(track) }
            if kind == "text" || set.mimeType?.contains("vtt") == true || set.mimeType?.contains("ttml") == true { subtitles.append(track) }
        }
        return StreamChoices(variants: variants, audio: audio, subtitles: subtitles)
    }
}

extension StreamChoices.Size {
    /// The size a report's `size` gives, if it was estimated (0 bytes from no bitrate is none).
    init?(_ json: InspectReport.SizeJSON?) {
        guard let bytes = json?.estimatedBytes, bytes > 0 || json?.exact == true else { return nil }
        self.init(bytes: bytes, exact: json?.exact ?? false)
    }
}
