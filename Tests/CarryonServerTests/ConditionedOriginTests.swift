import AsyncHTTPClient
import CarryonServer
import CarryonTestSupport
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// What a client got: the head, the body bytes that arrived, and the error that ended the body
/// early, if one did.
private struct Fetched: Sendable {
    var status: UInt
    var headers: [String: String]
    var body: [UInt8]
    var error: (any Error)?
    var contentLength: Int? { headers["content-length"].flatMap { Int($0) } }
}

/// Reads a response to its end, keeping what arrived before an error instead of throwing it.
private func fetch(_ url: String, method: HTTPMethod = .GET, headers: [(String, String)] = []) async throws -> Fetched {
    var request = HTTPClientRequest(url: url)
    request.method = method
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
    var fields: [String: String] = [:]
    for header in response.headers { fields[header.name.lowercased()] = header.value }
    var body: [UInt8] = []
    do {
        for try await chunk in response.body { body.append(contentsOf: chunk.readableBytesView) }
        return Fetched(status: response.status.code, headers: fields, body: body, error: nil)
    } catch {
        return Fetched(status: response.status.code, headers: fields, body: body, error: error)
    }
}

/// A folder with a 200 000-byte segment of known bytes and a playlist, served with `profile`.
private func withConditionedOrigin<T: Sendable>(
    _ profile: LinkProfile, _ body: @Sendable (OriginHandle, [UInt8]) async throws -> T
) async throws -> T {
    let bytes: [UInt8] = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
    return try await withTemporaryDirectory { folder in
        try folder.write(bytes: bytes, to: "v/segment.ts")
        try folder.write("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\nsegment.ts\n#EXT-X-ENDLIST\n", to: "v/index.m3u8")
        return try await Origin(root: folder.path, profile: profile).withRunning { origin in
            try await body(origin, bytes)
        }
    }
}

private func elapsed(_ work: () async throws -> Void) async rethrows -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    try await work()
    return clock.now - start
}

@Suite("The conditioned origin: latency, bandwidth and seeded faults")
struct ConditionedOriginTests {
    @Test("a perfect link serves every response clean and byte for byte")
    func perfectLink() async throws {
        try await withConditionedOrigin(LinkProfile(seed: 99)) { origin, bytes in
            for _ in 0..<10 {
                let whole = try await fetch(origin.baseURL + "/v/segment.ts")
                #expect(whole.status == 200)
                #expect(whole.error == nil)
                #expect(whole.body == bytes)
                let part = try await fetch(origin.baseURL + "/v/segment.ts", headers: [("Range", "bytes=1000-1999")])
                #expect(part.status == 206)
                #expect(part.body == Array(bytes[1000...1999]))
            }
            #expect(await origin.requests().allSatisfy { $0.fault == nil && $0.isComplete })
        }
    }

    @Test("every response waits for the latency before its head")
    func latency() async throws {
        try await withConditionedOrigin(LinkProfile(latency: .milliseconds(150))) { origin, _ in
            let time = try await elapsed {
                let response = try await fetch(origin.baseURL + "/v/index.m3u8")
                #expect(response.status == 200)
            }
            #expect(time >= .milliseconds(150))
        }
    }

    @Test("the latency of one request does not hold up requests on other connections")
    func latencyIsPerRequest() async throws {
        try await withConditionedOrigin(LinkProfile(latency: .milliseconds(2000))) { origin, _ in
            let clock = ContinuousClock()
            let start = clock.now
            let arrivals = try await withThrowingTaskGroup(of: Duration.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let status = try await fetch(origin.baseURL + "/v/index.m3u8").status
                        #expect(status == 200)
                        return clock.now - start
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // One after another, the answers would arrive two seconds apart (a spread of six
            // seconds or more); side by side, together. Measuring the spread, not the total,
            // keeps a loaded machine's slow start out of it, and half the sequential spread
            // leaves it seconds to spare.
            let first = try #require(arrivals.min()), last = try #require(arrivals.max())
            #expect(first >= .milliseconds(2000))
            #expect(last - first < .milliseconds(4000), "answers arrived at \(arrivals.sorted())")
        }
    }

    @Test("a capped connection sends 200 KB at 1000 kB/s in no less than 0.15 s, byte for byte")
    func bandwidth() async throws {
        try await withConditionedOrigin(LinkProfile(bandwidth: 1_000_000)) { origin, bytes in
            var response: Fetched?
            let time = try await elapsed { response = try await fetch(origin.baseURL + "/v/segment.ts") }
            #expect(response?.body == bytes)
            #expect(time >= .milliseconds(150))
        }
    }

    @Test("a fail rate of 1 answers 503 with a Retry-After header, and HEAD too")
    func serviceUnavailable() async throws {
        try await withConditionedOrigin(LinkProfile(failRate: 1)) { origin, _ in
            let response = try await fetch(origin.baseURL + "/v/segment.ts")
            #expect(response.status == 503)
            #expect(response.headers["retry-after"] == "1")
            let head = try await fetch(origin.baseURL + "/v/segment.ts", method: .HEAD)
            #expect(head.status == 503)
            #expect(head.headers["retry-after"] == "1")
            let log = await origin.requests()
            #expect(log.map(\.fault) == [.serviceUnavailable, .serviceUnavailable])
            #expect(log.map(\.status) == [503, 503])
        }
    }

    @Test("Retry-After carries the profile's seconds")
    func retryAfter() async throws {
        try await withConditionedOrigin(LinkProfile(failRate: 1, retryAfterSeconds: 0)) { origin, _ in
            let response = try await fetch(origin.baseURL + "/v/segment.ts")
            #expect(response.status == 503)
            #expect(response.headers["retry-after"] == "0")
        }
    }

    @Test("a truncate rate of 1 sends less than Content-Length, then closes: the client reads a short body, then end of stream")
    func truncation() async throws {
        try await withConditionedOrigin(LinkProfile(truncateRate: 1)) { origin, bytes in
            let response = try await fetch(origin.baseURL + "/v/segment.ts")
            #expect(response.status == 200)
            #expect(response.contentLength == bytes.count)
            // An orderly close (FIN) before Content-Length: the HTTP parser sees the stream end early.
            #expect(response.error as? HTTPParserError == .invalidEOFState)
            #expect(response.body.count < bytes.count)
            // What did arrive is the start of the file, unchanged.
            #expect(response.body == Array(bytes.prefix(response.body.count)))
            let entry = try #require(await origin.requests().first)
            #expect(entry.fault == .truncatedBody)
            #expect(entry.bytesSent < bytes.count)
            #expect(!entry.isComplete)
        }
    }

    @Test("a truncated range response is cut too")
    func truncatedRange() async throws {
        try await withConditionedOrigin(LinkProfile(truncateRate: 1)) { origin, bytes in
            let response = try await fetch(origin.baseURL + "/v/segment.ts", headers: [("Range", "bytes=100-1099")])
            #expect(response.status == 206)
            #expect(response.error != nil)
            #expect(response.body.count < 1000)
            #expect(response.body == Array(bytes[100..<(100 + response.body.count)]))
        }
    }

    @Test("a reset rate of 1 resets the connection partway through the body: the client reads part, then ECONNRESET")
    func reset() async throws {
        // The cap makes the part sent arrive before the reset, which discards unsent data.
        try await withConditionedOrigin(LinkProfile(bandwidth: 2_000_000, resetRate: 1)) { origin, bytes in
            let response = try await fetch(origin.baseURL + "/v/segment.ts")
            #expect(response.status == 200)
            #expect(response.contentLength == bytes.count)
            #expect((response.error as? IOError)?.errnoCode == ECONNRESET)
            #expect(response.body.count < bytes.count)
            #expect(response.body == Array(bytes.prefix(response.body.count)))
            let entry = try #require(await origin.requests().first)
            #expect(entry.fault == .connectionReset)
            #expect(entry.bytesSent > 0)
            #expect(entry.bytesSent < bytes.count)
        }
    }

    @Test("a response without a body is not cut: HEAD and 404 come back clean")
    func nothingToCut() async throws {
        try await withConditionedOrigin(LinkProfile(resetRate: 0.5, truncateRate: 0.5)) { origin, bytes in
            let head = try await fetch(origin.baseURL + "/v/segment.ts", method: .HEAD)
            #expect(head.status == 200)
            #expect(head.contentLength == bytes.count)
            let missing = try await fetch(origin.baseURL + "/v/missing.ts")
            #expect(missing.status == 404)
            #expect(missing.error == nil)
            #expect(await origin.requests().allSatisfy { $0.fault == nil })
        }
    }

    @Test("the same seed gives the same faults on the same sequence of requests")
    func sameSeedSameFaults() async throws {
        let profile = LinkProfile(failRate: 0.3, resetRate: 0.2, truncateRate: 0.2, seed: 42)
        @Sendable func run(_ profile: LinkProfile) async throws -> [OriginRequest] {
            try await withConditionedOrigin(profile) { origin, _ in
                var seen: [String] = []
                for index in 0..<16 {
                    let path = index.isMultiple(of: 4) ? "/v/index.m3u8" : "/v/segment.ts"
                    let response = try await fetch(origin.baseURL + path)
                    seen.append("\(response.status) \(response.error == nil ? "whole" : "cut")")
                }
                let log = await origin.requests()
                // What the client saw agrees with the log.
                #expect(log.map { "\($0.status) \($0.isComplete ? "whole" : "cut")" } == seen)
                return log
            }
        }
        let first = try await run(profile)
        let second = try await run(profile)
        #expect(first == second)
        #expect(Set(first.compactMap(\.fault)).count == 3, "16 requests at these rates draw every kind of fault")
        var other = profile
        other.seed = 43
        let third = try await run(other)
        #expect(third.map(\.fault) != first.map(\.fault))
    }

    @Test("playlists can be spared the faults")
    func faultsOnPlaylists() async throws {
        try await withConditionedOrigin(LinkProfile(failRate: 1, faultsOnPlaylists: false)) { origin, _ in
            let playlist = try await fetch(origin.baseURL + "/v/index.m3u8")
            let segment = try await fetch(origin.baseURL + "/v/segment.ts")
            #expect(playlist.status == 200)
            #expect(segment.status == 503)
        }
        try await withConditionedOrigin(LinkProfile(failRate: 1)) { origin, _ in
            let playlist = try await fetch(origin.baseURL + "/v/index.m3u8")
            #expect(playlist.status == 503)
        }
    }

    @Test("the request log records each request's method, path, range, status, length and bytes sent")
    func requestLog() async throws {
        try await withConditionedOrigin(.perfect) { origin, bytes in
            _ = try await fetch(origin.baseURL + "/v/index.m3u8")
            _ = try await fetch(origin.baseURL + "/v/segment.ts", headers: [("Range", "bytes=10-19")])
            _ = try await fetch(origin.baseURL + "/v/segment.ts", method: .HEAD)
            _ = try await fetch(origin.baseURL + "/v/segment.ts")
            _ = try await fetch(origin.baseURL + "/nope.ts")
            let log = await origin.requests()
            #expect(log.map(\.sequence) == [0, 1, 2, 3, 4])
            #expect(log.map(\.method) == ["GET", "GET", "HEAD", "GET", "GET"])
            #expect(log.map(\.path) == ["/v/index.m3u8", "/v/segment.ts", "/v/segment.ts", "/v/segment.ts", "/nope.ts"])
            #expect(log.map(\.range) == [nil, "bytes=10-19", nil, nil, nil])
            #expect(log.map(\.status) == [200, 206, 200, 200, 404])
            #expect(log.map(\.contentLength) == [69, 10, bytes.count, bytes.count, 10])
            #expect(log.map(\.bytesSent) == [69, 10, 0, bytes.count, 10])
            #expect(log.allSatisfy { $0.fault == nil && $0.isComplete })
        }
    }
}
