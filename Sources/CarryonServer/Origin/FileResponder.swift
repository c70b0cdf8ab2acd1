import Foundation
import Hummingbird
import NIOCore

/// Answers GET and HEAD for files under a root folder.
struct FileResponder: Sendable {
    let root: String
    let fileIO = FileIO()

    /// The file a request path names, or nil when it would leave the root or is not a regular file.
    func file(forRequestPath rawPath: String) -> (path: String, size: Int, modified: Date)? {
        guard let decoded = rawPath.removingPercentEncoding, !decoded.contains("\0") else { return nil }
        let segments = decoded.split(separator: "/", omittingEmptySubsequences: true)
        guard !segments.contains(where: { $0 == ".." || $0 == "." }) else { return nil }
        let path = root + "/" + segments.joined(separator: "/")
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard resolved == root || resolved.hasPrefix(root + "/") else { return nil }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: resolved),
              attributes[.type] as? FileAttributeType == .typeRegular,
              let size = attributes[.size] as? Int
        else { return nil }
        return (resolved, size, attributes[.modificationDate] as? Date ?? Date(timeIntervalSince1970: 0))
    }

    func respond(to request: Request, context: some RequestContext, includeBody: Bool) async throws -> Response {
        guard let file = file(forRequestPath: request.uri.path) else {
            return Response(status: .notFound, headers: [.contentType: "text/plain"],
                            body: .init(byteBuffer: ByteBuffer(string: "not found\n")))
        }
        return try await Self.respond(file: file.path, size: file.size, modified: file.modified, to: request,
                                      context: context, includeBody: includeBody, fileIO: fileIO)
    }

    /// Answers `request` with bytes of the file at `path`, taken to be `size` bytes long (a
    /// file still being assembled may be shorter; the bytes asked for must be there): the whole
    /// file, or the range asked for (suffix ranges included), with validators, `If-Range` and
    /// the content type its extension gives.
    ///
    /// With `sendFile` (a plain HTTP connection), the body is left to the connection's
    /// ``FileRegionWriter``, which sends the bytes with `sendfile(2)`; otherwise they are read
    /// into buffers here.
    static func respond(file path: String, size: Int, modified: Date, to request: Request, context: some RequestContext,
                        includeBody: Bool, fileIO: FileIO, sendFile: Bool = false) async throws -> Response {
        let etag = "\"\(String(size, radix: 16))-\(String(Int(modified.timeIntervalSince1970 * 1000), radix: 16))\""
        var headers: HTTPFields = [
            .contentType: MediaTypes.contentType(forPath: path),
            .acceptRanges: "bytes",
            .eTag: etag,
            .lastModified: httpDate(modified),
        ]
        var range = HTTPRange(header: request.headers[.range], size: size)
        if let ifRange = request.headers[.ifRange], ifRange != etag, ifRange != httpDate(modified) {
            range = .whole
        }
        switch range {
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            headers[.contentLength] = "0"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        case .whole:
            headers[.contentLength] = String(size)
            guard includeBody, size > 0 else { return Response(status: .ok, headers: headers) }
            if sendFile {
                headers[.init(FileRegionWriter.header)!] = FileRegionWriter.value(path: path, offset: 0, count: size)
                return Response(status: .ok, headers: headers)
            }
            let body = try await fileIO.loadFile(path: path, range: 0...(size - 1), context: context)
            return Response(status: .ok, headers: headers, body: body)
        case .partial(let bytes):
            headers[.contentRange] = "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(size)"
            headers[.contentLength] = String(bytes.count)
            guard includeBody else { return Response(status: .partialContent, headers: headers) }
            if sendFile {
                headers[.init(FileRegionWriter.header)!] = FileRegionWriter.value(path: path, offset: bytes.lowerBound, count: bytes.count)
                return Response(status: .partialContent, headers: headers)
            }
            let body = try await fileIO.loadFile(path: path, range: bytes, context: context)
            return Response(status: .partialContent, headers: headers, body: body)
        }
    }
}

/// An IMF-fixdate (RFC 9110 section 5.6.7), e.g. `Sun, 06 Nov 1994 08:49:37 GMT`: written
/// from `gmtime_r(3)`'s fields, not by a `DateFormatter` made per call (two a request, which a
/// server answering thousands a second felt).
func httpDate(_ date: Date) -> String {
    var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let day = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][Int(parts.tm_wday)]
    let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][Int(parts.tm_mon)]
    return "\(day), \(two(parts.tm_mday)) \(month) \(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
}
