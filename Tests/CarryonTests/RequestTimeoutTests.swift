import AsyncHTTPClient
@testable import Carryon
import CarryonTestSupport
import Foundation
import Testing

/// A media request's timeout is the time its response's head may take: a body that keeps
/// arriving takes as long as it takes (the stall watch ends one that stops), however much longer
/// than the timeout that is.
@Suite("The request timeout, for media")
struct RequestTimeoutTests {
    static let retry = RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(10), maximumDelay: .milliseconds(10), jitter: 0)

    static func fetcher(_ origin: HostileOrigin, timeout: Duration = .seconds(1), stallTimeout: Duration = .seconds(10)) -> ResourceFetcher {
        ResourceFetcher(network: Network(client: PlaylistFetcher.sharedClient), headers: [], retry: retry, timeout: timeout,
                        logger: .init(label: "test"), rule: .stream(origin.baseURL + "/main.m3u8"), stallTimeout: stallTimeout)
    }

    @Test("a body that arrives steadily for twice the timeout is fetched whole", .timeLimit(.minutes(1)))
    func slowBody() async throws {
        let body = (0..<12_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try await withTemporaryDirectory { folder in
            // 2 s for the head (a loaded machine can take a second to answer), the body over 4.8 s.
            try await HostileOrigin.withRunning(["/s1.ts": .paced(body, chunk: 500, every: .milliseconds(200))]) { origin in
                let part = folder.appendingPathComponent("s1.part")
                let clock = ContinuousClock()
                let started = clock.now
                let result = try await Self.fetcher(origin, timeout: .seconds(2)).fetch(origin.baseURL + "/s1.ts", range: nil, into: part.path,
                                                                                        validators: .init()) { _ in }
                #expect(clock.now - started >= .seconds(4), "the body took twice the 2 s timeout")
                #expect(result.bytes == body.count && result.attempts == 1)
                #expect(try Data(contentsOf: part) == Data(body))
            }
        }
    }

    @Test("a segment that redirects in a loop fails at once, naming why, not after the timeout",
          .timeLimit(.minutes(3)))
    func clientEndsRequest() async throws {
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning([:]) { origin in
                origin.answer("/s1.ts", with: .redirect(origin.baseURL + "/s2.ts"))
                origin.answer("/s2.ts", with: .redirect(origin.baseURL + "/s1.ts"))
                // A timeout far beyond the bound below: the loop, refused at once, takes well under
                // a second alone, and took 21.6 s in a full run beside two busy loops on 2 cores.
                let fetcher = ResourceFetcher(network: Network(client: PlaylistFetcher.sharedClient), headers: [], retry: Self.retry, timeout: .seconds(120),
                                              logger: .init(label: "test"), rule: .stream(origin.baseURL + "/main.m3u8"),
                                              stallTimeout: .seconds(120))
                let clock = ContinuousClock()
                let started = clock.now
                do {
                    _ = try await fetcher.fetch(origin.baseURL + "/s1.ts", range: nil, into: folder.appendingPathComponent("s1.part").path,
                                                validators: .init()) { _ in }
                    Issue.record("a segment that redirects in a loop was fetched")
                } catch let error as CarryonError {
                    #expect(error.code == .http && error.message.contains("a redirect loop"), "\(error.code): \(error.message)")
                }
                #expect(clock.now - started < .seconds(60), "the 120 s timeout was not waited for")
                #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("s1.part").path))
            }
        }
    }

    @Test("a request the client ends without a response (the client shut down while it waits) fails at once, not after the timeout",
          .timeLimit(.minutes(3)))
    func clientShutDown() async throws {
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning(["/s1.ts": .silent]) { origin in
                let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .carryon())
                let fetcher = ResourceFetcher(network: Network(client: client), headers: [], retry: Self.retry, timeout: .seconds(120),
                                              logger: .init(label: "test"), rule: .stream(origin.baseURL + "/main.m3u8"),
                                              stallTimeout: .seconds(120))
                let clock = ContinuousClock()
                let started = clock.now
                async let fetched = fetcher.fetch(origin.baseURL + "/s1.ts", range: nil, into: folder.appendingPathComponent("s1.part").path,
                                                  validators: .init()) { _ in }
                for _ in 0..<1000 where origin.requests.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
                #expect(origin.requests == ["/s1.ts"], "the request reached the origin")
                try await client.shutdown()
                do {
                    _ = try await fetched
                    Issue.record("a request whose client shut down was fetched")
                } catch {
                    #expect(!(error is CancellationError), "\(error)")
                }
                #expect(clock.now - started < .seconds(60), "the 120 s timeout was not waited for")
            }
        }
    }

    @Test("a server that never answers fails each attempt after the timeout, saying so", .timeLimit(.minutes(3)))
    func silentHead() async throws {
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning(["/s1.ts": .silent]) { origin in
                let clock = ContinuousClock()
                let started = clock.now
                do {
                    // The stall watch far beyond the bound below: two attempts take 2 s alone,
                    // and took over 8 s in a full run beside two busy loops on 2 cores.
                    _ = try await Self.fetcher(origin, stallTimeout: .seconds(120)).fetch(origin.baseURL + "/s1.ts", range: nil,
                                                             into: folder.appendingPathComponent("s1.part").path, validators: .init()) { _ in }
                    Issue.record("a request that was never answered succeeded")
                } catch let error as CarryonError {
                    #expect(error.message.contains("the request timed out") && error.message.contains("2 attempts"), "\(error.message)")
                }
                let elapsed = clock.now - started
                #expect(elapsed >= .seconds(2) && elapsed < .seconds(60), "two attempts of 1 s each, long before the 120 s stall: \(elapsed)")
                #expect(origin.requests == ["/s1.ts", "/s1.ts"], "\(origin.requests)")
            }
        }
    }
}
