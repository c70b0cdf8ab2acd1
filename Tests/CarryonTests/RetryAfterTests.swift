@testable import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// One retry rule for every request: a playlist and a segment whose server asks for a longer
/// `Retry-After` than Carryon waits are both given up at once, naming the wait; shorter ones
/// are waited and retried, for both alike.
@Suite("Retry-After, the same for playlists and media")
struct RetryAfterTests {
    /// Up to 4 attempts, 10 ms apart, and a `Retry-After` of at most 2 seconds honoured.
    static let retry = RetryPolicy(maximumAttempts: 4, baseDelay: .milliseconds(10), maximumDelay: .milliseconds(10), jitter: 0,
                                   maximumRetryAfter: .seconds(2))

    @Test("the decision: wait while attempts are left and the server's wait is within the maximum, else give up saying why")
    func decision() {
        #expect(Self.retry.decision(afterAttempt: 1, randomUnit: 0) == .retry(after: .milliseconds(10)))
        #expect(Self.retry.decision(afterAttempt: 1, retryAfter: .seconds(1), randomUnit: 0) == .retry(after: .seconds(1)))
        #expect(Self.retry.decision(afterAttempt: 1, retryAfter: .seconds(3_600), randomUnit: 0) == .retryAfterTooLong(.seconds(3_600)))
        #expect(Self.retry.decision(afterAttempt: 4, randomUnit: 0) == .attemptsUsed)
        #expect(Self.retry.decision(afterAttempt: 4, retryAfter: .seconds(3_600), randomUnit: 0) == .attemptsUsed)
    }

    static let busy = HostileOrigin.Answer.body(status: 503, headers: [("Retry-After", "3600")], Array("busy".utf8))

    @Test("a playlist whose server asks to retry in an hour fails at once, naming the wait, after one request", .timeLimit(.minutes(1)))
    func playlist() async throws {
        try await HostileOrigin.withRunning(["/main.m3u8": Self.busy]) { origin in
            let fetcher = PlaylistFetcher(client: PlaylistFetcher.sharedClient, retry: Self.retry)
            do {
                _ = try await fetcher.fetch(origin.baseURL + "/main.m3u8")
                Issue.record("a playlist answered 503 was read")
            } catch let error as CarryonError {
                #expect(error.message.hasSuffix("/main.m3u8: the server answered 503 Service Unavailable, and the server asks to retry after 3600 s, longer than the 2 s Carryon waits"),
                        "\(error.message)")
            }
            #expect(origin.requests == ["/main.m3u8"], "given up, not retried early: \(origin.requests)")
        }
    }

    @Test("a segment whose server asks to retry in an hour fails at once, naming the wait, after one request", .timeLimit(.minutes(1)))
    func segment() async throws {
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning(["/s1.ts": Self.busy]) { origin in
                let fetcher = ResourceFetcher(network: Network(client: PlaylistFetcher.sharedClient), headers: [], retry: Self.retry, timeout: .seconds(10),
                                              logger: .init(label: "test"), rule: .stream(origin.baseURL + "/main.m3u8"),
                                              stallTimeout: .seconds(10))
                do {
                    _ = try await fetcher.fetch(origin.baseURL + "/s1.ts", range: nil, into: folder.appendingPathComponent("s1.part").path,
                                                validators: .init()) { _ in }
                    Issue.record("a segment answered 503 was fetched")
                } catch let error as CarryonError {
                    #expect(error.message.hasSuffix("/s1.ts: the server answered 503 Service Unavailable, and the server asks to retry after 3600 s, longer than the 2 s Carryon waits"),
                            "\(error.message)")
                }
                #expect(origin.requests == ["/s1.ts"], "given up, not retried early: \(origin.requests)")
            }
        }
    }

    @Test("a playlist and a segment whose server asks for a wait within the maximum are retried after it", .timeLimit(.minutes(1)))
    func shortWaits() async throws {
        try await withTemporaryDirectory { folder in
            let soon = HostileOrigin.Answer.body(status: 503, headers: [("Retry-After", "1")], Array("busy".utf8))
            var retry = Self.retry
            retry.maximumAttempts = 2
            try await HostileOrigin.withRunning(["/main.m3u8": soon, "/s1.ts": soon]) { origin in
                let clock = ContinuousClock()
                let started = clock.now
                let playlist = PlaylistFetcher(client: PlaylistFetcher.sharedClient, retry: retry)
                await #expect(throws: CarryonError.self) { try await playlist.fetch(origin.baseURL + "/main.m3u8") }
                let media = ResourceFetcher(network: Network(client: PlaylistFetcher.sharedClient), headers: [], retry: retry, timeout: .seconds(10),
                                            logger: .init(label: "test"), rule: .stream(origin.baseURL + "/main.m3u8"), stallTimeout: .seconds(10))
                await #expect(throws: CarryonError.self) {
                    try await media.fetch(origin.baseURL + "/s1.ts", range: nil, into: folder.appendingPathComponent("s1.part").path,
                                          validators: .init()) { _ in }
                }
                #expect(origin.requests.filter { $0 == "/main.m3u8" }.count == 2 && origin.requests.filter { $0 == "/s1.ts" }.count == 2,
                        "\(origin.requests)")
                // A wait of a second for each of the two.
                #expect(clock.now - started >= .seconds(2))
            }
        }
    }
}
