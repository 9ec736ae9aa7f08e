import Foundation
import HTTP
import MapbookCore
import Geometry
import ArcGISModel

/// The ArcGIS route service's REST operations (`NAServer/…/solve`, and the routing utilities'
/// `GetTravelModes`), found through the portal.
extension PortalClient {
    /// ArcGIS Online's routing service, for a portal on arcgis.com that names none.
    public static let worldRoute = URL(string: "https://route.arcgis.com/arcgis/rest/services/World/Route/NAServer/Route_World")!

    /// The most stops one solve takes (ArcGIS Online's World route service takes 150).
    public static let maxRouteStops = 150

    /// The portal's route service (`portals/self` → `helperServices.route.url`), with its routing
    /// utilities when named; ArcGIS Online's World route service on arcgis.com.
    public func routeService() async throws -> RouteService {
        let portal = try await getJSON(["portals", "self"], query: [], about: nil)
        let helpers = portal["helperServices"]
        func address(_ entry: JSONValue?) -> URL? {
            guard let text = entry?["url"]?.string, let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else { return nil }
            return url
        }
        if let url = address(helpers?["route"]) {
            await learnFederation(of: url)
            let utilities = address(helpers?["routingUtilities"])
            if let utilities { await learnFederation(of: utilities) }
            return RouteService(url: url, utilities: utilities)
        }
        guard host.lowercased().hasSuffix("arcgis.com") else { throw RouteError("\(host) offers no route service, so directions cannot be found.") }
        return RouteService(url: Self.worldRoute)
    }

    /// `GetTravelModes`: the travel modes the portal offers (the first `mostTravelModes`); none when
    /// it names no routing utilities. A mode whose description is larger than any real one (which
    /// would be posted back with every route) is left out.
    public func travelModes(using service: RouteService) async throws -> [TravelMode] {
        guard let utilities = service.utilities else { return [] }
        let json = try await getJSON(utilities, ["GetTravelModes", "execute"], query: [], deadline: Self.queryDeadline)
        let rows = (json["results"]?.array ?? []).first { $0["paramName"]?.string == "supportedTravelModes" }?["value"]?["features"]?.array ?? []
        return rows.lazy.compactMap { row in
            guard let name = row["attributes"]?["Name"]?.string, let mode = row["attributes"]?["TravelMode"]?.string, !name.isEmpty,
                  mode.utf8.count <= Self.largestTravelMode else { return nil }
            return TravelMode(name: TerminalText.sanitizedLine(name, maxLength: 80), json: mode)
        }.prefix(Self.mostTravelModes).map { $0 }
    }

    /// The most travel modes taken from a portal, and the largest description of one (real ones are a few KiB).
    static let mostTravelModes = 100
    static let largestTravelMode = 64 << 10

    /// `solve`: the route through `stops` in order, with its directions in `units`, starting now.
    public func solveRoute(_ stops: [RouteStop], units: RouteUnits, mode: TravelMode? = nil, start: Date = Date(),
                           using service: RouteService) async throws -> Route {
        try Self.checkStops(stops)
        let features: [JSONValue] = stops.map { stop in
            .object(["geometry": .object(["x": .number(stop.point.longitude), "y": .number(stop.point.latitude)]),
                     "attributes": .object(["Name": .string(TerminalText.sanitizedLine(stop.name, maxLength: 100))])])
        }
        let stopsJSON = JSONValue.object(["features": .array(features), "spatialReference": .object(["wkid": .number(4326)])])
        var form: [(String, String)] = [
            ("stops", stopsJSON.compactText), ("returnDirections", "true"), ("returnRoutes", "true"), ("returnStops", "false"),
            ("directionsOutputType", "esriDOTComplete"), ("directionsLengthUnits", units.serviceName), ("outSR", "4326"),
            ("startTime", String(start.epochMilliseconds)), ("startTimeIsUTC", "true"),
        ]
        if let mode { form.append(("travelMode", mode.json)) }
        // POST: 150 named stops are longer than servers take in an address (about 2,000 characters).
        var request = formPost(base: service.url, ["solve"], form: form)
        request.deadline = Self.solveDeadline
        request.maxBodyBytes = Self.maxRouteBytes
        let json: JSONValue
        do {
            json = try await getJSON(request, about: nil)
        } catch let error as PortalError {
            switch error.kind {
            case .rejected, .serverError: throw Self.routeError(error)
            default: throw error
            }
        }
        return try Self.route(from: json, stops: stops, units: units, start: start, modeName: mode?.name)
    }

    /// A route's answer may take this long in all: a cross-country solve takes seconds on a server.
    static let solveDeadline = Duration.seconds(60)
    /// The largest answer taken: a coast-to-coast route with complete directions is about 2 MB.
    static let maxRouteBytes = 8 << 20

    /// Refuses what no route service can solve, before asking one.
    public static func checkStops(_ stops: [RouteStop]) throws {
        guard stops.count >= 2 else { throw RouteError("A route needs a start and an end.") }
        guard stops.count <= maxRouteStops else { throw RouteError("A route takes at most \(maxRouteStops) stops; this one has \(stops.count).") }
        for stop in stops {
            let p = stop.point
            guard p.longitude.isFinite, p.latitude.isFinite, abs(p.longitude) <= 180, abs(p.latitude) <= 90 else {
                throw RouteError("\(TerminalText.sanitizedLine(stop.name, maxLength: 60)) is not on the map: longitude −180 to 180, latitude −90 to 90.")
            }
        }
        for (a, b) in zip(stops, stops.dropFirst()) where Geodesy.distance(a.point, b.point) < 1 {
            throw RouteError("\(TerminalText.sanitizedLine(a.name, maxLength: 60)) and \(TerminalText.sanitizedLine(b.name, maxLength: 60)) are the same place: there is no way to go.")
        }
    }

    /// A route service's error body, said as one sentence: the details name the stop or the cause.
    static func routeError(_ error: PortalError) -> RouteError {
        let text = error.serverMessage
        if text.localizedCaseInsensitiveContains("unlocated") || text.localizedCaseInsensitiveContains("not located") {
            return RouteError("A stop is not near any road the route service knows: choose a place on or near a road.")
        }
        if text.localizedCaseInsensitiveContains("no solution") {
            return RouteError("The route service found no way between these stops (no road joins them).")
        }
        return RouteError("The route service could not find the route: \(TerminalText.sanitizedLine(error.serverMessage, maxLength: 160)).")
    }

    /// Reads `solve`'s answer: the route's line and totals, and each step of the directions.
    static func route(from json: JSONValue, stops: [RouteStop], units: RouteUnits, start: Date, modeName: String?) throws -> Route {
        guard let route = json["routes"]?["features"]?.array.first else {
            throw RouteError("The route service answered without a route.")
        }
        let reference = SpatialReference(json: json["routes"]?["spatialReference"]) ?? .wgs84
        var path: [GeoPoint] = []
        for part in route["geometry"]?["paths"]?.array ?? [] {
            for vertex in part.array {
                guard let x = vertex[0]?.double, let y = vertex[1]?.double, let point = geographic(x: x, y: y, in: reference) else {
                    throw RouteError("The route service's line has a point off the map.")
                }
                path.append(point)
            }
        }
        guard path.count >= 2 else { throw RouteError("The route service answered with a route of no length.") }
        let attributes = route["attributes"]
        let directions: JSONValue? = json["directions"]?.array.first
        let summary: JSONValue? = directions?["summary"]
        let totalField = units == .kilometers ? "Total_Kilometers" : "Total_Miles"
        let length: Double = summary?["totalLength"]?.double ?? attributes?[totalField]?.double ?? 0
        let minutes: Double = summary?["totalTime"]?.double ?? attributes?["Total_TravelTime"]?.double ?? 0
        guard checked(length, atMost: longestLength) != nil, checked(minutes, atMost: longestMinutes) != nil else {
            throw RouteError("The route service's totals are not numbers a route on Earth can have.")
        }
        let maneuvers: [Maneuver] = (directions?["features"]?.array ?? []).map(maneuver)
        let extent = Envelope(json: summary?["envelope"], default: reference)?.geographic ?? GeoGeometry.lines([path]).extent
        return Route(stops: stops, units: units, path: path, length: length, minutes: minutes, extent: extent,
                     maneuvers: maneuvers, start: start, modeName: modeName)
    }

    /// One step of `directions[0].features`; a step whose compressed geometry cannot be read is
    /// listed without a line.
    private static func maneuver(_ step: JSONValue) -> Maneuver {
        let a: JSONValue? = step["attributes"]
        let text = TerminalText.sanitizedLine(a?["text"]?.string ?? "", maxLength: 200)
        var eta: Date?
        if let ms = checked(a?["ETA"]?.double, atMost: latestArrival), ms > 0 { eta = Date(timeIntervalSince1970: ms / 1000) }
        var path: [GeoPoint] = []
        if let compressed = step["compressedGeometry"]?.string, let decoded = try? CompressedGeometry.decode(compressed) { path = decoded }
        return Maneuver(kind: ManeuverKind(serviceName: a?["maneuverType"]?.string), text: text.isEmpty ? "Continue" : text,
                        length: checked(a?["length"]?.double, atMost: longestLength) ?? 0,
                        minutes: checked(a?["time"]?.double, atMost: longestMinutes) ?? 0, arrival: eta, path: path)
    }

    /// The most a route on Earth can measure, in either unit, and take, in minutes (twenty years);
    /// and the latest arrival believed (the year 9999, in epoch milliseconds).
    static let longestLength = 1_000_000.0
    static let longestMinutes = 10_000_000.0
    static let latestArrival = 253_402_300_799_000.0

    /// A server's figure when it is one a route can have (finite, not negative, within `limit`).
    private static func checked(_ value: Double?, atMost limit: Double) -> Double? {
        guard let value, value.isFinite, value >= 0, value <= limit else { return nil }
        return value
    }
}
