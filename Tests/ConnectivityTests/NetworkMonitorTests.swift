import Connectivity
import EventLoop
import Foundation
import MapbookCore
import Synchronization
import Testing
import TestScheduling

/// The network monitor's decisions, with its timings shrunk: what it publishes and in what order,
/// not how fast a machine is.
@Suite(.aheadOfQueuedTests) struct NetworkMonitorTests {
    static let quick = NetworkMonitor.Timings(onlineInterval: .milliseconds(50), idleAfter: .seconds(60),
                                              offlineFirst: .milliseconds(50), offlineLongest: .milliseconds(400),
                                              debounce: .milliseconds(20))

    /// Collects the states published, in order.
    final class Seen: Sendable {
        private let states = Mutex<[NetworkState]>([])
        func add(_ state: NetworkState) { states.withLock { $0.append(state) } }
        var all: [NetworkState] { states.withLock { $0 } }
    }

    private func collect(_ monitor: NetworkMonitor) -> Seen {
        let seen = Seen()
        Task { for await state in monitor.statuses { seen.add(state) } }
        return seen
    }

    private func wait(for condition: () -> Bool) async -> Bool {
        for _ in 0..<1000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test func aProbeThatChangesIsPublishedOnceConfirmed() async {
        let answer = Mutex(NetworkState.online)
        let monitor = NetworkMonitor(timings: Self.quick, watchRoutes: false) { answer.withLock { $0 } }
        let seen = collect(monitor)
        #expect(await wait { seen.all == [.online] })
        answer.withLock { $0 = .portalNotAnswering }
        #expect(await wait { seen.all == [.online, .portalNotAnswering] })
        answer.withLock { $0 = .online }
        #expect(await wait { seen.all == [.online, .portalNotAnswering, .online] }, "it sees the portal come back by itself")
        await monitor.stop()
    }

    /// A failed load is believed at once; while the probe's root answers, the monitor says online
    /// again only after a hold that grows with each failure in a row, and a success clears it.
    @Test func aReportedFailureIsBelievedAtOnceAndRetriedWithGrowingPatience() async {
        let monitor = NetworkMonitor(timings: Self.quick, watchRoutes: false) { .online }
        let seen = collect(monitor)
        #expect(await wait { seen.all == [.online] })
        await monitor.report(.portalNotAnswering)
        #expect(await wait { seen.all.count == 3 }, "published at once, then online again after the hold")
        #expect(seen.all == [.online, .portalNotAnswering, .online])
        await monitor.report(.online)
        await monitor.report(.offline)
        #expect(await wait { seen.all.count == 5 })
        #expect(seen.all == [.online, .portalNotAnswering, .online, .offline, .online])
        await monitor.stop()
    }

    /// Started while the portal is down, it is noticed back as soon as when the outage began
    /// mid-session: the standard waits between probes never grow past 3 s. (With the old 15 s cap,
    /// eight seconds of outage made the next look up to 8 s away.)
    /// The monitor's clock is the test's: each wait it asks for is recorded and passes at once, so
    /// what is checked is the schedule, not how busy the machine is.
    @Test func aPortalBackAfterAStartDuringAnOutageIsNoticedWithinTheCap() async {
        #expect(NetworkMonitor.Timings.standard.offlineLongest <= .seconds(3))
        let answer = Mutex(NetworkState.portalNotAnswering)
        let naps = Mutex<[Duration]>([])
        let start = ContinuousClock.now
        let clock = AppClock(now: { start + naps.withLock { $0.reduce(.zero, +) } }, sleep: { duration in
            naps.withLock { $0.append(duration) }
            try? await Task.sleep(for: .milliseconds(2))
        })
        let monitor = NetworkMonitor(timings: .standard, watchRoutes: false, clock: clock) { answer.withLock { $0 } }
        let seen = collect(monitor)
        #expect(await wait { seen.all == [.portalNotAnswering] })
        await monitor.report(.portalNotAnswering)
        // Eight seconds of outage, as the schedule counts them.
        #expect(await wait { naps.withLock { $0.reduce(.zero, +) } >= .seconds(8) })
        let before = naps.withLock { $0.count }
        answer.withLock { $0 = .online }
        #expect(await wait { seen.all.last == .online })
        // Noticed after the nap under way and the look that confirms it: never more than the cap each.
        let after = naps.withLock { Array($0[before...]) }
        #expect(naps.withLock { $0 }.allSatisfy { $0 <= .seconds(3) }, "\(naps.withLock { $0 })")
        #expect(after.count <= 3 && after.reduce(.zero, +) <= .seconds(6), "\(after)")
        await monitor.stop()
    }

    /// Idle costs nothing: an online portal is probed while something happens (start-up counts),
    /// not once nothing has for `idleAfter`, and the next key probes again at once.
    @Test func anIdleOnlineScreenIsNotProbedUntilSomethingHappens() async {
        let probes = Mutex(0)
        var timings = Self.quick
        timings.idleAfter = .milliseconds(500)
        let monitor = NetworkMonitor(timings: timings, watchRoutes: false) {
            probes.withLock { $0 += 1 }
            return .online
        }
        let seen = collect(monitor)
        #expect(await wait { seen.all == [.online] })
        // Left alone past `idleAfter`, the probes stop: once none came for 1.5 s (a probe under way,
        // or one a busy machine ran late, may land first), none comes after.
        var settled = probes.withLock { $0 }
        for _ in 0..<20 {
            try? await Task.sleep(for: .milliseconds(1500))
            let now = probes.withLock { $0 }
            if now == settled { break }
            settled = now
        }
        try? await Task.sleep(for: .milliseconds(1000))
        #expect(probes.withLock { $0 } == settled, "no probe while idle")
        await monitor.activity()
        #expect(await wait { probes.withLock { $0 } > settled }, "a key probes again at once")
        await monitor.stop()
    }
}
