import Foundation
import HLS

/// The `--json` shape of `carryon inspect` for HLS, and the daemon's `GET /api/streams`: one
/// object, absent values omitted.
package struct InspectReport: Encodable {
    package var type: String
    package var url: String
    package var version: Int?
    package var independentSegments: Bool?
    package var variants: [VariantJSON]?
    package var iframeVariants: [VariantJSON]?
    package var renditions: [RenditionJSON]?
    package var sessionKeys: [KeyJSON]?
    package var sessionData: [SessionDataJSON]?
    package var contentSteering: ContentSteeringJSON?
    package var targetDuration: Int?
    package var mediaSequence: Int?
    package var discontinuitySequence: Int?
    package var playlistType: String?
    package var presentation: String?
    package var endList: Bool?
    package var iFramesOnly: Bool?
    package var duration: Double?
    package var segmentCount: Int?
    package var segments: [SegmentJSON]?
    /// With `--sizes`, for a media playlist.
    package var size: SizeJSON?
    package var warnings: [String]

    /// A size estimate (`--sizes`), or why there is none.
    package struct SizeJSON: Encodable {
        package var estimatedBytes: Int?
        package var exact: Bool?
        package var duration: Double?
        package var error: String?

        package init?(_ outcome: SizeEstimator.Outcome?) {
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

    package struct VariantJSON: Encodable {
        package var uri: String
        package var bandwidth: Int?
        package var averageBandwidth: Int?
        package var score: Double?
        package var codecs: String?
        package var supplementalCodecs: String?
        package var resolution: String?
        package var frameRate: Double?
        package var hdcpLevel: String?
        package var videoRange: String?
        package var stableVariantId: String?
        package var audio: String?
        package var video: String?
        package var subtitles: String?
        package var closedCaptions: String?
        package var pathwayId: String?
        package var size: SizeJSON?

        package init(_ variant: MultivariantPlaylist.Variant, size: SizeEstimator.Outcome? = nil) {
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

    package struct RenditionJSON: Encodable {
        package var type: String
        package var groupId: String
        package var name: String
        package var language: String?
        package var assocLanguage: String?
        package var `default`: Bool
        package var autoselect: Bool
        package var forced: Bool
        package var channels: String?
        package var characteristics: String?
        package var instreamId: String?
        package var uri: String?
        package var size: SizeJSON?

        package init(_ rendition: Rendition, size: SizeEstimator.Outcome? = nil) {
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

    package struct KeyJSON: Encodable {
        package var method: String
        package var uri: String?
        package var iv: String?
        package var keyFormat: String?
        package var keyFormatVersions: String?

        package init(_ key: Key) {
            method = key.method.rawValue
            uri = key.uri
            iv = key.iv?.description
            keyFormat = key.keyFormat
            keyFormatVersions = key.keyFormatVersions
        }

        package init(_ key: SegmentKey) {
            method = key.method.rawValue
            uri = key.uri
            iv = key.iv?.description
            keyFormat = key.keyFormat
            keyFormatVersions = key.keyFormatVersions
        }
    }

    package struct SessionDataJSON: Encodable {
        package var dataId: String
        package var value: String?
        package var uri: String?
        package var format: String?
        package var language: String?
    }

    package struct ContentSteeringJSON: Encodable {
        package var serverUri: String
        package var pathwayId: String?
    }

    package struct ByteRangeJSON: Encodable {
        package var length: Int
        package var offset: Int

        package init(_ range: ResolvedByteRange) {
            length = range.length
            offset = range.offset
        }
    }

    package struct MapJSON: Encodable {
        package var uri: String
        package var byteRange: ByteRangeJSON?
    }

    package struct SegmentJSON: Encodable {
        package var uri: String
        package var mediaSequence: Int
        package var startTime: Double
        package var duration: Double
        package var title: String?
        package var byteRange: ByteRangeJSON?
        package var discontinuity: Bool
        package var gap: Bool?
        package var key: KeyJSON?
        package var keys: [KeyJSON]?
        package var map: MapJSON?
        package var programDateTime: String?
        package var bitrate: Int?
        /// False when the playlist gives no duration (`#EXTINF:-1`); absent when it does.
        package var durationKnown: Bool?
        /// IPTV-style `EXTINF` attributes, as written (`tvg-id`, `group-title`, …).
        package var attributes: [String: String]?
        /// Low-latency HLS partial segments.
        package var parts: [PartJSON]?

        package init(_ segment: Segment) {
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

    package struct PartJSON: Encodable {
        package var uri: String
        package var duration: Double
        package var independent: Bool?
        package var byteRange: ByteRangeJSON?
        package var gap: Bool?

        package init(_ part: PartialSegment) {
            uri = part.uri
            duration = part.duration
            independent = part.independent ? true : nil
            byteRange = part.byteRange.map(ByteRangeJSON.init)
            gap = part.isGap ? true : nil
        }
    }

    /// The report of `inspection`; `segments` false leaves a media playlist's segments out
    /// (``print(_:sizes:batch:)`` writes them in batches).
    package init(_ inspection: Inspector.Inspection, sizes: [String: SizeEstimator.Outcome] = [:], segments withSegments: Bool = true) {
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
