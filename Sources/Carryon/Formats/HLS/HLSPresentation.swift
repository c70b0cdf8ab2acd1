import HLS

/// An HLS multivariant playlist as a ``Presentation``: one period whose variants are the
/// `EXT-X-STREAM-INF` streams, whose renditions are the `EXT-X-MEDIA` tags and whose trick-play
/// tracks are the I-frame variants.
extension Presentation {
    /// The presentation `playlist` describes.
    public init(_ playlist: MultivariantPlaylist) {
        self.init(periods: [Period(variants: playlist.variants.map(Track.init(variant:)),
                                   renditions: playlist.renditions.map(Track.init(rendition:)),
                                   trickPlay: playlist.iFrameVariants.map(Track.init(variant:)))])
    }
}

extension Presentation.Track {
    /// An `EXT-X-STREAM-INF` (or `EXT-X-I-FRAME-STREAM-INF`) variant as a track.
    init(variant: MultivariantPlaylist.Variant) {
        let closedCaptions: String? = if case .group(let group)? = variant.closedCaptions { group } else { nil }
        self.init(kind: .variant, uri: variant.uri,
                  groups: Groups(audio: variant.audio, video: variant.video, subtitles: variant.subtitles, closedCaptions: closedCaptions),
                  codecs: variant.codecs, bandwidth: variant.bandwidth, averageBandwidth: variant.averageBandwidth, score: variant.score,
                  resolution: variant.resolution, frameRate: variant.frameRate, videoRange: variant.videoRange)
    }

    /// An `EXT-X-MEDIA` rendition as a track.
    init(rendition: Rendition) {
        let kind: Kind = switch rendition.type {
        case .audio: .audio
        case .video: .video
        case .subtitles: .subtitles
        case .closedCaptions: .closedCaptions
        }
        self.init(kind: kind, uri: rendition.uri, groupID: rendition.groupID, name: rendition.name, language: rendition.language,
                  characteristics: rendition.characteristics?.split(separator: ",").map { String($0) } ?? [],
                  channels: rendition.channels, isDefault: rendition.isDefault, autoselect: rendition.autoselect,
                  forced: rendition.forced)
    }
}

extension MediaSelector {
    /// Chooses from an HLS multivariant playlist: ``select(from:pinnedVariant:)-(Presentation,_)``
    /// of the presentation it describes.
    public func select(from playlist: MultivariantPlaylist, pinnedVariant: String? = nil) throws(CarryonError) -> MediaSelection {
        try select(from: Presentation(playlist), pinnedVariant: pinnedVariant)
    }
}
