import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// Why no connection was had: the pool behind ``PostgresAssetIndex`` tries to connect again
/// and again and says nothing of why it fails, so a statement that waited in vain connects once
/// itself, for the reason in words — a certificate that does not verify, a password refused, a
/// database that does not exist, a port nothing listens on — never the password.
extension PostgresAssetIndex {
    /// The error a statement that got no connection throws, with the reason when one is found.
    func noConnection() async -> CarryonError {
        let waited = "no connection to the library index \(url) within \(connectionWait.components.seconds) seconds"
        if let reason = await Self.reasonForNoConnection(url, within: min(connectionWait, .seconds(5)), logger: logger) {
            if reason.certificate {
                return CarryonError(.certificate, """
                    \(waited): the server's certificate does not verify under sslmode=\(url.tlsMode.rawValue) \
                    (give its authority with sslrootcert=FILE, or use sslmode=require to encrypt without checking it): \(reason.text)
                    """, cause: NoConnection())
            }
            return CarryonError(.library, "\(waited): \(reason.text)", cause: NoConnection())
        }
        return CarryonError(.library, "\(waited): is the server up and reachable from here, and does it accept this user?", cause: NoConnection())
    }

    /// What one connection attempt to `url` fails with, in words (and whether it is the
    /// server's certificate); nil when it connects, or says nothing within `limit`.
    static func reasonForNoConnection(_ url: PostgresIndexURL, within limit: Duration,
                                      logger: Logger) async -> (text: String, certificate: Bool)? {
        let configuration: PostgresConnection.Configuration
        do {
            if let folder = url.socketFolder {
                configuration = PostgresConnection.Configuration(unixSocketPath: "\(folder)/.s.PGSQL.\(url.port)", username: url.user,
                                                                 password: url.password, database: url.database)
            } else {
                let tls: PostgresConnection.Configuration.TLS
                if let tlsConfiguration = try tlsConfiguration(url) {
                    let context = try NIOSSLContext(configuration: tlsConfiguration)
                    tls = url.tlsMode == .prefer ? .prefer(context) : .require(context)
                } else {
                    tls = .disable
                }
                configuration = PostgresConnection.Configuration(host: url.host ?? "localhost", port: url.port, username: url.user,
                                                                 password: url.password, database: url.database, tls: tls)
            }
        } catch {
            return (describe(error), error is NIOSSLError)
        }
        let attempt = Task { () -> (String, Bool)? in
            do {
                let connection = try await PostgresConnection.connect(on: MultiThreadedEventLoopGroup.singleton.next(),
                                                                      configuration: configuration, id: 0, logger: logger).get()
                try? await connection.close()
                return nil
            } catch {
                let text = describe(error)
                let certificate = (error as? PSQLError)?.underlying is NIOSSLError || text.contains("certificate")
                return (text, certificate)
            }
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            attempt.cancel()
        }
        defer { timer.cancel() }
        guard let (text, certificate) = await attempt.value else { return nil }
        return (text, certificate)
    }
}
