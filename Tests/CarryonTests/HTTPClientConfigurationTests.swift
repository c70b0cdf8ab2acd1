import AsyncHTTPClient
@testable import Carryon
import CarryonTestSupport
import NIOCore
import Testing

/// How Carryon's HTTP client is set up, seen on real connections to a loopback origin.
@Suite("HTTP client configuration")
struct HTTPClientConfigurationTests {
    @Test("each HTTP/1.1 connection reads one buffer of up to 128 KiB per readable event, so a connection holds one, not four, for a slower writer")
    func oneReadPerEvent() async throws {
        let body = [UInt8](repeating: 0x47, count: 300_000)
        let origin = try HostileOrigin(["/a.ts": .body(body), "/b.ts": .body(body)])
        defer { origin.stop() }
        var configuration = HTTPClient.Configuration.carryon(connectionsPerHost: 2)
        let carryons = try #require(configuration.http1_1ConnectionDebugInitializer)
        let seen = Locked<[UInt]>([])
        let largest = Locked<[Int]>([])
        configuration.http1_1ConnectionDebugInitializer = { channel in
            carryons(channel).flatMap { channel.getOption(ChannelOptions.maxMessagesPerRead) }
                .map { reads in seen.withLock { $0.append(reads) } }
                .flatMap { () -> EventLoopFuture<any RecvByteBufferAllocator> in channel.getOption(ChannelOptions.recvAllocator) }
                .map { (allocator: any RecvByteBufferAllocator) in
                    largest.withLock { $0.append((allocator as? AdaptiveRecvByteBufferAllocator)?.maximum ?? 0) }
                }
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            for path in ["/a.ts", "/b.ts"] {
                let response = try await client.execute(HTTPClientRequest(url: origin.baseURL + path), timeout: .seconds(30))
                #expect(response.status == .ok)
                var received = 0
                for try await chunk in response.body { received += chunk.readableBytes }
                #expect(received == body.count, "the whole body still arrives")
            }
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
        // The origin answers one request per connection: two connections, each set up.
        #expect(seen.withLock { $0 } == [1, 1])
        #expect(HTTPClient.Configuration.readsPerEvent == 1)
        // Reads of up to 128 KiB: each is written to disk as it is read.
        #expect(largest.withLock { $0 } == [131_072, 131_072])
    }
}
