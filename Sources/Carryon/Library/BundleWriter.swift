import Foundation
import NIOFileSystem

/// Writes an asset's bundle: a plan's manifests, `manifest.json`, the byte ranges of shared
/// files assembled at their offsets, finished files renamed into place, and the whole bundle
/// removed. Every method runs off its caller's actor (`@concurrent`): a session's actor never
/// waits on the disk, and a bundle of tens of thousands of files is removed without stalling
/// every other task's progress.
///
/// Each file is written under a temporary name and renamed into place when complete (see
/// ``BundleFiles``), so a crash never leaves a half-written file under its final name. Outside
/// a run, each change is counted in the index once it is on disk (see ``AssetFigures``).
struct BundleWriter: Sendable {
    let library: OfflineLibrary

    /// Writes `planned`'s manifests into asset `id`'s bundle: the origin's copies (without
    /// their secrets, by `format`), each rendition's local playlist and the local `main.m3u8`.
    /// `inRun`: written by a run, whose claim and end count the change.
    @concurrent
    func writeManifests(of planned: PlannedStream, format: any StreamFormat, for id: String, inRun: Bool) async throws(CarryonError) {
        let plan = planned.plan
        let bundle = library.bundleURL(for: id)
        if let origin = plan.originMain {
            try BundleFiles.write(Data(format.redacted(origin: origin)), to: bundle.appending(path: "origin/main.\(format.originExtension)", directoryHint: .notDirectory))
        }
        for rendition in plan.renditions {
            // A format with one manifest for every rendition (DASH) has no copy per rendition.
            if !rendition.originText.isEmpty {
                try BundleFiles.write(bytes: format.redacted(origin: rendition.originText),
                                      to: bundle.appending(path: "origin/\(rendition.record.key).\(format.originExtension)", directoryHint: .notDirectory))
            }
            try BundleFiles.write(text: rendition.localText, to: bundle.appending(path: "\(rendition.record.key)/index.m3u8", directoryHint: .notDirectory))
        }
        for (path, text) in plan.localManifests.sorted(by: { $0.key < $1.key }) {
            try BundleFiles.write(Data(text.utf8), to: bundle.appending(path: path, directoryHint: .notDirectory))
        }
        try BundleFiles.write(Data(plan.localMain.utf8), to: bundle.appending(path: "main.m3u8", directoryHint: .notDirectory))
        if !inRun { try await library.index.bundleChanged(id) }
    }

    /// Every file ``writeManifests(of:format:for:inRun:)`` writes for `planned`, by its path in
    /// the bundle, with its bytes: for a repair to compare the origin's copies and write only
    /// the damaged manifests (``DownloadSession/beginRepair(_:damage:manifests:)``).
    static func manifestFiles(of planned: PlannedStream, format: any StreamFormat) -> [String: [UInt8]] {
        let plan = planned.plan
        var files: [String: [UInt8]] = [:]
        if let origin = plan.originMain { files["origin/main.\(format.originExtension)"] = format.redacted(origin: origin) }
        for rendition in plan.renditions {
            if !rendition.originText.isEmpty {
                files["origin/\(rendition.record.key).\(format.originExtension)"] = format.redacted(origin: rendition.originText)
            }
            files["\(rendition.record.key)/index.m3u8"] = Array(rendition.localText.utf8)
        }
        for (path, text) in plan.localManifests { files[path] = Array(text.utf8) }
        files["main.m3u8"] = Array(plan.localMain.utf8)
        return files
    }

    /// Appends to asset `id`'s local media playlists the lines of a plan of what a recording's
    /// round appended (``DownloadPlan/appendsTo``); the other manifests are left as the last
    /// whole plan wrote them, until the next one (the recording finished, a run started).
    func appendManifests(of planned: PlannedStream, for id: String, inRun: Bool) async throws(CarryonError) {
        let bundle = library.bundleURL(for: id)
        for rendition in planned.plan.renditions where !rendition.localText.isEmpty {
            try BundleFiles.append(Data(rendition.localText.utf8), to: bundle.appending(path: "\(rendition.record.key)/index.m3u8", directoryHint: .notDirectory))
        }
        if !inRun { try await library.index.bundleChanged(id) }
    }

    /// Writes asset `id`'s `manifest.json` from its record, renditions and (once completed) its
    /// files with their sizes.
    @concurrent
    func writeManifest(of id: String) async throws(CarryonError) {
        let index = library.index
        let bundle = library.bundleURL(for: id)
        guard let asset = try await index.asset(id) else { return }
        var files: [BundleManifest.File] = []
        if asset.state == .completed {
            for (fileName, uri) in try await index.files(of: id) {
                files.append(.init(path: fileName, bytes: BundleFiles.size(of: bundle.appending(path: fileName, directoryHint: .notDirectory)) ?? 0, uri: uri))
            }
        }
        let renditions = try await index.renditions(of: id)
        let manifest = BundleManifest(
            streamFormat: asset.format, id: id, name: asset.name, url: asset.url, state: asset.state, playlist: "main.m3u8", duration: asset.duration ?? 0,
            createdAt: asset.createdAt, completedAt: asset.completedAt, variant: asset.selection?.variant,
            renditions: renditions.map {
                .init(key: $0.key, type: $0.type.rawValue, name: $0.name, language: $0.language, playlist: "\($0.key)/index.m3u8",
                      uri: $0.uri, duration: $0.duration)
            },
            files: files, timeRange: asset.options.timeRange)
        do {
            try BundleFiles.write(try manifest.encoded(), to: bundle.appending(path: BundleManifest.fileName, directoryHint: .notDirectory))
            try await index.bundleChanged(id)
        } catch let error as CarryonError {
            throw error
        } catch {
            throw CarryonError(.disk, "cannot write the manifest of \(id): \(error)", cause: error)
        }
    }

    /// The partial file `resource` is fetched into: its own, or for a byte range of a shared
    /// file, one of the range's until ``place(_:in:)`` copies it into the shared file.
    static func partialFile(of resource: ResourceRecord, in bundle: URL) -> URL {
        if let offset = resource.rangeOffset {
            return bundle.appending(path: "\(resource.fileName).\(offset).part", directoryHint: .notDirectory)
        }
        return bundle.appending(path: "\(resource.fileName).part", directoryHint: .notDirectory)
    }

    /// Puts a fetched resource in place: a whole file renamed to its final name; a byte range
    /// copied into its shared file at its offset (the shared file keeps its temporary name
    /// until every range of it is in: see ``finishSharedFile(_:of:)``), or into the file under
    /// its final name when that is where it is (a range fetched again by a repair).
    @concurrent
    func place(_ resource: ResourceRecord, in bundle: URL) async throws {
        let part = Self.partialFile(of: resource, in: bundle)
        guard let offset = resource.rangeOffset else {
            return try BundleFiles.rename(part, to: bundle.appending(path: resource.fileName, directoryHint: .notDirectory))
        }
        var shared = FilePath(bundle.appending(path: "\(resource.fileName).part", directoryHint: .notDirectory).path)
        let final = bundle.appending(path: resource.fileName, directoryHint: .notDirectory).path
        if !FileManager.default.fileExists(atPath: shared.string), FileManager.default.fileExists(atPath: final) {
            shared = FilePath(final)
        }
        try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(part.path)) { reader in
            try await FileSystem.shared.withFileHandle(forWritingAt: shared, options: .modifyFile(createIfNecessary: true)) { writer in
                var position: Int64 = 0
                for try await chunk in reader.readChunks(chunkLength: .kibibytes(256)) {
                    try await writer.write(contentsOf: chunk, toAbsoluteOffset: Int64(offset) + position)
                    position += Int64(chunk.readableBytes)
                }
            }
        }
        try FileManager.default.removeItem(at: part)
    }

    /// Renames each shared file of `resources` whose ranges are all in to its final name.
    @concurrent
    func finishSharedFiles(of id: String, resources: [ResourceRecord]) async throws(CarryonError) {
        let byFile = Dictionary(grouping: resources.filter { $0.rangeOffset != nil }, by: \.fileName)
        for (fileName, ranges) in byFile where ranges.allSatisfy({ $0.state == .done }) {
            try finishSharedFile(fileName, of: id)
        }
    }

    /// Renames shared file `fileName`, whose ranges are all in, to its final name.
    func finishSharedFile(_ fileName: String, of id: String) throws(CarryonError) {
        let bundle = library.bundleURL(for: id)
        let part = bundle.appending(path: "\(fileName).part", directoryHint: .notDirectory)
        if FileManager.default.fileExists(atPath: part.path) {
            try BundleFiles.rename(part, to: bundle.appending(path: fileName, directoryHint: .notDirectory))
        }
    }

    /// Removes asset `id`'s bundle folder, if there is one.
    @concurrent
    func remove(_ id: String) async throws(CarryonError) {
        let bundle = library.bundleURL(for: id)
        guard FileManager.default.fileExists(atPath: bundle.path) else { return }
        do { try FileManager.default.removeItem(at: bundle) } catch {
            throw CarryonError(.disk, "cannot remove \(bundle.path): \(error.localizedDescription)", cause: error)
        }
        try await library.index.bundleChanged(id)
    }
}
