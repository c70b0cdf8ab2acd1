import CarryonServer
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `serve --tls-cert` and `play --tls-cert` read the certificate and key again on SIGHUP, as
/// nginx does: a renewed certificate (certbot's deploy hook: `kill -HUP`) is served to new
/// connections without a restart, and one that does not load leaves the old one served.
enum CertificateReloads {
    /// The signal source, kept for the life of the process.
    nonisolated(unsafe) private static var source: (any DispatchSourceSignal)?

    /// Reloads `identity` on every SIGHUP from now on, saying on standard error what happened.
    static func start(_ identity: TLSIdentity) {
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler {
            do {
                try identity.reload()
                let until = identity.notValidAfter.map { " (valid until \(ISO8601DateFormatter().string(from: $0)))" } ?? ""
                printNote("SIGHUP: serving \(identity.certificatePath) to new connections\(until)")
            } catch {
                printError("SIGHUP: \(error); still serving the certificate loaded before",
                           hint: "Fix the files and send SIGHUP again.")
            }
        }
        source.resume()
        Self.source = source
    }
}
