@testable import Carryon
import Testing

/// Every event of ``DownloadTaskStateMachine`` in every state: the state it leads to and what the
/// session must do, or that it is refused.
@Suite("A download task's life cycle")
struct DownloadTaskStateMachineTests {
    typealias Machine = DownloadTaskStateMachine

    // MARK: resume

    @Test("resuming a suspended or failed task puts it back in the queue", arguments: [DownloadState.suspended, .failed])
    func resumeQueues(from state: DownloadState) throws {
        var machine = Machine(state: state)
        #expect(try machine.resume() == .enqueue)
        #expect(machine.state == .waiting)
    }

    @Test("resuming a waiting task keeps it waiting and queued")
    func resumeWaiting() throws {
        var machine = Machine(state: .waiting)
        #expect(try machine.resume() == .enqueue)
        #expect(machine.state == .waiting)
    }

    @Test("resuming a running or completed task changes nothing", arguments: [DownloadState.running, .completed])
    func resumeNoOp(from state: DownloadState) throws {
        var machine = Machine(state: state)
        #expect(try machine.resume() == .none)
        #expect(machine.state == state)
    }

    @Test("a cancelled task cannot be resumed")
    func resumeCancelled() {
        var machine = Machine(state: .cancelled)
        let error = #expect(throws: Machine.InvalidTransition.self) { try machine.resume() }
        #expect(error == Machine.InvalidTransition(state: .cancelled, event: "resume"))
        #expect(error?.description == "cannot resume a task that is cancelled")
        #expect(machine.state == .cancelled)
    }

    // MARK: start

    @Test("starting a waiting task runs it")
    func startWaiting() throws {
        var machine = Machine(state: .waiting)
        #expect(try machine.start() == .startTransfer)
        #expect(machine.state == .running)
    }

    @Test("only a waiting task can start", arguments: DownloadState.allCases.filter { $0 != .waiting })
    func startRefused(from state: DownloadState) {
        var machine = Machine(state: state)
        let error = #expect(throws: Machine.InvalidTransition.self) { try machine.start() }
        #expect(error?.event == "start")
        #expect(machine.state == state)
    }

    // MARK: suspend

    @Test("suspending a waiting task takes it out of the queue with nothing to stop")
    func suspendWaiting() {
        var machine = Machine(state: .waiting)
        #expect(machine.suspend() == .none)
        #expect(machine.state == .suspended)
    }

    @Test("suspending a running task stops its transfer")
    func suspendRunning() {
        var machine = Machine(state: .running)
        #expect(machine.suspend() == .stopTransfer)
        #expect(machine.state == .suspended)
    }

    @Test("suspending a task that is not waiting or running changes nothing",
          arguments: [DownloadState.suspended, .completed, .failed, .cancelled])
    func suspendNoOp(from state: DownloadState) {
        var machine = Machine(state: state)
        #expect(machine.suspend() == .none)
        #expect(machine.state == state)
    }

    // MARK: cancel

    @Test("cancelling a task that is not finished stops it and removes its data",
          arguments: [DownloadState.waiting, .running, .suspended, .failed])
    func cancelRemovesData(from state: DownloadState) throws {
        var machine = Machine(state: state)
        #expect(try machine.cancel() == .stopAndRemoveData)
        #expect(machine.state == .cancelled)
    }

    @Test("cancelling a cancelled task again changes nothing")
    func cancelTwice() throws {
        var machine = Machine(state: .cancelled)
        #expect(try machine.cancel() == .none)
        #expect(machine.state == .cancelled)
    }

    @Test("a completed task cannot be cancelled (it is deleted instead)")
    func cancelCompleted() {
        var machine = Machine(state: .completed)
        let error = #expect(throws: Machine.InvalidTransition.self) { try machine.cancel() }
        #expect(error == Machine.InvalidTransition(state: .completed, event: "cancel"))
        #expect(machine.state == .completed)
    }

    // MARK: complete

    @Test("a running task completes and its outcome is recorded")
    func completeRunning() throws {
        var machine = Machine(state: .running)
        #expect(try machine.complete() == .finish)
        #expect(machine.state == .completed)
    }

    @Test("only a running task can complete", arguments: DownloadState.allCases.filter { $0 != .running })
    func completeRefused(from state: DownloadState) {
        var machine = Machine(state: state)
        let error = #expect(throws: Machine.InvalidTransition.self) { try machine.complete() }
        #expect(error?.event == "complete")
        #expect(machine.state == state)
    }

    // MARK: fail

    @Test("a running task fails and its outcome is recorded")
    func failRunning() {
        var machine = Machine(state: .running)
        #expect(machine.fail() == .finish)
        #expect(machine.state == .failed)
    }

    @Test("an error reported for a task that is not running changes nothing (it was suspended or cancelled first)",
          arguments: DownloadState.allCases.filter { $0 != .running })
    func failIgnored(from state: DownloadState) {
        var machine = Machine(state: state)
        #expect(machine.fail() == .none)
        #expect(machine.state == state)
    }

    // MARK: recoverAfterCrash

    @Test("a task recorded as running when its process died comes back suspended")
    func recoverRunning() {
        var machine = Machine(state: .running)
        #expect(machine.recoverAfterCrash() == .none)
        #expect(machine.state == .suspended)
    }

    @Test("recovery leaves a task in any other state as it was", arguments: DownloadState.allCases.filter { $0 != .running })
    func recoverOthers(from state: DownloadState) {
        var machine = Machine(state: state)
        #expect(machine.recoverAfterCrash() == .none)
        #expect(machine.state == state)
    }

    @Test("a repair or added media suspends a task that had stopped, ready to fetch", arguments: [DownloadState.completed, .suspended, .failed])
    func readyToFetchMore(from state: DownloadState) throws {
        var repaired = Machine(state: state)
        #expect(try repaired.repair() == .none && repaired.state == .suspended)
        var added = Machine(state: state)
        #expect(try added.addMedia() == .none && added.state == .suspended)
    }

    @Test("a task waiting, running or cancelled is not repaired, and says so", arguments: [DownloadState.waiting, .running, .cancelled])
    func repairRefused(from state: DownloadState) {
        var machine = Machine(state: state)
        #expect(throws: Machine.InvalidTransition(state: state, event: "repair")) { try machine.repair() }
        #expect(machine.state == state)
    }

    // MARK: A whole life

    @Test("a task can be suspended while running, resumed, failed, resumed again and completed")
    func wholeLife() throws {
        var machine = Machine(state: .suspended)
        var actions: [Machine.Action] = []
        actions.append(try machine.resume())
        actions.append(try machine.start())
        actions.append(machine.suspend())
        actions.append(try machine.resume())
        actions.append(try machine.start())
        actions.append(machine.fail())
        actions.append(try machine.resume())
        actions.append(try machine.start())
        actions.append(try machine.complete())
        #expect(actions == [.enqueue, .startTransfer, .stopTransfer, .enqueue, .startTransfer, .finish,
                            .enqueue, .startTransfer, .finish])
        #expect(machine.state == .completed)
    }
}
