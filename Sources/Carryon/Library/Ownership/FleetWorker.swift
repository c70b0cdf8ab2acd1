import Foundation

/// One of the fleet's workers alive now, as the library's index records it
/// (``DownloadSession/fleetWorkers()``): a `carryon worker`, a `carryon serve --worker`, or any
/// session that called ``DownloadSession/joinFleet()``, on this machine or another that shares
/// the index.
public struct FleetWorker: Sendable, Hashable, Encodable {
    /// What it calls itself (`carryon worker --name`, else its command); nil when the index
    /// does not say.
    public var name: String?
    /// The host it runs on.
    public var host: String
    /// Its process id on that host.
    public var pid: Int32
    /// When it first wrote to the index.
    public var since: Date
    /// How many downloads it runs now.
    public var running: Int
    /// A process of an earlier release, which does not say whether it works for the fleet: it
    /// may (a `carryon worker` still running through an upgrade), so it is listed — a caller
    /// about to queue is not told that no worker runs while one may.
    public var earlierRelease: Bool

    /// A worker named `name`, process `pid` on `host`, since `since`, running `running`
    /// downloads; with `earlierRelease`, one that may work for the fleet (see ``earlierRelease``).
    public init(name: String?, host: String, pid: Int32, since: Date, running: Int, earlierRelease: Bool = false) {
        self.name = name
        self.host = host
        self.pid = pid
        self.since = since
        self.running = running
        self.earlierRelease = earlierRelease
    }

    /// How people find it, as a listing's `worker` names it: `rack-3 (pid 812 on node-3)`.
    public var description: String { Instance.workerDescription(name: name, pid: pid, host: host) }

    /// `name` (null when the index does not say), `host`, `pid`, `since`, `running`,
    /// `earlierRelease` and `description`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(host, forKey: .host)
        try container.encode(pid, forKey: .pid)
        try container.encode(since, forKey: .since)
        try container.encode(running, forKey: .running)
        try container.encode(earlierRelease, forKey: .earlierRelease)
        try container.encode(description, forKey: .description)
    }

    private enum CodingKeys: String, CodingKey { case name, host, pid, since, running, earlierRelease, description }
}

extension FleetWorker {
    /// The live fleet workers among `rows` (rows of `instance` with a `running` count),
    /// judged as every holder is (``OwnershipContext/isAlive(_:aliveUntil:)``); the rows'
    /// order kept.
    static func live(_ rows: [(instance: Instance, aliveUntil: Double, startedAt: Double, running: Int, flag: Bool?)],
                     _ context: OwnershipContext) -> [FleetWorker] {
        rows.filter { context.isAlive($0.instance, aliveUntil: $0.aliveUntil) }.map {
            FleetWorker(name: $0.instance.name, host: $0.instance.host, pid: $0.instance.pid,
                        since: Date(timeIntervalSince1970: $0.startedAt), running: $0.running, earlierRelease: $0.flag == nil)
        }
    }

    /// The query both indexes answer ``AssetIndex/fleetWorkers(_:)`` with: the instances that
    /// work for the fleet, or may (an earlier release's, whose flag is NULL), and whose heartbeat
    /// is not over (one parameter: now, in seconds), the longest-running first, each with the
    /// downloads it holds running.
    static let query = """
        SELECT instance.*, (SELECT COUNT(*) FROM asset WHERE asset.owner = instance.id AND asset.state = 'running') AS running
        FROM instance WHERE fleetWorker IS NOT FALSE AND aliveUntil > ? ORDER BY startedAt, id
        """
}
