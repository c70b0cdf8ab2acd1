import Foundation
import NIOCore
import NIOFileSystem

/// Streams read from disk: a local file (or a range of it) copied into the partial file.
extension ResourceFetcher {
    /// Copies a local file (or a range of it) into the partial file: for streams read from disk.
    func copyLocal(_ uri: String, range: ClosedRange<Int>?, into partPath: String, digest: RunningDigest,
                   progress: @Sendable (Int) -> Void) async throws -> Int {
        // The checked path: with the rule's folders, the one its symbolic links lead to now.
        let url = URL(fileURLWithPath: try rule.filePath(uri))
        let source = FilePath(url.path)
        guard let info = try? await FileSystem.shared.info(forFileAt: source), info.type == .regular else {
            throw CarryonError(.file, "\(url.path): no such file or it cannot be read")
        }
        let size = Int(info.size)
        let bytes = range ?? 0...(max(size, 1) - 1)
        if size == 0 && range == nil {
            try await truncate(FilePath(partPath))
            return 0
        }
        guard bytes.upperBound < size else {
            throw CarryonError(.transfer, "\(url.path) has \(size) bytes, fewer than the range \(bytes.lowerBound)-\(bytes.upperBound) needs")
        }
        try await discard(FilePath(partPath), try fileSize(FilePath(partPath)), progress: progress)
        var copied = 0
        do {
            try await FileSystem.shared.withFileHandle(forReadingAt: source) { reader in
                try await FileSystem.shared.withFileHandle(forWritingAt: FilePath(partPath), options: .modifyFile(createIfNecessary: true)) { writer in
                    for try await chunk in reader.readChunks(in: Int64(bytes.lowerBound)...Int64(bytes.upperBound), chunkLength: .kibibytes(256)) {
                        try budget?.take(chunk.readableBytes, for: uri)
                        try await writer.write(contentsOf: chunk, toAbsoluteOffset: Int64(copied))
                        chunk.withUnsafeReadableBytes { digest.update($0, at: copied) }
                        copied += chunk.readableBytes
                        progress(chunk.readableBytes)
                    }
                }
            }
        } catch let error as FileSystemError where Self.isNoSpace(error) {
            throw CarryonError(.disk, "writing \(partPath): no space left on the device", cause: error)
        }
        return copied
    }

    /// Whether `error` is the file system's "no space left on the device".
    static func isNoSpace(_ error: FileSystemError) -> Bool {
        if let cause = error.cause as? FileSystemError.SystemCallError { return cause.errno == .noSpace }
        return "\(error)".contains("No space left")
    }
}
