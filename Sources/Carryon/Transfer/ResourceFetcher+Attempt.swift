import AsyncHTTPClient
import Foundation
import HLS
import NIOCore
import NIOFileSystem
import NIOHTTP1
#if canImport(Glibc)
import Glibc
#endif

/// One attempt at a resource: its request (and the redirects it follows, see ``RedirectChain``),
/// the response's head judged, and its body written where the head says.
extension ResourceFetcher {
    /// One request. Returns the complete length on success, the response's status and the body
    /// bytes it carried.
    ///
    /// The stall meter is held while a chunk waits for the rate limit, and while this fetch
    /// decides on the response's head: the server is not slow then.
    func attemptFetch(_ uri: String, range: ClosedRange<Int>?, into partPath: String, validators: Locked<Validators>,
                      limit: Int, digest: RunningDigest, progress: @escaping @Sendable (Int) -> Void) async throws -> Attempt {
        let path = FilePath(partPath)
        var existing = try fileSize(path)
        let expectedTotal = range?.count
        if let expectedTotal, existing > expectedTotal {
            // More than the range: not ours to keep.
            try await discard(path, existing, progress: progress)
            existing = 0
        }
        if let expectedTotal, existing == expectedTotal { return Attempt(total: existing, status: nil, received: 0) }

        var headers = HTTPHeaders()
        for header in self.headers { headers.add(name: header.name, value: header.value) }
        let requestedStart: Int?
        if let range {
            requestedStart = range.lowerBound + existing
            headers.replaceOrAdd(name: "Range", value: "bytes=\(range.lowerBound + existing)-\(range.upperBound)")
        } else if existing > 0 {
            requestedStart = existing
            headers.replaceOrAdd(name: "Range", value: "bytes=\(existing)-")
        } else {
            requestedStart = nil
        }
        if existing > 0, let ifRange = validators.withLock({ $0.ifRange }) {
            headers.replaceOrAdd(name: "If-Range", value: ifRange)
        }

        // Redirects are followed here, each location checked before it is asked (see
        // RedirectChain); every hop is a request of this attempt.
        var redirects = RedirectChain(from: uri, maximum: network.maximumRedirects, rule: rule)
        // One timeout for the heads of the whole chain: a chain of redirects is one request's time.
        let headDeadline = NIODeadline.now() + .nanoseconds(Int64(timeout / .nanoseconds(1)))
        while true {
            let target = redirects.current
            // A space in a URI (read leniently) is fetched as browsers fetch it, as %20.
            let request = try HTTPClient.Request(url: URIReference.encodingSpaces(target), method: .GET, headers: redirects.headers(headers))
            // From the request on, waiting for the head included: a server that accepts and
            // never answers is a stall.
            let meter = StallMeter(timeout: stallTimeout)
            let client = network.client(for: target)
            let writer = ResponseWriter(eventLoop: client.eventLoopGroup.next(), meter: meter)
            let task = client.execute(request: request, delegate: writer, eventLoop: .delegate(on: writer.eventLoop))
            writer.follow(task)
            writer.timeHead(deadline: headDeadline, HTTPClientError.deadlineExceeded) {
                task.cancel()
            }
            writer.watch { stall in
                task.fail(reason: StallError(stall: stall))
                writer.stop()
            }
            let answer: Answer
            do {
                answer = try await withTaskCancellationHandler {
                    try await receive(task, into: writer, uri: uri, range: range, partPath: partPath, existing: existing,
                                      requestedStart: requestedStart, validators: validators, limit: limit, digest: digest) { bytes in
                        meter.received(bytes)
                        progress(bytes)
                    }
                } onCancel: {
                    task.cancel()
                    writer.stop()
                }
            } catch let error where target != uri && !(error is CarryonError || error is AttemptError || error is StallError || error is CancellationError) {
                // The request itself failed (a connection, TLS, a proxy) where a redirect led:
                // its words are that host's and that proxy's, not the first URL's.
                throw RedirectedFailure(url: target, error: error)
            }
            switch answer {
            case .attempt(let attempt):
                return attempt
            case .redirect(let head):
                do { try redirects.follow(head.status, head.headers) } catch { throw AttemptError.fatal(error) }
            }
        }
    }

    /// What one request's answer came to: the attempt's result, or a redirect to follow.
    private enum Answer {
        case attempt(Attempt)
        case redirect(HTTPResponseHead)
    }

    /// The response to one request: its head decides where the body goes (or that it is not
    /// wanted, or that it redirects), and `writer` writes the body there as it arrives.
    private func receive(_ task: HTTPClient.Task<Int>, into writer: ResponseWriter, uri: String, range: ClosedRange<Int>?,
                         partPath: String, existing: Int, requestedStart: Int?, validators: Locked<Validators>, limit: Int,
                         digest: RunningDigest, progress: @escaping @Sendable (Int) -> Void) async throws -> Answer {
        let head = try await writer.head.get()
        if RedirectChain.isRedirect(head.status, head.headers) {
            // A short body is read and dropped, so that the connection serves the next hop;
            // one that has not all come within the drain time is cut off with its connection.
            if let length = head.headers.first(name: "content-length").flatMap(Int.init), length <= RedirectChain.drainedBody {
                writer.drop(upTo: RedirectChain.drainedBody)
                let cutOff = writer.eventLoop.scheduleTask(in: .init(RedirectChain.drainTime)) { task.cancel() }
                _ = try? await task.futureResult.get()
                cutOff.cancel()
            } else {
                writer.refuse(CancellationError())
                task.cancel()
            }
            try Task.checkCancellation()
            return .redirect(head)
        }
        let body: (offset: Int, expected: Int?)
        do {
            guard let placed = try await place(head, uri: uri, range: range, partPath: partPath, existing: existing,
                                               requestedStart: requestedStart, validators: validators, progress: progress) else {
                writer.refuse(CancellationError())
                task.cancel()
                return .attempt(Attempt(total: existing, status: Int(head.status.code), received: 0))
            }
            body = placed
            // The bytes kept before the body's (a partial file an earlier process left).
            try await digest.catchUp(to: body.offset, from: partPath)
        } catch {
            writer.refuse(error)
            task.cancel()
            throw error
        }
        let descriptor = open(partPath, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            let error = AttemptError.fatal(CarryonError(.disk, "writing \(partPath): \(code == ENOSPC ? "no space left on the device" : String(cString: strerror(code)))"))
            writer.refuse(error)
            task.cancel()
            throw error
        }
        writer.begin(.init(descriptor: descriptor, path: partPath, uri: uri, offset: body.offset, expected: body.expected, limit: limit,
                           budget: budget, rateLimit: rateLimit, progress: progress, digest: digest))
        let received: Int
        do {
            received = try await task.futureResult.get()
        } catch {
            await writer.close()
            Glibc.close(descriptor)
            throw error
        }
        // A request that succeeded has ended its writer: the client called didFinishRequest,
        // after the last chunk was written, on the writer's loop, before the result.
        Glibc.close(descriptor)
        let total = body.offset + received
        if let expected = body.expected, received < expected {
            throw AttemptError.retry("the body ended after \(received) of \(expected) bytes", retryAfter: nil)
        }
        if let expectedTotal = range?.count, total != expectedTotal {
            throw AttemptError.retry("got \(total) bytes of a \(expectedTotal)-byte range", retryAfter: nil)
        }
        return .attempt(Attempt(total: total, status: Int(head.status.code), received: received))
    }

    /// What a response's head means for its body: where in the partial file it goes and how
    /// long it says it is; nil when nothing needs to be read (everything is already there).
    /// Throws what to do otherwise: try again (and when), or give up.
    private func place(_ head: HTTPResponseHead, uri: String, range: ClosedRange<Int>?, partPath: String, existing: Int,
                       requestedStart: Int?, validators: Locked<Validators>,
                       progress: @Sendable (Int) -> Void) async throws -> (offset: Int, expected: Int?)? {
        let status = head.status.code
        validators.withLock { validators in
            if let etag = head.headers.first(name: "etag") { validators.etag = etag }
            if let modified = head.headers.first(name: "last-modified") { validators.lastModified = modified }
        }
        let retryAfter = RetryPolicy.retryAfter(head.headers.first(name: "retry-after"), now: Date().timeIntervalSince1970)

        switch status {
        case 206:
            guard let contentRange = head.headers.first(name: "content-range"),
                  let parsed = ContentRange(contentRange) else {
                throw AttemptError.retry("206 without a valid Content-Range", retryAfter: nil)
            }
            guard parsed.first == requestedStart else {
                throw AttemptError.retry("asked for bytes from \(requestedStart ?? 0), got \(contentRange)", retryAfter: nil)
            }
            if let range, parsed.last != range.upperBound {
                throw AttemptError.retry("asked for bytes up to \(range.upperBound), got \(contentRange)", retryAfter: nil)
            }
            return (existing, parsed.last - parsed.first + 1)
        case 200:
            if range != nil {
                throw AttemptError.fatal(CarryonError(.transfer, "\(uri): the server ignores byte ranges (200 instead of 206), so the segment cannot be cut out of the file"))
            }
            if existing > 0 {
                // The resource changed or the server will not resume: start over.
                try await discard(FilePath(partPath), existing, progress: progress)
            }
            return (0, head.headers.first(name: "content-length").flatMap(Int.init))
        case 416 where range == nil && existing > 0:
            // Perhaps everything was already written.
            if let contentRange = head.headers.first(name: "content-range"),
               let total = contentRange.split(separator: "/").last.flatMap({ Int($0) }), total == existing {
                return nil
            }
            try await discard(FilePath(partPath), existing, progress: progress)
            throw AttemptError.retry("416 for a partial file that does not match; starting over", retryAfter: nil)
        case let code where expiredStatuses.contains(Int(code)):
            throw AttemptError.fatal(CarryonError(.expired, "\(uri): the server answered \(status) \(head.status.reasonPhrase)"))
        case 408, 425, 429, 500...599:
            throw AttemptError.retry("the server answered \(status) \(head.status.reasonPhrase)", retryAfter: retryAfter)
        default:
            throw AttemptError.fatal(CarryonError(.transfer, "\(uri): the server answered \(status) \(head.status.reasonPhrase)",
                                                  cause: ResponseStatus(code: Int(status))))
        }
    }

    /// A request that failed at `url`, where a redirect from the resource's URI led.
    struct RedirectedFailure: Error {
        var url: String
        var error: any Error
    }
}
