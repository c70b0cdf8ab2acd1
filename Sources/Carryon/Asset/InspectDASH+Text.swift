import DASH
import Foundation

extension InspectDASH {
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
            // A key system by the name people know it (Widevine), as errors name it.
            out += "\nProtection\n" + report.protection.map {
                "  \($0.schemeIdUri)\(KeySystems.name(of: $0.schemeIdUri).map { " (\($0))" } ?? "")\($0.value.map { " \($0)" } ?? "")\($0.defaultKID.map { " KID \($0)" } ?? "")\n"
            }.joined()
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
