import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

extension Network {
    /// A failed request in words: what went wrong, with no library's internals or build paths;
    /// whether trying again could help; the error's code.
    struct Failure: Sendable {
        var text: String
        var code: CarryonError.Code
        /// A certificate that does not verify, a proxy that refuses the credentials, a URL the
        /// client cannot use: trying again fails the same way.
        var isPermanent: Bool

        /// The error's message for a request to `url`.
        func message(_ url: String) -> String {
            code == .certificate ? "\(url): \(text)" : "\(url): the request failed: \(text)"
        }
    }

    /// `error`, from a request to `url`, in words.
    func failure(_ error: any Error, url: String) async -> Failure {
        let host = URLComponents(string: url)?.host ?? url
        let proxy = proxy(for: url)
        if let error = error as? PrivateAddressError {
            return Failure(text: error.description, code: .refusedLocation, isPermanent: true)
        }
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            var text = "the server's certificate is not for \(host)"
            if let port = Self.port(of: url), case .otherName(let names)? = await certificateProbe.diagnose(host: host, port: port, through: proxy) {
                text = "the server's certificate is for \(names.joined(separator: ", ")), not for \(host)"
            }
            return Failure(text: text + "; check the URL's host name", code: .certificate, isPermanent: true)
        }
        if Self.isVerificationFailure(error) {
            return Failure(text: await verificationFailure(url: url, host: host, proxy: proxy), code: .certificate, isPermanent: true)
        }
        if let reason = Self.tlsReason(error) {
            return Failure(text: "the TLS handshake with \(host) failed: \(reason)", code: .http, isPermanent: false)
        }
        if let error = error as? HTTPClientError, let proxy {
            switch error {
            case .proxyAuthenticationRequired:
                let told = proxy.user == nil ? "asks for a user name and password; give them in the proxy URL (http://USER:PASSWORD@HOST:PORT)" : "refused the user name and password"
                return Failure(text: "the proxy \(proxy) \(told) (407)", code: .http, isPermanent: true)
            case .invalidProxyResponse:
                // AsyncHTTPClient keeps the status to itself; a proxy refuses CONNECT by its rules
                // (credentials, hosts, ports), which a retry does not change.
                return Failure(text: "the proxy \(proxy) refused to connect to \(host):\(Self.port(of: url) ?? 443) (its credentials, or the hosts and ports it allows)",
                               code: .http, isPermanent: true)
            case .httpProxyHandshakeTimeout, .socksHandshakeTimeout:
                return Failure(text: "the proxy \(proxy) did not answer in time", code: .http, isPermanent: false)
            default:
                break
            }
        }
        if let proxy, error is NIOConnectionError || error is IOError || "\(type(of: error))".contains("SOCKS") {
            let cause = error is NIOConnectionError || error is IOError ? PlaylistFetcher.describe(error) : "it could not connect to \(host)"
            return Failure(text: "the proxy \(proxy) failed: \(cause)", code: .http, isPermanent: false)
        }
        return Failure(text: PlaylistFetcher.describe(error), code: .http, isPermanent: PlaylistFetcher.isPermanent(error))
    }

    /// The probe that tells why a certificate did not verify, refusing private addresses when
    /// the network does (it resolves the name again).
    private var certificateProbe: CertificateProbe {
        var probe = CertificateProbe(tls: tls)
        probe.refusesPrivateAddresses = settings.refusesPrivateAddresses
        return probe
    }

    /// Why the server's certificate did not verify, in words, with what to do about it.
    private func verificationFailure(url: String, host: String, proxy: ProxyAddress?) async -> String {
        var finding: CertificateProbe.Finding?
        if let port = Self.port(of: url) {
            finding = await certificateProbe.diagnose(host: host, port: port, through: proxy)
        }
        let date = ISO8601DateFormatter()
        switch finding {
        case .expired(let notAfter)?:
            return "the server's certificate for \(host) expired on \(date.string(from: notAfter)); the server must renew it"
        case .notYetValid(let notBefore)?:
            return "the server's certificate for \(host) is not valid before \(date.string(from: notBefore)); check this machine's clock"
        case .otherName(let names)?:
            return "the server's certificate is for \(names.joined(separator: ", ")), not for \(host), and is not trusted either"
        case .untrusted(let issuer)?:
            return "the server's certificate for \(host) is not trusted: it was issued by \"\(issuer)\", which is not among the trusted certificate authorities; if you trust it, pass its certificate with --cacert FILE (or SSL_CERT_FILE)"
        case nil:
            return "the server's certificate for \(host) did not verify: it is not trusted, has expired or is not yet valid; if you trust its authority, pass its certificate with --cacert FILE"
        }
    }

    /// Whether `error` is BoringSSL's verdict on the server's certificate chain.
    static func isVerificationFailure(_ error: any Error) -> Bool {
        tlsReason(error) == "certificate verify failed"
    }

    /// A TLS failure's reason as BoringSSL names it, in lower case without its code, library
    /// name or source location (`certificate verify failed`, `wrong version number`), or nil
    /// when `error` is not a TLS failure.
    static func tlsReason(_ error: any Error) -> String? {
        guard error is NIOSSLError || error is BoringSSLError else { return nil }
        if case .uncleanShutdown? = error as? NIOSSLError { return "the server closed the connection without ending TLS" }
        // "handshakeFailed(NIOSSL.BoringSSLError.sslError([Error: 268435581 error:1000007d:SSL
        // routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at /…/handshake.cc:320]))"
        let text = "\(error)"
        if let marker = text.range(of: "OPENSSL_internal:") {
            let rest = text[marker.upperBound...]
            let reason = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            return reason.replacingOccurrences(of: "_", with: " ").lowercased()
        }
        let name = (text.components(separatedBy: " at /").first ?? text).components(separatedBy: "(").first ?? text
        // handshakeFailed, failedToLoadCertificate… → "handshake failed", "failed to load certificate"
        var words = ""
        for character in name.split(separator: ".").last ?? "" {
            if character.isUppercase, !words.isEmpty { words += " " }
            words += character.lowercased()
        }
        return words.isEmpty ? "the TLS handshake failed" : words
    }

    /// The port of `url` (its default for the scheme when it names none).
    static func port(of url: String) -> Int? {
        guard let components = URLComponents(string: url) else { return nil }
        return components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 80)
    }
}
