import CCarryonSystem
import Foundation

/// A task executor of one thread at the least priority the system gives: nice 19 for the CPU
/// and, where the kernel's I/O scheduler has classes (BFQ, CFQ), the idle class for the disk.
/// Work preferring it (`withTaskExecutorPreference`) — the nonisolated and `@concurrent`
/// functions it calls — runs and reads only when nothing else wants the CPU or the disk: a
/// media box's scheduled check of its library must not make a player stall.
///
/// Only the thread is lowered, not the process: the playback server and downloads beside the
/// work keep their priority. What runs on an actor (the index, ``DownloadSession``) hops there
/// and back as ever.
package final class BackgroundExecutor: TaskExecutor, @unchecked Sendable {
    /// The one thread every background check shares, made when first used.
    package static let shared = BackgroundExecutor(name: "carryon-background")

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    /// What the thread reported when it lowered itself (see `carryon_lower_thread_priority`).
    private var lowered: Int32?

    private init(name: String) {
        let thread = Thread { [unowned self] in self.work() }
        thread.name = name
        thread.start()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Whether the thread runs at nice 19 and, where the kernel has I/O classes, in the idle
    /// one: bit 1 the CPU priority, bit 2 the I/O class, as the thread set them.
    package var priority: (cpu: Bool, io: Bool) {
        condition.lock()
        while lowered == nil { condition.wait() }
        let value = lowered ?? 0
        condition.unlock()
        return (value & 1 != 0, value & 2 != 0)
    }

    private func work() {
        let changed = carryon_lower_thread_priority()
        condition.lock()
        lowered = changed
        condition.broadcast()
        condition.unlock()
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch {
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
    }
}
