import MapbookCore
import Foundation

/// Publishes whether the portal can be reached: `.online` or `.offline`, debounced so one lost
/// packet does not flip the screen. Three sources feed it:
/// - the kernel's routes (netlink): no default route means offline at once;
/// - a light probe of the portal: while online every `onlineInterval` as long as something is
///   happening (`activity`: input, downloads), then less and less often while nothing is, so an idle
///   screen costs next to nothing; while offline with backoff;
/// - the outcome of every real request (`report`), which triggers a probe at once.
public actor NetworkMonitor {
    public struct Timings: Sendable {
        /// Between probes while online and active: how long an outage can go unnoticed when nothing
        /// else is asked.
        public var onlineInterval: Duration
        /// After this long without activity the online interval doubles, up to `onlineLongest`.
        public var idleAfter: Duration
        public var onlineLongest: Duration
        /// First and longest wait between probes while offline.
        public var offlineFirst: Duration
        public var offlineLongest: Duration
        /// A change is published only when a second look this much later agrees.
        public var debounce: Duration

        public init(onlineInterval: Duration, idleAfter: Duration = .seconds(15), onlineLongest: Duration = .seconds(60),
                    offlineFirst: Duration, offlineLongest: Duration, debounce: Duration) {
            self.onlineInterval = onlineInterval; self.idleAfter = idleAfter; self.onlineLongest = onlineLongest
            self.offlineFirst = offlineFirst; self.offlineLongest = offlineLongest; self.debounce = debounce
        }

        public static let standard = Timings(onlineInterval: .seconds(2), offlineFirst: .seconds(1),
                                             offlineLongest: .seconds(15), debounce: .milliseconds(800))
    }

    /// Network states as they change (the first one as soon as it is known). One consumer.
    public nonisolated let statuses: AsyncStream<NetworkState>
    private let publish: AsyncStream<NetworkState>.Continuation
    private let probe: @Sendable () async -> Bool
    private let timings: Timings
    private var published: NetworkState = .unknown
    private var loop: Task<Void, Never>?
    private var routes: RouteWatcher?
    private var hasDefaultRoute = true
    private var wake: (id: Int, continuation: CheckedContinuation<Void, Never>)?
    private var wakeCount = 0
    private var nudged = false
    private var lastActivity = ContinuousClock.now

    /// `probe` answers whether the portal answers at all. `watchRoutes` is false for a portal on
    /// this machine (loopback needs no route).
    public init(timings: Timings = .standard, watchRoutes: Bool, probe: @escaping @Sendable () async -> Bool) {
        (statuses, publish) = AsyncStream.makeStream(of: NetworkState.self, bufferingPolicy: .bufferingNewest(8))
        self.timings = timings
        self.probe = probe
        if watchRoutes { hasDefaultRoute = RouteTable.hasDefaultRoute() }
        let watch = watchRoutes
        Task { await self.start(watchRoutes: watch) }
    }

    private func start(watchRoutes: Bool) {
        if watchRoutes {
            routes = RouteWatcher { [weak self] present in
                guard let self else { return }
                Task { await self.routesChanged(present) }
            }
        }
        loop = Task { await run() }
    }

    /// A real request finished: reachable or not. Anything that disagrees with what is published
    /// gets a probe at once.
    public func report(reachable: Bool) {
        if (reachable && published != .online) || (!reachable && published != .offline) { nudge() }
    }

    /// Something is happening (a key, a download): probe at the active pace again, and at once if
    /// the pace had slowed, so what the screen says about the network is fresh when someone looks.
    public func activity() {
        let wasIdle = ContinuousClock.now - lastActivity >= timings.idleAfter
        lastActivity = .now
        if wasIdle, published == .online { nudge() }
    }

    public func stop() {
        loop?.cancel()
        routes?.stop()
        nudge()
        publish.finish()
    }

    private func routesChanged(_ present: Bool) {
        hasDefaultRoute = present
        if !present { set(.offline) }
        nudge()
    }

    private func run() async {
        var offlineWait = timings.offlineFirst
        var onlineWait = timings.onlineInterval
        while !Task.isCancelled {
            let seen = await look()
            if seen != published, published != .unknown {
                // Look again before saying so.
                await nap(timings.debounce)
                if Task.isCancelled { return }
                if await look() == seen { set(seen) }
            } else {
                set(seen)
            }
            if published == .offline {
                await nap(offlineWait)
                offlineWait = min(offlineWait * 2, timings.offlineLongest)
            } else {
                offlineWait = timings.offlineFirst
                let idle = ContinuousClock.now - lastActivity >= timings.idleAfter
                onlineWait = idle ? min(onlineWait * 2, timings.onlineLongest) : timings.onlineInterval
                await nap(onlineWait)
            }
        }
    }

    private func look() async -> NetworkState {
        guard hasDefaultRoute else { return .offline }
        return await probe() ? .online : .offline
    }

    private func set(_ state: NetworkState) {
        guard state != published else { return }
        published = state
        publish.yield(state)
    }

    // MARK: Sleeping that a nudge can cut short

    private func nap(_ duration: Duration) async {
        if nudged { nudged = false; return }
        wakeCount += 1
        let id = wakeCount
        await withCheckedContinuation { continuation in
            wake = (id, continuation)
            Task { [weak self] in
                try? await Task.sleep(for: duration)
                await self?.endNap(id)
            }
        }
    }

    private func endNap(_ id: Int) {
        guard let current = wake, current.id == id else { return }
        wake = nil
        current.continuation.resume()
    }

    private func nudge() {
        if let current = wake {
            wake = nil
            current.continuation.resume()
        } else {
            nudged = true
        }
    }
}
