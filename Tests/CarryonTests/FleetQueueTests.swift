@testable import Carryon
@testable import CarryonIndexTestSupport
import CarryonTestSupport
import Foundation
import Testing

/// The fleet's queue through the index (any backend: the suite runs on SQLite and again on
/// PostgreSQL) and through sessions: tasks queued for the fleet are claimed by workers only,
/// each by one, taken over from a worker whose lease ran out, handed back by a worker that
/// stops, and steered by anyone.
@Suite("The fleet's queue")
struct FleetQueueTests {
    typealias Pair = IndexOwnershipTests.Pair

    func enqueueForFleet(_ id: String, _ pair: Pair) async throws -> Ownership.EnqueueDecision {
        try await pair.library.index.enqueue(id, by: Ownership.fleet, startingAt: nil, pair.a.context()).0
    }

    @Test("tasks queued for the fleet are claimed by workers only, one each; a dead worker's task is the fleet's again once its lease runs out, the next worker claims it, and the dead one's writes are refused")
    func claimsAndTakeover() async throws {
        try await withTemporaryDirectory { folder in
            let pair = Pair(try OfflineLibrary(testingAt: folder))
            for id in ["x", "y", "z"] {
                try await pair.addAsset(id)
                #expect(try await enqueueForFleet(id, pair) == .queue)
                pair.advance(0.001)
            }
            #expect(try await enqueueForFleet("x", pair) == .alreadyHeld)
            #expect(try await pair.a.ownership(of: "x")?.effectiveState == .waiting)
            #expect(try await pair.a.ownership(of: "x")?.holder == .queued(Ownership.fleet))
            try await pair.a.register()
            try await pair.b.register()
            // Not working for the fleet: nothing of its to claim.
            #expect(try await pair.a.claimNext() == nil)
            let first = try #require(try await pair.a.claimNext(fromFleet: true))
            let second = try #require(try await pair.b.claimNext(fromFleet: true))
            let third = try #require(try await pair.a.claimNext(fromFleet: true))
            // In the order queued, each once.
            #expect([first.assetID, second.assetID, third.assetID] == ["x", "y", "z"])
            #expect(first.epoch == 1 && first.owner == pair.a.instance.id)
            #expect(try await pair.b.claimNext(fromFleet: true) == nil)
            let running = try #require(try await pair.b.ownership(of: "x"))
            #expect(running.effectiveState == .running && running.holder == .running(pair.a.instance.id))
            // Shown by its name (the scheduler's label), then its process and host.
            #expect(running.holderInstance?.name == "a")
            #expect(running.holderInstance?.workerDescription.hasPrefix("a (pid ") == true)
            #expect(running.holderDescription.hasPrefix("pid ") && running.holderDescription.hasSuffix(", a"))
            // Queued for the fleet again while a worker runs it: busy, nothing changes.
            #expect(try await enqueueForFleet("x", pair) == .busy(.running(pair.a.instance.id)))

            // b renews its claim; a does not (it died): once a's lease has run out, its tasks
            // are the fleet's again — waiting, not suspended — and b claims them.
            pair.advance(20)
            #expect(try await pair.b.renewIfDue([second]).isEmpty)
            pair.advance(11)
            let orphaned = try #require(try await pair.b.ownership(of: "x"))
            #expect(orphaned.effectiveState == .waiting && orphaned.holder == .queued(Ownership.fleet))
            let takenOver = try #require(try await pair.b.claimNext(fromFleet: true))
            #expect(takenOver.assetID == "x" && takenOver.epoch == 2 && takenOver.owner == pair.b.instance.id)
            #expect(try await pair.b.claimNext(fromFleet: true)?.assetID == "z")
            #expect(try await pair.b.claimNext(fromFleet: true) == nil)
            // a comes back: its writes are refused.
            let refused = await #expect(throws: CarryonError.self) {
                try await pair.library.index.endRun(first, state: .completed, error: nil, requeueAt: nil, at: Date())
            }
            #expect(refused?.cause is LostClaim)
            #expect(try await pair.a.renewIfDue([first, third]) == [first, third])

            // A worker that stops hands its task back: the fleet's again, for a to claim.
            try await pair.library.index.endRun(takenOver, state: .waiting, error: nil, requeueAt: pair.clock.withLock { $0 }, at: Date())
            #expect(try await pair.a.ownership(of: "x")?.holder == .queued(Ownership.fleet))
            let resumed = try #require(try await pair.a.claimNext(fromFleet: true))
            #expect(resumed.assetID == "x" && resumed.epoch == 3)
            // Completed: no longer the fleet's, nor anyone's.
            try await pair.library.index.endRun(resumed, state: .completed, error: nil, requeueAt: nil, at: Date())
            let done = try #require(try await pair.b.ownership(of: "x"))
            #expect(done.holder == nil && done.effectiveState == .completed)
            #expect(try await enqueueForFleet("x", pair) == .complete)
        }
    }

    @Test("a task waiting in the fleet's queue is steered by whoever asks: a suspend or cancel is theirs to apply, and takes it out of the queue; a purge leaves it")
    func steeringTheQueue() async throws {
        try await withTemporaryDirectory { folder in
            let pair = Pair(try OfflineLibrary(testingAt: folder))
            try await pair.addAsset("x")
            #expect(try await enqueueForFleet("x", pair) == .queue)
            // A purge does not take a queued task.
            if case .heldElsewhere = try await pair.a.request(.delete, of: "x", onlyIfUnheld: true) {} else {
                Issue.record("a purge took a task waiting in the fleet's queue")
            }
            // No process runs it: the asker applies the request itself.
            if case .unheld = try await pair.a.request(.suspend, of: "x") {} else { Issue.record("a suspend was sent to the fleet's queue") }
            #expect(try await pair.a.setStateUnlessHeld(.suspended, of: "x") == nil)
            let suspended = try #require(try await pair.b.ownership(of: "x"))
            #expect(suspended.effectiveState == .suspended && suspended.holder == nil)
            try await pair.b.register()
            #expect(try await pair.b.claimNext(fromFleet: true) == nil)
            // Queued again, then claimed: a request now goes to the worker running it.
            #expect(try await enqueueForFleet("x", pair) == .queue)
            let claim = try #require(try await pair.b.claimNext(fromFleet: true))
            if case .sent = try await pair.a.request(.cancel, of: "x") {} else { Issue.record("a cancel did not go to the worker") }
            #expect(try await pair.b.requests().map(\.id) == ["x"])
            try await pair.library.index.endRun(claim, state: .cancelled, error: nil, requeueAt: nil, at: Date())
            #expect(try await pair.a.ownership(of: "x")?.effectiveState == .cancelled)
        }
    }

    @Test("two worker sessions on one library download every task queued for the fleet, each once, and a session that queues none itself still reads them as the fleet's")
    func workersDownloadTheQueue() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(testingAt: folder.appendingPathComponent("library"))
            let stream = try writeThreeSegmentStream(in: folder.appendingPathComponent("media"))
            let queuer = try await DownloadSession(library: library)
            var ids: [String] = []
            for index in 0..<8 {
                let task = try await queuer.makeTask(url: stream.path, name: "title \(index)")
                try await queuer.enqueueForFleet(task.id)
                ids.append(task.id)
            }
            #expect(try await queuer.task(id: ids[0]).snapshot().state == .waiting)
            // Queued for the fleet: not this session's to run, nor another's to resume.
            let busy = await #expect(throws: CarryonError.self) { try await queuer.task(id: ids[0]).resume() }
            #expect(busy?.code == .busy && busy?.message.contains("fleet") == true)
            await queuer.shutdown()

            let workers = [try await DownloadSession(library: library, configuration: .init(maximumConcurrentTasks: 2)),
                           try await DownloadSession(library: library, configuration: .init(maximumConcurrentTasks: 2))]
            var started: [[String]] = [[], []]
            let watchers = workers.map { worker in
                Task { () -> [String] in
                    var seen: [String] = []
                    for await event in await worker.events(followingOtherProcesses: false) {
                        if case .stateChanged(let id, .running) = event { seen.append(id) }
                    }
                    return seen
                }
            }
            for worker in workers { try await worker.joinFleet() }
            let reader = try await DownloadSession(library: library)
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                let states = try await ids.asyncMap { try await reader.task(id: $0).snapshot().state }
                if states.allSatisfy({ $0 == .completed }) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            for worker in workers { await worker.shutdown() }
            for (index, watcher) in watchers.enumerated() { started[index] = await watcher.value }
            for id in ids {
                let snapshot = try await reader.task(id: id).snapshot()
                #expect(snapshot.state == .completed, "\(id): \(snapshot.state)")
                #expect(snapshot.progress.bytesDone == 12_000)
            }
            await reader.shutdown()
            // Each task run once, by one worker.
            #expect((started[0] + started[1]).sorted() == ids.sorted(), "\(started)")
        }
    }

    @Test("the fleet's workers as the index lists them: an instance from when it joins (registered before or not) while its heartbeat lives, renewed while it is idle; gone when it stops or its heartbeat runs out; one that only queues is none")
    func workersListed() async throws {
        try await withTemporaryDirectory { folder in
            let pair = Pair(try OfflineLibrary(testingAt: folder))
            let index = pair.library.index
            func workers() async throws -> [String] { try await index.fleetWorkers(pair.a.context()).compactMap(\.name) }
            try await pair.addAsset("x")
            #expect(try await workers().isEmpty)
            // b queues for itself: an instance in the index, not a worker.
            #expect(try await pair.b.enqueue("x").0 == .queue)
            #expect(try await workers().isEmpty)
            pair.advance(1)
            try await pair.a.joinFleet()
            #expect(try await workers() == ["a"])
            // b, registered before it joins, is marked from then on (its start kept: the
            // longest-running first).
            pair.advance(1)
            try await pair.b.joinFleet()
            #expect(try await workers() == ["b", "a"])
            // A write that read the flag before b joined, landing after: b stays a worker.
            try await index.register(pair.b.instance, label: "b", fleetWorker: false, until: pair.clock.withLock { $0 }.addingTimeInterval(30),
                                     at: pair.clock.withLock { $0 })
            #expect(try await workers() == ["b", "a"])
            // A download a worker claims from the fleet counts as running with it.
            try await pair.addAsset("y")
            #expect(try await enqueueForFleet("y", pair) == .queue)
            #expect(try await pair.a.claimNext(fromFleet: true)?.assetID == "y")
            let listed = try await index.fleetWorkers(pair.a.context())
            #expect(listed.map(\.running) == [0, 1] && listed.allSatisfy { $0.pid == getpid() && !$0.earlierRelease }, "\(listed)")
            #expect(listed.last?.description == "a (pid \(getpid()) on \(listed.last?.host ?? ""))")
            // Idle, each renews its heartbeat (every third of the 30 s lease): still listed
            // after the first lease would have ended.
            pair.advance(20)
            #expect(try await pair.a.renewIfDue([]).isEmpty)
            #expect(try await pair.b.renewIfDue([]).isEmpty)
            pair.advance(20)
            #expect(try await workers() == ["b", "a"])
            // Only b renews: a's heartbeat runs out, and a is no longer listed.
            #expect(try await pair.b.renewIfDue([]).isEmpty)
            pair.advance(15)
            #expect(try await workers() == ["b"])
            // b stops: gone at once.
            await pair.b.unregister()
            #expect(try await workers().isEmpty)
            // A join that comes after the stop (a session shutting down as it joins) is refused
            // and writes nothing: no worker is listed for a lease after it stopped.
            let late = await #expect(throws: CarryonError.self) { try await pair.b.joinFleet() }
            #expect(late?.code == .cancelled)
            #expect(try await workers().isEmpty)
            // A process of an earlier release (its row says nothing of the fleet: a worker still
            // running through the upgrade) is listed as one that may work for it, so that no
            // one about to queue is told that none runs; its heartbeat ends it as any other's.
            let now = pair.clock.withLock { $0 }
            try await pair.library.registerAsEarlierRelease(Instance.make(), label: "old worker", at: now, until: now.addingTimeInterval(30))
            let earlier = try await index.fleetWorkers(pair.a.context())
            #expect(earlier.map(\.name) == ["old worker"] && earlier.map(\.earlierRelease) == [true], "\(earlier)")
            pair.advance(31)
            #expect(try await workers().isEmpty)
        }
    }
}

extension Sequence {
    /// The values of `transform` for each element, in order, one after another.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var values: [T] = []
        for element in self { values.append(try await transform(element)) }
        return values
    }
}
