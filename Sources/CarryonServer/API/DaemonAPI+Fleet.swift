import Carryon
import Foundation

/// `GET /api/fleet`: the fleet's workers alive now, so that a caller about to queue a download
/// for the fleet (`"fleet": true`) knows whether anyone will run it.
extension DaemonAPI {
    /// The answer: every live worker, the longest-running first.
    struct FleetState: Encodable {
        var workers: [FleetWorker]
    }

    func fleetState() async throws -> FleetState {
        FleetState(workers: try await session.fleetWorkers())
    }
}
