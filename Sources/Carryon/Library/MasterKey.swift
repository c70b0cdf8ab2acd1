import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The key that seals every content key a library keeps: 256 bits for AES-GCM.
///
/// It never lives in a bundle. It comes, in this order, from the embedding app, from
/// `CARRYON_MASTER_KEY` (64 hexadecimal digits), from the file `CARRYON_MASTER_KEY_FILE` names
/// (a fleet's machines each given the same key, a systemd credential, a mounted secret), or
/// from `master.key` in the library folder, created with 32 random bytes on first use. A key
/// file is 32 bytes, or 64 hexadecimal digits; one another user could read is refused.
public struct MasterKey: Sendable {
    let key: SymmetricKey

    /// A master key the app keeps itself (in a platform keystore, say): 32 bytes.
    public init(bytes: [UInt8]) throws(CarryonError) {
        guard bytes.count == 32 else { throw CarryonError(.keys, "a master key is 32 bytes, not \(bytes.count)") }
        key = SymmetricKey(data: bytes)
    }

    /// The master key of the library at `root`: from `CARRYON_MASTER_KEY` when set, else the
    /// file `CARRYON_MASTER_KEY_FILE` names (never created), else the library's `master.key`,
    /// created when missing.
    public static func forLibrary(at root: URL, environment: [String: String] = ProcessInfo.processInfo.environment) throws(CarryonError) -> MasterKey {
        if let text = environment["CARRYON_MASTER_KEY"], !text.isEmpty {
            guard let bytes = hexBytes(text), bytes.count == 32 else {
                throw CarryonError(.keys, "CARRYON_MASTER_KEY must be 64 hexadecimal digits (32 bytes)")
            }
            return try MasterKey(bytes: bytes)
        }
        if let path = environment["CARRYON_MASTER_KEY_FILE"], !path.isEmpty {
            guard access(path, F_OK) == 0 else {
                throw CarryonError(.keys, "CARRYON_MASTER_KEY_FILE names \(path), which does not exist; it is read, never made")
            }
            return try read(path, named: "CARRYON_MASTER_KEY_FILE's \(path)")
        }
        let path = root.appending(path: "master.key", directoryHint: .notDirectory).path
        if access(path, F_OK) != 0 {
            try create(at: path)
        }
        return try read(path, named: path)
    }

    /// The key in the file at `path`, called `name` in errors: 32 bytes, or 64 hexadecimal
    /// digits (a newline after them allowed), readable by its owner only.
    private static func read(_ path: String, named name: String) throws(CarryonError) -> MasterKey {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CarryonError(.keys, "cannot create or read the master key \(name): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw CarryonError(.keys, "\(name) is readable by other users (mode \(String(info.st_mode & 0o777, radix: 8))); chmod 600 it")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CarryonError(.keys, "cannot read the master key \(name): \(String(cString: strerror(errno)))")
        }
        if data.count == 32 { return try MasterKey(bytes: [UInt8](data)) }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard data.count <= 80, let bytes = hexBytes(text), bytes.count == 32 else {
            throw CarryonError(.keys, "\(name) is not a master key (32 bytes, or 64 hexadecimal digits); it has \(data.count) bytes")
        }
        return try MasterKey(bytes: bytes)
    }

    /// Writes 32 random bytes to `path` unless it exists, complete or not at all: into a
    /// temporary file (mode 0600) first, which is then linked into place. `link` fails when
    /// `path` exists, so of two processes creating it at once one wins and the other reads the
    /// winner's key; neither ever reads a half-written one.
    private static func create(at path: String) throws(CarryonError) {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let temporary = "\(path).\(getpid()).\(UInt64.random(in: 0...UInt64.max, using: &generator)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CarryonError(.keys, "cannot create the master key \(path): \(String(cString: strerror(errno)))")
        }
        defer { unlink(temporary) }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == 32, synced else {
            throw CarryonError(.keys, "cannot write the master key to \(path): \(String(cString: strerror(errno)))")
        }
        guard link(temporary, path) == 0 || errno == EEXIST else {
            throw CarryonError(.keys, "cannot create the master key \(path): \(String(cString: strerror(errno)))")
        }
    }

    static func hexBytes(_ text: String) -> [UInt8]? {
        Hex.bytes(text)
    }
}
