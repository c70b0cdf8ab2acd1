import Foundation

/// What a person chooses between before downloading a stream, in the same words for every
/// format: the video variants (best first), one audio and one subtitle track per language, and
/// each one's size where it was estimated. Made by the stream's format with its
/// ``StreamReport`` (the report's ``StreamReport/choices``); the daemon's `GET /api/streams`
/// answers it as `choices`, and the web app's chooser offers nothing else — it never reads a
/// format's own report shape.
public struct StreamChoices: Codable, Sendable, Hashable {
    /// An estimated size on disk.
    public struct Size: Codable, Sendable, Hashable {
        /// The bytes.
        public var bytes: Int
        /// Whether `bytes` is exact (every segment's length known), not estimated from a bitrate.
        public var exact: Bool

        /// A size of `bytes`, `exact` or estimated.
        public init(bytes: Int, exact: Bool) {
            self.bytes = bytes
            self.exact = exact
        }
    }

    /// One video variant (an HLS variant stream, a DASH video Representation).
    public struct Variant: Codable, Sendable, Hashable {
        /// Its peak bits per second.
        public var bandwidth: Int?
        /// `WIDTHxHEIGHT`.
        public var resolution: String?
        /// Its codecs, as the manifest names them.
        public var codecs: String?
        /// Its size on disk, when estimated.
        public var size: Size?

        /// A variant of `bandwidth`, `resolution` and `codecs`, of `size`.
        public init(bandwidth: Int?, resolution: String? = nil, codecs: String? = nil, size: Size? = nil) {
            self.bandwidth = bandwidth
            self.resolution = resolution
            self.codecs = codecs
            self.size = size
        }
    }

    /// One language's audio or subtitle track.
    public struct Track: Codable, Sendable, Hashable {
        /// Its language (an RFC 5646 tag as the manifest gives it): what a download asks for.
        public var language: String
        /// Its name for people.
        public var name: String?
        /// Whether the stream marks it the default (for audio, the first is when none is).
        public var isDefault: Bool
        /// Its size on disk, when estimated.
        public var size: Size?

        /// A `language` track named `name`.
        public init(language: String, name: String? = nil, isDefault: Bool = false, size: Size? = nil) {
            self.language = language
            self.name = name
            self.isDefault = isDefault
            self.size = size
        }
    }

    /// The video variants, the highest bandwidth first; empty when the stream has one rendition.
    public private(set) var variants: [Variant]
    /// The audio languages, one track each (the first of several), one of them the default.
    public private(set) var audio: [Track]
    /// The subtitle languages, one track each.
    public private(set) var subtitles: [Track]
    /// The size of the whole stream when it has one rendition (an HLS media playlist).
    public var size: Size?

    /// The choices among `variants`, `audio` and `subtitles` as a manifest lists them: variants
    /// sorted best first, tracks without a language dropped, one track per language (the first),
    /// the first audio track the default when none is.
    public init(variants: [Variant] = [], audio: [Track] = [], subtitles: [Track] = [], size: Size? = nil) {
        func unique(_ tracks: [Track]) -> [Track] {
            var seen: Set<String> = []
            return tracks.filter { !$0.language.isEmpty && seen.insert($0.language).inserted }
        }
        self.variants = variants.enumerated()
            .sorted { ($0.element.bandwidth ?? 0, $1.offset) > ($1.element.bandwidth ?? 0, $0.offset) }
            .map(\.element)
        self.audio = unique(audio)
        self.subtitles = unique(subtitles)
        self.size = size
        if !self.audio.isEmpty && !self.audio.contains(where: \.isDefault) { self.audio[0].isDefault = true }
    }
}

extension StreamChoices.Size {
    /// The size `outcome` estimated, if it did (an estimate of 0 bytes from no bitrate is none).
    init?(_ outcome: SizeEstimator.Outcome?) {
        guard case .success(let estimate)? = outcome, estimate.bytes > 0 || estimate.isExact else { return nil }
        self.init(bytes: estimate.bytes, exact: estimate.isExact)
    }
}
