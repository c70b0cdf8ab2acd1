import AsyncHTTPClient
import Foundation
import HLS
import Logging
import NIOCore
import NIOFileSystem
import NIOHTTP1
#if canImport(Glibc)
import Glibc
#endif

/// Fetches one resource — a whole file or a byte range of one — into a partial file on disk,
/// streaming the body (never more than one chunk in memory), checking status, `Content-Range`
/// and length, retrying with ``RetryPolicy``, and resuming a partial file with `Range` and
/// `If-Range` where the server allows.
struct ResourceFetcher: Sendable {
    /// The clients requests go through (trust, proxies).
    let network: Network
    let headers: [HTTPHeader]
    let retry: RetryPolicy
    /// How long a request may go without finishing.
    let timeout: Duration
    let logger: Logger
    /// Which locations may be read: those the asset's stream may lead to.
    let rule: LocationRule
    /// How long a request may receive nothing, or less than 1 KB/s on average, before it is a
    /// failed attempt (see ``StallWatch``).
    let stallTimeout: Duration
    /// The storage rules each chunk is charged against before it is written; nil: none.
    var budget: ByteBudget? = nil
    /// Whether the stream's variants declare their bandwidth, which bounds how large a segment
    /// may grow (see ``ResourceRecord/growthLimit(bandwidthKnown:)``).
    var bandwidthKnown = false
    /// Other locations of the stream's files, tried when one fails; nil: none.
    var routes: FallbackRoutes? = nil
    /// The statuses that say a location has expired (a signed URL's time is up): answered
    /// with one, a fetch fails at once with ``CarryonError/Code/expired``, for the session to
    /// read the manifest again.
    var expiredStatuses: Set<Int> = Self.defaultExpiredStatuses
    /// The statuses that mean a signed URL expired unless a session says others: 401, 403, 410.
    static let defaultExpiredStatuses: Set<Int> = [401, 403, 410]
    /// Told when the server pushes back — 429, 503, a reset or refused connection — so that the
    /// task keeps fewer requests in flight (adaptive concurrency); nil: nobody listens.
    var pushedBack: (@Sendable () -> Void)? = nil
    /// The task's rate limit, shared by all its requests; nil: none. (Files read from disk are
    /// not limited: they use no link.)
    var rateLimit: RateLimit? = nil

    struct Validators: Sendable, Hashable {
        var etag: String?
        var lastModified: String?

        /// The value for `If-Range`: a strong ETag, else the date.
        var ifRange: String? {
            if let etag, !etag.hasPrefix("W/") { return etag }
            return lastModified
        }
    }

    struct Result: Sendable {
        /// The bytes in the partial file: the resource's length.
        var bytes: Int
        var validators: Validators
        /// How many requests it took.
        var attempts: Int
        /// The last response's status (nil when no request was needed, or for a local file).
        var status: Int? = nil
        /// Body bytes the last response carried.
        var transferred: Int = 0
        /// The URI that served it: the one asked for, or an alternative location (see
        /// ``Fallback``).
        var uri: String = ""
        /// The locations that failed before ``uri`` served it, each with its error.
        var failures: [(uri: String, error: CarryonError)] = []
        /// The SHA-256 of the bytes in the partial file (lowercase hex), computed as they were
        /// written (see ``RunningDigest``).
        var sha256: String = ""
    }

    /// What one successful request gave: the complete length, the response's status and the
    /// body bytes it carried.
    private struct Attempt: Sendable {
        var total: Int
        var status: Int?
        var received: Int
    }

    /// A reason to try again, or to give up.
    enum AttemptError: Error {
        case retry(String, retryAfter: Duration?)
        case fatal(CarryonError)
    }

    /// Fetches `uri` (the bytes `range` of it, or all of it) into `partPath`, continuing what is
    /// already there.
    ///
    /// - Parameters:
    ///   - validators: Validators from an earlier response, for `If-Range`.
    ///   - limit: The most bytes the resource may have when no byte range or `Content-Length`
    ///     bounds it (see ``ResourceRecord/growthLimit(bandwidthKnown:)``); past it, the
    ///     response is refused as wrong.
    ///   - progress: Called with each chunk's byte count as it is written (and with a negative
    ///     count when written bytes are discarded to restart).
    ///
    /// When it fails with the server's or the connection's error after its retries, and
    /// ``routes`` name other locations of it, each is tried in turn; the error then names every
    /// location tried.
    func fetch(_ uri: String, range: ClosedRange<Int>?, into partPath: String, validators: Validators,
               limit: Int = Int.max, progress: @escaping @Sendable (Int) -> Void) async throws -> Result {
        let candidates = routes?.candidates(for: uri) ?? [uri]
        var failures: [(uri: String, error: CarryonError)] = []
        for candidate in candidates {
            do {
                var result = try await fetchFrom(candidate, range: range, into: partPath, validators: validators, limit: limit, progress: progress)
                result.uri = candidate
                result.failures = failures
                routes?.worked(candidate, for: uri)
                return result
            } catch let error as CarryonError where candidates.count > 1 && [.transfer, .http, .expired].contains(error.code) {
                logger.warning("falling back", metadata: ["uri": "\(candidate)", "error": "\(error.message)"])
                failures.append((candidate, error))
            }
        }
        guard let last = failures.last else { throw CarryonError(.transfer, "\(uri): no location to fetch it from") }
        if failures.count == 1 { throw last.error }
        throw CarryonError(last.error.code, "every location of \(uri) failed: " + failures.map(\.error.message).joined(separator: "; "),
                           cause: last.error)
    }

    /// ``fetch(_:range:into:validators:limit:progress:)`` from `uri` alone.
    private func fetchFrom(_ uri: String, range: ClosedRange<Int>?, into partPath: String, validators: Validators,
                           limit: Int, progress: @escaping @Sendable (Int) -> Void) async throws -> Result {
        // Checked at plan time with the playlist's line; again here, where every resource is
        // read, so that nothing (an index written by an older release, a playback request)
        // reaches a file a remote stream names.
        try rule.check(uri, namedBy: nil)
        // One digest across the attempts: a retry that resumes after the bytes written goes on
        // hashing from them.
        let digest = RunningDigest()
        if URIReference.scheme(of: uri)?.lowercased() == "file" {
            let copied = try await copyLocal(uri, range: range, into: partPath, digest: digest, progress: progress)
            return Result(bytes: copied, validators: validators, attempts: 1, transferred: copied,
                          sha256: try await digest.finish(length: copied, path: partPath))
        }
        // Kept across attempts, also from an attempt that fails after its response's head: the
        // next one resumes with If-Range on them.
        let validators = Locked(validators)
        var attempt = 0
        var lastCause = ""
        while true {
            attempt += 1
            try Task.checkCancellation()
            do {
                let outcome = try await attemptFetch(uri, range: range, into: partPath, validators: validators, limit: limit,
                                                     digest: digest, progress: progress)
                return Result(bytes: outcome.total, validators: validators.withLock { $0 }, attempts: attempt,
                              status: outcome.status, transferred: outcome.received,
                              sha256: try await digest.finish(length: outcome.total, path: partPath))
            } catch let stall as StallError {
                lastCause = stall.description
                guard case .retry(let delay) = retry.decision(afterAttempt: attempt, randomUnit: Double.random(in: 0...1)) else {
                    throw CarryonError(.stalled, "\(uri): \(stall) (\(attempt) attempts); what arrived is kept for `resume`")
                }
                logger.debug("retrying", metadata: ["uri": "\(uri)", "attempt": "\(attempt)", "cause": "\(stall)", "delay": "\(delay)"])
                try await Task.sleep(for: delay)
            } catch let error as AttemptError {
                switch error {
                case .fatal(let error):
                    throw error
                case .retry(let cause, let retryAfter):
                    lastCause = cause
                    if retryAfter != nil || cause.contains(" 429 ") || cause.contains(" 503 ") { pushedBack?() }
                    let decision = retry.decision(afterAttempt: attempt, retryAfter: retryAfter, randomUnit: Double.random(in: 0...1))
                    guard case .retry(let delay) = decision else {
                        throw CarryonError(.transfer, retry.reason(decision, uri: uri, attempts: attempt, lastCause: lastCause))
                    }
                    logger.debug("retrying", metadata: ["uri": "\(uri)", "attempt": "\(attempt)", "cause": "\(cause)", "delay": "\(delay)"])
                    try await Task.sleep(for: delay)
                }
            } catch is CancellationError {
                throw CancellationError()
            } catch let error as CarryonError {
                throw error
            } catch {
                if Task.isCancelled { throw CancellationError() }
                let failure = await network.failure(error, url: uri)
                lastCause = failure.text
                pushedBack?()
                if failure.isPermanent {
                    throw CarryonError(failure.code, failure.message(uri), cause: error)
                }
                let decision = retry.decision(afterAttempt: attempt, randomUnit: Double.random(in: 0...1))
                guard case .retry(let delay) = decision else {
                    throw CarryonError(.transfer, retry.reason(decision, uri: uri, attempts: attempt, lastCause: lastCause), cause: error)
                }
                try await Task.sleep(for: delay)
            }
        }
    }

    /// One request. Returns the complete length on success, the response's status and the body
    /// bytes it carried.
    ///
    /// The stall meter is held while a chunk waits for the rate limit, and while this fetch
    /// decides on the response's head: the server is not slow then.
    private func attemptFetch(_ uri: String, range: ClosedRange<Int>?, into partPath: String, validators: Locked<Validators>,
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

        // A space in a URI (read leniently) is fetched as browsers fetch it, as %20.
        let request = try HTTPClient.Request(url: URIReference.encodingSpaces(uri), method: .GET, headers: headers)
        // From the request on, waiting for the head included: a server that accepts and never
        // answers is a stall.
        let meter = StallMeter(timeout: stallTimeout)
        let client = network.client(for: uri)
        let writer = ResponseWriter(eventLoop: client.eventLoopGroup.next(), meter: meter)
        let task = client.execute(request: request, delegate: writer, eventLoop: .delegate(on: writer.eventLoop))
        writer.follow(task)
        writer.timeHead(deadline: .now() + .nanoseconds(Int64(timeout / .nanoseconds(1))), HTTPClientError.deadlineExceeded) {
            task.cancel()
        }
        writer.watch { stall in
            task.fail(reason: StallError(stall: stall))
            writer.stop()
        }
        return try await withTaskCancellationHandler {
            try await receive(task, into: writer, uri: uri, range: range, partPath: partPath, existing: existing,
                              requestedStart: requestedStart, validators: validators, limit: limit, digest: digest) { bytes in
                meter.received(bytes)
                progress(bytes)
            }
        } onCancel: {
            task.cancel()
            writer.stop()
        }
    }

    /// The response to one request: its head decides where the body goes (or that it is not
    /// wanted), and `writer` writes the body there as it arrives.
    private func receive(_ task: HTTPClient.Task<Int>, into writer: ResponseWriter, uri: String, range: ClosedRange<Int>?,
                         partPath: String, existing: Int, requestedStart: Int?, validators: Locked<Validators>, limit: Int,
                         digest: RunningDigest, progress: @escaping @Sendable (Int) -> Void) async throws -> Attempt {
        let head = try await writer.head.get()
        let body: (offset: Int, expected: Int?)
        do {
            guard let placed = try await place(head, uri: uri, range: range, partPath: partPath, existing: existing,
                                               requestedStart: requestedStart, validators: validators, progress: progress) else {
                writer.refuse(CancellationError())
                task.cancel()
                return Attempt(total: existing, status: Int(head.status.code), received: 0)
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
        return Attempt(total: total, status: Int(head.status.code), received: received)
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

        if let refused = PlaylistFetcher.unfollowedRedirect(head.status, head.headers, from: uri) {
            throw AttemptError.fatal(refused)
        }
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
}

/// The status of a response that ended a fetch (the cause of its error): a recording tells a
/// segment gone from a live stream's window (404, 410) from other failures by it.
struct ResponseStatus: Error, Sendable {
    var code: Int

    /// Whether the resource is not there (any more).
    var isGone: Bool { code == 404 || code == 410 }
}
