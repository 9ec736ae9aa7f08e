import AppModel
import AppRuntime
import ArcGISModel
import ArcGISPortal
import EventLoop
import Foundation
import HTTP
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing
import TestScheduling

/// What the browser shows for each way a portal can fail, and how often the portal client asks
/// before giving up: counted at the server, not timed (a loaded machine stretches any time). The
/// waits between attempts are `RetryPolicyTests`'; the times on a quiet machine, measured with the
/// release build, are in docs/benchmarks.md.
@Suite(.aheadOfQueuedTests) @UIActor struct NetworkCaseTests {
    /// How `request` failed.
    private func failure(_ request: () async throws -> Void) async -> (any Error)? {
        do { try await request(); return nil } catch { return error }
    }

    /// The requests for the web map's item the portal saw.
    private func itemRequests(_ portal: SamplePortal) -> Int {
        portal.requests.filter { $0.path.contains(ItemID.exploreMaine.rawValue) }.count
    }

    @Test func refusedIsNotAnsweringWithinASecondOrSo() async throws {
        // Nothing listens on a port just closed.
        let portal = try SampleFixture.start()
        let url = portal.baseURL
        portal.stop()
        let error = await failure { _ = try await PortalClient(portal: url).webMapItem(.exploreMaine) }
        #expect((error as? HTTPError)?.networkState == .portalNotAnswering)
        let program = await ProgramFixture.started(portal: url)
        defer { Task { await program.shutdown() } }
        #expect(program.state.catalog.phase == .notAnswering(
            host: "127.0.0.1", "Cannot reach 127.0.0.1: the connection was refused or the network is unreachable."))
        #expect(program.state.portal.network == .portalNotAnswering)
        #expect(KeyMap.hints(for: program.state.catalog.phase) == ["r try now", "? help", "q quit"])
    }

    @Test func anUnresolvableNameIsOfflineWithinASecondOrSo() async throws {
        let url = URL(string: "http://mapbook-no-such-host.invalid")!
        let error = await failure { _ = try await PortalClient(portal: url).webMapItem(.exploreMaine) }
        #expect((error as? HTTPError)?.networkState == .offline)
        let program = await ProgramFixture.started(portal: url)
        defer { Task { await program.shutdown() } }
        #expect(program.state.catalog.phase == .unreachable(host: "mapbook-no-such-host.invalid"))
        #expect(program.state.portal.network == .offline)
    }

    @Test func connectionsClosedAfterAcceptAreNotAnswering() async throws {
        var faults = SampleFaults()
        faults.hangUp = true
        let portal = try SampleFixture.start(faults: faults)
        defer { portal.stop() }
        let error = await failure { _ = try await PortalClient(portal: portal.baseURL).webMapItem(.exploreMaine) }
        #expect((error as? HTTPError)?.networkState == .portalNotAnswering)
        #expect(itemRequests(portal) == 1 + RetryPolicy.standard.maxRetries, "asked, then retried as the policy says, then gave up")
        let program = await ProgramFixture.started(portal: portal.baseURL)
        defer { Task { await program.shutdown() } }
        guard case .notAnswering(let host, let sentence) = program.state.catalog.phase else {
            Issue.record("shown: \(program.state.catalog.phase)")
            return
        }
        #expect(host == "127.0.0.1" && sentence.contains("lost"))
        #expect(program.state.portal.network == .portalNotAnswering, "not online")
    }

    @Test func aServerErrorIsTheErrorCardSoon() async throws {
        var faults = SampleFaults()
        faults.errorStatus = 500
        let portal = try SampleFixture.start(faults: faults)
        defer { portal.stop() }
        let error = await failure { _ = try await PortalClient(portal: portal.baseURL).webMapItem(.exploreMaine) }
        #expect(error != nil)
        #expect(itemRequests(portal) == 1 + RetryPolicy.standard.maxRetries)
        let program = await ProgramFixture.started(portal: portal.baseURL)
        defer { Task { await program.shutdown() } }
        #expect(program.state.catalog.phase == .failed("127.0.0.1 answered HTTP 500 (internal server error)."))
        #expect(program.state.portal.network == .online, "the portal answered")
        #expect(KeyMap.hints(for: program.state.catalog.phase) == ["r try now", "? help", "q quit"])
    }

    @Test func aStalledAnswerIsNotAnswering() async throws {
        var faults = SampleFaults()
        faults.latencyMilliseconds = 20_000
        let portal = try SampleFixture.start(faults: faults)
        defer { portal.stop() }
        let http = HTTPClient(configuration: HTTPConfiguration(stallTimeout: .seconds(1)))
        let error = await failure { _ = try await PortalClient(portal: portal.baseURL, http: http).webMapItem(.exploreMaine) }
        #expect((error as? HTTPError)?.networkState == .portalNotAnswering)
        #expect(itemRequests(portal) == 1 + RetryPolicy.standard.maxStallRetries, "a stall is retried once")
        let program = await ProgramFixture.started(portal: portal.baseURL, http: HTTPClient(configuration: HTTPConfiguration(
            stallTimeout: .seconds(1), retry: .none)))
        defer { Task { await program.shutdown() } }
        guard case .notAnswering(_, let sentence) = program.state.catalog.phase else {
            Issue.record("shown: \(program.state.catalog.phase)")
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
        #expect(program.state.portal.network == .portalNotAnswering)
        portal.updateFaults { $0.hangUp = false }
        #expect(await ProgramFixture.settle(program, timeout: .seconds(60)) { $0.catalog.phase == .loaded && $0.portal.network == .online },
                "reloaded without a key")
    }
}
