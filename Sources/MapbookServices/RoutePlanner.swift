import ArcGISPortal
import Foundation
import MapbookCore
import ArcGISModel
import Geometry

/// Finding a route, one rule for the browser and `mapbook route`: the portal's route service
/// (found through `portals/self` once, with its travel modes), asked to solve the stops in order.
/// When it cannot be asked or refuses, the failure comes with the straight-line distance, which
/// needs no service.
public actor RoutePlanner {
    /// No place of a stop's name was found.
    public struct UnknownStop: UserFacingError, Equatable, Sendable {
        public var name: String
        public var userMessage: String { "No place called “\(TerminalText.sanitizedLine(name, maxLength: 60))” was found; give it as LON,LAT." }
    }

    /// Stops located, and the geocoder's failure when the names on this device answered instead.
    public struct Located: Sendable {
        public var stops: [RouteStop]
        public var problem: LoadFailure?
    }

    private let client: @Sendable () async -> PortalClient?
    private var service: (client: URL, service: RouteService, modes: [TravelMode]?)?

    public init(client: @escaping @Sendable () async -> PortalClient?) { self.client = client }

    /// The route through `stops`; `mode` a travel mode's name (any case), nil the service's default.
    public func route(through stops: [RouteStop], units: RouteUnits, mode: String? = nil, start: Date = Date()) async -> Result<Route, RouteFailure> {
        let straightLine = Geodesy.length(stops.map(\.point))
        func failed(_ problem: LoadFailure) -> Result<Route, RouteFailure> { .failure(RouteFailure(problem: problem, straightLine: straightLine)) }
        do {
            try PortalClient.checkStops(stops)
        } catch {
            return .failure(RouteFailure(problem: LoadFailure(error, host: ""), straightLine: nil))
        }
        guard let client = await client() else { return failed(.notConnected) }
        do {
            let found = try await service(client)
            var travelMode: TravelMode?
            if let mode { travelMode = try await self.mode(named: mode, client: client, service: found) }
            return .success(try await client.solveRoute(stops, units: units, mode: travelMode, start: start, using: found))
        } catch {
            return failed(LoadFailure(error, host: client.host))
        }
    }

    /// The stops in order: a place as it is, a name as the best place `finder` knows near the stop
    /// before it ("Bangor" after Portland, Maine), names cleaned for the terminal.
    public static func locate(_ queries: [StopQuery], finder: PlaceFinder) async -> Result<Located, UnknownStop> {
        var located = Located(stops: [], problem: nil)
        for query in queries {
            switch query {
            case .place(let stop): located.stops.append(stop)
            case .named(let name):
                var near = located.stops.last?.point
                if near == nil { near = await finder.webMapCentre }
                let answer = await finder.places(for: name, near: near, limit: 1, online: true)
                guard let place = answer.value.first else { return .failure(UnknownStop(name: name)) }
                located.stops.append(RouteStop(name: TerminalText.sanitizedLine(place.label, maxLength: 100), point: place.location))
                located.problem = located.problem ?? answer.problem
            }
        }
        return .success(located)
    }

    /// The names of the travel modes the portal offers (none when it names no routing utilities).
    public func travelModeNames() async -> Result<[String], LoadFailure> {
        guard let client = await client() else { return .failure(.notConnected) }
        do {
            return .success(try await modes(client: client, service: try await service(client)).map(\.name))
        } catch {
            return .failure(LoadFailure(error, host: client.host))
        }
    }

    /// The portal's route service, found once per portal.
    private func service(_ client: PortalClient) async throws -> RouteService {
        if let service, service.client == client.portalURL { return service.service }
        let found = try await client.routeService()
        service = (client.portalURL, found, nil)
        return found
    }

    /// The travel modes, asked of the routing utilities once.
    private func modes(client: PortalClient, service found: RouteService) async throws -> [TravelMode] {
        if let known = service?.modes { return known }
        let modes = try await client.travelModes(using: found)
        service?.modes = modes
        return modes
    }

    /// The travel mode of that name.
    private func mode(named name: String, client: PortalClient, service found: RouteService) async throws -> TravelMode {
        let modes = try await modes(client: client, service: found)
        guard let mode = modes.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
            let named = modes.prefix(10).map { TerminalText.sanitizedLine($0.name, maxLength: 40) }
            let offered = named.joined(separator: ", ") + (modes.count > named.count ? " and \(modes.count - named.count) more" : "")
            throw RouteError(offered.isEmpty ? "This portal offers no travel modes; leave out the mode."
                                              : "There is no travel mode “\(TerminalText.sanitizedLine(name, maxLength: 40))”: the portal offers \(offered).")
        }
        return mode
    }
}
