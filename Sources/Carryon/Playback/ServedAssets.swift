import Foundation

/// What a playback source remembers of the completed assets it serves, so that a box serving
/// hundreds of players does not read the index for every segment: a completed asset's record,
/// its renditions and, as they are asked for, the rows of its files; and when each asset was
/// last recorded as played.
///
/// A completed asset changes only through something that rewrites its bundle's `manifest.json`
/// (media selections added, a repair's end, a new download over it) or removes its bundle, so
/// what is remembered holds while that file is the one it was read with — its size and change
/// time, one `stat(2)` a request — and for at most ``lifetime`` whatever happens. Assets not
/// completed (downloading, suspended, recording) are read from the index every time.
final class ServedAssets: Sendable {
    /// What is remembered of one completed asset.
    struct Entry: Sendable {
        var asset: AssetRecord
        var renditions: [RenditionRecord]
        /// The rows of each file asked for so far, by its path in the bundle.
        var files: [String: [ResourceRecord]] = [:]
        /// The `manifest.json` it was read with, and when.
        var manifest: ManifestStamp
        var readAt: ContinuousClock.Instant
    }

    /// A `manifest.json` as `stat(2)` sees it.
    struct ManifestStamp: Sendable, Equatable {
        var size: Int
        var changed: timespec

        static func == (a: Self, b: Self) -> Bool {
            a.size == b.size && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
        }

        /// The stamp of the file at `path`, or nil when it is not there.
        static func of(_ path: String) -> ManifestStamp? {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            return ManifestStamp(size: Int(info.st_size), changed: info.st_ctim)
        }
    }

    /// How long an entry is trusted at most, its manifest unchanged.
    let lifetime: Duration
    /// How often an asset being played is recorded as played (its `lastPlayedAt`, which a
    /// purge orders by): not at every request.
    let playedInterval: Duration
    private let entries = Locked<[String: Entry]>([:])
    private let played = Locked<[String: ContinuousClock.Instant]>([:])
    /// Bounds what is remembered: past this many assets, the oldest entries go.
    private static let maximumEntries = 1_024
    /// A file with more rows than this (a plan's one shared file of a million ranges) is read
    /// from the index each time rather than kept.
    private static let maximumRowsPerFile = 4_096

    init(lifetime: Duration = .seconds(30), playedInterval: Duration = .seconds(60)) {
        self.lifetime = lifetime
        self.playedInterval = playedInterval
    }

    /// The entry of asset `id` while it holds: its manifest at `manifestPath` unchanged and
    /// younger than ``lifetime``.
    func entry(_ id: String, manifestPath: String, now: ContinuousClock.Instant) -> Entry? {
        guard let entry = entries.withLock({ $0[id] }) else { return nil }
        guard now - entry.readAt < lifetime, ManifestStamp.of(manifestPath) == entry.manifest else {
            entries.withLock { _ = $0.removeValue(forKey: id) }
            return nil
        }
        return entry
    }

    /// The entry of asset `id` as remembered, unchecked (for what a request's log line adds).
    func remembered(_ id: String) -> Entry? {
        entries.withLock { $0[id] }
    }

    /// Remembers completed asset `asset` with its renditions, read with the manifest at
    /// `manifestPath` as it is now (stamped before the index was read: a change after it is seen).
    func remember(_ asset: AssetRecord, renditions: [RenditionRecord], manifest: ManifestStamp, at now: ContinuousClock.Instant) {
        guard asset.state == .completed else { return }
        entries.withLock { entries in
            if entries.count >= Self.maximumEntries, entries[asset.id] == nil,
               let oldest = entries.min(by: { $0.value.readAt < $1.value.readAt })?.key {
                entries[oldest] = nil
            }
            entries[asset.id] = Entry(asset: asset, renditions: renditions, manifest: manifest, readAt: now)
        }
    }

    /// Remembers the rows of file `path` of asset `id`, if the asset is remembered.
    func remember(_ rows: [ResourceRecord], of path: String, for id: String) {
        guard rows.count <= Self.maximumRowsPerFile, rows.allSatisfy({ $0.state == .done }) else { return }
        entries.withLock { $0[id]?.files[path] = rows }
    }

    /// Whether asset `id`'s play should be recorded now: the first request, or
    /// ``playedInterval`` after the last recorded.
    func shouldRecordPlay(of id: String, now: ContinuousClock.Instant) -> Bool {
        played.withLock { played in
            if let last = played[id], now - last < playedInterval { return false }
            if played.count >= Self.maximumEntries { played = played.filter { now - $0.value < playedInterval } }
            played[id] = now
            return true
        }
    }
}
