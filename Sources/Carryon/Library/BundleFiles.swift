import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing into a bundle: every file goes to a temporary name first and is renamed into place
/// when complete, so a crash never leaves a half-written file under its final name.
enum BundleFiles {
    /// Writes `data` to `url` atomically (temporary file + rename), creating folders.
    static func write(_ data: Data, to url: URL) throws(CarryonError) {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let temporary = url.deletingLastPathComponent().appending(path: ".\(url.lastPathComponent).tmp", directoryHint: .notDirectory)
            try data.write(to: temporary)
            try rename(temporary, to: url)
        } catch let error as CarryonError {
            throw error
        } catch {
            throw CarryonError(.disk, "cannot write \(url.path): \(error.localizedDescription)", cause: error)
        }
    }

    /// Writes `bytes` as ``write(_:to:)`` does, without copying them into a `Data` first (a
    /// million-segment playlist is tens of megabytes).
    static func write(bytes: [UInt8], to url: URL) throws(CarryonError) {
        let result: Result<Void, CarryonError> = bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0 else { return Result { () throws(CarryonError) in try write(Data(), to: url) } }
            let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: raw.count, deallocator: .none)
            return Result { () throws(CarryonError) in try write(data, to: url) }
        }
        try result.get()
    }

    /// Writes the UTF-8 of `text` as ``write(_:to:)`` does, without copying it first.
    static func write(text: String, to url: URL) throws(CarryonError) {
        var text = text
        let result: Result<Void, CarryonError> = text.withUTF8 { utf8 in
            guard let base = utf8.baseAddress, utf8.count > 0 else { return Result { () throws(CarryonError) in try write(Data(), to: url) } }
            let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: utf8.count, deallocator: .none)
            return Result { () throws(CarryonError) in try write(data, to: url) }
        }
        try result.get()
    }

    /// Appends `data` to the file at `url` (created when missing) in one write(2), so that a
    /// crash leaves its last line whole or cut short, never interleaved: for a journal whose
    /// reader drops a line without its line break.
    static func append(_ data: Data, to url: URL) throws(CarryonError) {
        let descriptor = Glibc.open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            throw CarryonError(.disk, "cannot open \(url.path) to append to it: \(String(cString: strerror(code)))")
        }
        defer { close(descriptor) }
        let before = lseek(descriptor, 0, SEEK_END)
        let written = data.withUnsafeBytes { raw in raw.baseAddress.map { Glibc.write(descriptor, $0, raw.count) } ?? 0 }
        guard written == data.count else {
            let code = errno
            // What a short write (a full disk) wrote goes, so that the next line does not
            // continue it.
            if before >= 0 { _ = ftruncate(descriptor, before) }
            throw CarryonError(.disk, "cannot append to \(url.path): \(written < 0 ? String(cString: strerror(code)) : "\(written) of \(data.count) bytes written")")
        }
    }

    /// Renames `source` to `destination`, replacing it (rename(2): atomic on one file system).
    static func rename(_ source: URL, to destination: URL) throws(CarryonError) {
        if Glibc.rename(source.path, destination.path) != 0 {
            let code = errno
            throw CarryonError(.disk, "cannot move \(source.path) to \(destination.path): \(String(cString: strerror(code)))")
        }
    }

    /// The size of a file, or nil when it does not exist.
    static func size(of url: URL) -> Int? {
        size(atPath: url.path)
    }

    /// The size of the file at `path`, or nil when there is none.
    static func size(atPath path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    /// The bytes of every regular file under `folder`, by the first path component below it
    /// (a rendition's folder, or the file's own name at the top): lstat(2) over readdir(3),
    /// without Foundation's per-file URL objects, and never following a symbolic link.
    static func usage(of folder: URL) -> [String: Int] {
        var usage: [String: Int] = [:]
        walk(folder.path) { relative, bytes in
            let top = relative.split(separator: "/", maxSplits: 1).first.map(String.init) ?? relative
            usage[top, default: 0] += bytes
        }
        return usage
    }

    /// The bytes of every regular file under `folder`.
    static func totalUsage(of folder: URL) -> Int {
        usage(of: folder).values.reduce(0, +)
    }

    private static func walk(_ path: String, prefix: String = "", _ visit: (String, Int) -> Void) {
        guard let directory = opendir(path) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            let child = path + "/" + name
            var info = stat()
            guard lstat(child, &info) == 0 else { continue }
            let relative = prefix.isEmpty ? name : prefix + "/" + name
            switch info.st_mode & S_IFMT {
            case S_IFDIR: walk(child, prefix: relative, visit)
            case S_IFREG: visit(relative, Int(info.st_size))
            default: continue
            }
        }
    }
}
