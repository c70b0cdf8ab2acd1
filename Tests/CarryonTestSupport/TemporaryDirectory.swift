import Foundation

/// A fresh folder under the system's temporary directory, removed when `body` returns.
public func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("carryon-test-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { removeTemporaryDirectory(url) }
    return try await body(url)
}

/// Removes `url` and all below it. A removal fails part-way when something below the folder
/// changes while it runs (a task or process the test stopped still closing its files), and
/// leaves the rest behind — full runs left a dozen libraries each in /tmp, their index and
/// logs — so it is tried again for a while; a folder that cannot be removed is named on
/// standard error.
func removeTemporaryDirectory(_ url: URL) {
    var lastError: (any Error)?
    for attempt in 0..<20 {
        do {
            try FileManager.default.removeItem(at: url)
            return
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) { return }
            lastError = error
            usleep(UInt32(50_000 * min(attempt + 1, 4)))
        }
    }
    FileHandle.standardError.write(Data("warning: \(url.path) is left behind: \(lastError.map { "\($0)" } ?? "")\n".utf8))
}

extension URL {
    /// Writes `text` as UTF-8 to the file `name` below this folder, creating subfolders.
    @discardableResult
    public func write(_ text: String, to name: String) throws -> URL {
        let file = appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        return file
    }

    /// Writes bytes to the file `name` below this folder, creating subfolders.
    @discardableResult
    public func write(bytes: [UInt8], to name: String) throws -> URL {
        let file = appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: file)
        return file
    }
}
