import ArcGISModel
import MapbookCore

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

extension DirectionsFeature {
    /// The directions panel's keys (`KeyContext.directions`); the map's work for the rest. Its
    /// border and the status bar show their hints.
    static let keys: [KeyBinding] = [
        KeyBinding(keys: [.up, .character("k")], intent: .move(.up), label: "↑ k", summary: "The step before", context: .directions, hint: nil),
        KeyBinding(keys: [.down, .character("j")], intent: .move(.down), label: "↓ j", summary: "The next step (shown on the map)",
                   context: .directions, hint: "↑↓ steps"),
        KeyBinding(keys: [.enter], intent: .open, label: "Enter", summary: "The whole route again", context: .directions, hint: "Enter all"),
        KeyBinding(keys: [.character("t")], intent: .map(.directions), action: .directions, label: "t",
                   summary: "A further stop, typed", context: .directions, hint: "t add a stop"),
        KeyBinding(keys: [.tab], intent: .map(.nextTravelMode), label: "Tab", summary: "The same stops by the portal's next travel mode",
                   context: .directions, hint: "Tab travel mode"),
        KeyBinding(keys: [.character("[")], intent: .map(.previousDirections), label: "[", summary: "The directions asked before",
                   context: .directions, hint: "[ ] earlier/later"),
        KeyBinding(keys: [.character("]")], intent: .map(.nextDirections), label: "]", summary: "The directions asked after",
                   context: .directions, hint: nil),
        KeyBinding(keys: [.character("Y")], intent: .map(.copyDirections), label: "Y", summary: "Copy the directions, step by step, to the clipboard",
                   context: .directions, hint: "Y copy"),
        KeyBinding(keys: [.escape], intent: .back, label: "Esc", summary: "Close the panel", context: .directions, hint: "Esc close"),
    ]
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

extension DirectionsFeature {
    /// What directions say in the status bar (`Notice.directions`); news that fades.
    public enum Notice: Equatable, Sendable {
        /// `[` or `]` with no directions asked for yet; past the first or the last of them.
        case noDirections
        case noMoreDirections(earlier: Bool)
        case noTravelModes
        /// `Y` in the panel: the steps put on the clipboard.
        case copied(steps: Int)

        func sentence(keys: [KeyBinding]) -> String {
            switch self {
            case .noDirections: "No directions yet: \(KeyMap.key(for: .map(.directions), keys) ?? "its key") asks for directions to the centre of the map."
            case .noMoreDirections(true): "These are the first directions asked for."
            case .noMoreDirections(false): "These are the latest directions."
            case .noTravelModes: "This portal offers no travel modes: directions use its route service's own."
            case .copied(let steps): "Copied the directions (\(steps) step\(steps == 1 ? "" : "s")) to the clipboard."
            }
        }
    }
}
