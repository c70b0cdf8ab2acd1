/// What of an asset is on disk, as AVAssetCache tells it: whether it plays offline, and which
/// media selection options of each group are complete. Answered from the library's index.
public struct AssetCache: Sendable, Hashable, Codable {
    /// A rendition of the bundle and how much of it is there.
    public struct Option: Sendable, Hashable, Codable {
        /// The rendition's folder in the bundle (`video`, `audio-en`, …).
        public var key: String
        /// The rendition's name: the `NAME` attribute of an audio or subtitle rendition, the
        /// resolution (`1280x720`) or `video` for a variant, `media` for a single media playlist.
        public var name: String
        /// The rendition's `LANGUAGE` attribute (`en`), or nil when it has none (as variants do).
        public var language: String?
        /// Every resource it needs is on disk.
        public var isComplete: Bool
        /// How many of its resources (segments and init sections, or byte ranges of them) are on
        /// disk.
        public var resourcesDone: Int
        /// How many resources it needs in all. A resource shared by renditions counts only under the
        /// rendition it was planned for.
        public var resourcesTotal: Int
        /// Part of the main selection (the variant and its first audio).
        public var isMain: Bool
    }

    /// The asset plays offline: its variant and every rendition of the main selection are
    /// complete.
    public var isPlayableOffline: Bool
    /// The variant's own media (or a single media playlist's).
    public var video: Option?
    /// Every variant of the bundle: ``video`` first, then variants added later.
    public var variants: [Option]
    /// Audio renditions (the audible group).
    public var audible: [Option]
    /// Subtitle renditions (the legible group).
    public var legible: [Option]

    /// - Parameter counts: each rendition's resources done and in all.
    init(renditions: [RenditionRecord], counts: [String: (done: Int, total: Int)], planned: Bool) {
        func option(_ rendition: RenditionRecord) -> Option {
            let count = counts[rendition.key] ?? (0, 0)
            return Option(key: rendition.key, name: rendition.name, language: rendition.language, isComplete: count.done == count.total,
                          resourcesDone: count.done, resourcesTotal: count.total, isMain: rendition.isMain)
        }
        let ordered = renditions.sorted { $0.position < $1.position }
        variants = ordered.filter { $0.type == .video || $0.type == .media }.map(option)
        video = variants.first
        audible = ordered.filter { $0.type == .audio }.map(option)
        legible = ordered.filter { $0.type == .subtitles }.map(option)
        isPlayableOffline = planned && !ordered.isEmpty && ordered.filter(\.isMain).map(option).allSatisfy(\.isComplete)
    }
}
