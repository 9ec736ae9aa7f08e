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
    /// The monitor's clock is the test's: each wait it asks for is logged and passes at once, and
    /// each look is logged in the same order, so what is checked is the schedule between the last
    /// look at the outage and the look that confirms the portal is back, however late the test
    /// itself gets to run.
    @Test func aPortalBackAfterAStartDuringAnOutageIsNoticedWithinTheCap() async {
        enum Step: Equatable { case nap(Duration), look(NetworkState), back }
        struct Schedule { var answer = NetworkState.portalNotAnswering; var steps: [Step] = [] }
        let timings = NetworkMonitor.Timings.standard
        #expect(timings.offlineLongest <= .seconds(3))
        let schedule = Mutex(Schedule())
        @Sendable func napped(_ steps: [Step]) -> [Duration] {
            steps.compactMap { if case .nap(let duration) = $0 { duration } else { nil } }
        }
        let start = ContinuousClock.now
        let clock = AppClock(now: { start + napped(schedule.withLock { $0.steps }).reduce(.zero, +) },
                             sleep: { duration in
                                 schedule.withLock { $0.steps.append(.nap(duration)) }
                                 try? await Task.sleep(for: .milliseconds(2))
                             })
        let monitor = NetworkMonitor(timings: timings, watchRoutes: false, clock: clock) {
            schedule.withLock { schedule in
                schedule.steps.append(.look(schedule.answer))
                return schedule.answer
            }
        }
        let seen = collect(monitor)
        #expect(await wait { seen.all == [.portalNotAnswering] })
        await monitor.report(.portalNotAnswering)
        // Eight seconds of outage after the report, as the schedule counts them (the test may
        // get to run only once the monitor's fast naps have gone far past its first look).
        let reported = schedule.withLock { $0.steps.count }
        #expect(await wait { napped(Array(schedule.withLock { $0.steps }[reported...])).reduce(.zero, +) >= .seconds(8) })
        schedule.withLock { $0.answer = .online; $0.steps.append(.back) }
        #expect(await wait { seen.all.last == .online })
        let steps = schedule.withLock { $0.steps }
        #expect(napped(steps).allSatisfy { $0 <= .seconds(3) }, "\(steps)")
        // From the last look at the outage to the second look that sees the portal back: the nap
        // under way (never more than the cap) and the debounce before the confirming look.
        let back = steps.firstIndex(of: .back) ?? steps.endIndex
        let lastOutageLook = steps[..<back].lastIndex(of: .look(.portalNotAnswering)) ?? back
        let onlineLooks = steps.indices.filter { $0 > back && steps[$0] == .look(.online) }
        #expect(onlineLooks.count >= 2, "\(steps)")
        let confirmed = onlineLooks.dropFirst().first ?? steps.endIndex
        let after = napped(Array(steps[lastOutageLook..<confirmed]))
        #expect(after.count <= 2 && after.reduce(.zero, +) <= timings.offlineLongest + timings.debounce,
                "\(after)")
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
