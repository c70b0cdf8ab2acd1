import ArgumentParser
import CarryonServer

/// `--max-connections`, `--head-timeout`, `--idle-timeout` and `--send-timeout`: the ``ConnectionLimits`` of a
/// server, shared by `serve`, `play` and `origin`.
struct ConnectionLimitOptions: ParsableArguments {
    @Option(name: .customLong("max-connections"), help: ArgumentHelp(
        "The most connections open at once; one more is answered 503 and closed (raise `ulimit -n` with it).", valueName: "count"))
    var maxConnections: Int = ConnectionLimits().maximumConnections

    @Option(name: .customLong("head-timeout"), help: ArgumentHelp(
        "Seconds a client has to send a request's head (408 after); a body must then come at 1 KB/s or more.", valueName: "seconds"))
    var headTimeout: Int = Int(ConnectionLimits().headTimeout.components.seconds)

    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp(
        "Seconds a connection may wait idle for its next request before it is closed.", valueName: "seconds"))
    var idleTimeout: Int = Int(ConnectionLimits().idleTimeout.components.seconds)

    @Option(name: .customLong("send-timeout"), help: ArgumentHelp(
        "Seconds an answer may wait for its client to take any of it before the connection is closed.", valueName: "seconds"))
    var sendTimeout: Int = Int(ConnectionLimits().sendTimeout.components.seconds)

    func validate() throws {
        let most = ConnectionLimits.mostConnections
        let shortest = Int(ConnectionLimits.shortestTimeout.components.seconds), longest = Int(ConnectionLimits.longestTimeout.components.seconds)
        guard (1...most).contains(maxConnections) else { throw ValidationError("--max-connections must be between 1 and \(most) (got \(maxConnections))") }
        for (flag, seconds) in [("--head-timeout", headTimeout), ("--idle-timeout", idleTimeout), ("--send-timeout", sendTimeout)] where !(shortest...longest).contains(seconds) {
            throw ValidationError("\(flag) must be between \(shortest) and \(longest) seconds (got \(seconds))")
        }
    }

    /// The connection limits the options give.
    var limits: ConnectionLimits {
        ConnectionLimits(headTimeout: .seconds(headTimeout), idleTimeout: .seconds(idleTimeout), maximumConnections: maxConnections,
                         sendTimeout: .seconds(sendTimeout))
    }
}
