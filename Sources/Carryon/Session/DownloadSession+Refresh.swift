import Foundation

/// Expired locations: a CDN signs media URLs for a while and answers 403 after. A task that
/// meets one reads its manifest again, gives every resource not yet on disk its fresh location,
/// and carries on; the bytes already fetched are kept.
extension DownloadSession {
    /// How many times one resource may meet an expired location and have the manifest read
    /// again for it before its task fails.
    static let refreshesPerResource = 2

    /// Where `resource` is fetched from now — its fresh location after a refresh, else the one
    /// planned — and how many refreshes that location has seen.
    func location(of resource: ResourceRecord) -> (uri: String, refreshes: Int) {
        let run = tasks[resource.assetID]?.run
        return (run?.freshLocations[resource.id ?? -1] ?? resource.uri, run?.refreshes ?? 0)
    }

    /// Reads task `id`'s manifest again after `expired` (a fetch whose location had seen
    /// `seen` refreshes was refused), unless another fetch has had it read since; fetches that
    /// meet an expired location meanwhile wait for the same reading.
    func refreshLocations(_ id: String, seen: Int, uri: String, expired: CarryonError) async throws {
        guard let run = tasks[id]?.run else { throw CarryonError(.cancelled, "stopped") }
        if run.refreshes > seen { return }
        if let reading = run.refreshing { return try await reading.value }
        let reading = Task { try await self.readLocationsAgain(id, uri: uri, expired: expired) }
        run.refreshing = reading
        defer { if tasks[id]?.run === run { run.refreshing = nil } }
        try await reading.value
    }

    /// Plans the stream again from its manifest (the stored URL, or one the
    /// ``Configuration/manifestURLProvider`` gives when that fails), with the same selection,
    /// and moves each resource not yet on disk to the location the new plan gives its file.
    private func readLocationsAgain(_ id: String, uri refused: String, expired: CarryonError) async throws {
        guard let run = tasks[id]?.run, var asset = try await index.asset(id) else { throw CarryonError(.cancelled, "stopped") }
        let stored = asset.url
        let request = PlanRequest(assetID: id, options: asset.options, pinnedVariant: asset.selection?.variant.uri,
                                  additionalVariants: asset.selection?.additionalVariants ?? [])
        let planned: PlannedStream
        do {
            asset.url = run.manifestURL ?? stored
            planned = try await planStream(asset, request, fetcher: playlistFetcher(for: asset))
        } catch {
            guard let provider = configuration.manifestURLProvider,
                  let fresh = try await provider.freshManifestURL(assetID: id, storedURL: stored) else {
                throw CarryonError(.expired, "\(expired.message), and reading the manifest again failed: \(error)", cause: error)
            }
            run.manifestURL = fresh
            asset.url = fresh
            planned = try await planStream(asset, request, fetcher: playlistFetcher(for: asset))
        }
        func place(_ resource: ResourceRecord) -> String { "\(resource.renditionKey) \(resource.fileName) \(resource.rangeOffset ?? -1)" }
        var fresh: [String: String] = [:]
        for resource in planned.plan.resources { fresh[place(resource)] = resource.uri }
        var moved: [(id: Int64, uri: String)] = []
        for resource in try await index.resources(of: id) where resource.state != .done {
            guard let resourceID = resource.id, let uri = fresh[place(resource)],
                  uri != (run.freshLocations[resourceID] ?? resource.uri) else { continue }
            moved.append((resourceID, uri))
        }
        try await index.relocate(moved, of: id, fence: run.fence)
        for (resourceID, uri) in moved { run.freshLocations[resourceID] = uri }
        run.refreshes += 1
        AssetLogs(library: library).error(
            .init(date: Date(), event: "download", uri: refused, errorDomain: "carryon",
                  errorCode: CarryonError.Code.expired.rawValue,
                  comment: "\(expired.message); read the manifest again\(run.manifestURL.map { " from \($0)" } ?? ""): \(moved.count) resources given fresh locations"),
            for: id)
        logger.info("refreshed expired locations", metadata: ["asset": "\(id)", "moved": "\(moved.count)"])
    }
}
