import AsyncHTTPClient
import NIOCore
import NIOHTTP1
#if canImport(Glibc)
import Glibc
#endif

/// One media response as ``ResourceFetcher`` receives it: the head goes to the fetch, which
/// decides what becomes of the body (``begin(_:)``, ``drop(upTo:)`` or ``refuse(_:)``); the
/// body is then written to the partial file chunk by chunk, on an event loop, as it arrives.
///
/// Each chunk is checked (against the length announced or allowed, and the storage budget),
/// paced by the task's rate limit, written with `pwrite(2)` at its place, handed to its digest
/// (hashed on a queue of its own, see ``RunningDigest``) and counted on ``eventLoop``, as curl
/// and nginx write what they read: no chunk waits for a task or a file-system thread to write
/// it, and none is held in memory once written and hashed. The client runs the request on a
/// connection of that loop when its pool has one free there, else on another of the
/// transfer's loops, which hands each chunk over. The loops are the downloads' own (see
/// ``DownloadSession/transferLoops``), so a disk slow to take writes slows the downloads, never
/// a server in the same process.
///
/// The client's calls run on ``eventLoop``, and the state is touched on that loop only;
/// ``head``, ``follow(_:)``, ``watch(stalled:)``, ``begin(_:)``, ``refuse(_:)``, ``stop()``
/// and ``close()`` may be called from anywhere.
final class ResponseWriter: HTTPClientResponseDelegate, @unchecked Sendable {
    /// Body bytes written.
    typealias Response = Int

    /// Where and how a body goes: what the fetch decided from the head.
    struct Body: Sendable {
        /// The partial file, open for writing, and its path (for errors).
        var descriptor: Int32
        var path: String
        /// The URI fetched, for errors.
        var uri: String
        /// Where the body's first byte goes in the file.
        var offset: Int
        /// The body's length, when the response says it (`Content-Length`, `Content-Range`).
        var expected: Int?
        /// The most bytes the file may reach when nothing bounds the body.
        var limit: Int
        var budget: ByteBudget?
        var rateLimit: RateLimit?
        /// Told each chunk's length once it is written (and tells the stall meter).
        var progress: @Sendable (Int) -> Void
        /// Hashes each chunk once it is written.
        var digest: RunningDigest
    }

    /// The loop the client calls this writer on.
    let eventLoop: any EventLoop
    /// What the request has received when, for the stall watch (see ``watch(stalled:)``).
    let meter: StallMeter
    private let headPromise: EventLoopPromise<HTTPResponseHead>
    private let goAhead: EventLoopPromise<Void>
    private var body: Body?
    /// The most body bytes dropped unread (a redirect's, see ``drop(upTo:)``); nil: none.
    private var dropping: Int?
    private var written = 0
    private var closed = false
    private var watchTimer: Scheduled<Void>?
    /// A chunk the rate limit holds back, written when its turn comes.
    private var heldWrite: Scheduled<Void>?

    init(eventLoop: any EventLoop, meter: StallMeter) {
        self.eventLoop = eventLoop
        self.meter = meter
        headPromise = eventLoop.makePromise()
        goAhead = eventLoop.makePromise()
    }

    /// The response's head, once it has arrived; fails with the request's error before it.
    var head: EventLoopFuture<HTTPResponseHead> { headPromise.futureResult }

    /// Fails ``head`` with `error` unless it arrives by `deadline` (then `onTimeout` runs, to
    /// cancel the request). Only the head is timed: a body takes as long as it takes while it
    /// keeps arriving (see ``StallWatch``).
    func timeHead(deadline: NIODeadline, _ error: any Error, onTimeout: @escaping @Sendable () -> Void) {
        let timer = eventLoop.scheduleTask(deadline: deadline) { [headPromise] in
            headPromise.fail(error)
            onTimeout()
        }
        head.whenComplete { _ in timer.cancel() }
    }

    /// Checks ``meter`` every ``StallMeter/interval``, on the loop, until the request ends or
    /// stalls; `stalled` is told of the stall (to end the request with it). The checks are
    /// those ``withStallDetection(_:_:)`` makes (see ``StallMeter/check(due:)``). The time
    /// between the head's arrival and the fetch's decision on it is the fetch's, not the
    /// server's: the meter is held meanwhile, so a process too busy to decide soon is no stall.
    func watch(stalled: @escaping @Sendable (StallWatch.Stall) -> Void) {
        eventLoop.execute { self.scheduleCheck(stalled: stalled) }
    }

    private func scheduleCheck(stalled: @escaping @Sendable (StallWatch.Stall) -> Void) {
        guard !closed else { return }
        let due = meter.now + meter.interval
        watchTimer = eventLoop.scheduleTask(in: .nanoseconds(Int64(meter.interval / .nanoseconds(1)))) {
            guard !self.closed else { return }
            if let stall = self.meter.check(due: due) {
                stalled(stall)
            } else {
                self.scheduleCheck(stalled: stalled)
            }
        }
    }

    /// Ends with `task`: when it fails, ``head`` fails with its error if it has not arrived.
    /// The client may fail a request without a word to its delegate (shut down while the
    /// request waits), which would otherwise leave the fetch waiting for a head until the
    /// timeout.
    func follow(_ task: HTTPClient.Task<Int>) {
        task.futureResult.whenFailure { [self] error in
            headPromise.fail(error)
            goAhead.fail(error)
            stop()
        }
    }

    /// Lets the body flow into `body`'s file.
    func begin(_ body: Body) {
        eventLoop.execute {
            self.body = body
            self.meter.release()
            self.goAhead.succeed(())
        }
    }

    /// Lets the body flow and drops it, up to `limit` bytes (a redirect's, read so that its
    /// connection can serve the next request); the request fails past that.
    func drop(upTo limit: Int) {
        eventLoop.execute {
            self.dropping = limit
            self.meter.release()
            self.goAhead.succeed(())
        }
    }

    /// Ends the request with `error` instead of reading its body.
    func refuse(_ error: any Error) {
        eventLoop.execute {
            self.meter.release()
            self.goAhead.fail(error)
        }
    }

    /// Stops every write, also one a rate limit holds back: after it the file descriptor is the
    /// caller's to close.
    func close() async {
        try? await eventLoop.submit { self.end() }.get()
    }

    /// Stops writing now, also a chunk the rate limit holds back (the request then fails): the
    /// fetch was cancelled or has failed.
    func stop() {
        if eventLoop.inEventLoop { end() } else { eventLoop.execute { self.end() } }
    }

    /// No more writes or stall checks: the request has ended, or its file is to be closed.
    private func end() {
        closed = true
        watchTimer?.cancel()
        watchTimer = nil
        heldWrite?.cancel()
        heldWrite = nil
    }

    // MARK: The client's calls

    func didReceiveHead(task: HTTPClient.Task<Int>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        // Until the fetch lets the body flow or refuses it, the wait is the fetch's.
        meter.hold()
        headPromise.succeed(head)
        return goAhead.futureResult
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Int>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let count = buffer.readableBytes
        if let dropping, !closed {
            written += count
            return written <= dropping ? eventLoop.makeSucceededVoidFuture() : eventLoop.makeFailedFuture(CancellationError())
        }
        guard let body, !closed else { return eventLoop.makeFailedFuture(CancellationError()) }
        do {
            try check(count, of: body)
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
        if let rateLimit = body.rateLimit {
            let wait = rateLimit.delay(for: count)
            if wait > .zero {
                // The wait is the limit's, not the server's: the stall watch does not count it.
                meter.hold()
                let held = eventLoop.scheduleTask(in: .nanoseconds(Int64(wait / .nanoseconds(1)))) {
                    self.meter.release()
                    self.heldWrite = nil
                    guard !self.closed else { throw CancellationError() }
                    try self.write(buffer, to: body)
                }
                heldWrite = held
                return held.futureResult
            }
        }
        do {
            try write(buffer, to: body)
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
        // A body that arrives faster than it is hashed waits for the digest, not memory.
        if body.digest.mustWait { return body.digest.drained(on: eventLoop) }
        return eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveError(task: HTTPClient.Task<Int>, _ error: any Error) {
        headPromise.fail(error)
        goAhead.fail(error)
        // Called off the loop when the client refuses the request before it starts.
        stop()
    }

    func didFinishRequest(task: HTTPClient.Task<Int>) throws -> Int {
        end()
        return written
    }

    // MARK: Writing

    /// Whether `count` more bytes may be written.
    private func check(_ count: Int, of body: Body) throws {
        if let expected = body.expected, written + count > expected {
            throw ResourceFetcher.AttemptError.retry("the body is longer than announced (\(expected) bytes)", retryAfter: nil)
        }
        if body.expected == nil, body.offset + written + count > body.limit {
            throw ResourceFetcher.AttemptError.fatal(CarryonError(.tooLarge, """
                \(body.uri): the response passed \(body.limit) bytes without an end, far more than the stream allows \
                for it (16 times its variant's bandwidth over its duration, or 2 GiB); refused as wrong
                """))
        }
        do throws(CarryonError) { try body.budget?.take(count, for: body.uri) } catch {
            throw ResourceFetcher.AttemptError.fatal(error)
        }
    }

    private func write(_ buffer: ByteBuffer, to body: Body) throws {
        let position = body.offset + written
        try buffer.withUnsafeReadableBytes { bytes in
            var done = 0
            while done < bytes.count {
                let result = pwrite(body.descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(position + done))
                if result < 0 {
                    let code = errno
                    if code == EINTR { continue }
                    let reason = code == ENOSPC ? "no space left on the device" : String(cString: strerror(code))
                    throw ResourceFetcher.AttemptError.fatal(CarryonError(.disk, "writing \(body.path): \(reason)"))
                }
                done += result
            }
        }
        body.digest.update(buffer, at: position)
        written += buffer.readableBytes
        body.progress(buffer.readableBytes)
    }
}
