import Foundation
import HLS

/// What to download from a stream: which variant and which renditions.
///
/// The options mirror AVFoundation's download options (minimum bitrate, minimum presentation size,
/// prefers HDR, prefers multichannel) with the same meanings, and add maximums for a fast, small
/// download and explicit audio and subtitle choices (AVAggregateAssetDownloadTask's media
/// selections).
///
/// ```swift
/// var options = DownloadOptions()
/// options.maximumResolution = Resolution(width: 1280, height: 720)
/// options.audio = .languages(["en", "de"])
/// options.subtitles = .none
/// ```
public struct DownloadOptions: Sendable, Hashable, Codable {
    /// Take the lowest variant whose peak bitrate (`BANDWIDTH`) is at least this many bits per
    /// second; when none is that high, the highest. (AVAssetDownloadTaskMinimumRequiredMediaBitrateKey.)
    public var minimumBitrate: Int?
    /// Take the lowest variant at least this wide and this high; when none is, the highest.
    /// (AVAssetDownloadTaskMinimumRequiredPresentationSizeKey.)
    public var minimumResolution: Resolution?
    /// Take no variant whose peak bitrate exceeds this; when every variant does, the lowest.
    public var maximumBitrate: Int?
    /// Take no variant wider or higher than this; when every variant is, the smallest.
    public var maximumResolution: Resolution?
    /// Take an HDR (PQ or HLG) variant when the stream has one within the maximums (default
    /// true); when false, prefer SDR variants. The maximums are hard bounds: the preference
    /// never takes a variant above them. (AVAssetDownloadTaskPrefersHDRKey.)
    public var prefersHDR: Bool
    /// For each chosen audio language, take its multichannel rendition as well as its stereo one
    /// (default true); when false, only the stereo one. (AVAssetDownloadTaskPrefersMultichannelKey.)
    public var prefersMultichannel: Bool
    /// Which audio renditions to download.
    public var audio: RenditionChoice
    /// Which subtitle renditions to download.
    public var subtitles: RenditionChoice
    /// Languages in order of preference (BCP 47, e.g. `de-AT`), for ``RenditionChoice/automatic``.
    /// Nil means the user's: `$LANGUAGE` / `$LC_ALL` / `$LC_MESSAGES` / `$LANG`.
    public var preferredLanguages: [String]?
    /// The most bytes a second the download may take, over all its connections; nil: no limit
    /// of its own (a session's ``DownloadSession/Configuration/maximumBytesPerSecond`` may still
    /// apply: the lower wins). Kept with the asset, so that a resumed download keeps it. Not a
    /// choice of media, but the download's: the one transfer setting that belongs to it.
    public var maximumBytesPerSecond: Int?
    /// The part of the stream to download (see ``TimeRange``); nil: all of it. Kept with the
    /// asset: a resumed download, and a variant added later, take the same part.
    public var timeRange: TimeRange?
    /// How a live stream is recorded; set by the session once the stream turns out to be
    /// live (nil: a complete stream, or one not read yet). For a live stream, ``timeRange``
    /// may give only a duration: the seconds of media to record.
    public var live: LiveOptions?
    /// A W3C Clear Key licence server for the stream's DASH keys when its MPD names none
    /// (`dashif:Laurl`): asked with the download's headers, as a licence server the MPD names
    /// would be. Kept with the asset, so that a resumed download, a renewal and an added
    /// selection ask it too.
    public var licenseURL: String?

    /// Options with the given bounds and choices; each parameter sets the property of the same
    /// name. The defaults take the highest variant, preferring HDR and multichannel audio, with
    /// the audio and subtitles of the user's languages.
    public init(minimumBitrate: Int? = nil, minimumResolution: Resolution? = nil, maximumBitrate: Int? = nil,
                maximumResolution: Resolution? = nil, prefersHDR: Bool = true, prefersMultichannel: Bool = true,
                audio: RenditionChoice = .automatic, subtitles: RenditionChoice = .automatic,
                preferredLanguages: [String]? = nil, maximumBytesPerSecond: Int? = nil, timeRange: TimeRange? = nil,
                live: LiveOptions? = nil, licenseURL: String? = nil) {
        self.minimumBitrate = minimumBitrate
        self.minimumResolution = minimumResolution
        self.maximumBitrate = maximumBitrate
        self.maximumResolution = maximumResolution
        self.prefersHDR = prefersHDR
        self.prefersMultichannel = prefersMultichannel
        self.audio = audio
        self.subtitles = subtitles
        self.preferredLanguages = preferredLanguages
        self.maximumBytesPerSecond = maximumBytesPerSecond
        self.timeRange = timeRange
        self.live = live
        self.licenseURL = licenseURL
    }

    /// Checks that every bound is one a stream can have: bitrates and the byte rate from 1 to
    /// 10¹² a second, widths and heights from 1 to 100,000 pixels, each minimum at most its
    /// maximum, a time range as ``TimeRange/check()`` says.
    ///
    /// - Throws: ``CarryonError/Code/invalidValue`` naming the bound and its value.
    public func check() throws(CarryonError) {
        for (name, value) in [("the minimum bitrate", minimumBitrate), ("the maximum bitrate", maximumBitrate),
                              ("the byte rate limit", maximumBytesPerSecond)] {
            if let value, !(1...1_000_000_000_000).contains(value) {
                throw CarryonError(.invalidValue, "\(name) \(value) is not between 1 and 1000000000000 a second")
            }
        }
        for (name, value) in [("the minimum resolution", minimumResolution), ("the maximum resolution", maximumResolution)] {
            if let value, !(1...100_000).contains(value.width) || !(1...100_000).contains(value.height) {
                throw CarryonError(.invalidValue, "\(name) \(value) is not between 1x1 and 100000x100000")
            }
        }
        if let minimumBitrate, let maximumBitrate, minimumBitrate > maximumBitrate {
            throw CarryonError(.invalidValue, "the minimum bitrate \(minimumBitrate) is above the maximum \(maximumBitrate)")
        }
        try timeRange?.check()
        if let licenseURL {
            let scheme = licenseURL.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() }
            guard scheme == "http" || scheme == "https", URL(string: licenseURL)?.host?.isEmpty == false else {
                throw CarryonError(.invalidValue, "the licence URL \"\(licenseURL)\" is not an http(s) URL")
            }
        }
    }

    /// A choice of renditions of one type (audio or subtitles).
    public enum RenditionChoice: Sendable, Hashable, Codable {
        /// The renditions for the preferred languages; when none matches, the group's default
        /// (audio), or none (subtitles).
        case automatic
        /// Every rendition in the variant's group.
        case all
        /// No rendition (for audio: only audio carried in the variant itself).
        case none
        /// Renditions whose `LANGUAGE` matches one of these (a tag matches its more specific
        /// forms: `en` matches `en-GB`) or whose `NAME` is one of these (ignoring case).
        case languages([String])

        /// Reads `all`, `none`, or a comma-separated list (`en,de` or `"English,Deutsch"`), as
        /// the command line gives it.
        public init(parsing text: String) {
            switch text.lowercased() {
            case "all": self = .all
            case "none": self = .none
            case "auto", "automatic", "default": self = .automatic
            default:
                self = .languages(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            }
        }
    }
}
