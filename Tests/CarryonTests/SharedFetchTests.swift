@testable import Carryon
import CarryonIndexTestSupport
import CarryonTestSupport
import Foundation
import Testing

/// A resource the download and a player both wait for is fetched once, and the fetch lasts as
/// long as anyone still waits for it: a player that goes away does not stop the download's
/// fetch, and a download that is suspended does not take the player's resource from it.
@Suite("A fetch shared by the download and a player")
struct SharedFetchTests {
    static let playlist = """
        #EXTM3U
        #EXT-X-VERSION:3
        #EXT-X-TARGETDURATION:4
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXTINF:4.0,
        slow.ts
        #EXTINF:4.0,
        quick.ts
        #EXT-X-ENDLIST

        """
    /// The first segment arrives over about three seconds: long enough for a player to join.
    static let slow = [UInt8](repeating: 0x47, count: 100)
    static let quick = [UInt8](repeating: 0x47, count: 188)

    /// An origin whose first segment trickles, a session fetching one request at a time, and
    /// a task whose transfer is fetching that segment; `body` gets the task and the segment's
    /// resource id.
    func withSlowFetch(_ body: (DownloadSession, DownloadTask, Int64) async throws -> Void) async throws {
        try await withTemporaryDirectory { folder in
            try await HostileOrigin.withRunning([
                "/main.m3u8": .body([UInt8](Self.playlist.utf8)),
                "/slow.ts": .trickle(Self.slow, every: .milliseconds(30)),
                "/quick.ts": .body(Self.quick),
            ]) { origin in
                let library = try OfflineLibrary(testingAt: folder.appendingPathComponent("library"))
                let session = try await DownloadSession(library: library, configuration: .init(maximumRequestsPerTask: 1))
                do {
                    let task = try await session.makeTask(url: origin.baseURL + "/main.m3u8")
                    try await task.resume()
                    try await until("the download asks for the slow segment") { origin.requests.contains { $0.contains("/slow.ts") } }
                    let id = try await library.index.resources(of: task.id).first { $0.uri.hasSuffix("/slow.ts") }?.id
                    try await body(session, task, try #require(id))
                } catch {
                    await session.shutdown()
                    throw error
                }
                await session.shutdown()
            }
        }
    }

    @Test("a player that goes away while it shares the download's fetch leaves the download fetching; it completes",
          .timeLimit(.minutes(1)))
    func playerLeaves() async throws {
        try await withSlowFetch { session, task, resource in
            let player = try await playerJoining(session, task, resource)
            player.cancel()
            await #expect(throws: CarryonError.self) { try await player.value }
            let state = try await finished(task, within: .seconds(20))
            #expect(state == .completed, "the task was left \(state.map(\.rawValue) ?? "unfinished") with nothing downloading")
            let snapshot = try await task.snapshot()
            #expect(snapshot.progress.resourcesDone == snapshot.progress.resourcesTotal)
        }
    }

    @Test("a download suspended while a player shares its fetch stops; the player still gets its resource",
          .timeLimit(.minutes(1)))
    func downloadLeaves() async throws {
        try await withSlowFetch { session, task, resource in
            let player = try await playerJoining(session, task, resource)
            try await task.suspend()
            #expect(try await finished(task, within: .seconds(5)) == .suspended)
            try await player.value
            let snapshot = try await task.snapshot()
            let name = try await session.library.index.resources([resource], of: task.id).first?.fileName
            let file = URL(fileURLWithPath: snapshot.bundlePath).appendingPathComponent(try #require(name))
            #expect(try Data(contentsOf: file) == Data(Self.slow))
        }
    }

    @Test("a session shut down while a player shares its fetch stops the fetch: shutdown returns, the player is told",
          .timeLimit(.minutes(1)))
    func sessionShutsDown() async throws {
        try await withSlowFetch { session, task, resource in
            let player = try await playerJoining(session, task, resource)
            let clock = ContinuousClock()
            let started = clock.now
            // The run is suspended and awaited; the player's fetch outlives it, and must end
            // before the session's client and event loops go.
            await session.shutdown()
            #expect(clock.now - started < .seconds(10), "shutdown waited \(clock.now - started)")
            await #expect(throws: (any Error).self) { try await player.value }
            await #expect(throws: CarryonError.self) { try await session.fetchNow(task.id, resources: [resource]) }
        }
    }

    /// A player asking for `resource` out of turn, once it has joined the download's fetch.
    func playerJoining(_ session: DownloadSession, _ task: DownloadTask, _ resource: Int64) async throws -> Task<Void, any Error> {
        let player = Task { try await session.fetchNow(task.id, resources: [resource]) }
        try await until("the player joins the fetch under way") { await session.waiters(of: resource) == 2 }
        return player
    }

    /// The task's state once it stops running, or nil when it is still running after `limit`.
    func finished(_ task: DownloadTask, within limit: Duration) async throws -> DownloadState? {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let state = try await task.snapshot().state
            if state != .running && state != .waiting { return state }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Polls `condition` every 20 ms for up to ten seconds.
    func until(_ what: String, _ condition: () async throws -> Bool) async throws {
        for _ in 0..<500 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("timed out waiting until \(what)")
        throw CancellationError()
    }
}

extension DownloadSession {
    /// How many wait for resource `id`'s fetch under way: the transfer, and players.
    func waiters(of id: Int64) -> Int { fetches.running[id]?.waiters.count ?? 0 }
}
