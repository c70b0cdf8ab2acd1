import ArgumentParser
import Carryon
import CarryonServer
import Foundation

/// What `serve --json` and `play --json` print for each request.
struct RequestLine: Encodable {
    var event = "request"
    var date: Date
    var asset: String?
    var session: String?
    var method: String
    var path: String
    var range: String?
    var status: Int
    var bytes: Int
    var seconds: Double
    var error: String?

    init(_ request: PlaybackRequest) {
        date = request.date
        asset = request.assetID
        session = request.sessionID
        method = request.method
        path = request.path
        range = request.range
        status = request.status
        bytes = request.bytes
        seconds = request.duration
        error = request.error
    }
}

/// The first line `serve --json` and `play --json` print.
struct ListeningLine: Encodable {
    var event = "listening"
    var url: String
    var playlist: String?
}

/// `--port`, `--bind`, `--host` and `--json`, shared by `serve` and `play`.
struct ServerOptions: ParsableArguments {
    @Option(help: "The port to listen on (0 picks a free one).")
    var port: Int = 0

    @Option(help: ArgumentHelp(
        "The address to listen on: 127.0.0.1 (the default) or ::1 keep the server on this machine; another address of it (0.0.0.0 or :: for all) lets other devices in, the token still required.",
        valueName: "address"))
    var bind: String?

    @Option(help: ArgumentHelp(
        "A name other devices reach this machine by (a DNS name, or its address on the network), accepted in the Host header and shown in the base URL (repeatable); any other Host is refused.",
        valueName: "name"))
    var host: [String] = []

    @Flag(help: "Print one JSON object a line: where the server listens, then each request it answers.")
    var json = false

    @Option(name: .customLong("tls-cert"), help: ArgumentHelp(
        "Serve HTTPS with this certificate chain (PEM; the server's certificate first); read again on SIGHUP, for a renewed certificate without a restart.",
        valueName: "file"))
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The private key of --tls-cert (PEM); read again on SIGHUP.", valueName: "file"))
    var tlsKey: String?

    @Flag(name: .customLong("allow-plain-http"), help: ArgumentHelp(
        "With --bind beyond loopback, serve plain HTTP anyway: the token and everything else cross the network in clear. Without it, such a server needs --tls-cert and --tls-key."))
    var allowPlainHTTP = false

    @OptionGroup var connections: ConnectionLimitOptions

    /// Whether the server listens beyond this machine's own loopback address: any `--bind`
    /// other than 127.0.0.1 and ::1 (127.0.0.2 stands for a network address in tests, where
    /// nothing may leave the loopback interface).
    var servesNetwork: Bool {
        !["127.0.0.1", "::1", "localhost"].contains(address)
    }

    /// The address listened on: `--bind`, or a loopback address given as `--host` alone (as
    /// earlier releases took it), or 127.0.0.1.
    var address: String {
        bind ?? host.first { $0 == "127.0.0.1" || $0 == "::1" } ?? "127.0.0.1"
    }

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        if let bind, !PlaybackServer.isIPAddress(bind) {
            throw ValidationError("--bind must be an IP address of this machine (127.0.0.1, ::1, 0.0.0.0, 192.168.1.20, …), not \(bind)")
        }
        for name in host where PlaybackServer.isUnspecified(name) || !PlaybackServer.isHostName(name) {
            throw ValidationError("--host \(name) is not a name clients can reach the server by; the server listens on loopback unless --bind names another address (--bind 0.0.0.0 for every interface)")
        }
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-cert and --tls-key go together: give the certificate chain and its private key (PEM)")
        }
        if servesNetwork, tlsCertificate == nil, !allowPlainHTTP {
            throw ValidationError("--bind \(address) serves the network over plain HTTP, which sends the token in clear: give --tls-cert FILE and --tls-key FILE for HTTPS, or --allow-plain-http if the network is yours alone")
        }
    }

    /// The certificate and key to serve, read now (and again on SIGHUP), when given.
    func tlsIdentity() throws -> TLSIdentity? {
        guard let tlsCertificate, let tlsKey else { return nil }
        let identity: TLSIdentity
        do {
            identity = try TLSIdentity(certificatePath: tlsCertificate, keyPath: tlsKey)
        } catch {
            throw fail(error.description, hint: "Give the server's certificate chain and its private key, both PEM (as certbot or openssl write them).")
        }
        CertificateReloads.start(identity)
        return identity
    }

    /// A server of `source` as the options say, with `token` (a random one when nil).
    func makeServer(_ source: PlaybackSource, token: String? = nil) throws -> PlaybackServer {
        let json = self.json
        do {
            var server = try PlaybackServer(source: source, host: address, names: host.filter { $0 != address }, port: port, token: token) { request in
                if json { try? printJSONLine(RequestLine(request)) }
            }
            server.limits = connections.limits
            server.tls = try tlsIdentity()
            return server
        } catch {
            throw fail(error)
        }
    }
}
