import AppModel
import ArcGISModel
import EventLoop
import Foundation
import MapbookServices
import MapbookCore

/// Directions for the browser, through the `RoutePlanner` `mapbook route` uses: the stops' names
/// found first (near the stop before each), then the route asked of the portal's route service.
/// A newer request does not cancel an older one: the model keeps every result it asked for.
@UIActor
final class DirectionsHandler {
    private let planner: RoutePlanner
    private let finder: PlaceFinder
    private let send: EventSink
    private let tasks: TaskTracker

    init(planner: RoutePlanner, finder: PlaceFinder, send: EventSink, tasks: TaskTracker) {
        self.planner = planner; self.finder = finder; self.send = send; self.tasks = tasks
    }

    func route(request: RequestID, through queries: [StopQuery], units: RouteUnits, mode: String?) {
        let planner = planner, finder = finder
        tasks.track { [send] in
            switch await RoutePlanner.locate(queries, finder: finder) {
            case .success(let located):
                send(.directions(.routeFound(request: request, await planner.route(through: located.stops, units: units, mode: mode))))
            case .failure(let unknown):
                send(.directions(.routeFound(request: request, .failure(RouteFailure(problem: LoadFailure(sentence: unknown.userMessage, network: .online, host: ""),
                                                                          straightLine: nil)))))
            }
        }
    }

    func travelModes() {
        let planner = planner
        tasks.track { [send] in send(.directions(.travelModes(await planner.travelModeNames()))) }
    }
}

extension DirectionsHandler {
    /// Does the work `DirectionsFeature` asks for.
    func perform(_ effect: DirectionsFeature.Effect) {
        switch effect {
        case .findRoute(let request, let stops, let units, let mode): route(request: request, through: stops, units: units, mode: mode)
        case .loadTravelModes: travelModes()
        }
    }
}
