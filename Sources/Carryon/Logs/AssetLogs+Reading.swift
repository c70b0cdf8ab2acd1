import Foundation

extension AssetLogs {
    /// Asset `id`'s logs as JSON-ready entries: `"access"` and `"error"` (those asked for), each
    /// an array of entries keyed by the W3C field names, a field logged as `-` left out — what
    /// `carryon logs ID --json` prints and the daemon's `GET /api/assets/{id}/logs` answers. A
    /// log not written yet is an empty array.
    ///
    /// - Throws: ``CarryonError/Code/file`` naming the file when a log cannot be read as the
    ///   W3C Extended Log File Format (changed by hand, cut short).
    public func entries(of id: String, access: Bool = true, error: Bool = true) throws(CarryonError) -> [String: [[String: String]]] {
        var result: [String: [[String: String]]] = [:]
        for (name, file, wanted) in [("access", accessLogURL(for: id), access), ("error", errorLogURL(for: id), error)] where wanted {
            guard let data = FileManager.default.contents(atPath: file.path) else {
                result[name] = []
                continue
            }
            do {
                let log = try W3CLog(parsing: String(decoding: data, as: UTF8.self))
                result[name] = log.entries.map { $0.filter { $0.value != "-" } }
            } catch {
                throw CarryonError(.file, "\(file.path): \(error)", cause: error)
            }
        }
        return result
    }
}
