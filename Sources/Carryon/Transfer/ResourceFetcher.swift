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
    struct Attempt: Sendable {
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
                let redirected = error as? RedirectedFailure
                var failure = await network.failure(redirected?.error ?? error, url: redirected?.url ?? uri)
                if let redirected { failure.text = "at \(redirected.url), where a redirect led: \(failure.text)" }
                lastCause = failure.text
                pushedBack?()
                if failure.isPermanent {
                    throw CarryonError(failure.code, failure.message(uri), cause: redirected?.error ?? error)
                }
                let decision = retry.decision(afterAttempt: attempt, randomUnit: Double.random(in: 0...1))
                guard case .retry(let delay) = decision else {
                    throw CarryonError(.transfer, retry.reason(decision, uri: uri, attempts: attempt, lastCause: lastCause),
                                       cause: redirected?.error ?? error)
                }
                try await Task.sleep(for: delay)
            }
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
