import Foundation
import GRDB

/// How every backend reads the rows it shares with the others — an asset's ownership, an
/// instance, a content key — from a row of named values (GRDB's `Row`, which the PostgreSQL
/// backend fills from its rows too), so that SQLite and PostgreSQL read a value the same way
/// and name the same problems.
enum IndexRows {
    /// The ownership columns of an asset's row (a state that cannot be read counts as suspended).
    static func ownership(_ row: Row) -> Ownership.Row {
        Ownership.Row(state: DownloadState(rawValue: row["state"] ?? "") ?? .suspended, owner: row["owner"], leaseUntil: row["leaseUntil"],
                      epoch: row["epoch"] ?? 0, queuedBy: row["queuedBy"], queuedAt: row["queuedAt"],
                      request: (row["request"] as String?).flatMap(Ownership.Request.init(rawValue:)))
    }

    /// The condition a row's claim starts from (see ``Ownership/claim(_:by:fromFleet:now:lease:isAlive:)``),
    /// whose values are now, the claiming instance, whether it works for the fleet, ``Ownership/fleet``
    /// and now again: a row waiting in the instance's queue, or in the fleet's — waiting, or
    /// running under a lease that ran out.
    static let claimable = """
        COALESCE(queuedAt, 0) <= ? AND request IS NULL AND ((queuedBy = ? AND state = 'waiting')
        OR (? AND queuedBy = ? AND (state = 'waiting' OR (state = 'running' AND COALESCE(leaseUntil, 0) <= ?))))
        """

    /// A row of the `instance` table (or of `playbackLease`, whose holder is its id).
    static func instance(_ row: Row, id column: String = "id") -> Instance {
        Instance(id: row[column], host: row["host"], pid: row["pid"], processStart: row["processStart"], processScope: row["processScope"],
                 name: row.hasColumn("label") ? row["label"] : nil)
    }

    /// The ownership of each of `rows` (asset rows with their ownership columns, `id` and
    /// `progress`), decided by ``Ownership``'s rules against `instances` (rows of `instance`).
    static func ownerships(_ rows: [Row], instances instanceRows: [Row], _ context: OwnershipContext) -> [String: TaskOwnership] {
        var instances: [String: (Instance, Bool)] = [:]
        for row in instanceRows {
            let instance = instance(row)
            instances[instance.id] = (instance, context.isAlive(instance, aliveUntil: row["aliveUntil"]))
        }
        var result: [String: TaskOwnership] = [:]
        for row in rows {
            let record = ownership(row)
            let isAlive = { (id: String) in instances[id]?.1 ?? false }
            let holder = Ownership.holder(of: record, now: context.seconds, isAlive: isAlive)
            let progress = holder == nil ? nil : (row["progress"] as String?).flatMap { try? JSONDecoder().decode(DownloadProgress.self, from: Data($0.utf8)) }
            result[row["id"]] = TaskOwnership(row: record, holder: holder, holderInstance: holder.flatMap { instances[$0.instance]?.0 },
                                              effectiveState: Ownership.effectiveState(of: record, now: context.seconds, isAlive: isAlive),
                                              progress: progress)
        }
        return result
    }

    /// The live players' leases among `rows` (of `playbackLease`), by asset.
    static func playbackHolders(_ rows: [Row], _ context: OwnershipContext) -> [String: [Instance]] {
        var holders: [String: [Instance]] = [:]
        for row in rows {
            let instance = instance(row, id: "holder")
            // A lease's heartbeat is its end: alive until then, unless its process is gone.
            if context.isAlive(instance, aliveUntil: row["until"]) { holders[row["assetId"], default: []].append(instance) }
        }
        return holders
    }

    /// A key's date; nil when it is NULL or cannot be read (a key stored at a date that
    /// cannot be read counts as stored in 1970: a rental window counted from it has passed).
    private static func date(_ row: Row, _ column: String) -> Date? {
        ((row[column] as DatabaseValue?)).flatMap(IndexDate.date(from:))
    }

    /// A row of `contentKey`, with `invalidated` (whether its sealed bytes are gone).
    static func keyInfo(_ row: Row) -> ContentKeyInfo {
        let lifetimeText: String = row["lifetime"]
        let lifetime = (try? JSONDecoder().decode(KeyLifetime.self, from: Data(lifetimeText.utf8))) ?? KeyLifetime()
        return ContentKeyInfo(id: row["id"], assetID: row["assetId"], method: row["method"], keyFormat: row["keyFormat"],
                              uri: row["uri"], storedAt: date(row, "storedAt") ?? Date(timeIntervalSince1970: 0), lifetime: lifetime,
                              firstPlayedAt: date(row, "firstPlayedAt"),
                              isInvalidated: row["invalidated"])
    }

    // MARK: Plans

    /// What tells a resource of a new plan to be the same as one of the old: its URI, byte
    /// range and file.
    static func planKey(_ resource: ResourceRecord) -> String {
        "\(resource.uri) \(resource.rangeOffset ?? -1) \(resource.fileName)"
    }

    /// `resource` of a new plan with what the old plan's `old` had fetched: its state, size,
    /// validators and digest.
    static func keeping(_ resource: ResourceRecord, from old: ResourceRecord) -> ResourceRecord {
        var resource = resource
        resource.state = old.state
        resource.bytes = old.bytes
        resource.expectedBytes = old.expectedBytes
        resource.exactSize = old.exactSize
        resource.etag = old.etag
        resource.lastModified = old.lastModified
        resource.sha256 = old.sha256
        return resource
    }

    // MARK: Listings and settings

    /// The condition that a row is recorded in one of `states` (any when empty), with `?` for
    /// each of its values: a state no release writes reads as suspended (see AssetRecord(row:)).
    static func stateCondition(_ states: Set<DownloadState>) -> (sql: String, values: [String])? {
        guard !states.isEmpty else { return nil }
        let names = states.map(\.rawValue).sorted()
        var sql = "state IN (\(names.map { _ in "?" }.joined(separator: ", ")))"
        var values = names
        if states.contains(.suspended) {
            let known = DownloadState.allCases.map(\.rawValue)
            sql = "(\(sql) OR state NOT IN (\(known.map { _ in "?" }.joined(separator: ", "))))"
            values += known
        }
        return (sql, values)
    }

    /// The storage settings the `setting` table's `values` hold.
    static func storageSettings(_ values: [String: String]) -> LibraryStorageSettings {
        LibraryStorageSettings(quotaBytes: values["quotaBytes"].flatMap { Int($0) },
                               minimumFreeBytes: values["minimumFreeBytes"].flatMap { Int($0) },
                               purgeOnDownload: values["purgeOnDownload"] == "true")
    }

    /// The `setting` rows of `settings`: a nil value is a row to delete.
    static func settingRows(_ settings: LibraryStorageSettings) -> [(key: String, value: String?)] {
        [("quotaBytes", settings.quotaBytes.map(String.init)),
         ("minimumFreeBytes", settings.minimumFreeBytes.map(String.init)),
         ("purgeOnDownload", String(settings.purgeOnDownload))]
    }
}
