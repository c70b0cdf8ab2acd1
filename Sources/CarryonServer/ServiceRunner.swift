import Logging
import ServiceLifecycle

/// Runs a server for as long as a body runs: starts `service`, waits for the handle it gives
/// once listening, runs `body` with it, and shuts the server down gracefully after — whether
/// `body` returned or threw.
///
/// `makeService` gets the callback the service calls once it listens.
func withRunningService<Handle: Sendable, T: Sendable>(
    logger: Logger,
    _ makeService: (@escaping @Sendable (Handle) async -> Void) -> some Service,
    _ body: @Sendable (Handle) async throws -> T
) async throws -> T {
    let (stream, continuation) = AsyncStream<Handle>.makeStream()
    let service = makeService { handle in continuation.yield(handle); continuation.finish() }
    var configuration = ServiceGroupConfiguration(services: [service], logger: logger)
    configuration.maximumGracefulShutdownDuration = shutdownGrace
    let group = ServiceGroup(configuration: configuration)
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        var iterator = stream.makeAsyncIterator()
        guard let handle = await iterator.next() else {
            // The server stopped before listening: its error says why.
            try await tasks.waitForAll()
            throw CancellationError()
        }
        do {
            let result = try await body(handle)
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

/// Runs `service` until the process receives SIGINT or SIGTERM, or the task is cancelled.
func runServiceUntilSignalled(_ service: some Service, logger: Logger) async throws {
    var configuration = ServiceGroupConfiguration(services: [service], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    configuration.maximumGracefulShutdownDuration = shutdownGrace
    try await ServiceGroup(configuration: configuration).run()
}

/// How long a stopping server lets responses in flight finish before it cancels them. A paced
/// body or a long latency could otherwise hold Ctrl-C, or the end of a test, for as long as the
/// slow link takes.
let shutdownGrace = Duration.milliseconds(500)
