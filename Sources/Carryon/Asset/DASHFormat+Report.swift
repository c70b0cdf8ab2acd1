import DASH

extension DASHFormat: ReportingFormat {
    /// The MPD's Periods, Adaptation Sets and Representations, with each Representation's size
    /// estimated when asked (see ``DASHSizeEstimator``).
    func report(_ manifest: FetchedManifest, inspector: Inspector, request: StreamReport.Request) async throws(CarryonError) -> StreamReport {
        let mpd: MPD
        do { mpd = try MPD.read(manifest.bytes) } catch { throw CarryonError(.playlist, "\(manifest.url): \(error)", cause: error) }
        let sizes = request.sizes ? await DASHSizeEstimator(fetcher: inspector.fetcher).estimate(mpd, url: manifest.url) : nil
        let report = InspectDASH(inspection: Inspector.MPDInspection(url: manifest.url, mpd: mpd), sizes: sizes)
        return StreamReport(format: name, value: { report.report }, text: { report.render() })
    }
}
