import Foundation

extension AssetLogs {
    /// Asset `id`'s logs as JSON-ready entries: `"access"` and `"error"` (those asked for), each
    /// an array of entries keyed by the W3C field names, a field logged as `-` left out — what
    /// `carryon logs ID --json` prints and the daemon's `GET /api/assets/{id}/logs` answers. A
    /// log not written yet is an empty array. The log rotated out last (`error.log.1`) comes
    /// first.
    ///
    /// - Parameters:
    ///   - id: The asset.
    ///   - access: Whether the access log is read.
    ///   - error: Whether the error log is read.
    ///   - limit: The most entries of each log, the newest (after `skipping`); nil: all.
    ///   - skipping: Newest entries of each log left out: `limit` 100 and `skipping` 100 give
    ///     the hundred before the newest hundred.
    /// - Throws: ``CarryonError/Code/file`` naming the file when a log cannot be read as the
    ///   W3C Extended Log File Format (changed by hand, cut short).
    public func entries(of id: String, access: Bool = true, error: Bool = true, limit: Int? = nil,
                        skipping: Int = 0) throws(CarryonError) -> [String: [[String: String]]] {
        try page(of: id, access: access, error: error, limit: limit, skipping: skipping).entries
    }

    /// A page of asset `id`'s logs (see ``entries(of:access:error:limit:skipping:)``), with how
    /// many entries each log holds in all.
    public func page(of id: String, access: Bool = true, error: Bool = true, limit: Int? = nil,
                     skipping: Int = 0) throws(CarryonError) -> (entries: [String: [[String: String]]], totals: [String: Int]) {
        var result: [String: [[String: String]]] = [:]
        var totals: [String: Int] = [:]
        for (name, file, wanted) in [("access", accessLogURL(for: id), access), ("error", errorLogURL(for: id), error)] where wanted {
            var all: [[String: String]] = []
            for part in [rotatedURL(file), file] {
                guard let data = FileManager.default.contents(atPath: part.path) else { continue }
                do {
                    let log = try W3CLog(parsing: String(decoding: data, as: UTF8.self))
                    all += log.entries.map { $0.filter { $0.value != "-" } }
                } catch {
                    throw CarryonError(.file, "\(part.path): \(error)", cause: error)
                }
            }
            totals[name] = all.count
            let end = max(0, all.count - max(0, skipping))
            let start = limit.map { max(0, end - max(0, $0)) } ?? 0
            result[name] = Array(all[start..<end])
        }
        return (result, totals)
    }
}
