import DASH
import Foundation

/// What `carryon inspect` and the daemon's `GET /api/streams` report of an MPD (`"type": "dash"`);
/// the command line adds the text form.
package struct InspectDASH {
    package let inspection: Inspector.MPDInspection
    /// Each Representation's size, with `--sizes`.
    package var sizes: [DASHSizeEstimator.Place: SizeEstimator.Outcome]?

    package init(inspection: Inspector.MPDInspection, sizes: [DASHSizeEstimator.Place: SizeEstimator.Outcome]? = nil) {
        self.inspection = inspection
        self.sizes = sizes
    }

    package struct Report: Encodable {
        package var type = "dash"
        package var url: String
        package var presentation: String
        package var duration: Double?
        package var periods: [PeriodReport]
        package var protection: [ProtectionReport]
        package var warnings: [WarningReport]
    }

    package struct PeriodReport: Encodable {
        package var id: String?
        package var start: Double
        package var duration: Double?
        package var adaptationSets: [SetReport]
    }

    package struct SetReport: Encodable {
        package var id: String?
        package var contentType: String?
        package var mimeType: String?
        package var lang: String?
        package var label: String?
        package var roles: [String]
        package var codecs: String?
        package var trickMode: Bool
        package var representations: [RepresentationReport]
    }

    package struct RepresentationReport: Encodable {
        package var id: String
        package var bandwidth: Int?
        package var width: Int?
        package var height: Int?
        package var frameRate: String?
        package var codecs: String?
        package var channels: Int?
        package var addressing: String?
        package var segmentCount: Int?
        /// With `--sizes`.
        package var size: InspectReport.SizeJSON?
    }

    package struct ProtectionReport: Encodable, Hashable {
        package var schemeIdUri: String
        package var value: String?
        package var defaultKID: String?
        package var licenseURL: String?
    }

    package struct WarningReport: Encodable {
        package var line: Int?
        package var message: String
    }

    package var report: Report {
        let mpd = inspection.mpd
        let timings = mpd.periodTimings
        var protections: [ProtectionReport] = []
        let periods = mpd.periods.enumerated().map { index, period in
            PeriodReport(id: period.id, start: timings[index].start.seconds, duration: timings[index].duration?.seconds,
                         adaptationSets: period.adaptationSets.enumerated().map { setIndex, set in
                for protection in set.common.contentProtections + set.representations.flatMap(\.common.contentProtections) {
                    let entry = ProtectionReport(schemeIdUri: protection.schemeIdUri, value: protection.value,
                                                 defaultKID: protection.defaultKID, licenseURL: protection.licenseURL)
                    if !protections.contains(entry) { protections.append(entry) }
                }
                return SetReport(
                    id: set.id, contentType: set.contentType, mimeType: set.common.mimeType, lang: set.language,
                    label: set.labels.first, roles: set.roles.compactMap(\.value), codecs: set.common.codecs, trickMode: set.isTrickMode,
                    representations: set.representations.enumerated().map { representationIndex, representation in
                        let common = mpd.effective(representation, in: set)
                        let addressing = inspection.addressing(of: representation, in: set, periodIndex: index)
                        let place = DASHSizeEstimator.Place(period: index, adaptationSet: setIndex, representation: representationIndex)
                        return RepresentationReport(
                            id: representation.id, bandwidth: representation.bandwidth, width: common.width, height: common.height,
                            frameRate: common.frameRate?.description, codecs: common.codecs, channels: common.channels,
                            addressing: addressing.mode, segmentCount: addressing.segmentCount,
                            size: sizes.flatMap { InspectReport.SizeJSON($0[place]) })
                    })
            })
        }
        return Report(url: inspection.url, presentation: mpd.type.rawValue, duration: mpd.duration?.seconds, periods: periods,
                      protection: protections, warnings: mpd.warnings.map { WarningReport(line: $0.line, message: $0.message) })
    }
}
