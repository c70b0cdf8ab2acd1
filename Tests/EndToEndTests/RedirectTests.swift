import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Hummingbird
import ServiceLifecycle
import Testing

/// Redirects on the way to the origin, as CDNs answer with: a bounded chain is followed, and
/// relative URIs resolve against where the playlist really came from; a longer chain or a loop
/// fails the task with an error that says so.
@Suite("Following redirects", .heavy)
struct RedirectTests {
    /// Runs a redirector in front of `origin` for as long as `body` runs: `/hops/N/PATH`
    /// answers 302 to `/hops/N-1/PATH`, and `/hops/0/PATH` to the origin's `PATH`;
    /// `/loop/PATH` answers 302 to itself.
    func withRedirector<T: Sendable>(to origin: String, _ body: @Sendable (String) async throws -> T) async throws -> T {
        let router = Router()
        router.get("/hops/{count}/**") { request, context -> Response in
            let count = try context.parameters.require("count", as: Int.self)
            let rest = context.parameters.getCatchAll().joined(separator: "/")
            let target = count == 0 ? "\(origin)/\(rest)" : "/hops/\(count - 1)/\(rest)"
            return Response(status: .found, headers: [.location: target])
        }
        router.get("/loop/**") { request, _ -> Response in
            Response(status: .found, headers: [.location: request.uri.path])
        }
        let (ready, readyContinuation) = AsyncStream<Int>.makeStream()
        let app = Application(router: router, server: .http1ClosingDropped, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in
                                  readyContinuation.yield(channel.localAddress?.port ?? 0)
                                  readyContinuation.finish()
                              })
        let group = ServiceGroup(configuration: .init(services: [app], logger: app.logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ready.makeAsyncIterator()
            let port = try #require(await iterator.next())
            do {
                let result = try await body("http://127.0.0.1:\(port)")
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return result
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
        }
    }

    /// Downloads `path` of the redirector in front of the sample origin; returns the task's
    /// final snapshot and the origin's requests.
    func download(_ path: String) async throws -> (AssetSnapshot, [OriginRequest]) {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            return try await Origin(root: sampleMedia.path).withRunning { origin in
                try await withRedirector(to: origin.baseURL) { redirector in
                    let session = try await DownloadSession(library: library)
                    let task = try await session.makeTask(url: redirector + path,
                                                          options: DownloadOptions(maximumBitrate: 300_000, audio: .none, subtitles: .none))
                    try await task.resume()
                    _ = await task.waitUntilFinished()
                    let snapshot = try await task.snapshot()
                    await session.shutdown()
                    if snapshot.state == .completed, let playlist = snapshot.playlist {
                        // ffmpeg reads the bundle before the temporary library goes.
                        let decoded = try await ffmpegDecode(playlist, extraArguments: ["-allowed_extensions", "ALL"])
                        #expect(decoded.status == 0, "ffmpeg: \(decoded.standardError)")
                    }
                    let requests = await origin.requests()
                    return (snapshot, requests)
                }
            }
        }
    }

    @Test("a chain of five redirects is followed, and the stream's relative URIs resolve at the origin")
    func boundedChain() async throws {
        let (snapshot, requests) = try await download("/hops/4/fmp4/main.m3u8")
        #expect(snapshot.state == .completed, "\(snapshot.error ?? "")")
        #expect(requests.contains { $0.path == "/fmp4/main.m3u8" })
        #expect(requests.filter { $0.path.hasSuffix(".m4s") }.count > 0)
        #expect(snapshot.playlist != nil)
    }

    @Test("a chain longer than five redirects fails the task at once, saying so")
    func tooManyRedirects() async throws {
        let (snapshot, requests) = try await download("/hops/5/fmp4/main.m3u8")
        #expect(snapshot.state == .failed)
        #expect(snapshot.error?.contains("too many redirects") == true, "\(snapshot.error ?? "")")
        #expect(requests.isEmpty)
    }

    @Test("a redirect loop fails the task, saying so")
    func redirectLoop() async throws {
        let (snapshot, _) = try await download("/loop/fmp4/main.m3u8")
        #expect(snapshot.state == .failed)
        #expect(snapshot.error?.contains("redirect loop") == true, "\(snapshot.error ?? "")")
    }
}
