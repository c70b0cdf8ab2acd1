import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL cluster of a test's own: made with `initdb` in a temporary folder, started with
/// `pg_ctl` on a free port of `address` with its socket in that folder, without durability
/// (`fsync=off`: a test's data need not survive a power cut), and stopped (`immediate`) when
/// the test process exits or ``stop()`` is called.
///
/// PostgreSQL refuses to run as root, so a cluster started by root (CI) belongs to the system
/// user `postgres` (made when missing, as Debian's package does).
public final class PostgresServer: @unchecked Sendable {
    /// The cluster's folder; its socket is `<folder>/.s.PGSQL.<port>`.
    public let folder: URL
    public let port: Int
    /// The address it listens on.
    public let address: String
    /// The superuser (trusted without a password).
    public let user = "carryon"
    private let binaries: URL
    private let runAs: String?
    private let lock = NSLock()
    private var stopped = false
    private var databases: Set<String> = []

    /// Makes and starts a cluster listening on `address` (loopback unless told otherwise),
    /// offering TLS with `certificate` and its `key` (PEM files) when given, and trusting
    /// connections from the `trusting` networks (CIDR, `10.1.0.0/16`) besides loopback.
    ///
    /// - Throws: ``TestSupportError`` saying how to install PostgreSQL when it is missing, or
    ///   what `initdb` or `pg_ctl` printed when they failed.
    public init(address: String = "127.0.0.1", certificate: URL? = nil, key: URL? = nil, trusting networks: [String] = []) throws {
        let binaries = try Self.findBinaries()
        self.binaries = binaries
        self.address = address
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("carryon-test-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.folder = folder
        let runAs: String? = getuid() == 0 ? "postgres" : nil
        self.runAs = runAs
        if let runAs {
            if getpwnam(runAs) == nil { _ = try Self.execute(URL(fileURLWithPath: "/usr/sbin/useradd"), ["-r", "-M", "-s", "/bin/sh", runAs]) }
            _ = try Self.execute(URL(fileURLWithPath: "/bin/chown"), ["-R", runAs, folder.path])
        }
        var tlsOptions = ""
        if let certificate, let key {
            // Copied into the cluster's folder: the server reads them as its own user, and
            // refuses a key others may read.
            let ownCertificate = folder.appendingPathComponent("server.crt")
            let ownKey = folder.appendingPathComponent("server.key")
            try FileManager.default.copyItem(at: certificate, to: ownCertificate)
            try FileManager.default.copyItem(at: key, to: ownKey)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: ownKey.path)
            if let runAs { _ = try Self.execute(URL(fileURLWithPath: "/bin/chown"), [runAs, ownCertificate.path, ownKey.path]) }
            tlsOptions = " -c ssl=on -c ssl_cert_file=\(ownCertificate.path) -c ssl_key_file=\(ownKey.path)"
        }
        let data = folder.appendingPathComponent("data").path
        _ = try Self.command(binaries, runAs, "initdb", ["-D", data, "-A", "trust", "-U", user, "--no-sync", "-E", "UTF8", "--locale=C.UTF-8"])
        if !networks.isEmpty {
            let hba = URL(fileURLWithPath: data).appendingPathComponent("pg_hba.conf")
            let handle = try FileHandle(forWritingTo: hba)
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(networks.map { "host all all \($0) trust\n" }.joined().utf8))
            try handle.close()
        }
        var started: Int?
        var lastOutput = ""
        for _ in 0..<3 {
            let candidate = try ServerProgram.freePort()
            do {
                _ = try Self.command(binaries, runAs, "pg_ctl", ["-D", data, "-l", folder.appendingPathComponent("log").path, "-w", "-t", "60", "-o",
                                           "-p \(candidate) -k \(folder.path) -c listen_addresses=\(address) -c fsync=off -c synchronous_commit=off "
                                           + "-c full_page_writes=off -c max_connections=300 -c shared_buffers=32MB" + tlsOptions, "start"])
                started = candidate
                break
            } catch {
                lastOutput = "\(error)"
            }
        }
        guard let started else { throw TestSupportError("PostgreSQL did not start: \(lastOutput)") }
        port = started
        Self.running.withLockedValue { $0.append(self) }
    }

    /// A URL for database `database` over TCP (`postgres://carryon@ADDRESS:PORT/DATABASE`).
    public func url(database: String) -> String {
        "postgres://\(user)@\(address):\(port)/\(database)?sslmode=disable"
    }

    /// A URL for database `database` over the cluster's Unix socket.
    public func socketURL(database: String) -> String {
        "postgres://\(user)@/\(database)?host=\(folder.path)&port=\(port)"
    }

    /// Makes database `name` unless this server made it already.
    public func createDatabase(_ name: String) throws {
        let made = lock.withLock { databases.contains(name) }
        guard !made else { return }
        _ = try command("psql", ["-h", folder.path, "-p", String(port), "-U", user, "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-q",
                                 "-c", "CREATE DATABASE \"\(name)\""])
        lock.withLock { _ = databases.insert(name) }
    }

    /// Runs `sql` in database `database` with psql, returning what it printed (unaligned, tuples only).
    public func psql(_ sql: String, database: String) throws -> String {
        try command("psql", ["-h", folder.path, "-p", String(port), "-U", user, "-d", database, "-v", "ON_ERROR_STOP=1", "-q", "-A", "-t",
                             "-c", sql])
    }

    /// Stops the cluster at once and removes its folder.
    public func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        _ = try? command("pg_ctl", ["-D", folder.appendingPathComponent("data").path, "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(at: folder)
    }

    deinit {
        stop()
    }

    // MARK: Programs

    private func command(_ name: String, _ arguments: [String]) throws -> String {
        try Self.command(binaries, runAs, name, arguments)
    }

    private static func command(_ binaries: URL, _ runAs: String?, _ name: String, _ arguments: [String]) throws -> String {
        let program = binaries.appendingPathComponent(name)
        guard let runAs else { return try Self.execute(program, arguments) }
        return try Self.execute(URL(fileURLWithPath: "/usr/sbin/runuser"), ["-u", runAs, "--", program.path] + arguments)
    }

    /// Runs `program`, returning its output; fails with its output when it exits non-zero.
    /// A ``ChildProcess`` (light: PostgreSQL's tools run for a moment), not Foundation's
    /// `Process`, whose wait never returned here once the tests' own children were about.
    private static func execute(_ program: URL, _ arguments: [String]) throws -> String {
        let child = try ChildProcess(program, arguments, in: URL(fileURLWithPath: "/"), light: true)
        var output: [UInt8] = []
        try child.readOutput { output += $0 }
        let errors = try child.readErrors()
        let termination = child.waitForExit()
        let text = String(decoding: output + errors, as: UTF8.self)
        guard termination == .exited(0) else {
            throw TestSupportError("\(program.lastPathComponent) \(arguments.joined(separator: " ")) ended with \(termination): \(text)")
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The folder of PostgreSQL's server programs (Debian's `/usr/lib/postgresql/<version>/bin`).
    private static func findBinaries() throws -> URL {
        let debian = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: debian.path)) ?? []).compactMap(Int.init).sorted(by: >)
        for version in versions {
            let folder = debian.appendingPathComponent("\(version)/bin")
            if FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("initdb").path) { return folder }
        }
        if let initdb = findExecutable("initdb") { return initdb.deletingLastPathComponent() }
        throw TestSupportError("PostgreSQL is missing: install it with apt-get install postgresql (.ci/run does)")
    }

    /// The clusters this process started, stopped when it exits.
    private static let running: ProcessLocked<[PostgresServer]> = {
        atexit {
            for server in PostgresServer.running.withLockedValue({ $0 }) { server.stop() }
        }
        return ProcessLocked([])
    }()
}

/// A value behind a lock, for the process-wide list of clusters.
final class ProcessLocked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLockedValue<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&value) }
    }
}
