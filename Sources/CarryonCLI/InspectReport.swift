import Carryon
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
        var bandwidth: Int
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
        }
    }

    init(_ inspection: Inspector.Inspection, sizes: [String: SizeEstimator.Outcome] = [:]) {
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
            segments = media.segments.map(SegmentJSON.init)
            size = SizeJSON(sizes[media.url])
        }
    }
}
