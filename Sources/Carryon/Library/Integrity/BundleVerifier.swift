import Crypto
import Foundation

/// Checks an asset's bundle against its index: its manifests read as Carryon wrote them
/// (``ManifestCheck``), and every resource on disk is read once, its bytes
/// hashed and compared with the SHA-256 recorded as they were downloaded, and checked for the
/// structure a player will read them by (``StructureCheck``; not a segment encrypted whole,
/// which is ciphertext on disk). A resource an earlier release
/// downloaded has no digest: it is checked by its length and structure, and `record` records
/// the digest of one that passes, for the next check.
///
/// Nothing is written but the digests `record` asks for: mending is ``DownloadSession``'s
/// (see ``DownloadSession/beginRepair(_:damage:)``).
struct BundleVerifier: Sendable {
    let library: OfflineLibrary

    /// Verifies asset `id`'s resources on disk (its pending ones are not there to check).
    @concurrent
    func verify(_ id: String, record: Bool) async throws(CarryonError) -> VerificationReport {
        let clock = ContinuousClock()
        let started = clock.now
        guard let asset = try await library.index.asset(id) else { throw CarryonError(.unknownAsset, "no asset has the id \(id)") }
        var report = VerificationReport(id: id, name: asset.name)
        // Every row once: the done ones are checked on disk, all of them name the manifests' files.
        let planned = try await library.index.resources(of: id)
        let resources = planned.filter { $0.state == .done }
        // Which resource's bytes a digest is: a file holding another resource's bytes is named so.
        var byDigest: [String: ResourceRecord] = [:]
        for resource in resources { if let digest = resource.sha256 { byDigest[digest] = resource } }
        let bundle = library.bundleURL(for: id)
        // A fleet's index names bundles in the folder its machines mount: one absent here, with
        // every other, though the index holds its files, is a folder this machine does not see
        // (not mounted, another --library), not damage, and a repair would download it all again
        // where no one reads it.
        if !resources.isEmpty, library.bundleIsOutOfSight(id) {
            throw CarryonError(.library, "\(id): its bundle is not at \(bundle.path) on this machine; is the library's folder mounted here?")
        }
        // A segment encrypted whole (AES-128) is ciphertext on disk, with no structure to see:
        // it is checked by its length and digest alone.
        var encrypted: Set<String> = []
        for rendition in Set(resources.map(\.renditionKey)) {
            let playlist = bundle.appending(path: "\(rendition)/index.m3u8", directoryHint: .notDirectory)
            if let text = try? String(contentsOf: playlist, encoding: .utf8), text.contains("METHOD=AES-128") { encrypted.insert(rendition) }
        }
        var toRecord: [(ResourceRecord, String)] = []
        let files = Dictionary(grouping: resources, by: \.fileName)
        for (fileName, inFile) in files {
            let ranges = inFile.sorted { ($0.rangeOffset ?? 0) < ($1.rangeOffset ?? 0) }
            var path = bundle.appending(path: fileName, directoryHint: .notDirectory).path
            // A shared file whose ranges are not all in keeps its temporary name until they are.
            if !FileManager.default.fileExists(atPath: path), ranges.first?.rangeOffset != nil,
               FileManager.default.fileExists(atPath: path + ".part") {
                path += ".part"
            }
            report.files += 1
            guard let size = BundleFiles.size(of: URL(fileURLWithPath: path)) else {
                for resource in ranges {
                    report.damage.append(Self.damage(.missing, resource, "the file is not in the bundle"))
                }
                report.resources += ranges.count
                report.hashed += ranges.filter { $0.sha256 != nil }.count
                continue
            }
            for resource in ranges {
                report.resources += 1
                if resource.sha256 != nil { report.hashed += 1 }
                let start = resource.rangeOffset ?? 0
                let count = resource.bytes ?? resource.rangeLength ?? 0
                // A whole file is read whole, however long it has become: bytes of another
                // resource put in its place are named so.
                let end = resource.rangeOffset == nil ? size : start + count
                guard end <= size else {
                    let has = max(0, size - start)
                    report.damage.append(Self.damage(.truncated, resource, "the file ends \(end - size) bytes early: \(has) of the \(count) bytes downloaded are there"))
                    continue
                }
                var hash = SHA256()
                var structure = StructureCheck(encrypted.contains(resource.renditionKey) ? .other
                                               : StructureCheck.container(of: fileName, kind: resource.kind))
                do throws(CarryonError) {
                    try FileChunks.read(path, from: start, to: end) { chunk in
                        hash.update(bufferPointer: chunk)
                        structure.consume(chunk)
                    }
                } catch {
                    report.damage.append(Self.damage(.missing, resource, error.message))
                    continue
                }
                report.bytes += end - start
                let digest = Hex.text(Array(hash.finalize()))
                let problem = structure.finish().map { "; \($0)" } ?? ""
                if let recorded = resource.sha256, recorded == digest, end - start == count { continue }
                if let other = byDigest[digest], other.id != resource.id {
                    report.damage.append(Self.damage(.altered, resource, "it holds the bytes of \(other.fileName)\(other.rangeOffset.map { " at \($0)" } ?? "") instead of its own"))
                } else if end - start < count {
                    report.damage.append(Self.damage(.truncated, resource, "the file ends \(count - (end - start)) bytes early: \(end - start) of the \(count) bytes downloaded are there\(problem)"))
                } else if end - start > count {
                    report.damage.append(Self.damage(.altered, resource, "the file has \(end - start) bytes, \(end - start - count) more than were downloaded\(problem)"))
                } else if let recorded = resource.sha256 {
                    report.damage.append(Self.damage(.altered, resource, "its SHA-256 is \(digest), not the \(recorded) recorded when it was downloaded\(problem)"))
                } else if !problem.isEmpty {
                    report.damage.append(Self.damage(.structure, resource, String(problem.dropFirst(2))))
                } else if record {
                    toRecord.append((resource, digest))
                }
            }
        }
        for (resource, digest) in toRecord {
            // A digest for bytes that are as long and as whole as when downloaded.
            try await library.index.markDone(resource.id!, bytes: resource.bytes ?? 0, etag: resource.etag, lastModified: resource.lastModified,
                                             sha256: digest, fence: nil)
            report.recorded += 1
        }
        let manifests = ManifestCheck(asset: asset, bundle: bundle, renditions: try await library.index.renditions(of: id), resources: planned)
        report.manifests = manifests.damage()
        report.manifestsChecked = manifests.isChecked
        let order = Dictionary(uniqueKeysWithValues: resources.enumerated().map { ($0.element.id!, $0.offset) })
        report.damage.sort { (order[$0.resource] ?? 0) < (order[$1.resource] ?? 0) }
        let elapsed = clock.now - started
        report.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return report
    }

    private static func damage(_ kind: Damage.Kind, _ resource: ResourceRecord, _ message: String) -> Damage {
        Damage(kind: kind, file: resource.fileName, rendition: resource.renditionKey, uri: resource.uri, offset: resource.rangeOffset,
               length: resource.rangeOffset == nil ? nil : resource.bytes ?? resource.rangeLength, message: message, resource: resource.id!)
    }
}
