import Foundation
import Synchronization

/// Blocking work run one piece after another, in the order given, on `WorkPool`: a download's
/// read-backs and control-file saves, which must not wait on the transfer thread. mapbook's own
/// rather than a `DispatchQueue`, whose worker threads would start libdispatch's one-second
/// thread-pool monitor for the rest of the process (see `QuietExecutor`).
public final class SerialQueue: Sendable {
    private let state = Mutex<(pending: [@Sendable () -> Void], draining: Bool)>(([], false))

    public init() {}

    public func async(_ work: @escaping @Sendable () -> Void) {
        let startsDraining = state.withLock { state -> Bool in
            state.pending.append(work)
            defer { state.draining = true }
            return !state.draining
        }
        if startsDraining { Task(executorPreference: WorkPool.shared) { self.drain() } }
    }

    /// Returns once everything given before has run. Not from a `WorkPool` thread.
    public func sync() {
        let done = DispatchSemaphore(value: 0)
        async { done.signal() }
        done.wait()
    }

    /// Returns once everything given before has run.
    public func flush() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in async { done.resume() } }
    }

    private func drain() {
        while let next = state.withLock({ state -> (@Sendable () -> Void)? in
            guard !state.pending.isEmpty else {
                state.draining = false
                return nil
            }
            return state.pending.removeFirst()
        }) {
            next()
        }
    }
}
