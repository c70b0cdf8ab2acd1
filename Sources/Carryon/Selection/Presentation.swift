import HLS

/// A stream as the engine sees it, whatever its manifest format: periods of tracks to choose
/// from. Each format reads its manifest into one (`HLSFormat` from a multivariant playlist;
/// DASH's MPD has periods of its own), and ``MediaSelector`` chooses from it by
/// ``DownloadOptions`` without looking at M3U8 or MPD text.
///
/// Value types shared with the HLS model (`Resolution`, `VideoRange`) mean the same in
/// every format.
public struct Presentation: Sendable, Hashable {
    /// The periods, in presentation order; an HLS stream has one.
    public var periods: [Period]

    /// A presentation of `periods`.
    public init(periods: [Period]) {
        self.periods = periods
    }

    /// A stretch of the presentation with one set of tracks.
    public struct Period: Sendable, Hashable {
        /// The period's id in its manifest, if it has one.
        public var id: String?
        /// Where it starts in the presentation, in seconds.
        public var start: Double
        /// How long it lasts, in seconds, when the manifest says.
        public var duration: Double?
        /// The variants: what plays on its own (video with the groups of renditions it goes with,
        /// or audio only), one of which is chosen.
        public var variants: [Track]
        /// The renditions the variants refer to by group: audio, alternative video, subtitles,
        /// closed captions.
        public var renditions: [Track]
        /// Variants for trick play (HLS I-frame variants, DASH trick-mode adaptation sets), kept
        /// apart: never chosen as the main variant.
        public var trickPlay: [Track]

        /// A period of the given tracks.
        public init(id: String? = nil, start: Double = 0, duration: Double? = nil, variants: [Track], renditions: [Track] = [],
                    trickPlay: [Track] = []) {
            self.id = id
            self.start = start
            self.duration = duration
            self.variants = variants
            self.renditions = renditions
            self.trickPlay = trickPlay
        }

        /// The renditions of `kind` in `group`, in manifest order; none when `group` is nil.
        public func renditions(_ kind: Track.Kind, inGroup group: String?) -> [Track] {
            guard let group else { return [] }
            return renditions.filter { $0.kind == kind && $0.groupID == group }
        }
    }

    /// One choice of media: a variant, or a rendition of a group.
    public struct Track: Sendable, Hashable {
        /// What a track carries.
        public enum Kind: String, Sendable, Hashable, Codable {
            /// A variant: it plays on its own, with the renditions of its groups.
            case variant
            /// An audio rendition (another language, a commentary, another channel layout).
            case audio
            /// An alternative video rendition (another camera angle).
            case video
            /// A subtitle rendition, with media of its own.
            case subtitles
            /// Closed captions carried inside the variant's video (no media of their own).
            case closedCaptions

            /// The name a ``MediaSelection/Rendition`` records (`AUDIO`, `VIDEO`, `SUBTITLES`,
            /// `CLOSED-CAPTIONS`), as HLS names the types.
            public var selectionType: String {
                switch self {
                case .variant: "VARIANT"
                case .audio: TrackType.audio.rawValue
                case .video: TrackType.video.rawValue
                case .subtitles: TrackType.subtitles.rawValue
                case .closedCaptions: TrackType.closedCaptions.rawValue
                }
            }
        }

        /// The groups of renditions a variant goes with, by kind.
        public struct Groups: Sendable, Hashable {
            /// The group of its audio renditions.
            public var audio: String?
            /// The group of its alternative video renditions.
            public var video: String?
            /// The group of its subtitle renditions.
            public var subtitles: String?
            /// The group of its closed captions.
            public var closedCaptions: String?

            /// Groups by kind; nil: none of that kind.
            public init(audio: String? = nil, video: String? = nil, subtitles: String? = nil, closedCaptions: String? = nil) {
                self.audio = audio
                self.video = video
                self.subtitles = subtitles
                self.closedCaptions = closedCaptions
            }
        }

        /// What the track carries.
        public var kind: Kind
        /// Where the track's media is described, absolute (an HLS media playlist); nil for a
        /// rendition carried inside its variant, which needs no download of its own.
        public var uri: String?
        /// The group a rendition belongs to.
        public var groupID: String?
        /// The groups a variant goes with.
        public var groups: Groups
        /// A rendition's name, unique within its group (`English`).
        public var name: String
        /// A BCP 47 language tag (`en`, `pt-BR`).
        public var language: String?
        /// Accessibility and role characteristics (HLS `CHARACTERISTICS`, DASH `Role` and
        /// `Accessibility`), e.g. `public.accessibility.describes-video`.
        public var characteristics: [String]
        /// Audio channels as the manifest gives them (`2`, `6/JOC`).
        public var channels: String?
        /// Codec strings (RFC 6381), comma-separated.
        public var codecs: String?
        /// The peak bitrate in bits per second.
        public var bandwidth: Int?
        /// The average bitrate in bits per second.
        public var averageBandwidth: Int?
        /// The manifest's own ranking of variants, higher better (HLS `SCORE`).
        public var score: Double?
        /// The video's size.
        public var resolution: Resolution?
        /// The maximum frame rate, frames per second.
        public var frameRate: Double?
        /// `SDR`, `HLG` or `PQ`.
        public var videoRange: VideoRange?
        /// Whether a rendition is its group's default.
        public var isDefault: Bool
        /// Whether a player may choose the rendition by itself.
        public var autoselect: Bool
        /// Whether subtitles are forced narrative.
        public var forced: Bool

        /// A track; everything not given is unknown (or false).
        public init(kind: Kind, uri: String?, groupID: String? = nil, groups: Groups = Groups(), name: String = "",
                    language: String? = nil, characteristics: [String] = [], channels: String? = nil, codecs: String? = nil,
                    bandwidth: Int? = nil, averageBandwidth: Int? = nil, score: Double? = nil, resolution: Resolution? = nil,
                    frameRate: Double? = nil, videoRange: VideoRange? = nil, isDefault: Bool = false, autoselect: Bool = false,
                    forced: Bool = false) {
            self.kind = kind
            self.uri = uri
            self.groupID = groupID
            self.groups = groups
            self.name = name
            self.language = language
            self.characteristics = characteristics
            self.channels = channels
            self.codecs = codecs
            self.bandwidth = bandwidth
            self.averageBandwidth = averageBandwidth
            self.score = score
            self.resolution = resolution
            self.frameRate = frameRate
            self.videoRange = videoRange
            self.isDefault = isDefault
            self.autoselect = autoselect
            self.forced = forced
        }

        /// The number of audio channels (`6` of `6/JOC`), when the manifest gives them.
        public var channelCount: Int? {
            channels?.split(separator: "/").first.flatMap { Int($0) }
        }
    }
}
