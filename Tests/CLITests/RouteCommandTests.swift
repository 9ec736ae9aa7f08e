import Foundation
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing

/// `mapbook route` against the sample portal: places by name or as points (west of Greenwich),
/// text and JSON, and one sentence with the straight-line distance when no route can be had.
@Suite("mapbook route")
struct RouteCommandTests {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("mapbook-route-\(UUID())").path

    func run(_ arguments: [String]) async throws -> CLIResult {
        try await CLI.runAsync(arguments, environment: ["XDG_CONFIG_HOME": home + "/config", "XDG_STATE_HOME": home + "/state",
                                                         "XDG_CACHE_HOME": home + "/cache", "XDG_DATA_HOME": home + "/data"])
    }

    @Test func byNameAsJSONFromTheGeocoder() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let result = try await run(["route", "Portland, ME", "Bangor", "--json", "--portal", portal.baseURL.absoluteString])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONValue(parsing: Data(result.stdout.utf8))
        #expect(json["stops"]?.array.map { $0["name"]?.string } == ["Portland, ME, USA", "Bangor, ME, USA"])
        #expect(json["units"] == .string("km") && json["mode"] == .null)
        let length = try #require(json["length"]?.double)
        #expect(abs(length - 204) / 204 < 0.15)
        let kinds = json["maneuvers"]?.array.compactMap { $0["kind"]?.string } ?? []
        #expect(kinds.first == "depart" && kinds.last == "arrive")
        #expect(json["maneuvers"]?.array.contains { $0["text"]?.string?.contains("I-95 N") == true } == true)
        #expect((json["path"]?.array.count ?? 0) > 100 && json["arrival"]?.string != nil)
        #expect(portal.requests.contains { $0.path.hasSuffix("/findAddressCandidates") })
    }

    @Test func westernPointsAndViaInTextWithMiles() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let result = try await run(["route", "-70.2553,43.6615", "-68.7778,44.8012", "--via", "-69.7795,44.3106", "--units", "mi",
                                    "--portal", portal.baseURL.absoluteString])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("-70.2553,43.6615 → -69.7795,44.3106 → -68.7778,44.8012: ") == true)
        #expect(lines.first?.contains(" mi · 2 h") == true, "\(lines.first ?? "")")
        #expect(lines.dropFirst().first?.hasSuffix("◉ Start at -70.2553,43.6615") == true)
        #expect(lines.last?.hasSuffix("◆ Finish at -68.7778,44.8012") == true)
        #expect(lines.contains { $0.contains("◆ Arrive at -69.7795,44.3106") })
    }

    @Test func noRouteIsOneSentenceWithTheStraightLine() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let portal = try SampleFixture.start()
        defer { portal.stop() }
        let url = portal.baseURL.absoluteString
        let sea = try await run(["route", "-66.5,42.5", "Portland", "--portal", url])
        #expect(sea.status == 1 && sea.stdout.isEmpty)
        #expect(sea.stderr == "mapbook: A stop is not near any road the route service knows: choose a place on or near a road. In a straight line it is 331 km.\n")
        let inMiles = try await run(["route", "-66.5,42.5", "Portland", "--units", "mi", "--portal", url])
        #expect(inMiles.stderr.hasSuffix("In a straight line it is 206 mi.\n"), "the straight line in the units asked for: \(inMiles.stderr)")
        portal.updateFaults { $0.routeNeedsSignIn = true }
        let signedOut = try await run(["route", "Portland", "Bangor", "--json", "--portal", url])
        #expect(signedOut.status == 4)
        let error = try JSONValue(parsing: Data(signedOut.stdout.utf8))["error"]
        #expect(error?["kind"] == .string("signIn") && error?["message"]?.string?.hasSuffix("In a straight line it is 174 km.") == true)
        portal.stop()
        // Offline, the names on this device find both places; the geocoder's absence is said once.
        let offline = try await run(["route", "Portland, Maine", "Bangor", "--portal", url])
        let said = offline.stderr.split(separator: "\n")
        #expect(offline.status == 3 && said.count == 2, "\(offline.stderr)")
        #expect(said.first?.hasSuffix("Looking for places among the names on this device.") == true)
        #expect(said.last?.hasSuffix("In a straight line it is 174 km.") == true, "\(offline.stderr)")
        let same = try await run(["route", "-70.2,43.6", "-70.2,43.6", "--portal", url])
        #expect(same.stderr == "mapbook: -70.2,43.6 and -70.2,43.6 are the same place: there is no way to go.\n")
    }
}
