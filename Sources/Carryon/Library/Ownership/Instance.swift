import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One process's claim to be someone in the index: what owns downloads and queues them. Each
/// session (and each player's lease holder) is an instance of its own, with an id unique across
/// hosts and restarts, and the host name and process id people need to find it.
struct Instance: Sendable, Hashable, Codable {
    /// Random, unique across hosts and restarts.
    var id: String
    /// The host the process runs on.
    var host: String
    /// The process's id on that host.
    var pid: Int32
    /// When the process started, in clock ticks after boot (Linux's `/proc/PID/stat`): tells the
    /// process from a later one given the same id. Nil where it cannot be read.
    var processStart: Int64?
    /// The process table its id belongs to: the kernel's boot and the pid namespace. Only a
    /// process in the same scope can tell whether it runs — two containers with one host name
    /// share neither — so only there does a gone process count as gone at once.
    var processScope: String?
    /// What the process calls itself (`carryon worker --name`, else its command), as the index
    /// keeps it; nil when it is not known.
    var name: String? = nil

    /// A new instance of this process.
    static func make() -> Instance {
        Instance(id: UUID().uuidString.lowercased(), host: ProcessProbe.hostName, pid: getpid(),
                 processStart: ProcessProbe.startTime(of: getpid()), processScope: ProcessProbe.scope)
    }

    /// How people find it: `pid 1234 on host-a`, then its name when it has one
    /// (`pid 1234 on host-a, carryon serve`).
    var description: String { "pid \(pid) on \(host)" + (name.map { ", \($0)" } ?? "") }

    /// How a list of downloads names it: its name first, `rack-3 (pid 812 on node-3)`.
    var workerDescription: String { Self.workerDescription(name: name, pid: pid, host: host) }

    /// A worker's words (``workerDescription``), also for ``FleetWorker``.
    static func workerDescription(name: String?, pid: Int32, host: String) -> String {
        name.map { "\($0) (pid \(pid) on \(host))" } ?? "pid \(pid) on \(host)"
    }
}

/// Whether a process on this host is still running: how a dead owner is known at once on one
/// host, without waiting for its lease to run out.
enum ProcessProbe {
    /// This host's name.
    static let hostName: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// This process's process table: the kernel's boot id and its pid namespace; nil where they
    /// cannot be read (then no process is judged by its id).
    static let scope: String? = {
        guard let boot = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8),
              let namespace = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/pid") else { return nil }
        return boot.trimmingCharacters(in: .whitespacesAndNewlines) + " " + namespace
    }()

    /// Whether process `pid`, started at `start` when known, is running on this host.
    static func isRunning(pid: Int32, start: Int64?) -> Bool {
        guard pid > 0 else { return false }
        if kill(pid, 0) != 0 && errno != EPERM { return false }
        // A zombie (exited, not yet reaped by its parent) holds nothing any more.
        if let state = statFields(of: pid)?.first, state == "Z" || state == "X" { return false }
        guard let start, let now = startTime(of: pid) else { return true }
        return now == start
    }

    /// The start time of process `pid` in clock ticks after boot, from `/proc/PID/stat`.
    static func startTime(of pid: Int32) -> Int64? {
        // Field 22 of the line; fields 3 on follow the command name's closing parenthesis.
        guard let fields = statFields(of: pid), fields.count > 19 else { return nil }
        return Int64(fields[19])
    }

    /// The fields of `/proc/PID/stat` after the command name (state first).
    private static func statFields(of pid: Int32) -> [Substring]? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
              let text = String(data: data, encoding: .utf8), let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }
}
