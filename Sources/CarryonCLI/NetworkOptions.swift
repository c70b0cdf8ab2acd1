import ArgumentParser
import Carryon
import Foundation

/// `--cacert`, `--insecure`, `--proxy`, `--noproxy`: how the commands that fetch (download,
/// resume, add, inspect, serve, play, keys prefetch and fetch) reach origins (see
/// ``NetworkSettings``).
struct NetworkOptions: ParsableArguments {
    @Option(name: .customLong("cacert"), help: ArgumentHelp(
        "A PEM file of certificate authorities to trust besides the system's (a company's or a school's own CA); repeat for several. SSL_CERT_FILE and SSL_CERT_DIR are honoured as OpenSSL reads them.",
        valueName: "file"))
    var certificateAuthorities: [String] = []

    @Flag(help: "Do not verify origins' certificates. For testing only: anyone on the way could change what is downloaded. Never stored with an asset.")
    var insecure = false

    @Option(help: ArgumentHelp(
        "The proxy for every request, instead of HTTPS_PROXY, HTTP_PROXY and ALL_PROXY: http://[USER:PASSWORD@]HOST:PORT (CONNECT) or socks5://HOST:PORT; \"\" for none. Its password is never shown.",
        valueName: "url"))
    var proxy: String?

    @Option(name: .customLong("noproxy"), help: ArgumentHelp(
        "Hosts reached without the proxy, instead of NO_PROXY (curl's rules): names with their subdomains, IP addresses, CIDR ranges, comma-separated; * for all.",
        valueName: "list"))
    var noProxy: String?

    /// The settings these options give, over the environment's.
    var settings: NetworkSettings {
        NetworkSettings(certificateAuthorities: certificateAuthorities, verifiesCertificates: !insecure, proxy: proxy, noProxy: noProxy)
    }

    /// Checks the settings now — a proxy URL that is not one, a certificate file that is not
    /// there — and warns, loudly, when certificates are not verified.
    func validate() throws {
        do {
            // Checked without making a client: a client would start event loops this process
            // may never need (6 MiB of a plain HTTP download's peak memory).
            try settings.check()
        } catch {
            throw ValidationError(error.message)
        }
        if insecure {
            printWarning("--insecure: origins' certificates are NOT verified; anyone between you and the origin can change what is downloaded. Use it for testing only.")
        }
    }

    /// The session configuration with these settings.
    func configure(_ configuration: inout DownloadSession.Configuration) {
        configuration.network = settings
    }
}
