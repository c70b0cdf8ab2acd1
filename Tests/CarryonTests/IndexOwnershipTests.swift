@testable import Carryon
import CarryonIndexTestSupport
import CarryonTestSupport
import Foundation
import Testing

/// Claims, leases, fences and requests through the index's transactions (the `AssetIndex`
/// protocol, as any backend must keep them), with two instances on one library and an injected
/// clock: a lease runs out by moving the clock, not by waiting.
@Suite("Ownership through the index")
struct IndexOwnershipTests {
    /// Two schedulers on one library, sharing a clock the test moves.
    struct Pair {
        let library: OfflineLibrary
        let clock = Locked(Date(timeIntervalSince1970: 2_000_000_000))
        let a: TaskScheduler
        let b: TaskScheduler

        init(_ library: OfflineLibrary) {
            self.library = library
            let clock = self.clock
            a = TaskScheduler(index: library.index, lease: .seconds(30), checksProcesses: true, label: "a") { clock.withLock { $0 } }
            b = TaskScheduler(index: library.index, lease: .seconds(30), checksProcesses: true, label: "b") { clock.withLock { $0 } }
        }

        func advance(_ seconds: Double) { clock.withLock { $0 = $0.addingTimeInterval(seconds) } }

        func addAsset(_ id: String) async throws {
            let now = clock.withLock { $0 }
            try await library.index.insert(AssetRecord(id: id, name: id, url: "https://cdn.example/\(id).m3u8", state: .suspended, errorMessage: nil,
                                                       options: DownloadOptions(), headers: [], selection: nil, planned: false,
                                                       createdAt: now, updatedAt: now, completedAt: nil, duration: nil))
        }
    }

    @Test("a claim is one compare-and-set: the holder's queue only, busy for everyone else, taken over once the lease runs out, and the old run fenced off from then on")
    func claimLeaseTakeoverFence() async throws {
        try await withTemporaryDirectory { folder in
            let pair = Pair(try OfflineLibrary(testingAt: folder))
            try await pair.addAsset("x")
            #expect(try await pair.a.enqueue("x").0 == .queue)
            // Queued by a: b may not queue it, nor claim it from a's queue.
            #expect(try await pair.b.enqueue("x").0 == .busy(.queued(pair.a.instance.id)))
            #expect(try await pair.b.claimNext() == nil)
            let first = try #require(try await pair.a.claimNext())
            #expect(first.epoch == 1 && first.owner == pair.a.instance.id)
            #expect(try await pair.b.enqueue("x").0 == .busy(.running(pair.a.instance.id)))
            #expect(try await pair.a.ownership(of: "x")?.effectiveState == .running)

            // Renewed within its lease, the claim holds past the first lease's end.
            pair.advance(10)
            #expect(try await pair.a.renewIfDue([first]).isEmpty)
            pair.advance(25)
            #expect(try await pair.b.enqueue("x").0 == .busy(.running(pair.a.instance.id)))

            // a stops renewing (paused): once its lease has run out, b takes the task over.
            pair.advance(31)
            #expect(try await pair.b.ownership(of: "x")?.effectiveState == .suspended)
            #expect(try await pair.b.enqueue("x").0 == .queue)
            let second = try #require(try await pair.b.claimNext())
            #expect(second.epoch == 2 && second.owner == pair.b.instance.id)

            // a comes back: every write of its run is refused, and its renewal says the claim is lost.
            let refused = await #expect(throws: CarryonError.self) {
                try await pair.library.index.endRun(first, state: .failed, error: "late", requeueAt: nil, at: Date())
            }
            #expect(refused?.code == .busy && refused?.cause is LostClaim)
            try await pair.library.index.writeProgress(DownloadProgress(bytesDone: 1, bytesExpected: 2, isExact: true, resourcesDone: 0,
                                                                        resourcesTotal: 1, loadedTimeRanges: [:]), fence: first)
            #expect(try await pair.a.renewIfDue([first]) == [first])
            let now = try #require(try await pair.b.ownership(of: "x"))
            #expect(now.row.owner == pair.b.instance.id && now.row.epoch == 2 && now.effectiveState == .running && now.progress == nil, "\(now)")
            #expect(try await pair.library.index.state(of: "x") == .running)

            // b ends its run: released, recorded.
            try await pair.library.index.endRun(second, state: .completed, error: nil, requeueAt: nil, at: Date())
            let ended = try #require(try await pair.b.ownership(of: "x"))
            #expect(ended.row.owner == nil && ended.holder == nil && ended.effectiveState == .completed)
            #expect(try await pair.a.enqueue("x").0 == .complete)
        }
    }

    @Test("requests reach the holder, who alone sees them; a queue whose instance is gone is no one's, and reads as suspended")
    func requestsAndOrphanedQueues() async throws {
        try await withTemporaryDirectory { folder in
            let pair = Pair(try OfflineLibrary(testingAt: folder))
            try await pair.addAsset("x")
            try await pair.addAsset("y")
            _ = try await pair.a.enqueue("x")
            _ = try await pair.a.enqueue("y")
            let claim = try #require(try await pair.a.claimNext())
            #expect(claim.assetID == "x")
            // The queue's order: y waits in a's queue.
            guard case .sent(let held) = try await pair.b.request(.suspend, of: "x") else {
                Issue.record("the request was not sent to the holder")
                return
            }
            #expect(held.holder == .running(pair.a.instance.id))
            #expect(try await pair.a.requests().map(\.id) == ["x"])
            #expect(try await pair.a.requests().map(\.request) == [.suspend])
            // A delete is not weakened by a later suspend.
            _ = try await pair.b.request(.delete, of: "x")
            _ = try await pair.b.request(.suspend, of: "x")
            #expect(try await pair.a.requests().map(\.request) == [.delete])
            try await pair.b.register()
            #expect(try await pair.b.requests().isEmpty)
            // b may not suspend what a queued; a may.
            #expect(try await pair.b.setStateUnlessHeld(.suspended, of: "y")?.holder == .queued(pair.a.instance.id))
            #expect(try await pair.library.index.state(of: "y") == .waiting)

            // a goes away cleanly: its queued row is no one's, and anyone may resume it.
            await pair.a.unregister()
            #expect(try await pair.b.ownership(of: "y")?.effectiveState == .suspended)
            #expect(try await pair.b.enqueue("y").0 == .queue)
        }
    }

    @Test("a queued task deferred to later is not claimed before its time")
    func deferredClaim() async throws {
        try await withTemporaryDirectory { folder in
            let pair = Pair(try OfflineLibrary(testingAt: folder))
            try await pair.addAsset("x")
            let later = pair.clock.withLock { $0 }.addingTimeInterval(5)
            #expect(try await pair.a.enqueue("x", startingAt: later).0 == .queue)
            #expect(try await pair.a.claimNext() == nil)
            pair.advance(5)
            #expect(try await pair.a.claimNext()?.assetID == "x")
        }
    }

    @Test("a state written by a process holding no claim fences off the claim the row still names: a run paused past its lease and cancelled meanwhile cannot write completed over it")
    func unheldWriteFencesOldRun() async throws {
        try await withTemporaryDirectory { folder in
            let pair = Pair(try OfflineLibrary(testingAt: folder))
            try await pair.addAsset("x")
            _ = try await pair.a.enqueue("x")
            let paused = try #require(try await pair.a.claimNext())
            pair.advance(31)
            // No live holder: b cancels it itself.
            #expect(try await pair.b.setStateUnlessHeld(.cancelled, of: "x") == nil)
            // a comes back: its renewal reports the loss, and its end is refused.
            #expect(try await pair.a.renewIfDue([paused]) == [paused])
            let refused = await #expect(throws: CarryonError.self) {
                try await pair.library.index.endRun(paused, state: .completed, error: nil, requeueAt: nil, at: Date())
            }
            #expect(refused?.cause is LostClaim)
            #expect(try await pair.library.index.state(of: "x") == .cancelled)
        }
    }

    @Test("a queued task with a request waiting is not claimed; a run's end keeps a request it did not carry out, for the requester to apply")
    func requestsOutliveClaimsAndEnds() async throws {
        try await withTemporaryDirectory { folder in
            let pair = Pair(try OfflineLibrary(testingAt: folder))
            try await pair.addAsset("x")
            try await pair.addAsset("y")
            _ = try await pair.a.enqueue("x")
            _ = try await pair.a.enqueue("y")
            let running = try #require(try await pair.a.claimNext())
            #expect(running.assetID == "x")
            // y waits in a's queue; b asks a to suspend it: a must not start it meanwhile.
            guard case .sent = try await pair.b.request(.suspend, of: "y") else {
                Issue.record("the request did not reach a")
                return
            }
            #expect(try await pair.a.claimNext() == nil)
            // x's run completes just as b asks to delete it: the request stays for b.
            _ = try await pair.b.request(.delete, of: "x")
            try await pair.library.index.endRun(running, state: .completed, error: nil, requeueAt: nil, at: Date())
            let ended = try #require(try await pair.b.ownership(of: "x"))
            #expect(ended.holder == nil && ended.row.request == .delete)
            // A suspend the run carried out is cleared with its end.
            try await pair.addAsset("z")
            _ = try await pair.a.enqueue("z")
            let z = try #require(try await pair.a.claimNext())
            _ = try await pair.b.request(.suspend, of: "z")
            try await pair.library.index.endRun(z, state: .suspended, error: nil, requeueAt: nil, at: Date())
            #expect(try await pair.a.ownership(of: "z")?.row.request == nil)
        }
    }
}
