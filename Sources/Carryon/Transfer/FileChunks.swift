import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file's bytes read in order, a mebibyte at a time, with `pread(2)`: for what reads a
/// bundle's files whole (a digest catching up, `verify`), never holding more than one chunk.
enum FileChunks {
    static let chunkLength = 1 << 20

    /// Calls `body` with bytes `start..<end` of the file at `path`, in order, a chunk at a time.
    /// Throws ``CarryonError/Code/disk`` when the file cannot be read or ends before `end`.
    static func read(_ path: String, from start: Int, to end: Int, _ body: (UnsafeRawBufferPointer) -> Void) throws(CarryonError) {
        guard end > start else { return }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CarryonError(.disk, "reading \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkLength, alignment: 16)
        defer { buffer.deallocate() }
        var position = start
        while position < end {
            let count = pread(descriptor, buffer.baseAddress!, min(chunkLength, end - position), off_t(position))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let reason = count == 0 ? "it ends at \(position) bytes, before \(end)" : String(cString: strerror(errno))
                throw CarryonError(.disk, "reading \(path): \(reason)")
            }
            body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            position += count
        }
    }
}
