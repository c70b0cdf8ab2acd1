import Foundation
import HLS

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
                            choices: { Self.choices(inspection, sizes: sizes) },
                            writer: writer)
    }
}

extension HLSFormat {
    /// A multivariant playlist's variants (not its I-frame variants), its audio and subtitle
    /// renditions; a media playlist's one size.
    static func choices(_ inspection: Inspector.Inspection, sizes: [String: SizeEstimator.Outcome]) -> StreamChoices {
        switch inspection.resolved {
        case .multivariant(let main):
            func track(_ rendition: Rendition) -> StreamChoices.Track? {
                rendition.language.map {
                    StreamChoices.Track(language: $0, name: rendition.name, isDefault: rendition.isDefault,
                                        size: StreamChoices.Size(rendition.uri.flatMap { sizes[$0] }))
                }
            }
            return StreamChoices(
                variants: main.variants.map {
                    StreamChoices.Variant(bandwidth: $0.bandwidth, resolution: $0.resolution?.description, codecs: $0.codecs,
                                          size: StreamChoices.Size(sizes[$0.uri]))
                },
                audio: main.renditions.filter { $0.type == .audio }.compactMap(track),
                subtitles: main.renditions.filter { $0.type == .subtitles }.compactMap(track))
        case .media(let media):
            return StreamChoices(size: StreamChoices.Size(sizes[media.url]))
        }
    }
}
