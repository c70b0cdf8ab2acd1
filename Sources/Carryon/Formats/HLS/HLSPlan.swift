import Foundation
import HLS

/// Building a ``DownloadPlan`` from HLS media playlists already fetched: pure, so it is tested
/// without I/O.
extension DownloadPlan {
    /// One rendition's input to the plan: the rendition, and its media playlist as fetched and
    /// resolved.
    struct Input: Sendable {
        var rendition: Rendition
        /// The media playlist as fetched, from which its local copy is written.
        var fetched: [UInt8]
        var media: MediaPlaylist

        init(type: String, name: String, language: String?, channels: String?, isMain: Bool, uri: String,
             fetched: [UInt8], media: MediaPlaylist, estimatedBitrate: Int) {
            rendition = Rendition(type: type, name: name, language: language, channels: channels, isMain: isMain, uri: uri,
                                  estimatedBitrate: estimatedBitrate)
            self.fetched = fetched
            self.media = media
        }
    }

    /// A rendition as the plan describes it, before its playlist is read.
    struct Rendition: Sendable {
        var type: String
        var name: String
        var language: String?
        var channels: String?
        var isMain: Bool
        var uri: String
        /// Bits per second to estimate sizes with, when lengths are unknown.
        var estimatedBitrate: Int
    }

    /// Estimated bitrate of an audio rendition, which HLS does not state: 64 kbit/s per channel.
    static func audioBitrate(channels: String?) -> Int {
        let count = channels.flatMap { $0.split(separator: "/").first }.flatMap { Int($0) } ?? 2
        return 64_000 * max(1, count)
    }

    /// Estimated bitrate of a subtitle rendition.
    static let subtitleBitrate = 4_000

    /// Plans an asset.
    ///
    /// - Parameters:
    ///   - assetID: The asset's id.
    ///   - inputs: The renditions in selection order (main ones first), their media playlists
    ///     fetched and resolved.
    ///   - main: The multivariant playlist as parsed and resolved, or nil when the asset is a
    ///     single media playlist.
    ///   - selection: What was chosen from `main`.
    ///   - range: The part of the stream to plan (see ``TimeRange``); nil: all of it.
    static func make(assetID: String, inputs: [Input], main: (playlist: Playlist, resolved: MultivariantPlaylist, fetched: [UInt8])?,
                     selection: MediaSelection?, range: TimeRange? = nil) throws(CarryonError) -> DownloadPlan {
        var builder = HLSPlanBuilder(assetID: assetID, range: range)
        for input in inputs {
            builder.begin(input.rendition, expectedSegments: input.media.segments.count)
            for segment in input.media.segments { builder.add(segment) }
            try builder.end(media: input.media, fetched: input.fetched)
        }
        return try builder.finish(main: main, selection: selection)
    }

    /// A group of renditions: a `GROUP-ID` within a `TYPE`.
    struct RenditionGroup: Hashable {
        var type: MediaType
        var id: String
    }

    /// `video`, `audio-en`, `audio-en-2`, `subtitles-de`, `media`: a readable folder name of
    /// letters, digits and dashes only, for a rendition of `type` (`VIDEO`, `AUDIO`…) labelled
    /// by its language or name.
    static func uniqueKey(type: String, label: String, taken: inout [String]) -> String {
        var base: String
        switch type {
        case "VIDEO": base = "video"
        case "MEDIA": base = "media"
        case "AUDIO": base = "audio"
        case "SUBTITLES": base = "subtitles"
        default: base = "rendition"
        }
        if type == "AUDIO" || type == "SUBTITLES" {
            let label = slug(label)
            if !label.isEmpty { base += "-" + label }
        }
        var key = base
        var counter = 2
        while taken.contains(key) {
            key = "\(base)-\(counter)"
            counter += 1
        }
        taken.append(key)
        return key
    }

    static func slug(_ text: String) -> String {
        var result = ""
        for scalar in text.lowercased().unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                result.unicodeScalars.append(scalar)
            } else if !result.isEmpty, result.last != "-" {
                result += "-"
            }
            if result.count >= 24 { break }
        }
        while result.hasSuffix("-") { result.removeLast() }
        return result
    }

    /// A path from one bundle-relative file's folder to another bundle-relative file.
    static func relativePath(_ target: String, fromFolder folder: String) -> String {
        let prefix = folder + "/"
        return target.hasPrefix(prefix) ? String(target.dropFirst(prefix.count)) : "../" + target
    }
}
