import Foundation

/// A certificate authority a test makes with openssl, and the server certificates it issues:
/// one that verifies for `localhost` and `127.0.0.1`, one that has expired, one issued for
/// another name — the certificates real users meet from a company's or a school's own CA.
public struct TestCA: Sendable {
    /// The folder holding the CA's and the servers' files.
    public let folder: URL
    /// The CA's certificate (PEM): what `--cacert` and `SSL_CERT_FILE` are given.
    public var certificate: URL { folder.appendingPathComponent("ca.pem") }

    /// A server certificate and its private key (PEM files).
    public struct Issued: Sendable {
        public let certificate: URL
        public let key: URL
    }

    /// Makes a CA named `name` in `folder` (with openssl; the test must hold a heavy-work turn).
    public static func make(in folder: URL, name: String = "Carryon Test CA") async throws -> TestCA {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let ca = TestCA(folder: folder)
        try await ca.openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                              "-keyout", "ca.key", "-out", "ca.pem", "-days", "3650", "-subj", "/CN=\(name)",
                              "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        return ca
    }

    /// Issues a server certificate named `file` for `names` (DNS names and IP addresses), valid
    /// for 30 days from now — or, when `expired`, one whose validity ended a day ago.
    public func issue(_ file: String, for names: [String] = ["localhost", "127.0.0.1", "::1"], expired: Bool = false) async throws -> Issued {
        let isAddress = { (name: String) in name.contains(":") || name.allSatisfy { $0.isNumber || $0 == "." } }
        let alternatives = names.map { isAddress($0) ? "IP:\($0)" : "DNS:\($0)" }.joined(separator: ",")
        let extensions = folder.appendingPathComponent("\(file).ext")
        try "subjectAltName=\(alternatives)\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature\n"
            .write(to: extensions, atomically: true, encoding: .utf8)
        try await openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "\(file).key",
                           "-out", "\(file).csr", "-subj", "/CN=\(names.first ?? file)"])
        try await openssl(["x509", "-req", "-in", "\(file).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                           "-out", "\(file).pem", "-days", expired ? "-1" : "30", "-extfile", extensions.path])
        return Issued(certificate: folder.appendingPathComponent("\(file).pem"), key: folder.appendingPathComponent("\(file).key"))
    }

    private func openssl(_ arguments: [String]) async throws {
        guard let openssl = findExecutable("openssl") else {
            throw TestSupportError("openssl is missing: install it (apt-get install openssl)")
        }
        let result = try await run(openssl, arguments, in: folder)
        guard result.status == 0 else {
            throw TestSupportError("openssl \(arguments.prefix(2).joined(separator: " ")) failed (\(result.status)): \(result.standardError)")
        }
    }
}
