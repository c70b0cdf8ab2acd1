import Foundation

/// What a task looks like now, and the manifest written into its bundle.
extension DownloadSession {
    // MARK: Snapshots

    func snapshot(_ id: String) async throws(CarryonError) -> AssetSnapshot {
        let id = try await resolveID(id)
        return try await library.snapshot(of: id, live: .init(state: machines[id]?.state, tracker: trackers[id], lastError: lastErrors[id]))
    }

    func writeManifest(_ id: String) async throws(CarryonError) {
        let bundle = library.bundleURL(for: id)
        guard let asset = try await index.asset(id) else { return }
        var files: [BundleManifest.File] = []
        if asset.state == .completed {
            for (fileName, uri) in try await index.files(of: id) {
                files.append(.init(path: fileName, bytes: BundleFiles.size(of: bundle.appendingPathComponent(fileName)) ?? 0, uri: uri))
            }
        }
        let renditions = try await index.renditions(of: id)
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
