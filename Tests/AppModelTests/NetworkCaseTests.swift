import AppModel
import AppRuntime
import EventLoop
import Foundation
import HTTP
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing

/// What the browser shows for each way a portal can fail, and how soon. The bounds are generous
/// (the suite must pass on a loaded machine); the times on a quiet one are in docs/benchmarks.md.
@Suite @UIActor struct NetworkCaseTests {
    /// Starts the program and returns it with the seconds until it settled.
    private func load(_ portal: URL, http: HTTPClient = HTTPClient()) async -> (Program, Double) {
        let started = ContinuousClock.now
        let program = await ProgramFixture.started(portal: portal, http: http)
        let elapsed = ContinuousClock.now - started
        return (program, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    @Test func refusedIsNotAnsweringWithinASecondOrSo() async throws {
        // Nothing listens on a port just closed.
        let portal = try SampleFixture.start()
        let url = portal.baseURL
        portal.stop()
        let (program, seconds) = await load(url)
        defer { Task { await program.shutdown() } }
        #expect(program.state.phase == .notAnswering(
            host: "127.0.0.1", "Cannot reach 127.0.0.1: the connection was refused or the network is unreachable."))
        #expect(program.state.network == .portalNotAnswering)
        #expect(seconds < 20, "took \(seconds) s")
    }

    @Test func anUnresolvableNameIsOfflineWithinASecondOrSo() async throws {
        let (program, seconds) = await load(URL(string: "http://mapbook-no-such-host.invalid")!)
        defer { Task { await program.shutdown() } }
        #expect(program.state.phase == .unreachable(host: "mapbook-no-such-host.invalid"))
        #expect(program.state.network == .offline)
        #expect(seconds < 20, "took \(seconds) s")
    }

    @Test func connectionsClosedAfterAcceptAreNotAnswering() async throws {
        var faults = SampleFaults()
        faults.hangUp = true
        let portal = try SampleFixture.start(faults: faults)
        defer { portal.stop() }
        let (program, seconds) = await load(portal.baseURL)
        defer { Task { await program.shutdown() } }
        guard case .notAnswering(let host, let sentence) = program.state.phase else {
            Issue.record("shown: \(program.state.phase)")
            return
        }
        #expect(host == "127.0.0.1" && sentence.contains("lost"))
        #expect(program.state.network == .portalNotAnswering, "not online")
        #expect(seconds < 20, "took \(seconds) s")
    }

    @Test func aServerErrorIsTheErrorCardSoon() async throws {
        var faults = SampleFaults()
        faults.errorStatus = 500
        let portal = try SampleFixture.start(faults: faults)
        defer { portal.stop() }
        let (program, seconds) = await load(portal.baseURL)
        defer { Task { await program.shutdown() } }
        #expect(program.state.phase == .failed("127.0.0.1 answered HTTP 500 (internal server error)."))
        #expect(program.state.network == .online, "the portal answered")
        #expect(seconds < 20, "took \(seconds) s")
        #expect(KeyMap.hints(for: program.state.phase) == ["r try now", "? help", "q quit"])
    }

    @Test func aStalledAnswerIsNotAnswering() async throws {
        var faults = SampleFaults()
        faults.latencyMilliseconds = 20_000
        let portal = try SampleFixture.start(faults: faults)
        defer { portal.stop() }
        let http = HTTPClient(configuration: HTTPConfiguration(stallTimeout: .seconds(1), retry: .none))
        let (program, seconds) = await load(portal.baseURL, http: http)
        defer { Task { await program.shutdown() } }
        guard case .notAnswering(_, let sentence) = program.state.phase else {
            Issue.record("shown: \(program.state.phase)")
            return
        }
        #expect(sentence.contains("stalled"))
        #expect(seconds < 20, "took \(seconds) s with a 1 s stall watchdog")
    }

    /// The portal closes connections, then recovers: the browser notices by itself and loads.
    @Test func aPortalThatRecoversLoadsByItself() async throws {
        var faults = SampleFaults()
        faults.hangUp = true
        let portal = try SampleFixture.start(faults: faults)
        defer { portal.stop() }
        let (program, _) = await load(portal.baseURL)
        defer { Task { await program.shutdown() } }
        #expect(program.state.network == .portalNotAnswering)
        portal.updateFaults { $0.hangUp = false }
        #expect(await ProgramFixture.settle(program, timeout: .seconds(30)) { $0.phase == .loaded && $0.network == .online },
                "reloaded without a key")
    }
}
