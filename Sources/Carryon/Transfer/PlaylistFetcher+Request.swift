import AsyncHTTPClient
import Foundation
import HLS
import NIOCore
import NIOHTTP1

/// One request for a playlist's (or a key's, or a licence's) bytes: through the redirects
/// Carryon follows itself, each location checked first (``RedirectChain``), under one timeout
/// for the whole chain and the stall watch, decoded when gzip'ed, bounded by
/// ``PlaylistFetcher/maximumPlaylistBytes``.
extension PlaylistFetcher {
    /// A failed attempt: the error to report, and whether another attempt may succeed.
    struct Failure: Error {
        var error: CarryonError
        var retryable: Bool
        var retryAfter: Duration?
    }

    /// A playlist's bytes as received, and the URL they came from after redirects.
    struct Body: Sendable {
        var url: String
        var bytes: [UInt8]
        /// The size of the whole resource, when the answer tells it.
        var size: Int64?
    }

    /// One request, ended as a stalled attempt when the server stops sending (``stallTimeout``).
    func watchedRequest(_ url: String, range: ClosedRange<Int64>?, post: Post?) async throws(Failure) -> Body {
        do {
            return try await withStallDetection(stallTimeout) { meter in
                try await self.requestBytes(url, range: range, post: post, meter: meter)
            }
        } catch let failure as Failure {
            throw failure
        } catch let stall as StallError {
            throw Failure(error: CarryonError(.stalled, "\(url): \(stall)"), retryable: true)
        } catch {
            throw Failure(error: CarryonError(.cancelled, "stopped"), retryable: false)
        }
    }

    private func requestBytes(_ url: String, range: ClosedRange<Int64>?, post: Post?, meter: StallMeter) async throws(Failure) -> Body {
        var headers = HTTPHeaders()
        for header in self.headers { headers.add(name: header.name, value: header.value) }
        if let post { headers.replaceOrAdd(name: "Content-Type", value: post.contentType) }
        if let range { headers.replaceOrAdd(name: "Range", value: "bytes=\(range.lowerBound)-\(range.upperBound)") }
        // As browsers and players ask: a long playlist is a tenth of its size gzip'ed.
        if range == nil, !headers.contains(name: "accept-encoding") {
            headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        }
        var post = post
        var redirects = RedirectChain(from: url, maximum: network.maximumRedirects, rule: rule)
        // One timeout for the whole chain: a chain of redirects is one request's time.
        let deadline = ContinuousClock.now + timeout
        var response: HTTPClientResponse
        while true {
            let target = redirects.current
            var request = HTTPClientRequest(url: URIReference.encodingSpaces(target))
            request.headers = redirects.headers(headers)
            if let post {
                request.method = .POST
                request.body = .bytes(ByteBuffer(bytes: post.body))
            }
            do {
                let left = max(deadline - ContinuousClock.now, .milliseconds(1))
                response = try await network.client(for: target).execute(request, timeout: .init(left))
            } catch {
                if error is CancellationError {
                    throw Failure(error: CarryonError(.http, "\(target): the request failed: \(Self.describe(error))", cause: error), retryable: false)
                }
                let failure = await network.failure(error, url: target)
                throw Failure(error: CarryonError(failure.code, failure.message(target), cause: error), retryable: !failure.isPermanent)
            }
            // Where a redirect leads is checked before it is asked for anything.
            do throws(CarryonError) {
                guard try redirects.follow(response.status, response.headers) != nil else { break }
            } catch {
                throw Failure(error: error, retryable: false)
            }
            if post != nil, RedirectChain.asksAgainAsGet(response.status) {
                post = nil
                headers.remove(name: "Content-Type")
            }
            await Self.drain(response)
        }
        let status = response.status.code
        guard (200..<300).contains(status) else {
            let retryable = status == 408 || status == 425 || status == 429 || status >= 500
            throw Failure(error: CarryonError(.http, "\(url): the server answered \(status) \(response.status.reasonPhrase)"),
                          retryable: retryable,
                          retryAfter: RetryPolicy.retryAfter(response.headers.first(name: "retry-after"), now: Date().timeIntervalSince1970))
        }
        if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > maximumPlaylistBytes {
            throw Failure(error: CarryonError(.tooLarge, "\(url): the playlist is \(length) bytes, more than the limit of \(maximumPlaylistBytes)"),
                          retryable: false)
        }
        // The limit applies to the decoded bytes: a gzip bomb stops there.
        let tooLarge = Failure(error: CarryonError(.tooLarge, "\(url): the playlist is larger than the limit of \(maximumPlaylistBytes) bytes"),
                               retryable: false)
        let inflater = try Self.inflater(for: response.headers.first(name: "content-encoding"), url: url)
        do {
            var bytes: [UInt8] = []
            var received = 0
            for try await chunk in response.body {
                meter.received(chunk.readableBytes)
                received += chunk.readableBytes
                if let inflater {
                    try inflater.decode(chunk) { piece in
                        guard bytes.count + piece.count <= maximumPlaylistBytes else { throw tooLarge }
                        bytes.append(contentsOf: piece)
                    }
                } else {
                    guard bytes.count + chunk.readableBytes <= maximumPlaylistBytes else { throw tooLarge }
                    bytes.append(contentsOf: chunk.readableBytesView)
                }
            }
            if let length = response.headers.first(name: "content-length").flatMap(Int.init), received != length {
                throw Failure(error: CarryonError(.http, "\(url): the body ended after \(received) of \(length) bytes"),
                              retryable: true)
            }
            try inflater?.finish()
            let finalURL = response.history.last?.request.url ?? redirects.current
            if let range, status != 206 {
                // The whole resource: the range cut from it.
                guard range.upperBound < Int64(bytes.count) else {
                    throw Failure(error: CarryonError(.http, "\(url): bytes \(range.lowerBound)-\(range.upperBound) asked for, but the resource has \(bytes.count)"),
                                  retryable: false)
                }
                return Body(url: finalURL, bytes: Array(bytes[Int(range.lowerBound)...Int(range.upperBound)]), size: Int64(bytes.count))
            }
            let total = status == 206 ? response.headers.first(name: "content-range").flatMap(ContentRange.init)?.total : bytes.count
            return Body(url: finalURL, bytes: bytes, size: inflater == nil ? total.map(Int64.init) : nil)
        } catch let failure as Inflater.Failure {
            throw Failure(error: CarryonError(.http, "\(url): sent with Content-Encoding \(response.headers.first(name: "content-encoding") ?? ""), but \(failure)"),
                          retryable: true)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(error: CarryonError(.http, "\(url): reading the response failed: \(Self.describe(error))", cause: error),
                          retryable: true)
        }
    }

    /// The decoder for a response's `Content-Encoding`: nil for none (or `identity`), zlib's
    /// inflate for `gzip`, `x-gzip` and `deflate`; any other coding is an error that names it.
    private static func inflater(for encoding: String?, url: String) throws(Failure) -> Inflater? {
        let codings = (encoding ?? "").lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && $0 != "identity" }
        guard !codings.isEmpty else { return nil }
        guard codings.count == 1, ["gzip", "x-gzip", "deflate"].contains(codings[0]) else {
            throw Failure(error: CarryonError(.http, "\(url): sent with Content-Encoding \(encoding ?? ""), which Carryon cannot decode (it asks for gzip or deflate)"),
                          retryable: false)
        }
        do { return try Inflater() } catch { throw Failure(error: CarryonError(.http, "\(url): \(error)"), retryable: false) }
    }

    /// Reads and drops a redirect's body when its `Content-Length` says it is at most
    /// ``RedirectChain/drainedBody`` bytes, so that its connection can serve the next request,
    /// for at most ``RedirectChain/drainTime``. Any other (longer, or of no stated length, which
    /// could dribble for as long as it likes) is not read: the response dropped, its request
    /// is cancelled.
    private static func drain(_ response: HTTPClientResponse) async {
        guard let length = response.headers.first(name: "content-length").flatMap(Int.init),
              length <= RedirectChain.drainedBody else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for try await _ in response.body {}
                } catch {}
            }
            group.addTask { try? await Task.sleep(for: RedirectChain.drainTime) }
            // Whichever ends first: the body read, or its time up (the read then cancelled,
            // and with it the request).
            await group.next()
            group.cancelAll()
        }
    }
}
