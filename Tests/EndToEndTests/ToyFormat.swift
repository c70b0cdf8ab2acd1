@testable import Carryon
import Foundation

/// A manifest format invented for the tests, to prove that a second format needs no change to
/// the engine: it only conforms to `StreamFormat`. Its manifest names one resource a line:
///
/// ```
/// #CARRYON-TOY
/// video 4.0 180p/segment0.ts
/// audio:en 4.01 audio_en/segment0.ts
/// ```
///
/// The track (`video`, or `audio:<language>`), the duration in seconds, and a URI relative to the
/// manifest. Every track is downloaded; the bundle's playlists are HLS, as for any format, and
/// beside them a toy manifest of its own, `main.toy`, of the bundle's files: the playback server
/// serves it, cut to what is on disk while the asset is incomplete.
struct ToyFormat: StreamFormat {
    var name: String { "toy" }
    var originExtension: String { "toy" }
    static let local = LocalManifest(path: "main.toy", format: "toy", contentType: "text/plain")
    var localManifests: [LocalManifest] { [Self.local] }

    /// The lines whose file is on disk.
    func cut(_ text: String, of manifest: LocalManifest, onDisk: Set<String>) throws(CarryonError) -> String {
        text.split(separator: "\n").filter { $0.hasPrefix("#") || onDisk.contains(String($0.split(separator: " ").last ?? "")) }
            .joined(separator: "\n") + "\n"
    }


    func recognizes(_ manifest: FetchedManifest) -> Bool {
        manifest.bytes.starts(with: Array("#CARRYON-TOY".utf8))
    }

    /// One line of the manifest.
    struct Entry {
        var track: String
        var duration: Double
        var uri: String
        var line: Int
    }

    func entries(of manifest: FetchedManifest) throws(CarryonError) -> [Entry] {
        let lines = String(decoding: manifest.bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        var entries: [Entry] = []
        for (index, line) in lines.enumerated().dropFirst() where !line.isEmpty {
            let fields = line.split(separator: " ")
            guard fields.count == 3, let duration = Double(fields[1]), duration >= 0,
                  let uri = URL(string: String(fields[2]), relativeTo: URL(string: manifest.url)) else {
                throw CarryonError(.playlist, "\(manifest.url), line \(index + 1): not `track duration uri`")
            }
            entries.append(Entry(track: String(fields[0]), duration: duration, uri: uri.absoluteString, line: index + 1))
        }
        guard !entries.isEmpty else { throw CarryonError(.playlist, "\(manifest.url) names no resource") }
        return entries
    }

    func plan(_ manifest: FetchedManifest, for request: PlanRequest, fetcher: PlaylistFetcher) async throws(CarryonError) -> PlannedStream {
        let entries = try entries(of: manifest)
        for entry in entries { try fetcher.rule.check(entry.uri, namedBy: "\(manifest.url), line \(entry.line)") }
        var tracks: [String] = []
        for entry in entries where !tracks.contains(entry.track) { tracks.append(entry.track) }
        var renditions: [DownloadPlan.PlannedRendition] = []
        var local = "#CARRYON-TOY\n"
        var resources: [ResourceRecord] = []
        for (position, track) in tracks.enumerated() {
            let language = track.hasPrefix("audio:") ? String(track.dropFirst(6)) : nil
            let key = language.map { "audio-\($0)" } ?? "video"
            var start = 0.0
            var playlist = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-PLAYLIST-TYPE:VOD\n"
            var body = ""
            var longest = 0.0
            for (number, entry) in entries.filter({ $0.track == track }).enumerated() {
                let file = "\(key)/\(String(format: "%05d", number + 1)).ts"
                resources.append(ResourceRecord(
                    id: nil, assetID: request.assetID, renditionKey: key, ordinal: resources.count, kind: .segment, uri: entry.uri,
                    rangeOffset: nil, rangeLength: nil, fileName: file, state: .pending, bytes: nil,
                    expectedBytes: Int(entry.duration * 250_000 / 8), exactSize: false, startTime: start, duration: entry.duration,
                    etag: nil, lastModified: nil))
                body += "#EXTINF:\(entry.duration),\n\(String(format: "%05d", number + 1)).ts\n"
                local += "\(entry.track) \(entry.duration) \(file)\n"
                start += entry.duration
                longest = max(longest, entry.duration)
            }
            playlist += "#EXT-X-TARGETDURATION:\(Int(longest.rounded(.up)))\n" + body + "#EXT-X-ENDLIST\n"
            let record = RenditionRecord(assetID: request.assetID, key: key, type: language == nil ? .video : .audio,
                                         name: language ?? "video", language: language, uri: manifest.url,
                                         isMain: position < 2, duration: start, position: position)
            renditions.append(.init(record: record, originText: manifest.bytes, localText: playlist))
        }
        var main = "#EXTM3U\n#EXT-X-VERSION:3\n"
        let audio = renditions.filter { $0.record.type == .audio }
        for (index, rendition) in audio.enumerated() {
            main += "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\",NAME=\"\(rendition.record.name)\",LANGUAGE=\"\(rendition.record.language ?? "und")\","
                + "DEFAULT=\(index == 0 ? "YES" : "NO"),AUTOSELECT=YES,URI=\"\(rendition.record.key)/index.m3u8\"\n"
        }
        main += "#EXT-X-STREAM-INF:BANDWIDTH=250000\(audio.isEmpty ? "" : ",AUDIO=\"audio\"")\nvideo/index.m3u8\n"
        var plan = DownloadPlan(renditions: renditions, resources: resources, localMain: main, originMain: nil,
                                duration: renditions.map(\.record.duration).max() ?? 0)
        plan.localManifests[Self.local.path] = local
        return PlannedStream(plan: plan, selection: nil, format: name)
    }

    /// One variant (the video track) with its audio tracks as renditions.
    func presentation(of manifest: FetchedManifest, fetcher: PlaylistFetcher) async throws(CarryonError) -> Presentation {
        let tracks = try entries(of: manifest).map(\.track)
        var languages: [String] = []
        for track in tracks where track.hasPrefix("audio:") && !languages.contains(String(track.dropFirst(6))) {
            languages.append(String(track.dropFirst(6)))
        }
        let audio = languages.map { Presentation.Track(kind: .audio, uri: manifest.url, groupID: "audio", name: $0, language: $0) }
        let variant = Presentation.Track(kind: .variant, uri: manifest.url, groups: .init(audio: audio.isEmpty ? nil : "audio"),
                                         bandwidth: 250_000)
        return Presentation(periods: [.init(variants: [variant], renditions: audio)])
    }

    func redacted(origin: [UInt8]) -> [UInt8] { origin }
}
