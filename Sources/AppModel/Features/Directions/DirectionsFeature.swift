import Foundation
import UserFiles
import MapRender
import MapbookCore
import LibraryModel
import TileFormats
import ArcGISModel
import Geometry

/// Directions: the route through typed stops, the portal's travel modes.
public enum DirectionsFeature {
    /// What comes back from this feature's work (`Event.directions`).
    public enum Action: Sendable {
        /// The route for directions request `request`, or why there is none.
        case routeFound(request: RequestID, Result<Route, RouteFailure>)
        /// The names of the portal's travel modes, or why they could not be had.
        case travelModes(Result<[String], LoadFailure>)
    }

    /// The work this feature asks for (`Effect.directions`), performed by its handler in the runtime.
    public enum Effect: Equatable, Sendable {
        /// Ask the portal's route service for the route through `stops` in order, each name found
        /// first near the stop before it, by the travel mode of that name (nil: the service's default)
        /// (→ `routeFound`).
        case findRoute(request: RequestID, stops: [StopQuery], units: RouteUnits, mode: String?)
        /// The names of the portal's travel modes (→ `travelModes`).
        case loadTravelModes
    }
}

extension App {
    /// `DirectionsFeature`'s part of `update`.
    static func reduce(_ state: inout AppState, _ action: DirectionsFeature.Action) -> [Effect] {
        switch action {
        case .routeFound(let request, let result):
            return routeFound(&state, request: request, result)
        case .travelModes(let result):
            return travelModesArrived(&state, result)
        }
    }
}
