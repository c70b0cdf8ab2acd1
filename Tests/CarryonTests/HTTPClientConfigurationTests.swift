import AsyncHTTPClient
@testable import Carryon
import CarryonTestSupport
import NIOCore
import Testing

/// How Carryon's HTTP client is set up, seen on real connections to a loopback origin.
@Suite("HTTP client configuration")
struct HTTPClientConfigurationTests {
    @Test("each HTTP/1.1 connection reads one buffer per readable event, so a connection holds one, not four, for a slower writer")
    func oneReadPerEvent() async throws {
        let body = [UInt8](repeating: 0x47, count: 300_000)
        let origin = try HostileOrigin(["/a.ts": .body(body), "/b.ts": .body(body)])
        defer { origin.stop() }
        var configuration = HTTPClient.Configuration.carryon(connectionsPerHost: 2)
        let carryons = try #require(configuration.http1_1ConnectionDebugInitializer)
        let seen = Locked<[UInt]>([])
        configuration.http1_1ConnectionDebugInitializer = { channel in
            carryons(channel).flatMap { channel.getOption(ChannelOptions.maxMessagesPerRead) }
                .map { reads in seen.withLock { $0.append(reads) } }
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
    }
}
