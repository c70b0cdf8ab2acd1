import Carryon
import DASH
import Foundation

/// `carryon inspect` for an MPD: the text and the JSON forms (`"type": "dash"`).
struct InspectDASH {
    let inspection: Inspector.MPDInspection
    /// Each Representation's size, with `--sizes`.
    var sizes: [DASHSizeEstimator.Place: SizeEstimator.Outcome]?

    struct Report: Encodable {
        var type = "dash"
        var url: String
        var presentation: String
        var duration: Double?
        var periods: [PeriodReport]
        var protection: [ProtectionReport]
        var warnings: [WarningReport]
    }

    struct PeriodReport: Encodable {
        var id: String?
        var start: Double
        var duration: Double?
        var adaptationSets: [SetReport]
    }

    struct SetReport: Encodable {
        var id: String?
        var contentType: String?
        var mimeType: String?
        var lang: String?
        var label: String?
        var roles: [String]
        var codecs: String?
        var trickMode: Bool
        var representations: [RepresentationReport]
    }

    struct RepresentationReport: Encodable {
        var id: String
        var bandwidth: Int?
        var width: Int?
        var height: Int?
        var frameRate: String?
        var codecs: String?
        var channels: Int?
        var addressing: String?
        var segmentCount: Int?
        /// With `--sizes`.
        var size: InspectReport.SizeJSON?
    }

    struct ProtectionReport: Encodable, Hashable {
        var schemeIdUri: String
        var value: String?
        var defaultKID: String?
        var licenseURL: String?
    }

    struct WarningReport: Encodable {
        var line: Int?
        var message: String
    }

    var report: Report {
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

    func printJSON() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(report), as: UTF8.self))
    }

    func render() -> String {
        let report = report
        var out = "MPEG-DASH, \(report.presentation)" + (report.duration.map { ", \(formatSeconds($0))" } ?? "") + "\n"
        for period in report.periods {
            out += "\nPeriod \(period.id ?? "-") at \(formatSeconds(period.start))" + (period.duration.map { " for \(formatSeconds($0))" } ?? "") + "\n"
            for set in period.adaptationSets {
                let kind = set.contentType ?? set.mimeType ?? "?"
                out += "  \(kind)\(set.lang.map { " [\($0)]" } ?? "")\(set.label.map { " \"\($0)\"" } ?? "")"
                    + (set.roles.isEmpty ? "" : " roles: \(set.roles.joined(separator: ","))") + (set.trickMode ? " (trick mode)" : "") + "\n"
                for representation in set.representations {
                    var facts = [representation.id, representation.bandwidth.map { formatBitrate($0) } ?? "bandwidth ?"]
                    if let width = representation.width, let height = representation.height { facts.append("\(width)x\(height)") }
                    if let codecs = representation.codecs { facts.append(codecs) }
                    if let channels = representation.channels { facts.append("\(channels) ch") }
                    facts.append((representation.addressing ?? "?") + (representation.segmentCount.map { ", \($0) segment\($0 == 1 ? "" : "s")" } ?? ""))
                    if let size = representation.size {
                        facts.append(size.estimatedBytes.map { "size " + (size.exact == true ? "" : "~") + formatBytes($0) } ?? "size ? (\(size.error ?? ""))")
                    }
                    out += "    " + facts.joined(separator: "  ") + "\n"
                }
            }
        }
        if !report.protection.isEmpty {
            out += "\nProtection\n" + report.protection.map { "  \($0.schemeIdUri)\($0.value.map { " \($0)" } ?? "")\($0.defaultKID.map { " KID \($0)" } ?? "")\n" }.joined()
        }
        if !report.warnings.isEmpty {
            out += "\nWarnings (\(report.warnings.count))\n" + report.warnings.map { "  \($0.line.map { "line \($0): " } ?? "")\($0.message)\n" }.joined()
        }
        return out
    }

    private func formatSeconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.3f s", seconds)
    }
}
