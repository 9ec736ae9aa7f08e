import Foundation
import Synchronization

/// Threads of mapbook's own for work that keeps a core busy or blocks: decoding tiles and
/// thumbnails, drawing maps, reading packages and the library. Run there (with
/// `withTaskExecutorPreference(WorkPool.shared)`), such work never holds the Swift cooperative
/// pool — two threads on a two-core machine — on which every other task, and the HTTP client's
/// callers, depend. Idle, the threads sleep on a semaphore.
public final class WorkPool: TaskExecutor, Sendable {
    public static let shared = WorkPool(threads: poolSize)

    private let jobs = Mutex<[UnownedJob]>([])
    private let available = DispatchSemaphore(value: 0)
    private let threads = Mutex<[pthread_t]>([])

    init(threads: Int) {
        for index in 0..<threads {
            let thread = Thread { [unowned self] in self.work() }
            thread.name = "mapbook.work.\(index)"
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        jobs.withLock { $0.append(unowned) }
        available.signal()
    }

    /// Whether the caller runs on one of the pool's threads.
    public var isPoolThread: Bool { threads.withLock { $0.contains { pthread_equal($0, pthread_self()) != 0 } } }

    private func work() {
        threads.withLock { $0.append(pthread_self()) }
        let executor = asUnownedTaskExecutor()
        while true {
            available.wait()
            guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
            job.runSynchronously(on: executor)
        }
    }
}

/// Runs `body` on `WorkPool` (and the tasks it starts): the way the runtime calls heavy work. The
/// body is `@Sendable`, so it is isolated to no actor and runs on the pool's threads even when
/// called from the UI actor; a body that inherited the caller's isolation ran its synchronous work
/// (reading the library, decoding thumbnails) on the UI thread, before the frame that waited.
public func onWorkPool<T: Sendable, Failure: Error>(_ body: @Sendable () async throws(Failure) -> T) async throws(Failure) -> T {
    try await withTaskExecutorPreference(WorkPool.shared, isolation: nil, operation: body)
}
