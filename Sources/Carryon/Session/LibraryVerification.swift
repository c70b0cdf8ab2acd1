import Foundation

/// A check of the whole library, as `carryon serve --verify-daily` makes one: every asset's
/// bundle verified (``DownloadSession/verify(_:record:)``) on a thread at the least CPU and I/O
/// priority, the damage written to each damaged asset's error log, and this summary kept in the
/// library (`verification.json`) for the next start and for `GET /api/verification`.
public struct LibraryVerification: Sendable, Codable, Hashable {
    /// When the check started.
    public var startedAt: Date
    /// When it ended.
    public var finishedAt: Date
    /// The assets checked.
    public var assets: Int
    /// Their resources on disk that were checked.
    public var resources: Int
    /// The files those are in.
    public var files: Int
    /// The bytes read.
    public var bytes: Int
    /// The report of each asset with damage, in the library's order.
    public var damaged: [VerificationReport]
    /// Assets that could not be checked (removed meanwhile, the index unreadable), by id, with why.
    public var failures: [String: String]

    /// Whether every asset checked is intact.
    public var isIntact: Bool { damaged.isEmpty && failures.isEmpty }

    /// The file of the last check, in the library's folder.
    static func url(in library: OfflineLibrary) -> URL {
        library.root.appending(path: "verification.json", directoryHint: .notDirectory)
    }

    /// The last check of `library`, or nil when none was made or its file cannot be read (a
    /// library verified never, or by a release before this one).
    public static func last(in library: OfflineLibrary) -> LibraryVerification? {
        guard let data = try? Data(contentsOf: url(in: library)) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(LibraryVerification.self, from: data)
    }

    /// When the next check of a schedule of `interval` is due after this one: `interval` after
    /// this one started.
    public func nextAt(every interval: Duration) -> Date {
        startedAt.addingTimeInterval(Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18)
    }
}

extension DownloadSession {
    /// How many lines a check writes to one asset's error log at most: one per damaged resource,
    /// then one that counts the rest (a bundle whose disk failed has thousands).
    static let damageLinesPerAsset = 50

    /// Checks every asset of the library, as ``verify(_:record:)`` checks one, on a thread at the
    /// least CPU and I/O priority (see `BackgroundExecutor`), so that playback and downloads
    /// beside it keep theirs. Each damaged resource gets a line in its asset's error log
    /// (`x-event` `verify`, `x-error-code` the kind of damage); the summary is kept in the
    /// library (``LibraryVerification/last(in:)``). Nothing is mended: `carryon verify --repair`
    /// or `POST /api/assets/ID/verify?repair=true` mends. A check cancelled midway returns what it
    /// found so far and is not kept.
    public func verifyLibrary(record: Bool = false) async throws(CarryonError) -> LibraryVerification {
        let ids = try await library.index.assetIDs()
        let library = self.library
        let started = Date()
        var summary = LibraryVerification(startedAt: started, finishedAt: started, assets: 0, resources: 0, files: 0, bytes: 0,
                                          damaged: [], failures: [:])
        let logs = AssetLogs(library: library)
        for id in ids {
            if Task.isCancelled { break }
            let outcome: Result<VerificationReport, CarryonError> = await withTaskExecutorPreference(BackgroundExecutor.shared) {
                do throws(CarryonError) {
                    return .success(try await BundleVerifier(library: library).verify(id, record: record))
                } catch {
                    return .failure(error)
                }
            }
            switch outcome {
            case .success(let report):
                summary.assets += 1
                summary.resources += report.resources
                summary.files += report.files
                summary.bytes += report.bytes
                guard !report.isIntact else { continue }
                summary.damaged.append(report)
                let now = Date()
                for damage in report.manifests {
                    logs.error(.init(date: now, event: "verify", uri: damage.file, errorDomain: "carryon",
                                     errorCode: "damaged-manifest", comment: damage.message), for: id)
                }
                for damage in report.damage.prefix(Self.damageLinesPerAsset) {
                    logs.error(.init(date: now, event: "verify", uri: damage.uri, errorDomain: "carryon",
                                     errorCode: "damaged-\(damage.kind.rawValue)", comment: "\(damage.file): \(damage.message)"), for: id)
                }
                if report.damage.count > Self.damageLinesPerAsset {
                    logs.error(.init(date: now, event: "verify", uri: "-", errorDomain: "carryon", errorCode: "damaged",
                                     comment: "\(report.damage.count - Self.damageLinesPerAsset) more damaged resources; carryon verify \(id) lists them all"), for: id)
                }
            case .failure(let error) where error.code == .unknownAsset:
                continue  // deleted while the check ran
            case .failure(let error):
                summary.failures[id] = error.message
            }
        }
        summary.finishedAt = Date()
        // A check stopped midway (the daemon stopping) is not the library's last check: the next
        // start checks it whole.
        if Task.isCancelled { return summary }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try BundleFiles.write(try encoder.encode(summary), to: LibraryVerification.url(in: library))
        } catch let error as CarryonError {
            throw error
        } catch {
            throw CarryonError(.storage, "cannot write \(LibraryVerification.url(in: library).path): \(error.localizedDescription)")
        }
        return summary
    }

    /// Checks the library every `interval` (``verifyLibrary(record:)``) until cancelled: the
    /// first check `interval` after the last one the library records started (at once when it
    /// records none, or that is past), so that a box restarted every night is not checked at
    /// every start. `report` is told of each check as it ends, or of its error.
    ///
    /// - Parameters:
    ///   - interval: Between the starts of two checks (a day for `serve --verify-daily`).
    ///   - clock: The clock to wait on (a test's, to run without waiting).
    ///   - report: Called after each check.
    public func verifyLibrary(every interval: Duration, clock: any Clock<Duration> = ContinuousClock(),
                              report: @Sendable (Result<LibraryVerification, CarryonError>) async -> Void) async {
        while !Task.isCancelled {
            if let last = LibraryVerification.last(in: library) {
                let wait = last.nextAt(every: interval).timeIntervalSinceNow
                if wait > 0 {
                    do { try await clock.sleep(for: .milliseconds(Int64(min(wait, 1e9) * 1000))) } catch { return }
                }
            }
            if Task.isCancelled { return }
            do throws(CarryonError) {
                let check = try await verifyLibrary()
                if Task.isCancelled { return }
                await report(.success(check))
            } catch {
                await report(.failure(error))
                // An index that cannot be read now may be readable later: not before the interval.
                do { try await clock.sleep(for: interval) } catch { return }
            }
        }
    }
}
