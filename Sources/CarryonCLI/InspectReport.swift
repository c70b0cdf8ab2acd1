import Carryon
import Foundation
import HLS

/// The `--json` shape of `carryon inspect`: one object, absent values omitted.
struct InspectReport: Encodable {
    var type: String
    var url: String
    var version: Int?
    var independentSegments: Bool?
    var variants: [VariantJSON]?
    var iframeVariants: [VariantJSON]?
    var renditions: [RenditionJSON]?
    var sessionKeys: [KeyJSON]?
    var sessionData: [SessionDataJSON]?
    var contentSteering: ContentSteeringJSON?
    var targetDuration: Int?
    var mediaSequence: Int?
    var discontinuitySequence: Int?
    var playlistType: String?
    var presentation: String?
    var endList: Bool?
    var iFramesOnly: Bool?
    var duration: Double?
    var segmentCount: Int?
    var segments: [SegmentJSON]?
    /// With `--sizes`, for a media playlist.
    var size: SizeJSON?
    var warnings: [String]

    /// A size estimate (`--sizes`), or why there is none.
    struct SizeJSON: Encodable {
        var estimatedBytes: Int?
        var exact: Bool?
        var duration: Double?
        var error: String?

        init?(_ outcome: SizeEstimator.Outcome?) {
            switch outcome {
            case .success(let estimate)?:
                estimatedBytes = estimate.bytes
                exact = estimate.isExact
                duration = estimate.duration
            case .failure(let failure)?:
                error = failure.message
            case nil:
                return nil
            }
        }
    }

    struct VariantJSON: Encodable {
        var uri: String
        var bandwidth: Int?
        var averageBandwidth: Int?
        var score: Double?
        var codecs: String?
        var supplementalCodecs: String?
        var resolution: String?
        var frameRate: Double?
        var hdcpLevel: String?
        var videoRange: String?
        var stableVariantId: String?
        var audio: String?
        var video: String?
        var subtitles: String?
        var closedCaptions: String?
        var pathwayId: String?
        var size: SizeJSON?

        init(_ variant: MultivariantPlaylist.Variant, size: SizeEstimator.Outcome? = nil) {
            self.size = SizeJSON(size)
            uri = variant.uri
            bandwidth = variant.bandwidth
            averageBandwidth = variant.averageBandwidth
            score = variant.score
            codecs = variant.codecs
            supplementalCodecs = variant.supplementalCodecs
            resolution = variant.resolution?.description
            frameRate = variant.frameRate
            hdcpLevel = variant.hdcpLevel?.rawValue
            videoRange = variant.videoRange?.rawValue
            stableVariantId = variant.stableVariantID
            audio = variant.audio
            video = variant.video
            subtitles = variant.subtitles
            switch variant.closedCaptions {
            case .none?: closedCaptions = "NONE"
            case .group(let group)?: closedCaptions = group
            case nil: closedCaptions = nil
            }
            pathwayId = variant.pathwayID
        }
    }

    struct RenditionJSON: Encodable {
        var type: String
        var groupId: String
        var name: String
        var language: String?
        var assocLanguage: String?
        var `default`: Bool
        var autoselect: Bool
        var forced: Bool
        var channels: String?
        var characteristics: String?
        var instreamId: String?
        var uri: String?
        var size: SizeJSON?

        init(_ rendition: Rendition, size: SizeEstimator.Outcome? = nil) {
            self.size = SizeJSON(size)
            type = rendition.type.rawValue
            groupId = rendition.groupID
            name = rendition.name
            language = rendition.language
            assocLanguage = rendition.assocLanguage
            self.default = rendition.isDefault
            autoselect = rendition.autoselect
            forced = rendition.forced
            channels = rendition.channels
            characteristics = rendition.characteristics
            instreamId = rendition.instreamID
            uri = rendition.uri
        }
    }

    struct KeyJSON: Encodable {
        var method: String
        var uri: String?
        var iv: String?
        var keyFormat: String?
        var keyFormatVersions: String?

        init(_ key: Key) {
            method = key.method.rawValue
            uri = key.uri
            iv = key.iv?.description
            keyFormat = key.keyFormat
            keyFormatVersions = key.keyFormatVersions
        }

        init(_ key: SegmentKey) {
            method = key.method.rawValue
            uri = key.uri
            iv = key.iv?.description
            keyFormat = key.keyFormat
            keyFormatVersions = key.keyFormatVersions
        }
    }

    struct SessionDataJSON: Encodable {
        var dataId: String
        var value: String?
        var uri: String?
        var format: String?
        var language: String?
    }

    struct ContentSteeringJSON: Encodable {
        var serverUri: String
        var pathwayId: String?
    }

    struct ByteRangeJSON: Encodable {
        var length: Int
        var offset: Int

        init(_ range: ResolvedByteRange) {
            length = range.length
            offset = range.offset
        }
    }

    struct MapJSON: Encodable {
        var uri: String
        var byteRange: ByteRangeJSON?
    }

    struct SegmentJSON: Encodable {
        var uri: String
        var mediaSequence: Int
        var startTime: Double
        var duration: Double
        var title: String?
        var byteRange: ByteRangeJSON?
        var discontinuity: Bool
        var gap: Bool?
        var key: KeyJSON?
        var keys: [KeyJSON]?
        var map: MapJSON?
        var programDateTime: String?
        var bitrate: Int?
        /// False when the playlist gives no duration (`#EXTINF:-1`); absent when it does.
        var durationKnown: Bool?
        /// IPTV-style `EXTINF` attributes, as written (`tvg-id`, `group-title`, …).
        var attributes: [String: String]?
        /// Low-latency HLS partial segments.
        var parts: [PartJSON]?

        init(_ segment: Segment) {
            uri = segment.uri
            mediaSequence = segment.mediaSequence
            startTime = segment.startTime
            duration = segment.duration
            title = segment.title.isEmpty ? nil : segment.title
            byteRange = segment.byteRange.map(ByteRangeJSON.init)
            discontinuity = segment.discontinuity
            gap = segment.isGap ? true : nil
            key = segment.key.map(KeyJSON.init)
            keys = segment.keys.count > 1 ? segment.keys.map(KeyJSON.init) : nil
            map = segment.initSection.map { MapJSON(uri: $0.uri, byteRange: $0.byteRange.map(ByteRangeJSON.init)) }
            programDateTime = segment.programDateTime?.text
            bitrate = segment.bitrate
            durationKnown = segment.isDurationKnown ? nil : false
            if !segment.attributes.isEmpty {
                attributes = Dictionary(segment.attributes.map { ($0.name, $0.value.text) }, uniquingKeysWith: { first, _ in first })
            }
            parts = segment.parts.isEmpty ? nil : segment.parts.map(PartJSON.init)
        }
    }

    struct PartJSON: Encodable {
        var uri: String
        var duration: Double
        var independent: Bool?
        var byteRange: ByteRangeJSON?
        var gap: Bool?

        init(_ part: PartialSegment) {
            uri = part.uri
            duration = part.duration
            independent = part.independent ? true : nil
            byteRange = part.byteRange.map(ByteRangeJSON.init)
            gap = part.isGap ? true : nil
        }
    }

    /// The report of `inspection`; `segments` false leaves a media playlist's segments out
    /// (``print(_:sizes:batch:)`` writes them in batches).
    init(_ inspection: Inspector.Inspection, sizes: [String: SizeEstimator.Outcome] = [:], segments withSegments: Bool = true) {
        url = inspection.url
        warnings = inspection.resolved.warnings.map(\.description)
        switch inspection.resolved {
        case .multivariant(let main):
            type = "multivariant"
            version = main.version
            independentSegments = main.independentSegments
            variants = main.variants.map { VariantJSON($0, size: sizes[$0.uri]) }
            iframeVariants = main.iFrameVariants.map { VariantJSON($0) }
            renditions = main.renditions.map { RenditionJSON($0, size: $0.uri.flatMap { sizes[$0] }) }
            sessionKeys = main.sessionKeys.map(KeyJSON.init)
            sessionData = main.sessionData.map {
                SessionDataJSON(dataId: $0.dataID, value: $0.value, uri: $0.uri, format: $0.format?.rawValue, language: $0.language)
            }
            contentSteering = main.contentSteering.map { ContentSteeringJSON(serverUri: $0.serverURI, pathwayId: $0.pathwayID) }
        case .media(let media):
            type = "media"
            version = media.version
            independentSegments = media.independentSegments
            targetDuration = media.targetDuration
            mediaSequence = media.mediaSequence
            discontinuitySequence = media.discontinuitySequence
            playlistType = media.playlistType?.rawValue
            presentation = media.presentation.rawValue
            endList = media.hasEndList
            iFramesOnly = media.iFramesOnly
            duration = media.duration
            segmentCount = media.segments.count
            segments = withSegments ? media.segments.map(SegmentJSON.init) : nil
            size = SizeJSON(sizes[media.url])
        }
    }
}

extension InspectReport {
    /// Prints the report on stdout as ``printJSON(_:)`` would — pretty, keys sorted — with a
    /// media playlist's segments written `batch` at a time by ``PrettyJSON``: a
    /// million-segment playlist's JSON (hundreds of megabytes) is never whole in memory, and is
    /// written in seconds.
    static func print(_ inspection: Inspector.Inspection, sizes: [String: SizeEstimator.Outcome]) throws {
        try write(inspection, sizes: sizes) { try FileHandle.standardOutput.write(contentsOf: $0) }
    }

    /// The report's JSON, handed to `sink` piece by piece; media playlists of more than
    /// `batch` segments are written in batches of that many.
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
