import Foundation

/// A fresh folder under the system's temporary directory, removed when `body` returns.
public func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("carryon-test-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url)
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
