import Foundation

/// Playlists read from disk: a local file whole, or a range of it, from the path the fetcher's
/// rule checked.
extension PlaylistFetcher {
    /// Bytes `range` of a local file.
    func readFile(_ url: String, range: ClosedRange<Int64>) throws(CarryonError) -> [UInt8] {
        let fileURL = URL(fileURLWithPath: try rule.filePath(url))
        guard range.count <= maximumPlaylistBytes else {
            throw CarryonError(.tooLarge, "\(fileURL.path): bytes \(range.lowerBound)-\(range.upperBound) are more than the limit of \(maximumPlaylistBytes)")
        }
        do {
            let handle = try FileHandle(forReadingFrom: fileURL)
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(range.lowerBound))
            let data = try handle.read(upToCount: range.count) ?? Data()
            guard data.count == range.count else {
                throw CarryonError(.file, "\(fileURL.path): bytes \(range.lowerBound)-\(range.upperBound) asked for, but the file ends before")
            }
            return [UInt8](data)
        } catch let error as CarryonError {
            throw error
        } catch {
            throw CarryonError(.file, "\(fileURL.path): no such file or it cannot be read")
        }
    }

    /// The size of the file `url` names.
    func fileSize(_ url: String) throws(CarryonError) -> Int64 {
        let path = try rule.filePath(url)
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int else {
            throw CarryonError(.file, "\(path): no such file or it cannot be read")
        }
        return Int64(size)
    }

    func readFile(_ url: String) throws(CarryonError) -> [UInt8] {
        // The checked path: with the rule's folders, the one its symbolic links lead to now.
        let path = try rule.filePath(url)
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw CarryonError(.file, "\(path): no such file or it cannot be read")
        }
        if attributes[.type] as? FileAttributeType == .typeDirectory {
            throw CarryonError(.file, "\(path) is a directory, not a playlist")
        }
        if let size = attributes[.size] as? Int, size > maximumPlaylistBytes {
            throw CarryonError(.tooLarge, "\(path): the playlist is \(size) bytes, more than the limit of \(maximumPlaylistBytes)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CarryonError(.file, "\(path): the file cannot be read")
        }
        return [UInt8](data)
    }
}
