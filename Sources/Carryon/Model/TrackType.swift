/// What a rendition of a bundle is, as HLS names the types and the index and `manifest.json`
/// record them: the variant's video, an audio or subtitle rendition, or a lone media playlist.
public enum TrackType: String, Sendable, Hashable, Codable, CaseIterable {
    /// A variant's video (`VIDEO`): the main rendition of a bundle.
    case video = "VIDEO"
    /// An audio rendition (`AUDIO`).
    case audio = "AUDIO"
    /// A subtitle rendition (`SUBTITLES`).
    case subtitles = "SUBTITLES"
    /// Closed captions (`CLOSED-CAPTIONS`), carried in the video: never downloaded on their own.
    case closedCaptions = "CLOSED-CAPTIONS"
    /// A stream that is one media playlist (`MEDIA`), with no multivariant playlist above it.
    case media = "MEDIA"
}
