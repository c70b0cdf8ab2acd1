import Foundation

/// The session's events: every task's, to every subscriber (see `EventFanout`).
extension DownloadSession {
    /// A stream of every task's events from now on — of downloads other processes run in the
    /// same library too, whose state and progress the session reads from the index about twice
    /// a second while anyone listens. Each call makes a new stream.
    /// With `followingOtherProcesses` false, only the session's own tasks' events: what a
    /// worker prints (`carryon worker`).
    public func events(followingOtherProcesses: Bool = true) -> AsyncStream<DownloadEvent> {
        let stream = fanout.subscribe(followingOthers: followingOtherProcesses)
        startSteering()
        return stream
    }

    func emit(_ event: DownloadEvent) {
        fanout.emit(event)
    }
}
