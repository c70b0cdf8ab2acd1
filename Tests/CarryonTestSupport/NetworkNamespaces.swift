import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Hosts apart on one machine: network namespaces, each joined to the test's own namespace by a
/// veth pair, for tests of a fleet whose machines must not share a loopback. The test's services
/// (PostgreSQL, an origin) listen on ``servicesAddress``, an address of the test's namespace
/// (kept on its `lo`, as a host keeps a service address), which every namespace reaches through
/// its own link — so taking one namespace's
/// link down (``setLink(_:up:)``) cuts that host off alone, as a partition would.
///
/// Addresses are in 198.18.0.0/15, the range kept for network tests (RFC 2544), so they never
/// shadow a real network. Everything is removed by ``remove()``, and when the process exits.
/// Needs root and iproute2; without them the initializer fails saying so.
public final class NetworkNamespaces: @unchecked Sendable {
    /// The namespaces' names, for `ip netns exec`.
    public let names: [String]
    /// Where the services of the test's namespace listen, reachable from every namespace.
    public let servicesAddress: String
    /// Every address of these hosts and the services: for a server's allow list.
    public let network = "198.18.0.0/15"
    private let tag: String
    private let block: Int
    private let lock = NSLock()
    private var removed = false

    /// `ip`, from iproute2.
    public static let ip = URL(fileURLWithPath: FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") ? "/usr/sbin/ip" : "/sbin/ip")

    /// Makes `count` namespaces (at most 8), each with its link up.
    public init(count: Int) throws {
        precondition((1...8).contains(count))
        guard getuid() == 0 else { throw TestSupportError("network namespaces need root (ip netns add): run the tests as root, as .ci/run does") }
        guard FileManager.default.isExecutableFile(atPath: Self.ip.path) else {
            throw TestSupportError("network namespaces need iproute2's ip: apt-get install iproute2")
        }
        let tag = String(UUID().uuidString.lowercased().filter(\.isHexDigit).prefix(5))
        self.tag = tag
        block = Int.random(in: 0..<25)
        names = (1...count).map { "carryon-\(tag)-\($0)" }
        servicesAddress = "198.19.\(block).1"
        Self.made.withLockedValue { $0.append(self) }
        do {
            try Self.run(["addr", "add", "\(servicesAddress)/32", "dev", "lo"])
            for (index, name) in names.enumerated() {
                let (outside, inside) = interfaces(index)
                try Self.run(["netns", "add", name])
                try Self.run(["link", "add", outside, "type", "veth", "peer", "name", inside])
                try Self.run(["link", "set", inside, "netns", name])
                try Self.run(["addr", "add", "\(gateway(index))/24", "dev", outside])
                try Self.run(["link", "set", outside, "up"])
                try Self.run(["-n", name, "addr", "add", "\(address(of: index))/24", "dev", inside])
                try Self.run(["-n", name, "link", "set", inside, "up"])
                try Self.run(["-n", name, "link", "set", "lo", "up"])
                try Self.run(["-n", name, "route", "add", "default", "via", gateway(index)])
            }
        } catch {
            remove()
            throw error
        }
    }

    /// The address of namespace `index` (from 0) on its link.
    public func address(of index: Int) -> String { "198.18.\(block * 8 + index).2" }

    private func gateway(_ index: Int) -> String { "198.18.\(block * 8 + index).1" }

    /// The veth pair's ends of namespace `index`: outside (the test's namespace), inside.
    private func interfaces(_ index: Int) -> (String, String) { ("cv\(tag)o\(index)", "cv\(tag)i\(index)") }

    /// The program and arguments that run `executable` with `arguments` in namespace `index`.
    public func command(in index: Int, _ executable: URL, _ arguments: [String]) -> (URL, [String]) {
        (Self.ip, ["netns", "exec", names[index], executable.path] + arguments)
    }

    /// Takes namespace `index`'s link down (a partition: it reaches nothing, nothing reaches it)
    /// or brings it back up, its route with it.
    public func setLink(_ index: Int, up: Bool) throws {
        let (_, inside) = interfaces(index)
        try Self.run(["-n", names[index], "link", "set", inside, up ? "up" : "down"])
        if up { try? Self.run(["-n", names[index], "route", "replace", "default", "via", gateway(index)]) }
    }

    /// Removes the namespaces and links.
    public func remove() {
        let first = lock.withLock { () -> Bool in
            defer { removed = true }
            return !removed
        }
        guard first else { return }
        for (index, name) in names.enumerated() {
            try? Self.run(["link", "del", interfaces(index).0])
            try? Self.run(["netns", "del", name])
        }
        try? Self.run(["addr", "del", "\(servicesAddress)/32", "dev", "lo"])
    }

    deinit { remove() }

    private static func run(_ arguments: [String]) throws {
        let child = try ChildProcess(ip, arguments, in: URL(fileURLWithPath: "/"), light: true)
        var output: [UInt8] = []
        try child.readOutput { output += $0 }
        let errors = try child.readErrors()
        let termination = child.waitForExit()
        guard termination == .exited(0) else {
            throw TestSupportError("ip \(arguments.joined(separator: " ")) ended with \(termination): \(String(decoding: output + errors, as: UTF8.self))"
                                   + " (network namespaces need root and iproute2)")
        }
    }

    /// The namespaces this process made, removed when it exits.
    private static let made: ProcessLocked<[NetworkNamespaces]> = {
        atexit {
            for namespaces in NetworkNamespaces.made.withLockedValue({ $0 }) { namespaces.remove() }
        }
        return ProcessLocked([])
    }()
}
