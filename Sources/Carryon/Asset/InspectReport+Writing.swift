import Foundation
import HLS

extension InspectReport {
    /// The report's JSON — pretty, keys sorted — handed to `sink` piece by piece; media
    /// playlists of more than `batch` segments are written in batches of that many by
    /// ``PrettyJSON``: a million-segment playlist's JSON (hundreds of megabytes) is never whole
    /// in memory, and is written in seconds.
    static func write(_ inspection: Inspector.Inspection, sizes: [String: SizeEstimator.Outcome], batch: Int = 4096,
                      to sink: (Data) throws -> Void) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard case .media(let media) = inspection.resolved, media.segments.count > batch else {
            try sink(try encoder.encode(InspectReport(inspection, sizes: sizes)) + Data("\n".utf8))
            return
        }
        let text = try encoder.encode(InspectReport(inspection, sizes: sizes, segments: false))
        // "segments" sorts right after "segmentCount", and "warnings" always follows it.
        let marker = Data("  \"segmentCount\" : \(media.segments.count),\n".utf8)
        guard let found = text.range(of: marker) else {
            throw CarryonError(.playlist, "the JSON report has no segment count to place the segments after")
        }
        try sink(text[..<found.upperBound] + Data("  \"segments\" : ".utf8))
        var json = PrettyJSON(depth: 1)
        json.beginArray()
        for (index, segment) in media.segments.enumerated() {
            json.element()
            SegmentJSON(segment).write(to: &json)
            if index % batch == batch - 1 { try sink(Data(json.take())) }
        }
        json.endArray()
        try sink(Data(json.take()) + Data(",\n".utf8) + text[found.upperBound...] + Data("\n".utf8))
    }
}

extension InspectReport.SegmentJSON {
    /// Writes the segment as the encoder would, keys in sorted order.
    func write(to json: inout PrettyJSON) {
        json.beginObject()
        if let bitrate { json.key("bitrate"); json.number(bitrate) }
        if let byteRange { json.key("byteRange"); byteRange.write(to: &json) }
        json.key("discontinuity"); json.bool(discontinuity)
        json.key("duration"); json.number(duration)
        if let gap { json.key("gap"); json.bool(gap) }
        if let key { json.key("key"); key.write(to: &json) }
        if let keys {
            json.key("keys")
            json.beginArray()
            for key in keys {
                json.element()
                key.write(to: &json)
            }
            json.endArray()
        }
        if let map {
            json.key("map")
            json.beginObject()
            if let byteRange = map.byteRange { json.key("byteRange"); byteRange.write(to: &json) }
            json.key("uri"); json.string(map.uri)
            json.endObject()
        }
        json.key("mediaSequence"); json.number(mediaSequence)
        if let programDateTime { json.key("programDateTime"); json.string(programDateTime) }
        json.key("startTime"); json.number(startTime)
        if let title { json.key("title"); json.string(title) }
        json.key("uri"); json.string(uri)
        json.endObject()
    }
}

extension InspectReport.ByteRangeJSON {
    func write(to json: inout PrettyJSON) {
        json.beginObject()
        json.key("length"); json.number(length)
        json.key("offset"); json.number(offset)
        json.endObject()
    }
}

extension InspectReport.KeyJSON {
    func write(to json: inout PrettyJSON) {
        json.beginObject()
        if let iv { json.key("iv"); json.string(iv) }
        if let keyFormat { json.key("keyFormat"); json.string(keyFormat) }
        if let keyFormatVersions { json.key("keyFormatVersions"); json.string(keyFormatVersions) }
        json.key("method"); json.string(method)
        if let uri { json.key("uri"); json.string(uri) }
        json.endObject()
    }
}
