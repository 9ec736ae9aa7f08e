import Foundation
import HTTP
import LoopbackHTTP
import MapbookCore
import PortalFixtures
import SamplePortal
import Testing
@testable import ArcGISPortal
import Geometry
import ArcGISModel

/// The route service, found through `portals/self` and asked the World route service's way
/// (`solve`), against the sample portal's interstates; its faults and bad input each one sentence.
@Suite("Routing against the sample portal")
struct RoutingTests {
    let server: SamplePortal
    let client: PortalClient

    init() throws {
        server = try SampleFixture.start()
        client = PortalClient(portal: server.baseURL, http: HTTPClient(configuration: HTTPConfiguration(retry: .none)))
    }

    static let portland = RouteStop(name: "Portland", point: GeoPoint(longitude: -70.2553, latitude: 43.6615))
    static let bangor = RouteStop(name: "Bangor", point: GeoPoint(longitude: -68.7778, latitude: 44.8012))
    static let start = Date(timeIntervalSince1970: 1_790_000_000)
    var routePath: String { "/arcgis/rest/services/World/Route/NAServer/Route_World" }

    /// A solve's parameters: a form body, since stops do not fit in an address.
    func parameters(_ request: LoopbackRequest?) -> [String: String] {
        var components = URLComponents()
        components.percentEncodedQuery = String(decoding: request?.body ?? Data(), as: UTF8.self)
        return Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { _, last in last }
    }

    @Test func portlandToBangorFollowsI95WithADepartAndAnArrive() async throws {
        let service = try await client.routeService()
        #expect(service.url.absoluteString == server.baseURL.absoluteString + routePath)
        let route = try await client.solveRoute([Self.portland, Self.bangor], units: .kilometers, start: Self.start, using: service)

        let request = try #require(server.requests.last)
        #expect(request.path == routePath + "/solve" && request.method == "POST" && request.query.isEmpty)
        let asked = parameters(request)
        #expect(asked["f"] == "json" && asked["returnDirections"] == "true" && asked["returnRoutes"] == "true")
        #expect(asked["directionsOutputType"] == "esriDOTComplete" && asked["directionsLengthUnits"] == "esriNAUKilometers")
        #expect(asked["outSR"] == "4326" && asked["startTime"] == "1790000000000")
        let stops = try JSONValue(parsing: Data((asked["stops"] ?? "").utf8))
        #expect(stops["features"]?.array.map { $0["attributes"]?["Name"]?.string } == ["Portland", "Bangor"])
        #expect(stops["features"]?[0]?["geometry"]?["x"]?.double == -70.2553)

        // By road, Portland to Bangor on I-295 and I-95 is 204 km.
        #expect(abs(route.length - 204) / 204 < 0.15, "length \(route.length) km")
        #expect(route.minutes > 100 && route.minutes < 160)
        #expect(route.maneuvers.first?.kind == .depart && route.maneuvers.last?.kind == .arrive)
        #expect(route.maneuvers.first?.text == "Start at Portland" && route.maneuvers.last?.text == "Finish at Bangor")
        let i95 = try #require(route.maneuvers.first { $0.text.contains("I-95 N") })
        #expect(i95.length > 150, "most of the way is on I-95: \(i95.length) km")
        #expect(route.maneuvers.map(\.length).reduce(0, +).isApproximately(route.length, within: 0.01))
        // Every step's compressed geometry decodes, and the steps join up into the route's line.
        for step in route.maneuvers { #expect(!step.path.isEmpty) }
        #expect(route.maneuvers.dropFirst().first?.path.first.map { Geodesy.distance($0, Self.portland.point) < 5 } == true)
        #expect(Geodesy.distance(try #require(route.path.last), Self.bangor.point) < 5)
        #expect(route.arrival == Self.start.addingTimeInterval(route.minutes * 60))
        #expect(route.maneuvers.last?.arrival.map { abs($0.timeIntervalSince(route.arrival)) < 1 } == true)
    }

    @Test func viaStopsArriveAndDepartAndMilesAreMiles() async throws {
        let service = try await client.routeService()
        let augusta = RouteStop(name: "Augusta", point: GeoPoint(longitude: -69.7795, latitude: 44.3106))
        let route = try await client.solveRoute([Self.portland, augusta, Self.bangor], units: .miles, start: Self.start, using: service)
        let ends: [ManeuverKind] = route.maneuvers.map(\.kind).filter { $0 == .depart || $0 == .arrive }
        #expect(ends == [.depart, .arrive, .depart, .arrive])
        #expect(route.maneuvers.contains { $0.text == "Arrive at Augusta" } && route.maneuvers.contains { $0.text == "Depart Augusta" })
        #expect(route.length > 110 && route.length < 150, "\(route.length) mi")
        #expect(parameters(server.requests.last)["directionsLengthUnits"] == "esriNAUMiles")
    }

    @Test func travelModesComeFromTheRoutingUtilitiesAndAreSentAsJSON() async throws {
        let service = try await client.routeService()
        let modes = try await client.travelModes(using: service)
        #expect(modes.map(\.name) == ["Driving Time", "Driving Distance"])
        #expect(server.requests.last?.path.hasSuffix("/GetTravelModes/execute") == true)
        let distance = try #require(modes.last)
        let shortest = try await client.solveRoute([Self.portland, Self.bangor], units: .kilometers, mode: distance, using: service)
        #expect(parameters(server.requests.last)["travelMode"] == distance.json)
        let quickest = try await client.solveRoute([Self.portland, Self.bangor], units: .kilometers, using: service)
        #expect(shortest.length <= quickest.length + 0.01)
        #expect(shortest.modeName == "Driving Distance")
    }

    /// A portal offering ten thousand travel modes, one of them 100 KB: the first hundred are taken,
    /// none larger than any real one (it would be posted back with every route).
    @Test func travelModesAreHeldToWhatAPortalReallyOffers() async throws {
        let rows = (0..<10_000).map { i in
            #"{"attributes":{"Name":"Mode \#(i)","TravelMode":"\#(i == 1 ? String(repeating: "x", count: 100_000) : "{}")"}}"#
        }.joined(separator: ",")
        let server = try LoopbackServer { _ in .json(#"{"results":[{"paramName":"supportedTravelModes","value":{"features":[\#(rows)]}}]}"#) }
        defer { server.stop() }
        let modes = try await PortalClient(portal: server.baseURL).travelModes(using: RouteService(url: server.baseURL, utilities: server.baseURL))
        #expect(modes.count == 100 && modes.allSatisfy { $0.json == "{}" } && modes[1].name == "Mode 2")
    }

    @Test func stopsNoServiceCanSolveAreRefusedBeforeAsking() async throws {
        let service = try await client.routeService()
        let asked = server.requests.count
        func refusal(_ stops: [RouteStop]) async -> String? {
            do { _ = try await client.solveRoute(stops, units: .kilometers, using: service); return nil } catch { return error.userSentence }
        }
        #expect(await refusal([Self.portland]) == "A route needs a start and an end.")
        #expect(await refusal([Self.portland, Self.portland]) == "Portland and Portland are the same place: there is no way to go.")
        #expect(await refusal([Self.portland, RouteStop(name: "Nowhere", point: GeoPoint(longitude: .nan, latitude: 0))])
                == "Nowhere is not on the map: longitude −180 to 180, latitude −90 to 90.")
        let many = (0..<151).map { RouteStop(name: "S\($0)", point: GeoPoint(longitude: -70 + Double($0) * 0.01, latitude: 44)) }
        #expect(await refusal(many) == "A route takes at most 150 stops; this one has 151.")
        #expect(server.requests.count == asked, "nothing was sent")
    }

    @Test func theServicesErrorsAreOneSentenceEach() async throws {
        let service = try await client.routeService()
        func failure(_ stops: [RouteStop]) async -> String? {
            do { _ = try await client.solveRoute(stops, units: .kilometers, using: service); return nil } catch { return error.userSentence }
        }
        let sea = RouteStop(name: "Gulf of Maine", point: GeoPoint(longitude: -66.5, latitude: 42.5))
        #expect(await failure([Self.portland, sea]) == "A stop is not near any road the route service knows: choose a place on or near a road.")
        server.updateFaults { $0.noRoute = true }
        #expect(await failure([Self.portland, Self.bangor]) == "The route service found no way between these stops (no road joins them).")
        server.updateFaults { $0.noRoute = false; $0.routeDown = true }
        #expect(await failure([Self.portland, Self.bangor]) == "127.0.0.1 answered HTTP 503 (service unavailable).")
        server.updateFaults { $0.routeDown = false; $0.routeNeedsSignIn = true }
        await #expect(throws: PortalError.self) { _ = try await client.solveRoute([Self.portland, Self.bangor], units: .kilometers, using: service) }
        // 100 stops along I-95 are solved in one request.
        server.updateFaults { $0.routeNeedsSignIn = false }
        let along = (0..<100).map { i in
            RouteStop(name: "Stop \(i)", point: GeoPoint(longitude: -70.2553 + Double(i) * (1.4775 / 99), latitude: 43.6615 + Double(i) * (1.1397 / 99)))
        }
        let long = try await client.solveRoute(along, units: .kilometers, using: service)
        #expect(long.maneuvers.filter { $0.kind == .arrive }.count == 99)
    }

    @Test func hostileAnswersAreOneSentenceAndNeverReachTheScreenRaw() async throws {
        func answer(_ body: String, status: Int = 200, contentType: String = "application/json") throws -> (LoopbackServer, RouteService) {
            let server = try LoopbackServer { _ in LoopbackResponse(status: status, headers: [("Content-Type", contentType)], body: Data(body.utf8)) }
            return (server, RouteService(url: server.baseURL.appendingPathComponent("NAServer/Route")))
        }
        func sentence(_ body: String, status: Int = 200, contentType: String = "application/json") async throws -> String? {
            let (server, service) = try answer(body, status: status, contentType: contentType)
            defer { server.stop() }
            do {
                _ = try await PortalClient(portal: server.baseURL, http: HTTPClient(configuration: HTTPConfiguration(retry: .none)))
                    .solveRoute([Self.portland, Self.bangor], units: .kilometers, using: service)
                return nil
            } catch { return error.userSentence }
        }
        #expect(try await sentence("<html>Bad gateway</html>", contentType: "text/html")?.contains("not valid ArcGIS JSON") == true)
        #expect(try await sentence(#"{"error":{"code":400,"message":"Unable to complete operation.","details":["No solution found."]}}"#)
                == "The route service found no way between these stops (no road joins them).")
        #expect(try await sentence(#"{"error":{"code":400,"message":"\u001b[2JEvil","details":[]}}"#)
                == "The route service could not find the route: Evil.")
        #expect(try await sentence(#"{"routes":{"features":[]}}"#) == "The route service answered without a route.")
        #expect(try await sentence(#"{"routes":{"features":[{"geometry":{"paths":[[[-70,43],[500,43]]]}}]}}"#)
                == "The route service's line has a point off the map.")
        // A step whose compressed geometry is damaged is listed without a line; its text is cleaned.
        let (server, service) = try answer(#"""
            {"routes":{"features":[{"attributes":{"Total_Kilometers":2,"Total_TravelTime":3},"geometry":{"paths":[[[-70,43],[-70.01,43.01]]]}}]},
             "directions":[{"summary":{"totalLength":2,"totalTime":3},"features":[
               {"attributes":{"text":"Go \u001b[31mnorth","length":2,"time":3,"maneuverType":"esriDMTStraight"},"compressedGeometry":"+1m91-zz!"}]}]}
            """#)
        defer { server.stop() }
        let route = try await PortalClient(portal: server.baseURL).solveRoute([Self.portland, Self.bangor], units: .kilometers, using: service)
        #expect(route.maneuvers.count == 1 && route.maneuvers[0].path.isEmpty && route.maneuvers[0].text == "Go north")
    }

    /// Totals and steps of lengths and times no route on Earth has: refused, or the step's figure
    /// left out — never a number that stops the program when it is printed (once: exit 132).
    @Test func numbersNoRouteCanHaveAreRefused() async throws {
        func route(total: String, step: String) async throws -> Result<Route, any Error> {
            let server = try LoopbackServer { _ in .json(#"""
                {"routes":{"features":[{"geometry":{"paths":[[[-70,43],[-70.01,43.01]]]}}]},
                 "directions":[{"summary":{\#(total)},"features":[{"attributes":{"text":"Go",\#(step),"maneuverType":"esriDMTStraight"}}]}]}
                """#) }
            defer { server.stop() }
            do {
                return .success(try await PortalClient(portal: server.baseURL).solveRoute([Self.portland, Self.bangor], units: .kilometers,
                                                                                          using: RouteService(url: server.baseURL)))
            } catch { return .failure(error) }
        }
        for total in [#""totalLength":1e19,"totalTime":3"#, #""totalLength":2,"totalTime":1e300"#, #""totalLength":-2,"totalTime":3"#] {
            guard case .failure(let error) = try await route(total: total, step: #""length":1,"time":1"#) else {
                Issue.record("taken: \(total)"); continue
            }
            #expect(error.userSentence == "The route service's totals are not numbers a route on Earth can have.")
        }
        let kept = try await route(total: #""totalLength":2,"totalTime":3"#, step: #""length":1e19,"time":1e300,"ETA":1e30"#).get()
        #expect(kept.maneuvers[0].length == 0 && kept.maneuvers[0].minutes == 0 && kept.maneuvers[0].arrival == nil)
        // Whatever a route says, its words never trap.
        _ = RouteUnits.kilometers.describe(1e300) + Format.duration(minutes: .infinity) + RouteUnits.miles.describe(-.infinity)
    }

    @Test func aTooLargeAnswerIsRefusedWithinItsBound() async throws {
        let huge = String(repeating: " ", count: 10 << 20)
        let server = try LoopbackServer { _ in .json("{\"routes\":" + huge + "}") }
        defer { server.stop() }
        do {
            _ = try await PortalClient(portal: server.baseURL).solveRoute([Self.portland, Self.bangor], units: .kilometers,
                                                                        using: RouteService(url: server.baseURL))
            Issue.record("a 10 MB answer was taken")
        } catch {
            #expect(error.userSentence == "The server's answer was larger than 8.0 MiB and was refused.")
        }
    }

    @Test func aPortalWithoutARouteServiceSaysSo() async throws {
        let silent = try LoopbackServer { _ in .json(#"{"id":"x","name":"Portal","helperServices":{"route":{"url":"ftp://x"}}}"#) }
        defer { silent.stop() }
        do {
            _ = try await PortalClient(portal: silent.baseURL).routeService()
            Issue.record("a portal without a route service gave one")
        } catch {
            #expect(error.userSentence == "127.0.0.1 offers no route service, so directions cannot be found.")
        }
    }
}

private extension Double {
    func isApproximately(_ other: Double, within tolerance: Double) -> Bool { abs(self - other) <= tolerance * max(abs(other), 1) }
}
