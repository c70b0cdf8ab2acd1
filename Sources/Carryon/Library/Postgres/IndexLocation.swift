import Foundation

/// Where a library's index lives: SQLite in the library folder (the default, one machine), or a
/// PostgreSQL database that many machines share (a fleet: every worker on one queue, the bundles
/// on a shared file system).
///
/// Chosen with `CARRYON_INDEX` or `--index URL` on every command:
///
/// ```sh
/// export CARRYON_INDEX='postgres://carryon:secret@db.internal:5432/carryon?sslmode=require'
/// carryon worker --library /mnt/shared/carryon
/// ```
///
/// `sqlite` (or nothing) is the index in the library folder. A PostgreSQL URL is libpq's:
/// `postgres://` or `postgresql://`, the user and password (percent-encoded), the host and port
/// (a host that is a folder, `?host=/run/postgresql`, is a Unix socket there), the database,
/// and `sslmode` (`disable`, `prefer` — the default —, `require`, `verify-ca`, `verify-full`)
/// with `sslrootcert`. Its password is never printed: ``description`` writes `***`.
public enum IndexLocation: Sendable, Equatable, CustomStringConvertible {
    /// `index.sqlite` in the library folder.
    case sqlite
    /// A PostgreSQL database.
    case postgres(PostgresIndexURL)

    /// The index `text` names (`sqlite`, or a PostgreSQL URL).
    ///
    /// - Throws: ``CarryonError/Code/invalidValue`` naming what is wrong with it (never its password).
    public init(parsing text: String) throws(CarryonError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.lowercased() == "sqlite" {
            self = .sqlite
        } else {
            self = .postgres(try PostgresIndexURL(parsing: trimmed))
        }
    }

    /// The index `CARRYON_INDEX` names in `environment`; SQLite when it is unset or empty.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(CarryonError) -> IndexLocation {
        guard let text = environment["CARRYON_INDEX"] else { return .sqlite }
        do {
            return try IndexLocation(parsing: text)
        } catch {
            throw CarryonError(.invalidValue, "CARRYON_INDEX: \(error.message)")
        }
    }

    /// `sqlite`, or the URL with its password written `***`.
    public var description: String {
        switch self {
        case .sqlite: "sqlite"
        case .postgres(let url): url.description
        }
    }
}

/// A PostgreSQL connection URL as libpq reads it, for ``IndexLocation/postgres(_:)``.
public struct PostgresIndexURL: Sendable, Equatable, CustomStringConvertible {
    /// How the connection is encrypted, as libpq's `sslmode` says.
    public enum TLSMode: String, Sendable, CaseIterable {
        /// Never.
        case disable
        /// When the server offers it (libpq's default); the certificate is not checked.
        case prefer
        /// Always; the certificate is not checked (libpq's meaning).
        case require
        /// Always, with a certificate a trusted authority signed (`sslrootcert`, else the system's).
        case verifyCA = "verify-ca"
        /// As `verify-ca`, and the certificate names the host.
        case verifyFull = "verify-full"
    }

    /// The server's host name or address; nil with a Unix socket.
    public var host: String?
    /// The folder of the server's Unix socket (`?host=/folder`), whose file is `.s.PGSQL.<port>`.
    public var socketFolder: String?
    /// The server's port (5432 unless told), which also names its socket file.
    public var port: Int
    /// The user Carryon connects as.
    public var user: String
    /// Never printed (see ``description``).
    public var password: String?
    /// The database (the user's name unless told).
    public var database: String
    /// How the connection is encrypted (`sslmode`).
    public var tlsMode: TLSMode
    /// The authorities a `verify-ca` or `verify-full` connection trusts (PEM); nil: the system's.
    public var rootCertificate: String?
    /// Seconds a command waits for a connection before it fails (`connect_timeout`; 15 unless told).
    public var connectTimeout: Int
    /// The name the server shows for Carryon's connections (`application_name`; `carryon` unless told).
    public var applicationName: String

    /// Reads `text`.
    ///
    /// - Throws: ``CarryonError/Code/invalidValue`` naming the part that is wrong.
    public init(parsing text: String) throws(CarryonError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw CarryonError(.invalidValue, "the index \(Self.redacted(text)) is neither `sqlite` nor a postgres:// URL")
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw CarryonError(.invalidValue, "the index \(Self.redacted(text)) has the scheme \(scheme)://; a PostgreSQL index is postgres:// or postgresql://")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] {
            query[item.name.lowercased()] = item.value ?? ""
        }
        let known: Set<String> = ["host", "port", "user", "password", "dbname", "sslmode", "sslrootcert", "application_name", "connect_timeout"]
        if let unknown = query.keys.sorted().first(where: { !known.contains($0) }) {
            throw CarryonError(.invalidValue, "the index URL's parameter \(unknown) is not one Carryon reads (it reads \(known.sorted().joined(separator: ", ")))")
        }
        let hostParameter = query["host"].flatMap { $0.isEmpty ? nil : $0 }
        if let hostParameter, hostParameter.hasPrefix("/") {
            socketFolder = hostParameter
            host = nil
        } else {
            host = hostParameter ?? components.host.flatMap { $0.isEmpty ? nil : $0 }
            socketFolder = nil
        }
        if host == nil, socketFolder == nil {
            // libpq's default: the socket in /run/postgresql (Debian's) — /tmp elsewhere.
            socketFolder = "/run/postgresql"
        }
        if let text = query["port"] {
            guard let value = Int(text), (1...65_535).contains(value) else {
                throw CarryonError(.invalidValue, "the index URL's port \(text) is not a port (1-65535)")
            }
            port = value
        } else {
            port = components.port ?? 5432
        }
        guard (1...65_535).contains(port) else { throw CarryonError(.invalidValue, "the index URL's port \(port) is not a port (1-65535)") }
        user = query["user"] ?? components.user.flatMap { $0.removingPercentEncoding } ?? ProcessInfo.processInfo.environment["USER"] ?? "postgres"
        password = query["password"] ?? components.password.flatMap { $0.removingPercentEncoding }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = query["dbname"] ?? (path.isEmpty ? user : (path.removingPercentEncoding ?? path))
        guard !database.isEmpty, !database.contains("/") else {
            throw CarryonError(.invalidValue, "the index URL's database \(database) is not a database name")
        }
        if let mode = query["sslmode"] {
            guard let value = TLSMode(rawValue: mode.lowercased()) else {
                throw CarryonError(.invalidValue, "the index URL's sslmode \(mode) is not one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            tlsMode = value
        } else {
            tlsMode = .prefer
        }
        rootCertificate = query["sslrootcert"]
        if let text = query["connect_timeout"] {
            guard let seconds = Int(text), (1...3600).contains(seconds) else {
                throw CarryonError(.invalidValue, "the index URL's connect_timeout \(text) is not a number of seconds (1-3600)")
            }
            connectTimeout = seconds
        } else {
            connectTimeout = 15
        }
        applicationName = query["application_name"].flatMap { $0.isEmpty ? nil : $0 } ?? "carryon"
    }

    /// The URL with its password written `***`: what messages and logs show.
    public var description: String {
        var text = "postgres://\(user)\(password == nil ? "" : ":***")@\(host ?? "")"
        if host != nil { text += ":\(port)" }
        text += "/\(database)"
        var parameters: [String] = []
        if let socketFolder { parameters.append("host=\(socketFolder)") }
        if host == nil { parameters.append("port=\(port)") }
        if tlsMode != .prefer { parameters.append("sslmode=\(tlsMode.rawValue)") }
        return parameters.isEmpty ? text : text + "?" + parameters.joined(separator: "&")
    }

    /// `text` with anything between `://user:` and `@` written `***`, for an error about a URL
    /// that could not be read.
    static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].lastIndex(of: "@") else {
            return text.contains("password=") ? "(a URL with a password)" : text
        }
        let credentials = text[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":***" + String(text[at...])
    }
}
