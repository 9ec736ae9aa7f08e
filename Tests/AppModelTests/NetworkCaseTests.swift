import AppModel
import AppRuntime
import ArcGISPortal
import EventLoop
import Foundation
import HTTP
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing

/// What the browser shows for each way a portal can fail, and how soon the portal client gives up.
/// The time is measured at the client (the whole program shares its UI thread with every other
/// suite in the test process); the bounds are generous, for a loaded machine: the exact waiting
/// budgets are `RetryPolicyTests`', and the times on a quiet machine are in docs/benchmarks.md.
@Suite @UIActor struct NetworkCaseTests {
    /// Seconds until `request` failed, and how.
    private func failure(_ request: () async throws -> Void) async -> (seconds: Double, error: (any Error)?) {
        let started = ContinuousClock.now
        var caught: (any Error)?
        do { try await request() } catch { caught = error }
        let elapsed = ContinuousClock.now - started
        return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, caught)
    }

    @Test func refusedIsNotAnsweringWithinASecondOrSo() async throws {
        // Nothing listens on a port just closed.
        let portal = try SampleFixture.start()
        let url = portal.baseURL
        portal.stop()
        let (seconds, error) = await failure { _ = try await PortalClient(portal: url).webMapItem(.exploreMaine) }
        #expect((error as? HTTPError)?.networkState == .portalNotAnswering)
        #expect(seconds < 4, "took \(seconds) s: one quick retry, not a backoff")
        let program = await ProgramFixture.started(portal: url)
        defer { Task { await program.shutdown() } }
        #expect(program.state.phase == .notAnswering(
            host: "127.0.0.1", "Cannot reach 127.0.0.1: the connection was refused or the network is unreachable."))
        #expect(program.state.network == .portalNotAnswering)
        #expect(KeyMap.hints(for: program.state.phase) == ["r try now", "? help", "q quit"])
    }

    @Test func anUnresolvableNameIsOfflineWithinASecondOrSo() async throws {
        let url = URL(string: "http://mapbook-no-such-host.invalid")!
        let (seconds, error) = await failure { _ = try await PortalClient(portal: url).webMapItem(.exploreMaine) }
        #expect((error as? HTTPError)?.networkState == .offline)
        #expect(seconds < 4, "took \(seconds) s")
        let program = await ProgramFixture.started(portal: url)
        defer { Task { await program.shutdown() } }
        #expect(program.state.phase == .unreachable(host: "mapbook-no-such-host.invalid"))
        #expect(program.state.network == .offline)
    }

    @Test func connectionsClosedAfterAcceptAreNotAnswering() async throws {
        var faults = SampleFaults()
        faults.hangUp = true
        let portal = try SampleFixture.start(faults: faults)
        defer { portal.stop() }
        let (seconds, error) = await failure { _ = try await PortalClient(portal: portal.baseURL).webMapItem(.exploreMaine) }
        #expect((error as? HTTPError)?.networkState == .portalNotAnswering)
        #expect(seconds < 6, "took \(seconds) s: two quick retries")
        let program = await ProgramFixture.started(portal: portal.baseURL)
        defer { Task { await program.shutdown() } }
        guard case .notAnswering(let host, let sentence) = program.state.phase else {
            Issue.record("shown: \(program.state.phase)")
            return
        }
        #expect(host == "127.0.0.1" && sentence.contains("lost"))
        #expect(program.state.network == .portalNotAnswering, "not online")
    }

    @Test func aServerErrorIsTheErrorCardSoon() async throws {
        var faults = SampleFaults()
        faults.errorStatus = 500
        let portal = try SampleFixture.start(faults: faults)
        defer { portal.stop() }
        let (seconds, error) = await failure { _ = try await PortalClient(portal: portal.baseURL).webMapItem(.exploreMaine) }
        #expect(error != nil)
        #expect(seconds < 6, "took \(seconds) s: two quick retries")
        let program = await ProgramFixture.started(portal: portal.baseURL)
        defer { Task { await program.shutdown() } }
        #expect(program.state.phase == .failed("127.0.0.1 answered HTTP 500 (internal server error)."))
        #expect(program.state.network == .online, "the portal answered")
        #expect(KeyMap.hints(for: program.state.phase) == ["r try now", "? help", "q quit"])
    }

    @Test func aStalledAnswerIsNotAnswering() async throws {
        var faults = SampleFaults()
        faults.latencyMilliseconds = 20_000
        let portal = try SampleFixture.start(faults: faults)
        defer { portal.stop() }
        let http = HTTPClient(configuration: HTTPConfiguration(stallTimeout: .seconds(1)))
        let (seconds, error) = await failure { _ = try await PortalClient(portal: portal.baseURL, http: http).webMapItem(.exploreMaine) }
        #expect((error as? HTTPError)?.networkState == .portalNotAnswering)
        #expect(seconds < 10, "took \(seconds) s with a 1 s stall watchdog and one retry")
        let program = await ProgramFixture.started(portal: portal.baseURL, http: HTTPClient(configuration: HTTPConfiguration(
            stallTimeout: .seconds(1), retry: .none)))
        defer { Task { await program.shutdown() } }
        guard case .notAnswering(_, let sentence) = program.state.phase else {
            Issue.record("shown: \(program.state.phase)")
            return
        }
        #expect(sentence.contains("stalled"))
    }

    /// The portal closes connections, then recovers: the browser notices by itself and loads.
    @Test func aPortalThatRecoversLoadsByItself() async throws {
        var faults = SampleFaults()
        faults.hangUp = true
        let portal = try SampleFixture.start(faults: faults)
        defer { portal.stop() }
        let program = await ProgramFixture.started(portal: portal.baseURL)
        defer { Task { await program.shutdown() } }
        #expect(program.state.network == .portalNotAnswering)
        portal.updateFaults { $0.hangUp = false }
        #expect(await ProgramFixture.settle(program, timeout: .seconds(60)) { $0.phase == .loaded && $0.network == .online },
                "reloaded without a key")
    }
}
