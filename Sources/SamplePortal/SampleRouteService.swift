import Foundation
import ArcGISModel
import Geometry
import LoopbackHTTP
import MapbookAssets
import MapbookCore
import Places

/// A route service (`NAServer/Route_World/solve`) over the bundled interstates, at the address
/// `portals/self` advertises, with the routing utilities' `GetTravelModes`. Answers in the World
/// route service's shapes: the route's line and totals, and complete directions with each step's
/// compressed geometry; its errors as ArcGIS sends them.
struct SampleRouteService: Sendable {
    static let path = "/arcgis/rest/services/World/Route/NAServer/Route_World"
    static let utilitiesPath = "/arcgis/rest/services/World/Utilities/GPServer"

    let network: SampleRoadNetwork
    /// The places a direction's "toward" names: towns of Maine and the world gazetteer's places.
    let places: [PlaceName]

    init() {
        network = SampleRoadNetwork()
        places = MapbookAssets.placeNames()
    }

    /// The modes `GetTravelModes` offers: quickest, or shortest.
    static let modes: [(name: String, id: String, impedance: String)] = [
        ("Driving Time", "FEgifRtFndKNcJMJ", "TravelTime"), ("Driving Distance", "iKjmHuBSIqdEfOVr", "Kilometers"),
    ]

    /// `down`: the `routeDown` fault; `noRoute`: every solve finds no solution; `needsSignIn`: a
    /// caller without a token is refused, as ArcGIS Online's route service refuses one.
    func respond(_ request: LoopbackRequest, down: Bool, noRoute: Bool, signedIn: Bool, needsSignIn: Bool) -> LoopbackResponse {
        if down {
            return LoopbackResponse(status: 503, headers: [("Content-Type", "text/html")], body: Data("<html><body>Service Unavailable</body></html>".utf8))
        }
        // Parameters come in the address or, as clients send long ones, in a form body.
        let parameters = request.method == "POST" ? request.query.merging(SampleAuth.form(request.body)) { _, form in form } : request.query
        guard parameters["f"] == "json" || parameters["f"] == "pjson" else { return SampleREST.html }
        if needsSignIn, !signedIn { return SampleREST.json(SampleREST.error(499, "Token Required")) }
        if request.path.hasPrefix(Self.utilitiesPath) {
            guard request.path.hasSuffix("/GetTravelModes/execute") else { return SampleREST.json(SampleREST.error(400, "Invalid URL")) }
            return SampleREST.json(travelModes())
        }
        let operation = request.path.dropFirst(Self.path.count).split(separator: "/").first.map(String.init)
        switch operation {
        case nil:
            return SampleREST.json(.object(["currentVersion": .number(11.3), "serviceDescription": .string("Routes over the interstates."),
                                            "routes": .array([.string("Route")])]))
        case "solve":
            return SampleREST.json(solve(parameters, noRoute: noRoute))
        default:
            return SampleREST.json(SampleREST.error(400, "Invalid URL", details: ["Unknown operation."]))
        }
    }

    private func travelModes() -> JSONValue {
        let features: [JSONValue] = Self.modes.map { mode in
            let json = JSONValue.object(["name": .string(mode.name), "id": .string(mode.id), "type": .string("AUTOMOBILE"),
                                         "impedanceAttributeName": .string(mode.impedance), "timeAttributeName": .string("TravelTime"),
                                         "distanceAttributeName": .string("Kilometers")])
            return .object(["attributes": .object(["Name": .string(mode.name), "TravelModeId": .string(mode.id), "TravelMode": .string(json.compactText)])])
        }
        return .object(["results": .array([
            .object(["paramName": .string("supportedTravelModes"), "dataType": .string("GPRecordSet"),
                     "value": .object(["features": .array(features)])]),
            .object(["paramName": .string("defaultTravelMode"), "dataType": .string("GPString"), "value": .string(Self.modes[0].id)]),
        ]), "messages": .array([])])
    }

    // MARK: solve

    private static func failure(_ details: [String]) -> JSONValue { SampleREST.error(400, "Unable to complete operation.", details: details) }

    func solve(_ query: [String: String], noRoute: Bool) -> JSONValue {
        guard let stops = Self.stops(query["stops"] ?? "") else {
            return Self.failure(["Invalid value for parameter 'stops'."])
        }
        guard stops.count >= 2 else { return Self.failure(["Need at least 2 valid stops."]) }
        guard stops.count <= 150 else { return Self.failure(["The number of stops exceeds the limit of 150."]) }
        if let sr = query["outSR"], !["4326", "{\"wkid\":4326}"].contains(sr.replacingOccurrences(of: " ", with: "")) {
            return Self.failure(["Invalid value for parameter 'outSR': this service answers in WGS84 (4326)."])
        }
        let units: RouteUnits = query["directionsLengthUnits"] == "esriNAUKilometers" ? .kilometers : .miles
        let start = query["startTime"].flatMap(Double.init).map { Date(timeIntervalSince1970: $0 / 1000) } ?? Date()
        // A travel mode whose impedance is a distance asks for the shortest way, not the quickest.
        let mode = query["travelMode"].flatMap { try? JSONValue(parsing: Data($0.utf8)) }
        let shortest = ["Kilometers", "Miles"].contains(mode?["impedanceAttributeName"]?.string ?? "")
        var snaps: [SampleRoadNetwork.Snap] = []
        for stop in stops {
            guard let snap = network.snap(stop.point) else {
                return Self.failure(["Location \"\(stop.name)\" in \"Stops\" is unlocated.", "Need at least 2 valid stops.",
                                     "\"Stops\" does not contain valid input for any route."])
            }
            snaps.append(snap)
        }
        if noRoute { return Self.failure(["No solution found."]) }
        var legs: [[SampleRoadNetwork.Piece]] = []
        for i in 0..<(stops.count - 1) {
            guard let pieces = network.quickest(from: snaps[i], to: snaps[i + 1], shortest: shortest) else { return Self.failure(["No solution found."]) }
            let leave = SampleRoadNetwork.Piece(road: nil, points: [stops[i].point, snaps[i].point], metres: snaps[i].offRoad,
                                                seconds: snaps[i].offRoad / SampleRoadNetwork.speed(of: nil))
            let reach = SampleRoadNetwork.Piece(road: nil, points: [snaps[i + 1].point, stops[i + 1].point], metres: snaps[i + 1].offRoad,
                                                seconds: snaps[i + 1].offRoad / SampleRoadNetwork.speed(of: nil))
            legs.append(([leave] + pieces + [reach]).filter { $0.metres > 0.5 })
        }
        return answer(stops: stops, legs: legs, units: units, start: start)
    }

    /// `stops` as a JSON feature set (names in `attributes.Name`) or `x,y;x,y`.
    static func stops(_ text: String) -> [RouteStop]? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("{") {
            guard let json = try? JSONValue(parsing: Data(trimmed.utf8)) else { return nil }
            var stops: [RouteStop] = []
            for (i, feature) in (json["features"]?.array ?? []).enumerated() {
                guard let x = feature["geometry"]?["x"]?.double, let y = feature["geometry"]?["y"]?.double,
                      x.isFinite, y.isFinite, abs(x) <= 180, abs(y) <= 90 else { return nil }
                stops.append(RouteStop(name: feature["attributes"]?["Name"]?.string ?? "Location \(i + 1)", point: GeoPoint(longitude: x, latitude: y)))
            }
            return stops
        }
        var stops: [RouteStop] = []
        for (i, pair) in trimmed.split(separator: ";").enumerated() {
            guard let point = GeoPoint(parsing: String(pair)) else { return nil }
            stops.append(RouteStop(name: "Location \(i + 1)", point: point))
        }
        return stops
    }

    // MARK: The answer

    /// One maneuver as the service writes it.
    private struct Step {
        var kind: ManeuverKind
        var text: String
        var points: [GeoPoint]
        var metres: Double
        var seconds: Double
    }

    private func answer(stops: [RouteStop], legs: [[SampleRoadNetwork.Piece]], units: RouteUnits, start: Date) -> JSONValue {
        var steps: [Step] = []
        for (i, leg) in legs.enumerated() {
            let from = stops[i], to = stops[i + 1]
            steps.append(Step(kind: .depart, text: i == 0 ? "Start at \(from.name)" : "Depart \(from.name)", points: [from.point], metres: 0, seconds: 0))
            steps += directions(for: leg, destination: to.name)
            steps.append(Step(kind: .arrive, text: i == legs.count - 1 ? "Finish at \(to.name)" : "Arrive at \(to.name)", points: [to.point], metres: 0, seconds: 0))
        }
        let path = legs.flatMap { $0.flatMap(\.points) }.reduce(into: [GeoPoint]()) { line, p in if line.last != p { line.append(p) } }
        let metres = steps.reduce(0) { $0 + $1.metres }, seconds = steps.reduce(0) { $0 + $1.seconds }
        let extent = GeoGeometry.lines([path]).extent
        var elapsed = 0.0
        let features: [JSONValue] = steps.map { step in
            let eta = (start.timeIntervalSince1970 + elapsed) * 1000
            elapsed += step.seconds
            return .object(["attributes": .object([
                "length": .number(step.metres / units.metres), "time": .number(step.seconds / 60), "text": .string(step.text),
                "ETA": .number(eta.rounded()), "arriveTimeUTC": .number(eta.rounded()), "maneuverType": .string(step.kind.serviceName),
            ]), "compressedGeometry": .string(CompressedGeometry.encode(step.points))])
        }
        let name = "\(stops[0].name) - \(stops[stops.count - 1].name)"
        let envelope: JSONValue = extent.map { e in
            .object(["xmin": .number(e.xmin), "ymin": .number(e.ymin), "xmax": .number(e.xmax), "ymax": .number(e.ymax),
                     "spatialReference": .object(["wkid": .number(4326), "latestWkid": .number(4326)])])
        } ?? .null
        return .object([
            "checksum": .string(String(format: "%08x", path.count &* 2_654_435_761 & 0xffffffff)),
            "messages": .array([]),
            "routes": .object([
                "fieldAliases": .object(["ObjectID": .string("ObjectID"), "Name": .string("Name"), "Total_TravelTime": .string("Total_TravelTime"),
                                         "Total_Kilometers": .string("Total_Kilometers"), "Total_Miles": .string("Total_Miles")]),
                "geometryType": .string("esriGeometryPolyline"),
                "spatialReference": .object(["wkid": .number(4326), "latestWkid": .number(4326)]),
                "features": .array([.object([
                    "attributes": .object([
                        "ObjectID": .number(1), "Name": .string(name), "FirstStopID": .number(1), "LastStopID": .number(Double(stops.count)),
                        "StopCount": .number(Double(stops.count)), "Total_TravelTime": .number(seconds / 60),
                        "Total_Kilometers": .number(metres / 1000), "Total_Miles": .number(metres / 1609.344),
                        "Shape_Length": .number(metres / 1000),
                    ]),
                    "geometry": .object(["paths": .array([.array(path.map { .array([.number($0.longitude), .number($0.latitude)]) })])]),
                ])]),
            ]),
            "directions": .array([.object([
                "routeId": .number(1), "routeName": .string(name),
                "summary": .object(["totalLength": .number(metres / units.metres), "totalTime": .number(seconds / 60),
                                    "totalDriveTime": .number(seconds / 60), "envelope": envelope]),
                "features": .array(features),
            ])]),
        ])
    }

    /// A leg's pieces grouped by road, each group one maneuver: which way to turn onto it, its name
    /// and heading, and the place it leads toward.
    private func directions(for leg: [SampleRoadNetwork.Piece], destination: String) -> [Step] {
        var groups: [SampleRoadNetwork.Piece] = []
        for piece in leg {
            if let last = groups.last, last.road == piece.road {
                groups[groups.count - 1].points += piece.points.dropFirst()
                groups[groups.count - 1].metres += piece.metres
                groups[groups.count - 1].seconds += piece.seconds
            } else {
                groups.append(piece)
            }
        }
        var steps: [Step] = []
        for (i, group) in groups.enumerated() {
            let heading = Self.heading(group.points)
            let kind = i == 0 ? ManeuverKind.straight : Self.turn(from: groups[i - 1].points, to: group.points)
            let text: String
            if let road = group.road {
                let toward = i == groups.count - 1 ? destination : place(ahead: group.points)
                let verb = i == 0 ? "Go \(Self.compassWord(heading)) on" : (kind == .highwayChange ? "Continue on" : "Take")
                text = "\(verb) \(road) \(Self.signedDirection(of: road, heading: heading))" + (toward.map { " toward \($0)" } ?? "")
            } else if i == groups.count - 1 {
                text = "Leave the interstate and drive \(Self.compassWord(heading)) to \(destination)"
            } else {
                text = "Drive \(Self.compassWord(heading)) on local roads to \(groups[i + 1].road ?? "the interstate")"
            }
            let stepKind: ManeuverKind = group.road == nil && i == groups.count - 1 && i > 0 ? .exit : kind
            steps.append(Step(kind: stepKind, text: text, points: group.points, metres: group.metres, seconds: group.seconds))
        }
        return steps
    }

    /// The largest place within 40 km of where a stretch ends, nearer its end than its start.
    private func place(ahead stretch: [GeoPoint]) -> String? {
        let point = stretch[stretch.count - 1], start = stretch[0]
        var best: PlaceName?
        for place in places where abs(place.point.latitude - point.latitude) < 0.4 && abs(place.point.longitude - point.longitude) < 0.6 {
            let distance = Geodesy.distance(place.point, point)
            guard distance <= 40_000, distance < Geodesy.distance(place.point, start) else { continue }
            if place.rank < best?.rank ?? .infinity { best = place }
        }
        return best?.name
    }

    /// The way a stretch runs overall, from its start to its end.
    private static func heading(_ points: [GeoPoint]) -> Double {
        guard let first = points.first, let last = points.last, first != last else { return 0 }
        return Geodesy.bearing(from: first, to: last)
    }

    /// Interstates are signed by their axis: odd numbers north or south, even ones east or west.
    static func signedDirection(of road: String, heading: Double) -> String {
        let number = Int(road.filter(\.isNumber).suffix(2)) ?? 0
        let radians = heading * .pi / 180
        return number % 2 == 1 ? (cos(radians) >= 0 ? "N" : "S") : (sin(radians) >= 0 ? "E" : "W")
    }
    private static func compassWord(_ bearing: Double) -> String { ["north", "east", "south", "west"][Int((bearing + 45) / 90) % 4] }

    /// The maneuver from the end of one stretch onto the next, by how far the way bends there
    /// (bearings over the last and first 2 km).
    private static func turn(from previous: [GeoPoint], to next: [GeoPoint]) -> ManeuverKind {
        func point(_ points: [GeoPoint], within metres: Double) -> GeoPoint {
            var gone = 0.0
            for (a, b) in zip(points, points.dropFirst()) {
                gone += Geodesy.distance(a, b)
                if gone >= metres { return b }
            }
            return points[points.count - 1]
        }
        let end = previous[previous.count - 1]
        let inBearing = Geodesy.bearing(from: point(previous.reversed(), within: 2000), to: end)
        let outBearing = Geodesy.bearing(from: next[0], to: point(next, within: 2000))
        let bend = (outBearing - inBearing + 540).truncatingRemainder(dividingBy: 360) - 180
        switch bend {
        case -25...25: return .highwayChange
        case 25..<100: return .rampRight
        case -100 ..< -25: return .rampLeft
        case 100..<160: return .turnRight
        case -160 ..< -100: return .turnLeft
        default: return .uTurn
        }
    }
}
