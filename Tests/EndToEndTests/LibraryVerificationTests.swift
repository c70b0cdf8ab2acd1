@testable import Carryon
import CarryonServer
import CarryonTestSupport
import CCarryonSystem
import Foundation
import Testing

/// The whole library checked in the background (`serve --verify-daily`): damage found in every
/// asset and written to its error log, the check kept in the library, run on a thread at the
/// least priority, and scheduled from the last check the library records.
@Suite("Checking the whole library", .heavy)
struct LibraryVerificationTests {
    /// A clock whose sleeps return at once, recording each; the `cancelAfter`-th throws, which
    /// ends a schedule.
    final class RecordingClock: Clock, @unchecked Sendable {
        struct Instant: InstantProtocol {
            var offset: Duration
            func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
            func duration(to other: Instant) -> Duration { other.offset - offset }
            static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        }
        let sleeps = Locked<[Duration]>([])
        let cancelAfter: Int
        init(cancelAfter: Int) { self.cancelAfter = cancelAfter }
        var now: Instant { Instant(offset: .zero) }
        var minimumResolution: Duration { .nanoseconds(1) }
        func sleep(until deadline: Instant, tolerance: Duration?) async throws {
            let count = sleeps.withLock { sleeps in
                sleeps.append(deadline.offset)
                return sleeps.count
            }
            if count >= cancelAfter { throw CancellationError() }
        }
    }

    @concurrent static func niceHere() async -> Int32 { carryon_thread_nice() }

    @Test("every asset checked at nice 19: the damage named in the summary and the asset's error log, the summary kept in the library, the next check a day after the last")
    func checksTheLibrary() async throws {
        try await withTemporaryDirectory { folder in
            let library = try OfflineLibrary(root: folder.appendingPathComponent("library"))
            let ids = try await Origin(root: sampleMedia.path).withRunning { origin in
                let session = try await DownloadSession(library: library)
                var ids: [String] = []
                for path in ["/ts/main.m3u8", "/fmp4/main.m3u8"] {
                    let task = try await session.makeTask(url: origin.baseURL + path, options: DownloadOptions(audio: .none, subtitles: .none))
                    try await task.resume()
                    #expect(await task.waitUntilFinished() == .completed)
                    ids.append(task.id)
                }
                await session.shutdown()
                return ids
            }
            let session = try await DownloadSession(library: library)
            #expect(LibraryVerification.last(in: library) == nil)
            let intact = try await session.verifyLibrary()
            #expect(intact.isIntact && intact.assets == 2 && intact.resources > 4 && intact.bytes > 100_000, "\(intact)")

            // A byte flipped in a segment of the first asset.
            let segment = try #require(try await library.index.resources(of: ids[0]).first { $0.kind == .segment })
            let file = library.bundleURL(for: ids[0]).appendingPathComponent(segment.fileName)
            var bytes = try Data(contentsOf: file)
            bytes[1000] ^= 0x01
            try bytes.write(to: file)
            let found = try await session.verifyLibrary()
            #expect(found.assets == 2 && found.damaged.map(\.id) == [ids[0]] && found.failures.isEmpty, "\(found)")
            #expect(found.damaged.first?.damage.map(\.kind) == [.altered] && found.damaged.first?.damage.first?.file == segment.fileName)
            let kept = try #require(LibraryVerification.last(in: library))
            #expect(kept.damaged == found.damaged && kept.bytes == found.bytes && abs(kept.startedAt.timeIntervalSince(found.startedAt)) < 1)
            let log = try String(contentsOf: AssetLogs(library: library).errorLogURL(for: ids[0]), encoding: .utf8)
            let line = try #require(log.split(separator: "\n").first { $0.contains("damaged-altered") })
            #expect(line.contains("verify") && line.contains(segment.fileName), "\(line)")
            #expect(!FileManager.default.fileExists(atPath: AssetLogs(library: library).errorLogURL(for: ids[1]).path))

            // The check's thread: nice 19 (and the idle I/O class where the kernel has classes).
            #expect(BackgroundExecutor.shared.priority.cpu)
            let nice = await withTaskExecutorPreference(BackgroundExecutor.shared) { await Self.niceHere() }
            #expect(nice == 19)
            #expect(await Self.niceHere() != 19, "the rest of the process keeps its priority")

            // A schedule of a day waits out what is left of the day since the last check, then
            // checks; the next wait is a whole day.
            let clock = RecordingClock(cancelAfter: 2)
            let reports = Locked<[LibraryVerification]>([])
            await session.verifyLibrary(every: .seconds(86_400), clock: clock) { outcome in
                if case .success(let check) = outcome { reports.withLock { $0.append(check) } }
            }
            let sleeps = clock.sleeps.withLock { $0 }
            #expect(sleeps.count == 2)
            #expect(sleeps.first.map { $0 > .seconds(86_300) && $0 <= .seconds(86_400) } == true, "\(sleeps)")
            #expect(sleeps.last.map { $0 > .seconds(86_300) && $0 <= .seconds(86_400) } == true, "\(sleeps)")
            #expect(reports.withLock { $0.count } == 1)
            await session.shutdown()
        }
    }
}
