import Foundation
import HLS

/// What the playback server answers for a path of a bundle: the text of a playlist, or a file
/// on disk with the bytes the request needs.
public enum PlaybackContent: Sendable, Equatable {
    /// A playlist, as the player should see it.
    case playlist(String)
    /// A content key (`keys/<id>`), from the key store.
    case key([UInt8])
    /// Bytes of a file: `path` holds at least the requested bytes of a resource `size` bytes
    /// long (a file of byte ranges still being assembled keeps its temporary name until whole).
    case file(path: String, size: Int)
}

/// Finds what a player asks for in a library's bundles, for the playback server — and, for an
/// asset still downloading, gets it: from disk if it is there, else fetched now through the
/// engine when this process downloads it (the download then does not fetch it again), or waited
/// for when another process does.
///
/// Paths are those of the bundle: `main.m3u8`, `<rendition>/index.m3u8` and the media files the
/// local playlists name. Nothing else of the bundle (the origin's playlists, the manifest, files
/// in progress) is served, and no path can leave it.
///
/// An asset that is neither complete nor downloading plays what is on disk: each media playlist
/// is cut before its first missing segment and ends there, and a manifest its format writes beside
/// them (``LocalManifest``, DASH's `main.mpd`) is cut likewise by the format.
public struct PlaybackSource: Sendable {
    /// The library whose bundles are served.
    public let library: OfflineLibrary
    /// The session that downloads in this process, if any.
    public let session: DownloadSession?
    /// How long a request waits for a resource that another process is downloading.
    public var waitLimit: Duration
    /// How often the index is read while waiting for another process.
    public var pollInterval: Duration
    /// The current time, for key lifetimes.
    public var now: @Sendable () -> Date
    /// The assets this source is playing, each leased so that no purge removes it meanwhile.
    public let leases: PlaybackLeases
    /// The formats whose manifests it serves: the session's, else Carryon's.
    var formats: [any StreamFormat]
    /// What it remembers of the completed assets it serves, shared by its copies.
    let served = ServedAssets()

    /// Creates a source that serves the bundles of `library`.
    ///
    /// - Parameters:
    ///   - library: The library to serve.
    ///   - session: The session that downloads in this process, if any: a missing resource of an
    ///     asset it is transferring is fetched at once through it.
    ///   - waitLimit: How long a request waits for a resource another process is downloading
    ///     before it fails with ``CarryonError/Code/notFound``; 120 seconds by default.
    ///   - pollInterval: How often the index is read while waiting; 200 milliseconds by default.
    ///   - now: The current time, for key lifetimes; by default the system clock.
    ///   - leases: Where the assets it plays are leased; by default leases of its own, ended
    ///     when no copy of this source is left (a server ends them when it stops).
    public init(library: OfflineLibrary, session: DownloadSession? = nil, waitLimit: Duration = .seconds(120),
                pollInterval: Duration = .milliseconds(200), now: @escaping @Sendable () -> Date = { Date() },
                leases: PlaybackLeases? = nil) {
        self.leases = leases ?? PlaybackLeases(library: library)
        self.formats = session?.configuration.formats ?? StreamFormats.standard
        self.library = library
        self.session = session
        self.waitLimit = waitLimit
        self.pollInterval = pollInterval
        self.now = now
    }

    /// The content for `path` of asset `assetID`, for a request of `range` (nil for the whole).
    ///
    /// - Throws: ``CarryonError/Code/unknownAsset`` for an asset the library does not have,
    ///   ``CarryonError/Code/notFound`` for a path that is not part of the asset or not
    ///   downloaded, or the error of a fetch made for it.
    ///
    /// A key (`keys/<id>`) is given only while it is available for a playback session that
    /// began at `sessionStartedAt` (see ``ContentKeyInfo/isAvailable(at:sessionStartedAt:)``);
    /// otherwise ``CarryonError/Code/keys`` says why. A manifest a format writes beside
    /// `main.m3u8` (``LocalManifest``) names `licenseURL`, when given, as its licence server:
    /// where the caller answers licence requests with ``clearKeyLicense(assetID:request:sessionStartedAt:)``.
    public func content(assetID: String, path: String, range: ClosedRange<Int>? = nil,
                        sessionStartedAt: Date? = nil, licenseURL: String? = nil) async throws(CarryonError) -> PlaybackContent {
        guard let path = Self.bundlePath(path) else {
            throw CarryonError(.notFound, "\(path) is not a path inside a bundle")
        }
        if path.hasPrefix("keys/") {
            let keyID = String(path.dropFirst(5))
            guard !keyID.isEmpty, !keyID.contains("/") else { throw CarryonError(.notFound, "\(path) is not a key") }
            return .key(try await KeyStore(library: library)
                .key(keyID, of: assetID, now: now(), sessionStartedAt: sessionStartedAt))
        }
        let clock = ContinuousClock.now
        let bundle = library.bundlePath(for: assetID)
        let manifestPath = bundle + "/manifest.json"
        let cached = served.entry(assetID, manifestPath: manifestPath, now: clock)
        // Stamped before the index is read: a manifest rewritten after it is seen next time.
        let stamp = cached == nil ? ServedAssets.ManifestStamp.of(manifestPath) : nil
        var read = cached?.asset
        if read == nil { read = try await library.index.asset(assetID) }
        guard var asset = read else {
            throw CarryonError(.unknownAsset, "no asset has the id \(assetID)")
        }
        await leases.hold(assetID)
        if !asset.planned {
            // A download that has just begun is reading the playlists: wait for them.
            asset = try await waitUntilPlanned(assetID) ?? asset
        }
        if path == LocalManifest.main.path {
            guard asset.planned else { throw CarryonError(.notFound, "\(assetID) has no playlists yet") }
            return .playlist(try Self.readText(bundle + "/" + path))
        }
        // A manifest the asset's format writes beside main.m3u8 (DASH's main.mpd), its own way.
        let format = formats.first { $0.name == asset.format }
        if let manifest = format?.localManifests.first(where: { $0.path == path }), let format {
            guard asset.planned else { throw CarryonError(.notFound, "\(assetID) has no \(path) yet") }
            var text = try Self.readText(bundle + "/" + path)
            if asset.state != .completed, await !isDownloading(assetID) {
                let done = try await library.index.doneResources(of: assetID)
                text = try format.cut(text, of: manifest, onDisk: Set(done.map { Self.resourceKey($0.fileName, offset: $0.rangeOffset) }))
            } else if asset.state != .completed, asset.options.live != nil {
                // A recording in progress: live, growing as the recording does.
                text = format.growing(text, of: manifest, now: now())
            }
            return .playlist(licenseURL.map { format.served(text, of: manifest, licenseURL: $0) } ?? text)
        }
        if let other = formats.first(where: { $0.localManifests.contains { $0.path == path } }) {
            // Until its manifest is read, an asset's format is not known.
            guard asset.planned else { throw CarryonError(.notFound, "\(assetID) has no manifests yet: its stream has not been read") }
            throw CarryonError(.notFound, "\(assetID) has no \(path) (it is \(format?.displayName ?? asset.format), not \(other.displayName))")
        }
        var renditions = cached?.renditions ?? []
        if cached == nil { renditions = try await library.index.renditions(of: assetID) }
        if cached == nil, let stamp { served.remember(asset, renditions: renditions, manifest: stamp, at: clock) }
        if let rendition = renditions.first(where: { "\($0.key)/index.m3u8" == path }) {
            let text = try Self.readText(bundle + "/" + path)
            if asset.state == .completed { return .playlist(text) }
            if await isDownloading(assetID) { return .playlist(text) }
            return .playlist(try await onDisk(text, rendition: rendition, asset: assetID))
        }
        return try await file(path, of: assetID, range: range, known: cached?.files[path])
    }

    /// The W3C Clear Key licence for a player's licence `request` (`{"kids": […]}`) for asset
    /// `assetID`: each key from the key store, given only while it is available for a playback
    /// session that began at `sessionStartedAt`, as keys are.
    ///
    /// - Throws: ``CarryonError/Code/keys`` for a request that is not a licence request, or a
    ///   key that is unknown, invalidated or expired (naming it).
    public func clearKeyLicense(assetID: String, request: [UInt8], sessionStartedAt: Date? = nil) async throws(CarryonError) -> [UInt8] {
        let store = KeyStore(library: library)
        var keys: [(id: [UInt8], key: [UInt8])] = []
        for keyID in try ClearKeyLicense.keyIDs(inRequest: request) {
            keys.append((keyID, try await store.key(ClearKeyLicense.storeID(keyID), of: assetID, now: now(), sessionStartedAt: sessionStartedAt)))
        }
        return ClearKeyLicense.response(keys)
    }

    /// Whether the asset is being downloaded now, by this process or another (a live process
    /// holds its claim in the index).
    public func isDownloading(_ assetID: String) async -> Bool {
        if let session, await session.isTransferring(assetID) { return true }
        guard let ownership = try? await library.index.ownership(of: assetID, library.ownershipContext()),
              case .running? = ownership.holder else { return false }
        return true
    }

    /// Waits while the asset is downloading until its playlists are read; nil if it stops
    /// downloading first.
    private func waitUntilPlanned(_ assetID: String) async throws(CarryonError) -> AssetRecord? {
        var planned: AssetRecord?
        let arrived = try await Self.awaitArrival(of: "the playlists of \(assetID)", limit: waitLimit, poll: pollInterval,
                                                  downloading: { await self.isDownloading(assetID) },
                                                  arrived: { () async throws(CarryonError) -> Bool in
                                                      planned = try await self.library.index.asset(assetID)
                                                      return planned?.planned == true
                                                  })
        return arrived ? planned : nil
    }

    /// Polls until `arrived` says yes (true), or the download stops without it (false); an
    /// error after `limit`. Whether it is downloading is read *before* whether it arrived, every
    /// time: a download that brings the last of it and ends between the two reads is seen to
    /// have brought it, never taken for one that stopped short.
    static func awaitArrival(of what: String, limit: Duration, poll: Duration,
                             downloading: () async -> Bool,
                             arrived: () async throws(CarryonError) -> Bool) async throws(CarryonError) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while true {
            let running = await downloading()
            if try await arrived() { return true }
            guard running else { return false }
            guard clock.now < deadline else {
                throw CarryonError(.notFound, "\(what) did not arrive within \(limit) from the download running in another process")
            }
            do { try await Task.sleep(for: poll) } catch { throw CarryonError(.cancelled, "stopped waiting for \(what)") }
        }
    }

    /// Records a request a player made: a line in the asset's access log (or error log, for
    /// a failure), with the variant's bandwidth as the indicated bitrate, and the time it was
    /// played (once a minute while it plays), which keeps a purge away from it.
    public func record(_ entry: AssetLogs.Entry, for assetID: String, failed: Bool) async {
        var entry = entry
        var known = served.remembered(assetID)?.asset
        if known == nil { known = (try? await library.index.asset(assetID)) ?? nil }
        guard let asset = known else { return }
        entry.indicatedBitrate = entry.indicatedBitrate ?? asset.selection?.variant.bandwidth
        let logs = AssetLogs(library: library)
        if failed { logs.error(entry, for: assetID) } else {
            logs.access(entry, for: assetID)
            // Once a minute while it plays, not at every segment: a write to the index each.
            if served.shouldRecordPlay(of: assetID, now: .now) { try? await StorageManager(library: library).markPlayed(assetID) }
        }
    }

    // MARK: Files

    /// `known`: the file's rows as remembered (see ``ServedAssets``), read from the index when nil.
    private func file(_ path: String, of assetID: String, range: ClosedRange<Int>?, known: [ResourceRecord]?) async throws(CarryonError) -> PlaybackContent {
        let bundle = library.bundlePath(for: assetID)
        var rows: [ResourceRecord]
        if let known { rows = known } else {
            rows = try await resources(path, of: assetID)
            served.remember(rows, of: path, for: assetID)
        }
        guard !rows.isEmpty else { throw CarryonError(.notFound, "\(path) is not a file of \(assetID)") }
        let ranges = rows.contains { $0.rangeOffset != nil }
        let size = ranges ? rows.map { ($0.rangeOffset ?? 0) + ($0.rangeLength ?? 0) }.max() ?? 0 : nil
        // The rows whose bytes the request needs.
        func needed(_ rows: [ResourceRecord]) -> [ResourceRecord] {
            guard ranges, let range else { return rows }
            return rows.filter { row in
                guard let bytes = row.byteRange else { return true }
                return bytes.overlaps(range)
            }
        }
        var missing = needed(rows).filter { $0.state != .done }
        if !missing.isEmpty {
            if let session, await session.isTransferring(assetID) {
                try await session.fetchNow(assetID, resources: missing.compactMap(\.id))
            } else {
                let ids = missing.compactMap(\.id)
                let arrived = try await Self.awaitArrival(of: "\(path) of \(assetID)", limit: waitLimit, poll: pollInterval,
                                                          downloading: { await self.isDownloading(assetID) },
                                                          arrived: { () async throws(CarryonError) -> Bool in
                                                              try await self.library.index.pendingCount(of: ids) == 0
                                                          })
                guard arrived else {
                    throw CarryonError(.notFound, "\(path) of \(assetID) is not downloaded yet, and its download is not running")
                }
            }
            rows = try await resources(path, of: assetID)
            missing = needed(rows).filter { $0.state != .done }
            guard missing.isEmpty else { throw CarryonError(.notFound, "\(path) of \(assetID) is still not downloaded") }
        }
        let final = bundle + "/" + path
        if let bytes = BundleFiles.size(atPath: final) { return .file(path: final, size: size ?? bytes) }
        let part = final + ".part"
        if let size, BundleFiles.size(atPath: part) != nil { return .file(path: part, size: size) }
        throw CarryonError(.notFound, "\(path) of \(assetID) is recorded as downloaded but is not on disk")
    }

    private func resources(_ path: String, of assetID: String) async throws(CarryonError) -> [ResourceRecord] {
        try await library.index.resources(inFile: path, of: assetID)
    }

    // MARK: Playlists

    /// A media playlist cut before its first segment not on disk, and ended there.
    private func onDisk(_ text: String, rendition: RenditionRecord, asset assetID: String) async throws(CarryonError) -> String {
        let done = try await library.index.doneResources(of: assetID)
        let onDisk = Set(done.map { Self.resourceKey($0.fileName, offset: $0.rangeOffset) })
        return try Self.cut(text, folder: rendition.key, onDisk: onDisk)
    }

    /// `text` up to the last segment before the first one whose file (or byte range) is not
    /// in `onDisk`, with `EXT-X-ENDLIST`; unchanged when every segment is there.
    static func cut(_ text: String, folder: String, onDisk: Set<String>) throws(CarryonError) -> String {
        let base = "carryon-bundle:///\(folder)/index.m3u8"
        var local: Playlist
        let playlist: MediaPlaylist
        do {
            let parsed = try Playlist.parse(text)
            local = parsed.playlist
            playlist = try MediaPlaylist(local, url: base, warnings: parsed.warnings)
        } catch {
            throw CarryonError(.playlist, "the local playlist \(folder)/index.m3u8 cannot be read: \(error)", cause: error)
        }
        func present(_ uri: String, _ range: ResolvedByteRange?) -> Bool {
            guard uri.hasPrefix("carryon-bundle:///") else { return false }
            return onDisk.contains(resourceKey(String(uri.dropFirst("carryon-bundle:///".count)), offset: range?.offset))
        }
        guard let first = playlist.segments.firstIndex(where: { segment in
            !segment.isGap && (!present(segment.uri, segment.byteRange)
                || segment.initSection.map { !present($0.uri, $0.byteRange) } == true)
        }) else { return text }
        // Up to the last segment on disk (its URI line is line `line`, counted from 1); with none
        // on disk, the playlist's own tags before any segment's.
        local.lines = first > 0 ? Array(local.lines.prefix(playlist.segments[first - 1].line))
            : Array(local.lines.prefix { line in
                switch line.content {
                case .blank, .comment: true
                case .tag(let tag): PlaylistWindow.isPlaylistTag(tag)
                case .uri: false
                }
            })
        local.lines.append(Line(tag: .endList))
        local.endsWithNewline = true
        do { return try local.write() } catch {
            throw CarryonError(.playlist, "the local playlist \(folder)/index.m3u8 cannot be cut: \(error)", cause: error)
        }
    }

    static func resourceKey(_ fileName: String, offset: Int?) -> String {
        ResourceRecord.onDiskKey(fileName, offset: offset)
    }

    // MARK: Paths

    /// `path` as a relative path inside a bundle, or nil when it is not one the server serves:
    /// percent-decoded, no empty, `.` or `..` component, no component starting with a dot, no
    /// NUL, not the origin's copies, the manifest, or a file in progress.
    static func bundlePath(_ path: String) -> String? {
        // Most paths have nothing to decode: Foundation's decoding is not asked then.
        guard let decoded = path.utf8.contains(UInt8(ascii: "%")) ? path.removingPercentEncoding : path,
              !decoded.contains("\0") else { return nil }
        let components = decoded.split(separator: "/", omittingEmptySubsequences: false)
        guard !components.isEmpty, !components.contains(where: { $0.isEmpty || $0.hasPrefix(".") }) else { return nil }
        let joined = components.joined(separator: "/")
        guard components.first != "origin", joined != BundleManifest.fileName, !joined.hasSuffix(".part"), !joined.hasSuffix(".tmp") else { return nil }
        return joined
    }

    static func readText(_ path: String) throws(CarryonError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CarryonError(.notFound, "\(path) is missing from the bundle")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
