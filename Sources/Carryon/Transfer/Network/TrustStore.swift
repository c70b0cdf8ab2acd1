import Foundation
import NIOSSL

/// The TLS configuration of Carryon's clients, built from ``NetworkSettings``: the trust roots as
/// OpenSSL's tools find them, the certificate authorities given, verification on or off.
enum TrustStore {
    /// The client TLS configuration for `settings`.
    ///
    /// - `SSL_CERT_DIR` (a folder of hashed certificates, as `c_rehash` makes) replaces the
    ///   system's store, and `SSL_CERT_FILE` (a PEM bundle) is trusted with it; `SSL_CERT_FILE`
    ///   alone replaces the store (OpenSSL's reading; NIOSSL by itself reads neither).
    /// - Every `--cacert` file is checked now, so a file that is missing or holds no certificate
    ///   is an error before any request, naming the file; the certificates are loaded with the
    ///   first TLS connection.
    static func configuration(_ settings: NetworkSettings) throws(CarryonError) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        guard settings.verifiesCertificates else {
            tls.certificateVerification = .none
            return tls
        }
        // Every file is named, not loaded: the TLS library reads them when a first TLS
        // connection is made, so a download over plain HTTP holds none of them in memory (the
        // system bundle, parsed here, was 3.5 MiB of peak memory).
        let file = settings.variable("SSL_CERT_FILE")?.value
        let folder = settings.variable("SSL_CERT_DIR")?.value
        if let folder {
            try requireExisting(folder, named: "SSL_CERT_DIR", folder: true)
            tls.trustRoots = .file(folder)
            if let file {
                try requireExisting(file, named: "SSL_CERT_FILE", folder: false)
                tls.additionalTrustRoots.append(.file(file))
            }
        } else if let file {
            try requireExisting(file, named: "SSL_CERT_FILE", folder: false)
            tls.trustRoots = .file(file)
        }
        for path in settings.certificateAuthorities {
            // Read once now, so that a file that holds no certificate is refused before any request.
            _ = try certificates(in: path, named: "--cacert")
            tls.additionalTrustRoots.append(.file(path))
        }
        return tls
    }

    /// The certificates of the PEM file at `path`.
    static func certificates(in path: String, named option: String) throws(CarryonError) -> [NIOSSLCertificate] {
        try requireExisting(path, named: option, folder: false)
        let found: [NIOSSLCertificate]
        do {
            found = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw CarryonError(.invalidValue, "\(option) \(path) holds no PEM certificate (-----BEGIN CERTIFICATE-----): give the certificate authority's certificate in PEM", cause: error)
        }
        guard !found.isEmpty else {
            throw CarryonError(.invalidValue, "\(option) \(path) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        return found
    }

    private static func requireExisting(_ path: String, named option: String, folder: Bool) throws(CarryonError) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw CarryonError(.invalidValue, "\(option) names \(path), which does not exist")
        }
        guard isFolder.boolValue == folder else {
            throw CarryonError(.invalidValue, "\(option) names \(path), which is \(folder ? "not a folder" : "a folder, not a PEM file")")
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CarryonError(.invalidValue, "\(option) names \(path), which cannot be read (permission denied)")
        }
    }
}
