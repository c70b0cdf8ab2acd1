import Foundation

/// What will be downloaded from a multivariant playlist: one variant and the renditions that go
/// with it, split as PRESTOplay does into the main selection (video and first audio, needed to
/// play at all) and the extra selections (other languages, subtitles).
public struct MediaSelection: Sendable, Hashable, Codable {
    /// The chosen variant.
    public var variant: Variant
    /// The chosen renditions that have their own media playlist, main ones first.
    public var renditions: [Rendition]
    /// Further variants added to the bundle later (`carryon add --min-bitrate …`), which the
    /// local multivariant playlist offers beside ``variant``.
    public var additionalVariants: [Variant] = []

    /// ``variant`` and the ``additionalVariants``.
    public var variants: [Variant] { [variant] + additionalVariants }

    /// A selection of `variant` with `renditions` (main ones first) and any further variants.
    public init(variant: Variant, renditions: [Rendition], additionalVariants: [Variant] = []) {
        self.variant = variant
        self.renditions = renditions
        self.additionalVariants = additionalVariants
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        variant = try container.decode(Variant.self, forKey: .variant)
        renditions = try container.decode([Rendition].self, forKey: .renditions)
        // Selections recorded before variants could be added have none.
        additionalVariants = try container.decodeIfPresent([Variant].self, forKey: .additionalVariants) ?? []
    }

    /// A chosen variant stream.
    public struct Variant: Sendable, Hashable, Codable {
        /// The variant's media playlist (absolute).
        public var uri: String
        /// The variant's peak bitrate in bits per second (`BANDWIDTH`); nil when a playlist read
        /// leniently leaves it out.
        public var bandwidth: Int?
        /// The variant's average bitrate in bits per second (`AVERAGE-BANDWIDTH`); nil when the
        /// playlist does not give it.
        public var averageBandwidth: Int?
        /// The video's size as `WIDTHxHEIGHT`, e.g. `1280x720` (`RESOLUTION`); nil when the playlist
        /// does not give it, as for audio-only variants.
        public var resolution: String?
        /// The variant's codec strings (RFC 6381), comma-separated (`CODECS`); nil when the playlist
        /// does not give them.
        public var codecs: String?
        /// `SDR`, `HLG` or `PQ` (`VIDEO-RANGE`); nil when the playlist does not say.
        public var videoRange: String?
        /// The maximum frame rate in frames per second (`FRAME-RATE`); nil when the playlist does not
        /// give it.
        public var frameRate: Double?
    }

    /// A chosen rendition with its own media playlist.
    public struct Rendition: Sendable, Hashable, Codable {
        /// `AUDIO`, `VIDEO` or `SUBTITLES`.
        public var type: String
        /// The `GROUP-ID` of the group the rendition belongs to.
        public var groupID: String
        /// The rendition's `NAME`, unique within its group (e.g. `English`).
        public var name: String
        /// The rendition's `LANGUAGE`, a BCP 47 tag (e.g. `en`, `pt-BR`); nil when the playlist does
        /// not give it.
        public var language: String?
        /// The audio's `CHANNELS` (e.g. `2`, `6/JOC`); nil when the playlist does not give it.
        public var channels: String?
        /// Whether the rendition is its group's default (`DEFAULT=YES`).
        public var isDefault: Bool
        /// Whether the subtitles are forced narrative (`FORCED=YES`), to be shown whatever the user's
        /// preference.
        public var forced: Bool
        /// The rendition's media playlist (absolute).
        public var uri: String
        /// Whether it belongs to the main selection (the video's own audio) rather than an
        /// extra one.
        public var isMain: Bool
    }
}
