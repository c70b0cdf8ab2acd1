import Foundation

extension HLSFormat: ReportingFormat {
    /// The playlist resolved (a multivariant playlist's variants and renditions, a media
    /// playlist's segments), with each choice's size estimated when asked.
    func report(_ manifest: FetchedManifest, inspector: Inspector, request: StreamReport.Request) async throws(CarryonError) -> StreamReport {
        let inspection = try inspector.inspect(manifest)
        var estimates: [String: SizeEstimator.Outcome] = [:]
        if request.sizes {
            switch inspection.resolved {
            case .multivariant(let main):
                estimates = await SizeEstimator(fetcher: inspector.fetcher).estimate(main)
            case .media(let media):
                estimates[media.url] = .success(SizeEstimator.estimate(media, bitrate: nil))
            }
        }
        let sizes = estimates
        var writer: (@Sendable (_ sink: (Data) throws -> Void) throws -> Void)?
        if request.segments {
            writer = { @Sendable sink in try InspectReport.write(inspection, sizes: sizes, to: sink) }
        }
        return StreamReport(format: name, value: { InspectReport(inspection, sizes: sizes, segments: request.segments) },
                            text: { InspectText(inspection: inspection, allSegments: request.allSegments, sizes: request.sizes ? sizes : nil).render() },
                            writer: writer)
    }
}
