@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
import Foundation
import Synchronization

/// The default executor of the mapbook process: Swift tasks and their timers (`Task.sleep`) run on
/// threads of mapbook's own that sleep on a condition variable while nothing is due.
///
/// Why not the platform's: on Linux, Swift's default executor is libdispatch's global queues, and
/// the first worker thread they start arms libdispatch's thread-pool monitor — a one-second timer
/// on its manager thread that is never stopped. An idle browser then woke 20 times in 20 s for
/// nothing; with this executor it wakes for nothing at all (docs/benchmarks.md). The width is the
/// cooperative pool's: one thread per core, at least two.
///
/// `installQuietExecutor()` must run before the first task is started; tests keep the platform's.
final class QuietExecutor: TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    // Safety of `@unchecked Sendable`: `ready` and `timers` are touched only with `lock` held.
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var ready: [UnownedJob] = []
    /// Jobs waiting for their time, earliest first.
    private var timers: [(due: ContinuousClock.Instant, job: UnownedJob)] = []

    init(threads: Int) {
        pthread_mutex_init(lock, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(wake, &attributes)
        pthread_condattr_destroy(&attributes)
        for index in 0..<threads {
            let thread = Thread { [unowned self] in self.work() }
            thread.name = "mapbook.task.\(index)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pthread_mutex_lock(lock)
        ready.append(job)
        pthread_cond_signal(wake)
        pthread_mutex_unlock(lock)
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        // The standard clocks count in `Duration`; a clock that does not runs its job at once.
        let due = ContinuousClock.now + ((delay as? Duration) ?? .zero)
        let job = UnownedJob(job)
        pthread_mutex_lock(lock)
        let index = timers.firstIndex { $0.due > due } ?? timers.endIndex
        timers.insert((due, job), at: index)
        // Only a new earliest deadline changes how long the sleepers wait.
        if index == 0 { pthread_cond_broadcast(wake) }
        pthread_mutex_unlock(lock)
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        enqueue(job, after: clock.now.duration(to: instant), tolerance: tolerance, clock: clock)
    }

    private func work() {
        let executor = asUnownedTaskExecutor()
        pthread_mutex_lock(lock)
        while true {
            let now = ContinuousClock.now
            while let first = timers.first, first.due <= now {
                ready.append(timers.removeFirst().job)
            }
            if !ready.isEmpty {
                let job = ready.removeFirst()
                pthread_mutex_unlock(lock)
                job.runSynchronously(on: executor)
                pthread_mutex_lock(lock)
            } else if let first = timers.first {
                var deadline = Self.monotonic(after: now.duration(to: first.due))
                pthread_cond_timedwait(wake, lock, &deadline)
            } else {
                pthread_cond_wait(wake, lock)
            }
        }
    }

    /// The `CLOCK_MONOTONIC` time `delay` from now, as the condition variable wants it.
    private static func monotonic(after delay: Duration) -> timespec {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(time.tv_nsec) + Int(attoseconds / 1_000_000_000)
        time.tv_sec += Int(seconds) + nanoseconds / 1_000_000_000
        time.tv_nsec = nanoseconds % 1_000_000_000
        return time
    }
}

/// Makes `QuietExecutor` the process's default executor, one thread per core (at least two). Call
/// it first thing in `main`, before any task starts.
public func installQuietExecutor() {
    _createExecutors(factory: QuietExecutorFactory.self)
}

/// The cores online, at least two: the size of mapbook's thread pools. Foundation's
/// `activeProcessorCount` reads cgroup files as well, a few hundred microseconds of every start.
let poolSize = max(2, sysconf(Int32(_SC_NPROCESSORS_ONLN)))

private enum QuietExecutorFactory: ExecutorFactory {
    static let pool = QuietExecutor(threads: poolSize)
    static var mainExecutor: any MainExecutor { PlatformExecutorFactory.mainExecutor }
    static var defaultExecutor: any TaskExecutor { pool }
}
