import DASH
import Foundation
import HLS

/// Checks the manifests Carryon wrote into an asset's bundle, which players read before any
/// media: `main.m3u8`, each rendition's playlist, the format's own (`main.mpd`) and
/// `manifest.json`. Written by Carryon, strictly, they must read strictly; each playlist and
/// the MPD must name only files in the bundle, each rendition's playlist every file of its
/// rendition and the MPD every file of the download (one cut short names fewer). A damaged manifest is named with what is wrong; nothing is
/// written (mending is ``DownloadSession/beginRepair(_:damage:manifests:)``'s).
///
/// A recording's playlists grow as it records, and name a segment the window had moved past as a
/// gap, not its file: until it is finished only the reading and the names are checked, not that
/// every file is named. `main.m3u8` names every rendition's playlist, a recording's too.
struct ManifestCheck {
    let asset: AssetRecord
    let bundle: URL
    /// The asset's renditions, whose playlists are `<key>/index.m3u8`.
    let renditions: [RenditionRecord]
    /// The files of each rendition's resources, done or not: a plan's playlists name them all.
    private let filesByRendition: [String: Set<String>]
    /// Every file some resource is planned into (named by the playlists before it is on disk).
    private let planned: Set<String>

    init(asset: AssetRecord, bundle: URL, renditions: [RenditionRecord], resources: [ResourceRecord]) {
        self.asset = asset
        self.bundle = bundle
        self.renditions = renditions
        filesByRendition = Dictionary(grouping: resources, by: \.renditionKey).mapValues { Set($0.map(\.fileName)) }
        planned = Set(resources.map(\.fileName))
    }

    /// Every damaged manifest of the asset, `main.m3u8` first; none when it is not checked
    /// (``isChecked``).
    func damage() -> [ManifestDamage] {
        guard isChecked else { return [] }
        var found: [ManifestDamage] = []
        let (playlists, aliases) = mainPlaylists
        if let problem = checkPlaylist(LocalManifest.main.path, names: playlists, aliases: aliases, of: ("the bundle's", "rendition playlists")) {
            found.append(ManifestDamage(file: LocalManifest.main.path, message: problem))
        }
        for rendition in renditions.sorted(by: { $0.position < $1.position }) {
            let path = "\(rendition.key)/\(LocalManifest.renditionPlaylistName)"
            let expected = namesEveryFile ? filesByRendition[rendition.key] ?? [] : []
            if let problem = checkPlaylist(path, names: expected) { found.append(ManifestDamage(file: path, message: problem)) }
        }
        for manifest in LocalManifest.manifests(ofFormat: asset.format) where manifest != .main {
            if let problem = checkOwn(manifest) { found.append(ManifestDamage(file: manifest.path, message: problem)) }
        }
        if let problem = checkBundleManifest() { found.append(ManifestDamage(file: BundleManifest.fileName, message: problem)) }
        return found
    }

    /// The rendition playlists `main.m3u8` must name (a recording's too), and the playlists
    /// that stand for one of them. Each playlist once: two renditions of one URI (an audio-only
    /// variant that is also an audio rendition) are one playlist, named by the first one's
    /// folder, the other's standing for it. A bundle of another format than HLS is not held to
    /// its subtitles: a DASH bundle's names only those HLS players read (WebVTT), which the
    /// index does not record.
    private var mainPlaylists: (names: Set<String>, aliases: [String: String]) {
        var names: Set<String> = []
        var aliases: [String: String] = [:]
        var byURI: [String: String] = [:]
        for rendition in renditions.sorted(by: { $0.position < $1.position }) {
            let path = "\(rendition.key)/\(LocalManifest.renditionPlaylistName)"
            if let first = byURI[rendition.uri] {
                aliases[path] = first
                continue
            }
            byURI[rendition.uri] = path
            if asset.format == HLSFormat.formatName || rendition.type != .subtitles { names.insert(path) }
        }
        return (names, aliases)
    }

    /// Whether each playlist (and the MPD) must name every file of what it plays: not a
    /// recording's before it is finished (a round's rows may come before its lines).
    private var namesEveryFile: Bool { asset.options.live == nil || asset.state == .completed }

    /// Whether ``damage()`` checks anything: not before the asset's playlists were first read,
    /// nor while it downloads or records (a run writes its playlists before its rows, and
    /// appends to a recording's).
    var isChecked: Bool { asset.planned && asset.state != .running && asset.state != .waiting }

    /// The bytes of the manifest at `path`, or what keeps them from being read.
    private func read(_ path: String) -> Result<[UInt8], Unreadable> {
        let url = bundle.appending(path: path, directoryHint: .notDirectory)
        guard let size = BundleFiles.size(of: url) else { return .failure(Unreadable(problem: "it is not in the bundle")) }
        // A playlist of a million segments is about 100 MB: far more is not one Carryon wrote.
        guard size <= Self.largestManifest else {
            return .failure(Unreadable(problem: "it is \(size) bytes, more than any manifest Carryon writes (\(Self.largestManifest))"))
        }
        guard let data = FileManager.default.contents(atPath: url.path) else { return .failure(Unreadable(problem: "it cannot be read")) }
        guard !data.isEmpty else { return .failure(Unreadable(problem: "it is empty")) }
        return .success(Array(data))
    }

    /// The most bytes a manifest is read to be checked.
    static let largestManifest = 1 << 30

    /// Why a manifest's bytes could not be had.
    private struct Unreadable: Error {
        let problem: String
    }

    /// What is wrong with the playlist at `path`: it does not read strictly, names a file that is
    /// not in the bundle, or does not name every one of `expected` (whose they are and what, in
    /// words), a name in `aliases` counting as the one it stands for.
    private func checkPlaylist(_ path: String, names expected: Set<String>, aliases: [String: String] = [:],
                               of what: (whose: String, things: String) = ("its rendition's", "files")) -> String? {
        let bytes: [UInt8]
        switch read(path) {
        case .success(let read): bytes = read
        case .failure(let unreadable): return unreadable.problem
        }
        let folder = path.split(separator: "/").dropLast().joined(separator: "/")
        var named: Set<String> = []
        // Initialization sections: one none of whose segments was fetched (every one a gap)
        // keeps the origin's location, so a name that is not in the bundle is not damage.
        var sections: Set<String> = []
        var outside: String?
        do {
            // Line by line, keeping no line: a recording's playlist may have a million.
            _ = try Playlist.forEachLine(in: bytes, options: .strict) { line, _, _ in
                let uri: String
                switch line.content {
                case .uri(let text): uri = text
                case .tag(.map(let map)):
                    if let file = Self.file(map.uri, from: folder) { sections.insert(file) }
                    return
                case .tag(.media(let rendition)): guard let text = rendition.uri else { return }; uri = text
                default: return
                }
                if let file = Self.file(uri, from: folder) { named.insert(file) } else if outside == nil { outside = uri }
            }
        } catch {
            // One line: the report prints a line per damage (the error's description quotes the
            // line on a second).
            let quoted = error.lineText.map { " [\($0.prefix(80))]" } ?? ""
            return "it does not read as a playlist: \(error.line.map { "line \($0): " } ?? "")\(error.message)\(quoted)"
        }
        if let outside { return "it names \(outside.prefix(120)), which is not a file of the bundle" }
        // Every file named is in the bundle, or planned (not downloaded yet), or a gap's name.
        if let missing = named.sorted().first(where: { file in
            !FileManager.default.fileExists(atPath: bundle.appending(path: file, directoryHint: .notDirectory).path)
                && !planned.contains(file) && !Self.isGap(file)
        }) {
            return "it names \(missing), which is not in the bundle"
        }
        let unnamed = expected.subtracting(named).subtracting(sections).subtracting(named.compactMap { aliases[$0] })
        if let first = unnamed.sorted().first {
            return "it names \(expected.count - unnamed.count) of \(what.whose) \(expected.count) \(what.things) (\(first) is not named): it is cut short or was altered"
        }
        return nil
    }

    /// The format's own manifest `manifest` (one of ``LocalManifest/manifests(ofFormat:)``):
    /// what keeps it from reading. A manifest of a format Carryon does not know is checked for
    /// being there.
    private func checkOwn(_ manifest: LocalManifest) -> String? {
        let bytes: [UInt8]
        switch read(manifest.path) {
        case .success(let read): bytes = read
        case .failure(let unreadable): return unreadable.problem
        }
        guard manifest == .mpd else { return nil }
        let mpd: MPD
        do { mpd = try MPD.read(bytes) } catch { return "it does not read as an MPD: \(error)" }
        // The reader reads past an element left open where a file was cut: the end must be there.
        let end = Array("</MPD>".utf8)
        let trimmed = bytes.reversed().drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        guard trimmed.prefix(end.count).reversed().elementsEqual(end) else { return "it is cut short: it does not end with </MPD>" }
        if let foreign = Self.foreignAddressing(in: mpd) { return "it has \(foreign), which Carryon's local MPD does not: it was altered" }
        // What it names, as the playlists are checked: only the bundle's files, and (but for a
        // recording's) every file of the download.
        var named: Set<String> = []
        for name in Self.names(in: mpd) {
            guard let file = Self.file(name, from: "") else { return "it names \(name.prefix(120)), which is not a file of the bundle" }
            named.insert(file)
        }
        if let missing = named.sorted().first(where: { file in
            !FileManager.default.fileExists(atPath: bundle.appending(path: file, directoryHint: .notDirectory).path) && !planned.contains(file)
        }) {
            return "it names \(missing), which is not in the bundle"
        }
        if namesEveryFile, let first = planned.subtracting(named).sorted().first {
            return "it names \(planned.count - planned.subtracting(named).count) of the download's \(planned.count) files (\(first) is not named): it is cut short or was altered"
        }
        return nil
    }

    /// Addressing Carryon's local MPD never has (it lists every file in SegmentLists or names
    /// a single file by its Representation's BaseURL): a `Location`, an XLink, a SegmentTemplate
    /// or a SegmentBase, or a BaseURL above a Representation. Any of them could lead a player
    /// elsewhere while every name ``names(in:)`` reads is a bundle file.
    static func foreignAddressing(in mpd: MPD) -> String? {
        func kind(_ segments: SegmentInformation) -> String? {
            segments.template != nil ? "a SegmentTemplate" : segments.base != nil ? "a SegmentBase" : nil
        }
        if !mpd.locations.isEmpty { return "a Location (\(mpd.locations[0].prefix(120)))" }
        if let url = mpd.baseURLs.first?.url { return "a BaseURL above its Representations (\(url.prefix(120)))" }
        for period in mpd.periods {
            if period.xlink != nil { return "an XLink" }
            if let url = period.baseURLs.first?.url { return "a BaseURL above its Representations (\(url.prefix(120)))" }
            if let found = kind(period.segments) { return found }
            for set in period.adaptationSets {
                if set.xlink != nil { return "an XLink" }
                if let url = set.baseURLs.first?.url { return "a BaseURL above its Representations (\(url.prefix(120)))" }
                if let found = kind(set.segments) { return found }
                for representation in set.representations {
                    if let found = kind(representation.segments) { return found }
                }
            }
        }
        return nil
    }

    /// Every location an MPD names, as written: the BaseURLs at every level (a Representation's
    /// is its one file when it has no segment list) and each SegmentList's Initialization and
    /// SegmentURLs, as Carryon's local MPD addresses the bundle's files.
    static func names(in mpd: MPD) -> [String] {
        func listed(_ segments: SegmentInformation) -> [String] {
            guard let list = segments.list else { return [] }
            return [list.initialization?.sourceURL].compactMap { $0 } + (list.segmentURLs ?? []).compactMap(\.media)
        }
        var names = mpd.baseURLs.map(\.url)
        for period in mpd.periods {
            names += period.baseURLs.map(\.url) + listed(period.segments)
            for set in period.adaptationSets {
                names += set.baseURLs.map(\.url) + listed(set.segments)
                for representation in set.representations {
                    names += representation.baseURLs.map(\.url) + listed(representation.segments)
                }
            }
        }
        return names
    }

    /// What is wrong with `manifest.json`: it must be the bundle manifest of this asset.
    private func checkBundleManifest() -> String? {
        let bytes: [UInt8]
        switch read(BundleManifest.fileName) {
        case .success(let read): bytes = read
        case .failure(let unreadable): return unreadable.problem
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            return "it does not read as JSON"
        }
        guard object["format"] as? String == "carryon-bundle" else { return "it is not a Carryon bundle manifest (no \"format\": \"carryon-bundle\")" }
        guard let id = object["id"] as? String, id == asset.id else {
            return "it is the manifest of \((object["id"] as? String).map { "asset \($0.prefix(40))" } ?? "no asset"), not of \(asset.id)"
        }
        return nil
    }

    /// The bundle file a playlist in `folder` names by `uri`, or nil for one outside the bundle
    /// (a URL, an absolute path, a path that climbs out).
    static func file(_ uri: String, from folder: String) -> String? {
        guard !uri.contains("://"), !uri.hasPrefix("/"), !uri.contains("?"), !uri.contains("#") else { return nil }
        var parts = folder.isEmpty ? [] : folder.split(separator: "/").map(String.init)
        for part in uri.split(separator: "/", omittingEmptySubsequences: false) {
            switch part {
            case ".": continue
            case "..": guard !parts.isEmpty else { return nil }; parts.removeLast()
            case "": return nil
            default: parts.append(String(part))
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: "/")
    }

    /// Whether `file` is a gap's name in a local playlist (`gap-12.ts`), which has no file.
    static func isGap(_ file: String) -> Bool {
        file.split(separator: "/").last?.hasPrefix("gap-") == true
    }
}
