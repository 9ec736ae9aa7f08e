import AppModel
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
    /// Why there is no route, and how far it is as the crow flies.
    public struct Failure: UserFacingError, Equatable, Sendable {
        public var problem: LoadFailure
        /// Along the stops in order, in metres; nil when the stops themselves were refused.
        public var straightLine: Double?

        public var sentence: String { problem.sentence + (straightLine.map { " In a straight line it is \(Format.distance($0))." } ?? "") }
        public var userMessage: String { sentence }
    }

    private let client: @Sendable () async -> PortalClient?
    private var service: (client: URL, service: RouteService, modes: [TravelMode]?)?

    public init(client: @escaping @Sendable () async -> PortalClient?) { self.client = client }

    /// The route through `stops`; `mode` a travel mode's name (any case), nil the service's default.
    public func route(through stops: [RouteStop], units: RouteUnits, mode: String? = nil, start: Date = Date()) async -> Result<Route, Failure> {
        let straightLine = Geodesy.length(stops.map(\.point))
        func failed(_ problem: LoadFailure) -> Result<Route, Failure> { .failure(Failure(problem: problem, straightLine: straightLine)) }
        do {
            try PortalClient.checkStops(stops)
        } catch {
            return .failure(Failure(problem: LoadFailure(error, host: ""), straightLine: nil))
        }
        guard let client = await client() else { return failed(.notConnected) }
        do {
            let found: RouteService
            if let service, service.client == client.portalURL { found = service.service } else {
                found = try await client.routeService()
                service = (client.portalURL, found, nil)
            }
            var travelMode: TravelMode?
            if let mode { travelMode = try await self.mode(named: mode, client: client, service: found) }
            return .success(try await client.solveRoute(stops, units: units, mode: travelMode, start: start, using: found))
        } catch {
            return failed(LoadFailure(error, host: client.host))
        }
    }

    /// The travel mode of that name, asked of the routing utilities once.
    private func mode(named name: String, client: PortalClient, service found: RouteService) async throws -> TravelMode {
        let modes: [TravelMode]
        if let known = service?.modes { modes = known } else {
            modes = try await client.travelModes(using: found)
            service?.modes = modes
        }
        guard let mode = modes.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
            let offered = modes.map { TerminalText.sanitizedLine($0.name, maxLength: 40) }.joined(separator: ", ")
            throw RouteError(offered.isEmpty ? "This portal offers no travel modes; leave out the mode."
                                              : "There is no travel mode “\(TerminalText.sanitizedLine(name, maxLength: 40))”: the portal offers \(offered).")
        }
        return mode
    }
}
