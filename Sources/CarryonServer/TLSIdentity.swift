import Foundation
import NIOConcurrencyHelpers
import NIOSSL

/// The certificate and private key a server answers TLS with (`carryon serve --tls-cert FILE
/// --tls-key FILE`), read from PEM files and read again by ``reload()`` (on SIGHUP): a renewed
/// certificate is served to every new connection without a restart; connections already open
/// keep theirs. A pair that does not load — a missing file, no certificate, a key that is not
/// the certificate's — is refused by name, and on reload the identity served so far stays.
public final class TLSIdentity: Sendable {
    /// The certificate chain's PEM file (the server's certificate first, then intermediates).
    public let certificatePath: String
    /// The private key's PEM file.
    public let keyPath: String
    private let current: NIOLockedValueBox<NIOSSLContext>

    /// Reads the certificate chain at `certificatePath` and its key at `keyPath`.
    ///
    /// - Throws: ``TLSIdentityError``, naming the file and what is wrong with it.
    public init(certificatePath: String, keyPath: String) throws(TLSIdentityError) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        current = NIOLockedValueBox(try Self.context(certificatePath: certificatePath, keyPath: keyPath))
    }

    /// The context new connections are served with.
    var context: NIOSSLContext { current.withLockedValue { $0 } }

    /// Reads the two files again; new connections get the new certificate. On an error the
    /// identity served so far stays.
    public func reload() throws(TLSIdentityError) {
        let loaded = try Self.context(certificatePath: certificatePath, keyPath: keyPath)
        current.withLockedValue { $0 = loaded }
    }

    /// The leaf certificate's end of validity, for the note a reload prints.
    public var notValidAfter: Date? {
        (try? NIOSSLCertificate.fromPEMFile(certificatePath).first).map { Date(timeIntervalSince1970: TimeInterval($0.notValidAfter)) }
    }

    private static func context(certificatePath: String, keyPath: String) throws(TLSIdentityError) -> NIOSSLContext {
        for path in [certificatePath, keyPath] where !FileManager.default.isReadableFile(atPath: path) {
            throw TLSIdentityError(description: FileManager.default.fileExists(atPath: path)
                ? "\(path) cannot be read (permission denied)" : "\(path) does not exist")
        }
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMFile(certificatePath) } catch {
            throw TLSIdentityError(description: "--tls-cert \(certificatePath) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        guard !chain.isEmpty else { throw TLSIdentityError(description: "--tls-cert \(certificatePath) holds no PEM certificate") }
        let key: NIOSSLPrivateKey
        do { key = try NIOSSLPrivateKey(file: keyPath, format: .pem) } catch {
            throw TLSIdentityError(description: "--tls-key \(keyPath) holds no PEM private key (-----BEGIN PRIVATE KEY-----)")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.applicationProtocols = ["http/1.1"]
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw TLSIdentityError(description: "--tls-key \(keyPath) is not the private key of --tls-cert \(certificatePath)")
        }
    }
}

/// Why a certificate and key could not be served.
public struct TLSIdentityError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, naming the file.
    public var description: String
}
