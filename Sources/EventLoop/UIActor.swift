import Foundation
import Synchronization

/// The actor of the user interface: the model, the renderer's caller and the terminal backend all
/// run on its one thread, so ncurses is only ever touched from that thread.
@globalActor
public actor UIActor {
    public static let shared = UIActor()
    public nonisolated var unownedExecutor: UnownedSerialExecutor { UIEventLoop.shared.asUnownedSerialExecutor() }
}

/// One thread that runs the UI actor's jobs and waits, in `poll`, for file descriptors the UI
/// watches (the terminal's input, a signal pipe). Idle, it sleeps in the kernel: no timers, no CPU.
public final class UIEventLoop: SerialExecutor, Sendable {
    public static let shared = UIEventLoop()

    private struct State {
        var jobs: [UnownedJob] = []
        var watchers: [Int32: @Sendable () -> Void] = [:]
        var thread: pthread_t?
    }
    private let state = Mutex(State())
    private let wakeRead: Int32
    private let wakeWrite: Int32

    private init() {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0, "cannot create the UI event loop's pipe")
        wakeRead = fds[0]; wakeWrite = fds[1]
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let started = DispatchSemaphore(value: 0)
        let loopThread = Thread { [unowned self] in
            self.state.withLock { $0.thread = pthread_self() }
            started.signal()
            self.run()
        }
        loopThread.name = "mapbook.ui"
        loopThread.start()
        started.wait()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        state.withLock { $0.jobs.append(unowned) }
        wake()
    }

    public func checkIsolated() {
        precondition(isLoopThread, "not on the UI thread")
    }

    public var isLoopThread: Bool {
        state.withLock { $0.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Calls `onReadable` on the loop thread whenever `fd` has input. The callback must consume the
    /// input (or hand it to a UI job, which runs before the loop polls again).
    public func watch(_ fd: Int32, onReadable: @escaping @Sendable () -> Void) {
        state.withLock { $0.watchers[fd] = onReadable }
        wake()
    }

    public func unwatch(_ fd: Int32) {
        state.withLock { _ = $0.watchers.removeValue(forKey: fd) }
        wake()
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private func run() {
        let executor = asUnownedSerialExecutor()
        var drain = [UInt8](repeating: 0, count: 64)
        while true {
            // Jobs first, including those they enqueue, so a watcher's hand-off runs before the
            // descriptor is polled again.
            while let batch = takeJobs() {
                for job in batch { job.runSynchronously(on: executor) }
            }
            let watched = state.withLock { $0.watchers }
            var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
                + watched.keys.sorted().map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), -1)
            if ready <= 0 { continue }
            if fds[0].revents != 0 { while read(wakeRead, &drain, drain.count) > 0 {} }
            for entry in fds.dropFirst() where entry.revents != 0 {
                watched[entry.fd]?()
            }
        }
    }

    private func takeJobs() -> [UnownedJob]? {
        state.withLock { state in
            guard !state.jobs.isEmpty else { return nil }
            defer { state.jobs.removeAll(keepingCapacity: true) }
            return state.jobs
        }
    }
}
