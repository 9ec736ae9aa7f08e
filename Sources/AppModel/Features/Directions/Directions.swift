import Foundation
import ArcGISModel
import MapbookCore
import Geometry
import MapRender

/// The directions asked for this session (`t`), newest last, as a maps app keeps its results:
/// `[` and `]` go back and forth through them. Each keeps the step shown on the map.
public struct Directions: Equatable, Sendable {
    public enum Outcome: Equatable, Sendable {
        case asking
        case found(Route)
        /// One sentence, sanitized (with the straight-line distance when it is known).
        case failed(String)
    }

    public struct Result: Equatable, Sendable {
        public var request: RequestID
        public var stops: [StopQuery]
        /// The travel mode asked for by name; nil for the service's default.
        public var mode: String?
        public var outcome: Outcome
        /// The maneuver the map is on; nil for the whole route.
        public var step: Int?

        public init(request: RequestID, stops: [StopQuery], mode: String? = nil, outcome: Outcome = .asking, step: Int? = nil) {
            self.request = request; self.stops = stops; self.mode = mode; self.outcome = outcome; self.step = step
        }

        public var route: Route? { if case .found(let route) = outcome { route } else { nil } }

        /// "Portland, ME → Bangor, ME".
        public var title: String { stops.map(\.name).joined(separator: " → ") }

        /// Directions as lines: the stops and the totals (or why there are none), then each step.
        public func lines(timeZone: TimeZone = .current) -> [String] {
            switch outcome {
            case .asking: return ["Directions \(title): asking the route service."]
            case .failed(let sentence): return ["Directions \(title): \(sentence)"]
            case .found(let route):
                return ["Directions \(title): \(route.totals), arriving \(Format.clock(route.arrival, in: timeZone))"
                        + (route.modeName.map { " (\($0))" } ?? "") + ". \(route.maneuvers.count) steps:"]
                    + route.maneuvers.enumerated().map { index, step in
                        "  \(index + 1). \(step.text)" + (route.measure(of: step).map { " — \($0)" } ?? "")
                    }
            }
        }
    }

    /// Results kept; older ones go.
    public static let kept = 10

    public var results: [Result] = []
    /// Which result is shown (index into `results`).
    public var shown = 0
    /// The portal's travel modes by name, once asked for (`Tab` in the panel); `modesWanted` while
    /// the answer is awaited, so it moves on to the next mode when it comes.
    public var modes: [String]?
    public var modesWanted = false

    public init() {}

    public var current: Result? { results.indices.contains(shown) ? results[shown] : nil }

    /// Adds a result and shows it.
    public mutating func add(_ result: Result) {
        results.append(result)
        if results.count > Self.kept { results.removeFirst(results.count - Self.kept) }
        shown = results.count - 1
    }
}

/// What the search line is for: going to a place, or a stop of a route.
public enum SearchPurpose: Equatable, Sendable {
    case goThere
    /// A stop of a route: the place found goes before `stops` (the start) when `first`, else after
    /// them (a further stop); `fallback` is what Enter takes with nothing typed.
    case routeStop(stops: [StopQuery], first: Bool, fallback: RouteStop?)

    /// The search card's title: "Directions to Bangor, ME: from where?".
    public var title: String {
        switch self {
        case .goThere: "Search for a place"
        case .routeStop(let stops, true, _): "Directions to \(stops.last?.name ?? "here"): from where?"
        case .routeStop(let stops, false, _): "Another stop after \(stops.last?.name ?? "the last")"
        }
    }

    /// What Enter takes with nothing typed, said under the line.
    public var fallbackLine: String? {
        guard case .routeStop(_, let first, let fallback?) = self else { return nil }
        return "Type a place, or Enter: \(first ? "from" : "on to") \(fallback.name)."
    }
}

/// Directions (`t` on the map): to here — the pin chosen in the pins table, the place searched for
/// when it is in view, else the map's centre — from a place typed in the search card (Enter alone:
/// the place searched for before). With directions shown, `t` asks for a further stop. The route
/// is drawn; its panel lists the maneuvers, and moving through them shows each step on the map.
extension App {
    /// Two places closer than this are the same stop.
    static let sameStop = 100.0

    static func askDirections(_ state: inout AppState) -> [Effect] {
        guard let map = state.map else { return [] }
        // With directions shown the searched place is not drawn: here is the centre.
        let here = directionsTarget(state, map, searched: map.card != .directions)
        if map.card == .directions, let shown = state.directions.current, shown.outcome != .asking {
            // Enter alone adds here, unless here is the last stop already.
            let atLastStop = shown.stops.last?.point.map { Geodesy.distance($0, here.point) <= sameStop } ?? false
            let fallback = atLastStop ? nil : here
            state.overlay = .search(PlaceSearch(purpose: .routeStop(stops: shown.stops, first: false, fallback: fallback)))
            return []
        }
        // Enter alone: from this device's position, else from the place searched before.
        let earlier = ([state.position].compactMap { $0 } + state.places.recent).first { Geodesy.distance($0.point, here.point) > sameStop }
        state.overlay = .search(PlaceSearch(purpose: .routeStop(stops: [.place(here)], first: true,
                                                                fallback: earlier.map { RouteStop(name: $0.label, point: $0.point) })))
        return []
    }

    /// Where "here" is: the pin chosen in the pins table, the searched place in view, the centre.
    static func directionsTarget(_ state: AppState, _ map: MapViewState, searched: Bool) -> RouteStop {
        if map.panel == .pins, state.pins.all.indices.contains(map.panelSelection) {
            let pin = state.pins.all[map.panelSelection]
            return RouteStop(name: pin.title, point: GeoPoint(longitude: pin.longitude, latitude: pin.latitude))
        }
        if searched, let pin = map.pin, let request = mapRequest(state),
           request.viewport.projection(columns: request.columns, rows: request.rows).cell(MercatorPoint(pin.point)) != nil {
            return RouteStop(name: pin.label, point: pin.point)
        }
        let centre = map.viewport.center.geographic
        return RouteStop(name: String(format: "%.4f,%.4f", centre.longitude, centre.latitude), point: centre)
    }

    /// The search found (or Enter took) a stop for the route being asked.
    static func stopChosen(_ state: inout AppState, _ stop: RouteStop, stops: [StopQuery], first: Bool) -> [Effect] {
        state.overlay = nil
        return route(&state, through: first ? [.place(stop)] + stops : stops + [.place(stop)])
    }

    /// Asks for the route through `stops` (by the travel mode `mode`, else the one chosen last),
    /// shown in the directions panel at once (asking); offline, the panel says why at once, with
    /// the straight-line distance.
    static func route(_ state: inout AppState, through stops: [StopQuery], mode: String? = nil) -> [Effect] {
        let mode = mode ?? state.directions.current?.mode
        var result = Directions.Result(request: state.requests.mint(), stops: stops, mode: mode)
        state.withMap { $0.card = .directions }
        if state.portal.network.isCutOff {
            state.requests.answered(result.request)
            result.outcome = .failed(RouteFailure.offline(stops, host: state.portal.host).sentence(in: state.preferences.units))
            state.directions.add(result)
            return []
        }
        state.directions.add(result)
        return [.directions(.findRoute(request: result.request, stops: stops, units: RouteUnits(state.preferences.units), mode: mode))]
    }

    static func routeFound(_ state: inout AppState, request: RequestID, _ answer: Result<Route, RouteFailure>) -> [Effect] {
        state.requests.answered(request)
        guard let index = state.directions.results.firstIndex(where: { $0.request == request }) else { return [] }
        switch answer {
        case .success(let route):
            let route = DisplayText.route(route)
            state.directions.results[index].outcome = .found(route)
            state.directions.results[index].stops = route.stops.map(StopQuery.place)
            state.directions.results[index].step = nil
        case .failure(let failure):
            var sentence = TerminalText.sanitizedLine(failure.sentence(in: state.preferences.units), maxLength: 400)
            if failure.problem.needsSignIn {
                state.portal.signInWanted = true
                sentence += " \(state.key(.signIn)) signs in."
            }
            state.directions.results[index].outcome = .failed(sentence)
        }
        guard index == state.directions.shown, state.map?.card == .directions else { return [] }
        return showStep(&state)
    }

    /// Keys while the directions panel is open: ↑↓ through the steps (each shown on the map), Enter
    /// the whole route, `r` asks again for directions that failed, `Tab` the next travel mode; the
    /// rest go to the map.
    static func inDirections(_ state: inout AppState, _ intent: Intent) -> [Effect]? {
        guard let shown = state.directions.current else { return nil }
        let steps = shown.route?.maneuvers.count ?? 0
        switch intent {
        case .move(let move):
            // Left and right still pan the map.
            guard move != .left, move != .right, steps > 0 else { return nil }
            // Row 0 is the whole route; row n the nth step.
            let row = ListCursor.moved((shown.step ?? -1) + 1, by: move, count: steps + 1, page: 5)
            state.directions.results[state.directions.shown].step = row == 0 ? nil : row - 1
            return showStep(&state)
        case .open:
            state.directions.results[state.directions.shown].step = nil
            return showStep(&state)
        case .refresh:
            // r: directions that failed are asked for again (a new result, the failure kept before it).
            guard case .failed = shown.outcome else { return nil }
            return route(&state, through: shown.stops)
        case .map(.nextTravelMode):
            return nextTravelMode(&state)
        case .map(.copyDirections):
            guard let route = shown.route else { return [] }
            state.notice = .directions(.copied(steps: route.maneuvers.count))
            return [.copy(shown.lines().joined(separator: "\n"))]
        default:
            return nil
        }
    }

    /// `Tab` in the panel: the shown directions again by the portal's next travel mode (the modes
    /// asked for the first time).
    static func nextTravelMode(_ state: inout AppState) -> [Effect] {
        guard let shown = state.directions.current, shown.outcome != .asking else { return [] }
        guard let modes = state.directions.modes else {
            guard !state.directions.modesWanted, !state.portal.network.isCutOff else { return [] }
            state.directions.modesWanted = true
            return [.directions(.loadTravelModes)]
        }
        guard !modes.isEmpty else { state.notice = .directions(.noTravelModes); return [] }
        let current = modes.firstIndex { $0.caseInsensitiveCompare(shown.mode ?? shown.route?.modeName ?? "") == .orderedSame } ?? 0
        return route(&state, through: shown.stops, mode: modes[(current + 1) % modes.count])
    }

    static func travelModesArrived(_ state: inout AppState, _ answer: Result<[String], LoadFailure>) -> [Effect] {
        let wanted = state.directions.modesWanted
        state.directions.modesWanted = false
        switch answer {
        case .success(let names):
            state.directions.modes = names.prefix(20).map { TerminalText.sanitizedLine($0, maxLength: 60) }
            return wanted && state.map?.card == .directions ? nextTravelMode(&state) : []
        case .failure(let failure):
            state.notice = .problem(TerminalText.sanitizedLine(failure.sentence, maxLength: 300))
            return []
        }
    }

    /// `[` / `]`: the result before or after the one shown (the panel opens on it when closed).
    static func otherResult(_ state: inout AppState, by offset: Int) -> [Effect] {
        guard !state.directions.results.isEmpty else { state.notice = .directions(.noDirections); return [] }
        if state.map?.card == .directions {
            let next = state.directions.shown + offset
            guard state.directions.results.indices.contains(next) else {
                state.notice = .directions(.noMoreDirections(earlier: offset < 0))
                return []
            }
            state.directions.shown = next
        }
        state.withMap { $0.card = .directions }
        return showStep(&state)
    }

    /// The map fitted to the shown step (or the whole route) in the part of the map beside the panel.
    private static func showStep(_ state: inout AppState) -> [Effect] {
        guard let shown = state.directions.current, let route = shown.route else { return [] }
        var points = route.path
        if let step = shown.step, route.maneuvers.indices.contains(step) {
            let maneuver = route.maneuvers[step]
            points = maneuver.path.isEmpty ? [step == route.maneuvers.count - 1 ? route.path.last : route.path.first].compactMap { $0 } : maneuver.path
        }
        guard let extent = GeoGeometry.points(points).extent ?? route.extent else { return [] }
        // A margin, so the stops' marks and names are not on the edge; a step of a few metres (or
        // a point) is shown with some of its surroundings.
        let x = (extent.xmin + extent.xmax) / 2, y = (extent.ymin + extent.ymax) / 2
        let half = (x: max((extent.xmax - extent.xmin) * 0.6, 0.01), y: max((extent.ymax - extent.ymin) * 0.6, 0.005))
        return fitBesideDirections(&state, GeoExtent(xmin: x - half.x, ymin: y - half.y, xmax: x + half.x, ymax: y + half.y))
    }

    /// Fits `extent` into the map's part left of the directions panel.
    private static func fitBesideDirections(_ state: inout AppState, _ extent: GeoExtent) -> [Effect] {
        guard let rect = state.layout?.mapRect, rect.width > 0, rect.height > 0 else { return fit(&state, extent) }
        let covered = ScreenLayout.directionsPanelWidth(mapWidth: rect.width) + 2
        let free = max(rect.width - covered, rect.width / 3, 1)
        let shift = Double(rect.width - free)
        state.withMap { $0.viewport = MapViewport(fitting: extent, columns: free, rows: rect.height).panned(dotsX: shift, dotsY: 0) }
        return requestMapDraw(&state)
    }
}
