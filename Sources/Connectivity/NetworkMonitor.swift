import EventLoop
import MapbookCore
import Foundation

/// Publishes whether the portal can be reached: `.online`, `.offline` or `.portalNotAnswering`,
/// debounced so one lost packet does not flip the screen. Three sources feed it:
/// - the kernel's routes (netlink): no default route means offline at once;
/// - a light probe of the portal: while online every `onlineInterval` as long as something is
///   happening (`activity`: input, downloads), and not at all once nothing has for `idleAfter` — an
///   idle screen costs nothing, and the next key probes at once, so what it says is fresh when
///   someone looks; while cut off (in doubt) with backoff, so it notices by itself when the portal
///   answers again;
/// - the outcome of real requests: `report` (the web map's load, which is believed at once) and
///   `check` (a download that could not connect, which triggers a probe).
public actor NetworkMonitor {
    public struct Timings: Sendable {
        /// Between probes while online and active: how long an outage can go unnoticed when nothing
        /// else is asked.
        public var onlineInterval: Duration
        /// After this long without activity an online portal is no longer probed.
        public var idleAfter: Duration
        /// First and longest wait between probes while offline.
        public var offlineFirst: Duration
        public var offlineLongest: Duration
        /// A change is published only when a second look this much later agrees.
        public var debounce: Duration

        public init(onlineInterval: Duration, idleAfter: Duration = .seconds(15),
                    offlineFirst: Duration, offlineLongest: Duration, debounce: Duration) {
            self.onlineInterval = onlineInterval; self.idleAfter = idleAfter
            self.offlineFirst = offlineFirst; self.offlineLongest = offlineLongest; self.debounce = debounce
        }

        /// A portal that is back is noticed within 3 s, whether the outage began mid-session or
        /// before mapbook started (a probe of a portal that is down costs one small request; with no
        /// route at all nothing is probed: the route watcher says when one comes).
        public static let standard = Timings(onlineInterval: .seconds(2), offlineFirst: .seconds(1),
                                             offlineLongest: .seconds(3), debounce: .milliseconds(800))
    }

    /// Network states as they change (the first one as soon as it is known). One consumer.
    public nonisolated let statuses: AsyncStream<NetworkState>
    private let publish: AsyncStream<NetworkState>.Continuation
    private let probe: @Sendable () async -> NetworkState
    private let timings: Timings
    /// The time, and how a nap waits it: the system's, or a test's that records the waits asked for.
    private let clock: AppClock
    private var published: NetworkState = .unknown
    private var loop: Task<Void, Never>?
    private var routes: RouteWatcher?
    private var hasDefaultRoute = true
    private var wake: (id: Int, continuation: CheckedContinuation<Void, Never>)?
    private var wakeCount = 0
    private var nudged = false
    /// The last key or download event. Start-up counts as one: whether the portal answers is in
    /// doubt until it has been watched a while, so an outage just after start is noticed unasked.
    private var lastActivity: ContinuousClock.Instant
    /// Real requests that failed in a row since one succeeded: while the portal's root answers but
    /// its web map does not, each reload waits longer (a probe alone cannot clear this).
    private var failedReports = 0
    /// A probe that sees the portal again is not believed before this (see `failedReports`).
    private var holdUntil: ContinuousClock.Instant

    /// `probe` says whether the portal answers at all, and if not, why. `watchRoutes` is false for a
    /// portal on this machine (loopback needs no route).
    public init(timings: Timings = .standard, watchRoutes: Bool, clock: AppClock = .system,
                probe: @escaping @Sendable () async -> NetworkState) {
        (statuses, publish) = AsyncStream.makeStream(of: NetworkState.self, bufferingPolicy: .bufferingNewest(8))
        self.timings = timings
        self.clock = clock
        lastActivity = clock.now()
        holdUntil = clock.now()
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

    /// The web map's load finished: what it found is published at once (it is a real request that
    /// ran out its retries); the probe then watches for the portal coming back, waiting longer after
    /// each failure in a row.
    public func report(_ state: NetworkState) {
        if state == .online {
            failedReports = 0
            holdUntil = clock.now()
            if published != .online { nudge() }
            return
        }
        guard state.isCutOff else { return }
        failedReports += 1
        let hold = min(timings.offlineFirst * (1 << min(failedReports - 1, 16)), timings.offlineLongest)
        holdUntil = clock.now() + hold
        set(state)
        // Now in doubt: the probe, perhaps asleep for an idle screen, watches for the way back.
        nudge()
    }

    /// A request (a download) could not reach its server: probe now rather than at the next turn.
    public func check() {
        if published == .online || published == .unknown { nudge() }
    }

    /// Something is happening (a key, a download): probe at the active pace again, and at once if
    /// the pace had slowed, so what the screen says about the network is fresh when someone looks.
    public func activity() {
        let wasIdle = isIdle
        lastActivity = clock.now()
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
        while !Task.isCancelled {
            if published.isCutOff, clock.now() < holdUntil {
                await nap(holdUntil - clock.now())
                continue
            }
            let seen = await look()
            if seen != published, published != .unknown {
                // Look again before saying so.
                await nap(timings.debounce)
                if Task.isCancelled { return }
                if await look() == seen { set(seen) }
            } else {
                set(seen)
            }
            if published.isCutOff {
                await nap(offlineWait)
                offlineWait = min(offlineWait * 2, timings.offlineLongest)
            } else {
                offlineWait = timings.offlineFirst
                // Idle and online: sleep until a key, a failed request or a route change nudges.
                await nap(isIdle ? nil : timings.onlineInterval)
            }
        }
    }

    private var isIdle: Bool { clock.now() - lastActivity >= timings.idleAfter }

    private func look() async -> NetworkState {
        guard hasDefaultRoute else { return .offline }
        return await probe()
    }

    private func set(_ state: NetworkState) {
        guard state != published else { return }
        published = state
        publish.yield(state)
    }

    // MARK: Sleeping that a nudge can cut short

    /// Sleeps for `duration`, or until nudged when it is nil.
    private func nap(_ duration: Duration?) async {
        if nudged { nudged = false; return }
        wakeCount += 1
        let id = wakeCount
        await withCheckedContinuation { continuation in
            wake = (id, continuation)
            guard let duration else { return }
            let clock = clock
            Task { [weak self] in
                await clock.sleep(duration)
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
