import Foundation
import HLS

/// The text form of `carryon inspect`.
struct InspectText {
    let inspection: Inspector.Inspection
    let allSegments: Bool
    /// Size estimates by media playlist URI, when asked for.
    var sizes: [String: SizeEstimator.Outcome]?

    private func sizeText(_ uri: String?) -> String {
        guard let uri, let outcome = sizes?[uri] else { return "-" }
        switch outcome {
        case .success(let estimate): return (estimate.isExact ? "" : "~") + formatBytes(estimate.bytes)
        case .failure: return "?"
        }
    }

    func render() -> String {
        var out = ""
        switch inspection.resolved {
        case .multivariant(let main): renderMultivariant(main, into: &out)
        case .media(let media): renderMedia(media, into: &out)
        }
        let warnings = inspection.resolved.warnings
        if !warnings.isEmpty {
            out += "\nWarnings (\(warnings.count))\n"
            for warning in warnings {
                out += "  line \(warning.line): \(warning.message)\n"
                if let text = warning.lineText { out += "    \(text)\n" }
            }
        }
        return out
    }

    private func renderMultivariant(_ main: MultivariantPlaylist, into out: inout String) {
        out += "Multivariant playlist  \(main.url)\n"
        var facts: [String] = []
        if let version = main.version { facts.append("version \(version)") }
        if main.independentSegments { facts.append("independent segments") }
        facts.append("\(main.variants.count) variant\(main.variants.count == 1 ? "" : "s")")
        facts.append("\(main.renditions.count) rendition\(main.renditions.count == 1 ? "" : "s")")
        out += facts.joined(separator: " · ") + "\n"

        out += "\nVariants\n"
        var table = TextTable(["BANDWIDTH", "AVERAGE", "RESOLUTION", "FPS", "RANGE", "CODECS", "AUDIO", "VIDEO", "SUBTITLES", "CC"]
                              + (sizes != nil ? ["SIZE"] : []) + ["URI"])
        for variant in main.variants {
            table.add([
                formatBitrate(variant.bandwidth), variant.averageBandwidth.map(formatBitrate) ?? "-",
                variant.resolution?.description ?? "-", variant.frameRate.map { formatNumber($0) } ?? "-",
                variant.videoRange?.rawValue ?? "-", variant.codecs ?? "-", variant.audio ?? "-", variant.video ?? "-",
                variant.subtitles ?? "-", closedCaptionsText(variant.closedCaptions),
            ] + (sizes != nil ? [sizeText(variant.uri)] : []) + [relative(variant.uri, to: main.url)])
        }
        out += table.render(indent: 2)

        if !main.renditions.isEmpty {
            out += "\nRenditions\n"
            var groups: [(MediaType, String)] = []
            for rendition in main.renditions where !groups.contains(where: { $0 == (rendition.type, rendition.groupID) }) {
                groups.append((rendition.type, rendition.groupID))
            }
            for (type, group) in groups {
                out += "  \(type.rawValue) group \"\(group)\"\n"
                var table = TextTable(["LANGUAGE", "NAME", "FLAGS", "CHANNELS"] + (sizes != nil ? ["SIZE"] : []) + ["URI"])
                for rendition in main.renditions(ofType: type, inGroup: group) {
                    var flags: [String] = []
                    if rendition.isDefault { flags.append("default") }
                    if rendition.autoselect { flags.append("autoselect") }
                    if rendition.forced { flags.append("forced") }
                    if let instream = rendition.instreamID { flags.append(instream) }
                    table.add([
                        rendition.language ?? "-", rendition.name, flags.isEmpty ? "-" : flags.joined(separator: ","),
                        rendition.channels ?? "-",
                    ] + (sizes != nil ? [sizeText(rendition.uri)] : [])
                      + [rendition.uri.map { relative($0, to: main.url) } ?? "(in variant)"])
                }
                out += table.render(indent: 4)
            }
        }

        if !main.iFrameVariants.isEmpty {
            out += "\nI-frame variants\n"
            var table = TextTable(["BANDWIDTH", "RESOLUTION", "CODECS", "URI"])
            for variant in main.iFrameVariants {
                table.add([formatBitrate(variant.bandwidth), variant.resolution?.description ?? "-", variant.codecs ?? "-",
                           relative(variant.uri, to: main.url)])
            }
            out += table.render(indent: 2)
        }
        if !main.sessionKeys.isEmpty {
            out += "\nSession keys\n"
            for key in main.sessionKeys {
                out += "  \(key.method.rawValue)  \(key.keyFormat ?? "identity")  \(key.uri ?? "-")\n"
            }
        }
        if !main.sessionData.isEmpty {
            out += "\nSession data\n"
            for data in main.sessionData {
                let language = data.language.map { " [\($0)]" } ?? ""
                out += "  \(data.dataID)\(language) = \(data.value.map { "\"\($0)\"" } ?? data.uri ?? "")\n"
            }
        }
        if let steering = main.contentSteering {
            out += "\nContent steering  \(steering.serverURI)\(steering.pathwayID.map { " (pathway \($0))" } ?? "")\n"
        }
    }

    private func renderMedia(_ media: MediaPlaylist, into out: inout String) {
        out += "Media playlist  \(media.url)\n"
        var facts = [media.presentation.rawValue.uppercased()]
        if let version = media.version { facts.append("version \(version)") }
        facts.append("target duration \(media.targetDuration) s")
        facts.append("\(media.segments.count) segment\(media.segments.count == 1 ? "" : "s")")
        facts.append("\(formatDuration(media.duration)) (\(formatNumber(media.duration)) s)")
        if media.mediaSequence != 0 { facts.append("first media sequence \(media.mediaSequence)") }
        if media.iFramesOnly { facts.append("I-frames only") }
        if !media.hasEndList { facts.append("no ENDLIST") }
        out += facts.joined(separator: " · ") + "\n\n"

        var keys: [SegmentKey] = []
        for segment in media.segments {
            for key in segment.keys where !keys.contains(where: { $0.uri == key.uri && $0.method == key.method && $0.keyFormat == key.keyFormat }) {
                keys.append(key)
            }
        }
        let encrypted = media.segments.filter { !$0.keys.isEmpty }.count
        if keys.isEmpty {
            out += "Encryption      none\n"
        } else {
            let methods = Set(keys.map(\.method.rawValue)).sorted().joined(separator: ", ")
            let derived = media.segments.contains { $0.key?.ivIsDerived == true }
            out += "Encryption      \(methods): \(encrypted) of \(media.segments.count) segments, \(keys.count) key\(keys.count == 1 ? "" : "s")\(derived ? ", IV from media sequence" : "")\n"
            for key in keys { out += "                \(key.keyFormat)  \(key.uri)\n" }
        }
        var maps: [InitSection] = []
        for segment in media.segments {
            if let map = segment.initSection, !maps.contains(where: { $0.uri == map.uri && $0.byteRange == map.byteRange }) { maps.append(map) }
        }
        out += "Init sections   \(maps.isEmpty ? "none" : maps.map { relative($0.uri, to: media.url) + ($0.byteRange.map { " [\($0)]" } ?? "") }.joined(separator: ", "))\n"
        let ranged = media.segments.filter { $0.byteRange != nil }
        let rangedFiles = Set(ranged.map(\.uri))
        if sizes != nil { out += "Size            \(sizeText(media.url)) (exact only when every segment has a byte range)\n" }
        out += "Byte ranges     \(ranged.isEmpty ? "none" : "\(ranged.count) segments in \(rangedFiles.count) file\(rangedFiles.count == 1 ? "" : "s")")\n"
        let discontinuities = media.segments.filter(\.discontinuity).count
        out += "Discontinuities \(discontinuities)\n"
        let gaps = media.segments.filter(\.isGap).count
        if gaps > 0 { out += "Gaps            \(gaps)\n" }
        let parts = media.segments.reduce(media.trailingParts.count) { $0 + $1.parts.count }
        if parts > 0 || !media.preloadHints.isEmpty {
            let hints = media.preloadHints.isEmpty ? "" : ", \(media.preloadHints.count) preload hint\(media.preloadHints.count == 1 ? "" : "s")"
            out += "Partial segments \(parts)\(hints) (low-latency HLS; a download takes the full segments)\n"
        }

        out += "\nSegments\n"
        let shown: [Segment]
        var hidden = 0
        if allSegments || media.segments.count <= 20 {
            shown = media.segments
        } else {
            shown = Array(media.segments.prefix(10)) + Array(media.segments.suffix(10))
            hidden = media.segments.count - 20
        }
        // Titles and IPTV attributes (`tvg-id="news"`) get a column only when a segment has one.
        let titled = shown.contains { !$0.title.isEmpty || !$0.attributes.isEmpty }
        var table = TextTable(["SEQUENCE", "START", "DURATION", "RANGE", "FLAGS"] + (titled ? ["TITLE"] : []) + ["URI"])
        for (index, segment) in shown.enumerated() {
            if hidden > 0 && index == 10 {
                table.add(["…", "", "", "", ""] + (titled ? [""] : []) + ["\(hidden) more (--all-segments lists them)"])
            }
            var flags: [String] = []
            if segment.discontinuity { flags.append("discontinuity") }
            if segment.isGap { flags.append("gap") }
            if segment.key != nil { flags.append("encrypted") }
            if segment.programDateTime != nil { flags.append("date") }
            if !segment.parts.isEmpty { flags.append("\(segment.parts.count) part\(segment.parts.count == 1 ? "" : "s")") }
            var title = segment.attributes.map { "\($0.name)=\($0.value.description)" }
            if !segment.title.isEmpty { title.append(segment.title) }
            var row = [String(segment.mediaSequence), formatDuration(segment.startTime),
                       segment.isDurationKnown ? formatNumber(segment.duration) : "unknown",
                       segment.byteRange?.description ?? "-", flags.isEmpty ? "-" : flags.joined(separator: ",")]
            if titled { row.append(title.isEmpty ? "-" : title.joined(separator: " ")) }
            row.append(relative(segment.uri, to: media.url))
            table.add(row)
        }
        out += table.render(indent: 2)
    }

    private func closedCaptionsText(_ value: StreamInf.ClosedCaptions?) -> String {
        switch value {
        case .none?: "NONE"
        case .group(let group)?: group
        case nil: "-"
        }
    }
}
