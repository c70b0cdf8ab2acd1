import Foundation

/// What a listing shows of an asset that its row does not hold by itself — its progress, its
/// bundle's bytes on disk, which renditions are complete, its playback — kept in the asset's
/// row (`figures`), so that a library of 10,000 assets lists in one pass over the index instead
/// of reading every asset's resources, walking its bundle and parsing its access log.
///
/// Figures are computed where they are read (``OfflineLibrary/snapshot(of:live:ownership:)``)
/// and written back, tagged with the asset's count of changes they were computed at. Every
/// change to an asset's plan, resources or bundle counts one more (the index counts a plan, a
/// claim, a run's end, a resource done outside a run, and ``BundleWriter`` each file it writes
/// or removes), always *after* the change is on disk: figures tagged with an older count are
/// computed again on the next read. Figures are never written while a live process holds the
/// asset: its files grow between counts (partial files), so the count says nothing of them
/// until the run ends or its claim is lost. The playback summary is tagged with the size of
/// the access log it was read from, which playback servers append to without counting.
struct AssetFigures: Codable, Sendable {
    /// Progress as the index's resources say it (no speed: nothing is running).
    var progress: DownloadProgress
    /// Bytes on disk by rendition folder, and the bundle's own files under their names.
    var bytesByRendition: [String: Int]
    var cache: AssetCache
    var playback: PlaybackSummary?
    /// The size of the access log ``playback`` was read from (nil: there was none).
    var accessLogBytes: Int?

    var bytesOnDisk: Int { bytesByRendition.values.reduce(0, +) }

    /// The figures as stored: JSON.
    func encoded() -> String? {
        let encoder = JSONEncoder()
        // The same figures, the same text: a listing that keeps them again changes nothing.
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// What the index keeps of the figures for asset `id`, computed at its count of changes
    /// `changes`.
    func update(of id: String, at changes: Int64) -> FiguresUpdate? {
        encoded().map { FiguresUpdate(assetID: id, changes: changes, figures: $0, bytesOnDisk: bytesOnDisk, fraction: progress.fraction) }
    }

    /// Figures as ``encoded()`` wrote them; nil when they cannot be read (then computed again).
    static func decoded(_ text: String) -> AssetFigures? {
        try? JSONDecoder().decode(AssetFigures.self, from: Data(text.utf8))
    }
}
