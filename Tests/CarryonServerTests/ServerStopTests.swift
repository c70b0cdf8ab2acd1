import Carryon
import CarryonServer
import CarryonTestSupport
import Foundation
import Testing

/// A server stopped while clients keep connecting stops; it does not take the process down.
///
/// Hummingbird drops the connections it accepted but had not yet served when the task running
/// it is cancelled, and each dropped connection trapped (`Deinited NIOAsyncWriter without
/// calling finish()`): a crash of the whole test process when a time limit cancelled a server
/// players were connecting to, and of `carryon serve` when SIGTERM met a burst of players.
/// Each round cancels (as a time limit does) or ends (as `withRunning`'s body returning does)
/// a server once 16 clients connecting in a loop have made 100 connections: the code before
/// crashed.
@Suite("Stopping a server while clients connect", .heavy)
struct ServerStopTests {
    static let rounds = 20

    /// Runs `serve` (a server's `withRunning`, handing its port to the body) `rounds` times,
    /// stopping it each time while 16 clients connect in a loop.
    private func stopWhileConnecting(cancelled: Bool,
                                     _ serve: @escaping @Sendable (@escaping @Sendable (Int) async throws -> Void) async throws -> Void) async throws {
        for round in 0..<Self.rounds {
            let (ports, portContinuation) = AsyncStream<Int>.makeStream()
            let (stop, stopContinuation) = AsyncStream<Void>.makeStream()
            let server = Task {
                // A server that fails before it listens ends the wait for its port.
                defer { portContinuation.finish() }
                try await serve { port in
                    portContinuation.yield(port)
                    for await _ in stop {}   // until told to stop, or cancelled
                }
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {
                try await server.value
                Issue.record("round \(round): the server stopped before it listened")
                return
            }
            let clients = ConnectingClients(port: port, count: 16, request: "GET /nothing HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            defer { clients.stop(); server.cancel() }
            let connected = try await clients.waitFor(connections: 100)
            if cancelled { server.cancel() } else { stopContinuation.finish() }
            _ = await server.result
            let made = clients.connections
            #expect(connected, "round \(round): the clients made \(made) connections, not 100, before the server stopped")
        }
    }

    /// The servers Carryon runs with Hummingbird.
    enum Server: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case origin = "the conditioned origin"
        case playback = "the playback server"

        var testDescription: String { rawValue }

        /// Runs this server on a library or folder in `folder` for as long as `body` runs,
        /// handing it the port.
        func withRunning(in folder: URL, _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
            switch self {
            case .origin:
                try await Origin(root: folder.path).withRunning { origin in
                    try await body(try #require(URL(string: origin.baseURL)?.port))
                }
            case .playback:
                let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
                try await PlaybackServer(source: PlaybackSource(library: library)).withRunning { server in
                    try await body(server.port)
                }
            }
        }
    }

    @Test("a server cancelled (as a time limit does) while clients connect stops without a crash, 20 times",
          arguments: Server.allCases)
    func cancelled(_ server: Server) async throws {
        try await withTemporaryDirectory { folder in
            try await stopWhileConnecting(cancelled: true) { body in try await server.withRunning(in: folder, body) }
        }
    }

    @Test("a server stopped gracefully while clients connect stops without a crash, 20 times", arguments: Server.allCases)
    func stopped(_ server: Server) async throws {
        try await withTemporaryDirectory { folder in
            try await stopWhileConnecting(cancelled: false) { body in try await server.withRunning(in: folder, body) }
        }
    }
}
