import Foundation
import GRDB

/// What a task looks like now, and the manifest written into its bundle.
extension DownloadSession {
    // MARK: Snapshots

    func snapshot(_ id: String) async throws(CarryonError) -> AssetSnapshot {
        let id = try await resolveID(id)
        // A running task's progress comes from its tracker; the resources are read only
        // without one, and the asset cache needs counts only.
        let tracker = trackers[id]
        guard let (asset, renditions, resources, counts) = try await read({ db
            -> (AssetRecord, [RenditionRecord], [ResourceRecord], [String: (done: Int, total: Int)])? in
            guard let asset = try AssetRecord.fetchOne(db, key: id) else { return nil }
            var counts: [String: (done: Int, total: Int)] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT renditionKey, SUM(state = 'done') AS done, COUNT(*) AS total FROM resource WHERE assetId = ? GROUP BY renditionKey
                """, arguments: [id]) {
                counts[row["renditionKey"]] = (row["done"], row["total"])
            }
            return (asset, try RenditionRecord.filter(Column("assetId") == id).fetchAll(db),
                    tracker == nil ? try ResourceRecord.filter(Column("assetId") == id).fetchAll(db) : [], counts)
        }) else {
            throw CarryonError(.unknownAsset, "no asset has the id \(id)")
        }
        let bundle = library.bundleURL(for: id)
        let progress = tracker?.snapshot(at: Self.now()) ?? ProgressTracker(resources: resources).snapshot(at: 0)
        let state = machines[id]?.state ?? asset.state
        let error = state == .failed ? (lastErrors[id]?.message ?? asset.errorMessage) : asset.errorMessage
        let usage = BundleFiles.usage(of: bundle).filter { !$0.key.hasPrefix(".") }
        return AssetSnapshot(
            id: id, name: asset.name, url: asset.url, state: state, error: error, progress: progress,
            selection: asset.selection, duration: asset.duration, bundlePath: bundle.path,
            playlist: asset.planned ? bundle.appendingPathComponent("main.m3u8").path : nil,
            bytesOnDisk: usage.values.reduce(0, +), bytesByRendition: usage, createdAt: asset.createdAt,
            completedAt: asset.completedAt, policy: StoragePolicy(expiresAt: asset.expiresAt, priority: asset.priority),
            lastPlayedAt: asset.lastPlayedAt, playback: AssetLogs(library: library).playbackSummary(for: id),
            cache: AssetCache(renditions: renditions, counts: counts, planned: asset.planned))
    }

    func writeManifest(_ id: String) async throws(CarryonError) {
        let bundle = library.bundleURL(for: id)
        guard let (asset, renditions, files) = try await read({ db -> (AssetRecord, [RenditionRecord], [BundleManifest.File])? in
            guard let asset = try AssetRecord.fetchOne(db, key: id) else { return nil }
            var files: [BundleManifest.File] = []
            if asset.state == .completed {
                // Two columns a row, read as they come: a long asset has thousands.
                var seen: Set<String> = []
                let rows = try Row.fetchCursor(db, sql: "SELECT fileName, uri FROM resource WHERE assetId = ? ORDER BY ordinal", arguments: [id])
                while let row = try rows.next() {
                    let fileName: String = row["fileName"]
                    guard seen.insert(fileName).inserted else { continue }
                    files.append(.init(path: fileName, bytes: BundleFiles.size(of: bundle.appendingPathComponent(fileName)) ?? 0,
                                       uri: row["uri"]))
                }
            }
            return (asset, try RenditionRecord.filter(Column("assetId") == id).order(Column("position")).fetchAll(db), files)
        }) else { return }
        let manifest = BundleManifest(
            streamFormat: asset.format, id: id, name: asset.name, url: asset.url, state: asset.state, playlist: "main.m3u8", duration: asset.duration ?? 0,
            createdAt: asset.createdAt, completedAt: asset.completedAt, variant: asset.selection?.variant,
            renditions: renditions.map {
                .init(key: $0.key, type: $0.type, name: $0.name, language: $0.language, playlist: "\($0.key)/index.m3u8",
                      uri: $0.uri, duration: $0.duration)
            },
            files: files)
        do {
            try BundleFiles.write(try manifest.encoded(), to: library.bundleURL(for: id).appendingPathComponent("manifest.json"))
        } catch let error as CarryonError {
            throw error
        } catch {
            throw CarryonError(.disk, "cannot write the manifest of \(id): \(error)", cause: error)
        }
    }
}
