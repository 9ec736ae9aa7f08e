import Foundation
import MapRender
import MapbookCore
import TerminalCanvas
import Testing
@testable import AppModel
import ArcGISModel
import Geometry
import UserFiles

/// Directions (`t` on the map): to here from a place typed in the search card (Enter alone: the
/// place searched before), a further stop, the route fitted beside its panel, the steps each shown
/// on the map, the results before and after; offline and signed out, one sentence each.
@Suite("update: directions")
struct DirectionsTests {
    static let portland = GeocodeCandidate(label: "Portland, ME, USA", location: GeoPoint(longitude: -70.2553, latitude: 43.6615), score: 100,
                                           extent: nil, type: "City")
    static let barHarbor = PlaceSearchTests.barHarbor

    /// Portland to Bar Harbor in three steps, the second with a line; its text carries an escape.
    static func route(_ stops: [RouteStop]) -> Route {
        let a = stops[0].point, b = stops[stops.count - 1].point
        let middle = GeoPoint(longitude: (a.longitude + b.longitude) / 2, latitude: (a.latitude + b.latitude) / 2)
        return Route(stops: stops, units: .kilometers, path: [a, middle, b], length: 280, minutes: 190,
                     extent: GeoExtent(xmin: min(a.longitude, b.longitude), ymin: min(a.latitude, b.latitude),
                                       xmax: max(a.longitude, b.longitude), ymax: max(a.latitude, b.latitude)),
                     maneuvers: [
                        Maneuver(kind: .depart, text: "Start at \(stops[0].name)", length: 0, minutes: 0, arrival: nil, path: [a]),
                        Maneuver(kind: .straight, text: "Take I-95 N\u{1B}[2J toward Bangor", length: 150, minutes: 100, arrival: nil,
                                 path: [a, GeoPoint(longitude: a.longitude + 0.5, latitude: a.latitude + 0.4)]),
                        Maneuver(kind: .arrive, text: "Finish at \(stops[stops.count - 1].name)", length: 0, minutes: 0, arrival: nil, path: [b]),
                     ],
                     start: Date(timeIntervalSince1970: 1_795_000_000))
    }

    /// Typed stops read one way, in the browser, the plain mode and `mapbook route`: a point with
    /// or without spaces, named without them; a name trimmed.
    @Test func typedStopsAreReadOneWay() {
        #expect(StopQuery(typed: " -68.2, 44.35 ") == .place(RouteStop(name: "-68.2,44.35", point: GeoPoint(longitude: -68.2, latitude: 44.35))))
        #expect(StopQuery(typed: "-68.2,44.35") == .place(RouteStop(name: "-68.2,44.35", point: GeoPoint(longitude: -68.2, latitude: 44.35))))
        #expect(StopQuery(typed: "  Bar Harbor ") == .named("Bar Harbor"))
        let state = AppState(portalHost: "", webMapID: .exploreMaine)
        var typed = state
        let effects = App.update(&typed, .intent(.directions(through: ["Bangor", "-68.2, 44.35"])))
        guard case .directions(.findRoute(_, let stops, _, _))? = effects.first else { Issue.record("\(effects)"); return }
        #expect(stops == [.named("Bangor"), StopQuery(typed: "-68.2,44.35")])
    }

    var search: (AppState) -> PlaceSearch? = { state in
        if case .search(let search)? = state.overlay { return search }
        return nil
    }

    /// The map open on Bar Harbor, found with the search (and Portland searched before it, when asked).
    func searched(portlandFirst: Bool = false, units: DistanceUnits = .metric) -> AppState {
        var state = Fixture.loaded()
        state.preferences.units = units
        for place in (portlandFirst ? [Self.portland] : []) + [Self.barHarbor] {
            let asked = Fixture.keys(&state, .character("s")) + place.label.prefix(4).flatMap { Fixture.keys(&state, .character($0)) } + Fixture.keys(&state, .enter)
            guard case .search(.findPlaces(_, _, let request, _, _))? = asked.last else { Issue.record("\(asked)"); return state }
            _ = App.update(&state, .search(.placesFound(request: request, .success([place]))))
        }
        _ = App.update(&state, .map(.mapOpened(session: state.requests.mapSessions, MapSourceSummary(layerNames: ["land"], extent: nil))))
        _ = App.update(&state, .map(.mapDrawn(session: state.requests.mapSessions, MapImage(picture: MapPicture(frame: Frame(width: 120, height: 38)),
                                                                              request: App.mapRequest(state)!))))
        return state
    }

    @Test func directionsToTheSearchedPlaceFromATypedOneAreAskedAndShownBesideThePanel() throws {
        var state = searched()
        _ = Fixture.keys(&state, .character("t"))
        let asking = try #require(search(state))
        let barHarbor = RouteStop(name: "Bar Harbor, ME, USA", point: Self.barHarbor.location)
        #expect(asking.purpose == .routeStop(stops: [.place(barHarbor)], first: true, fallback: nil), "nothing was searched before it")
        #expect(asking.purpose.title == "Directions to Bar Harbor, ME, USA: from where?")
        // Enter with nothing typed and nothing to fall back on does nothing.
        #expect(Fixture.keys(&state, .enter).isEmpty && search(state) != nil)
        let typed = "port".flatMap { Fixture.keys(&state, .character($0)) } + Fixture.keys(&state, .enter)
        guard case .search(.findPlaces("port", nil, let request, _, true))? = typed.last else { Issue.record("\(typed)"); return }
        let asked = App.update(&state, .search(.placesFound(request: request, .success([Self.portland]))))
        let portland = RouteStop(name: "Portland, ME, USA", point: Self.portland.location)
        guard case .directions(.findRoute(let routeRequest, _, _, _))? = asked.first else { Issue.record("\(asked)"); return }
        #expect(asked == [.directions(.findRoute(request: routeRequest, stops: [.place(portland), .place(barHarbor)], units: .kilometers, mode: nil))])
        #expect(state.overlay == nil && state.map?.card == .directions && state.directions.current?.outcome == .asking)
        #expect(!state.isSettled, "a script waits for the route")
        #expect(state.lastPlace?.label == "Portland, ME, USA", "the start typed is remembered too")

        let found = App.update(&state, .directions(.routeFound(request: routeRequest, .success(Self.route([portland, barHarbor])))))
        let route = try #require(state.directions.current?.route)
        #expect(!route.maneuvers[1].text.contains("\u{1B}"), "the service's text is cleaned")
        #expect(state.isSettled)
        guard case .map(.drawMap(_, let drawn))? = found.last else { Issue.record("\(found)"); return }
        // The route is fitted into the map's part left of the panel: the view's centre lies east of the route's.
        let centre = drawn.viewport.center.geographic
        #expect(centre.longitude > (portland.point.longitude + barHarbor.point.longitude) / 2)
        let projection = drawn.viewport.projection(columns: drawn.columns, rows: drawn.rows)
        let panelLeft = drawn.columns - ScreenLayout.directionsPanelWidth(mapWidth: drawn.columns) - 1
        for stop in [portland, barHarbor] {
            let cell = try #require(projection.cell(MercatorPoint(stop.point)), "\(stop.name) is in view")
            #expect(cell.column < panelLeft, "\(stop.name) is not under the panel")
        }
    }

    @Test func movingThroughTheStepsShowsEachOnTheMapAndEnterTheWholeRoute() throws {
        var state = searched(portlandFirst: true)
        _ = Fixture.keys(&state, .character("t"))
        #expect(search(state)?.purpose.fallbackLine == "Type a place, or Enter: from Portland, ME, USA.")
        // Enter alone: from the place searched before, without asking the geocoder.
        let asked = Fixture.keys(&state, .enter)
        guard case .directions(.findRoute(let request, let stops, .kilometers, nil))? = asked.first else { Issue.record("\(asked)"); return }
        #expect(stops.map(\.name) == ["Portland, ME, USA", "Bar Harbor, ME, USA"])
        _ = App.update(&state, .directions(.routeFound(request: request, .success(Self.route(stops.compactMap { stop in stop.point.map { RouteStop(name: stop.name, point: $0) } })))))
        let whole = state.map!.viewport
        // ↓ the first step, ↓ the second (its line fills the free part), ↑↑ back to the whole route.
        _ = Fixture.keys(&state, .down)
        #expect(state.directions.current?.step == 0)
        _ = Fixture.keys(&state, .down)
        #expect(state.directions.current?.step == 1)
        #expect(state.map!.viewport.zoom > whole.zoom + 0.5, "a step is shown closer than the whole route")
        _ = Fixture.keys(&state, .down, .down, .down)
        #expect(state.directions.current?.step == 2, "the last step stays chosen")
        _ = Fixture.keys(&state, .up, .up, .up)
        #expect(state.directions.current?.step == nil && state.map!.viewport == whole)
        _ = Fixture.keys(&state, .down, .down, .enter)
        #expect(state.directions.current?.step == nil && state.map!.viewport == whole, "Enter: the whole route again")
        // Left and right still pan the map; Esc closes the panel and the map stays.
        _ = Fixture.keys(&state, .right)
        #expect(state.map!.viewport != whole)
        _ = Fixture.keys(&state, .escape)
        #expect(state.map?.card == nil && state.map != nil)
    }

    @Test func aFurtherStopAndTheResultsBeforeAndAfter() throws {
        var state = searched(portlandFirst: true)
        _ = Fixture.keys(&state, .character("t"))
        guard case .directions(.findRoute(let first, let stops, _, _))? = Fixture.keys(&state, .enter).first else { Issue.record("not asked"); return }
        let located = stops.compactMap { stop in stop.point.map { RouteStop(name: stop.name, point: $0) } }
        _ = App.update(&state, .directions(.routeFound(request: first, .success(Self.route(located)))))
        // t with directions shown: another stop after the last, Enter alone the map's centre.
        _ = Fixture.keys(&state, .character("t"))
        guard case .routeStop(let so, false, let here?)? = search(state)?.purpose else {
            Issue.record("\(String(describing: search(state)?.purpose)) \(String(describing: state.map?.card))"); return
        }
        #expect(so.count == 2 && here.point == state.map!.viewport.center.geographic)
        #expect(search(state)?.purpose.title == "Another stop after Bar Harbor, ME, USA")
        let again = Fixture.keys(&state, .enter)
        guard case .directions(.findRoute(let second, let three, _, _))? = again.first else { Issue.record("\(again)"); return }
        #expect(three.count == 3 && three.last == .place(here) && second > first)
        #expect(state.directions.results.count == 2 && state.directions.shown == 1)
        // An answer to the first, arriving late, does not take the panel from the second.
        _ = App.update(&state, .directions(.routeFound(request: second, .failure(RouteFailure(
            problem: LoadFailure(sentence: "The route service found no way between the stops.", network: .online, host: "h"), straightLine: 12_345)))))
        #expect(state.directions.current?.outcome == .failed("The route service found no way between the stops. In a straight line it is 12.3 km."))
        // [ the first; [ again says so; ] the second; ] again says so.
        _ = Fixture.keys(&state, .character("["))
        #expect(state.directions.shown == 0 && state.directions.current?.route != nil)
        _ = Fixture.keys(&state, .character("["))
        #expect(state.directions.shown == 0 && state.notice == .directions(.noMoreDirections(earlier: true)))
        _ = Fixture.keys(&state, .character("]"), .character("]"))
        #expect(state.directions.shown == 1 && state.notice == .directions(.noMoreDirections(earlier: false)))
        // Closed, ] opens the panel again on the one shown.
        _ = Fixture.keys(&state, .escape)
        #expect(state.map?.card == nil)
        _ = Fixture.keys(&state, .character("]"))
        #expect(state.map?.card == .directions && state.directions.shown == 1)
        // Only the last ten are kept.
        for _ in 0..<12 { _ = App.route(&state, through: stops) }
        #expect(state.directions.results.count == Directions.kept && state.directions.shown == Directions.kept - 1)
    }

    /// Tab in the panel: the portal's travel modes asked for once, then the directions again by
    /// the next; later directions keep the mode chosen.
    @Test func yInThePanelCopiesTheDirectionsAsThePlainModeWritesThem() throws {
        var state = searched(portlandFirst: true)
        _ = Fixture.keys(&state, .character("t"))
        guard case .directions(.findRoute(let request, let stops, _, nil))? = Fixture.keys(&state, .enter).first else { Issue.record("not asked"); return }
        #expect(Fixture.keys(&state, .character("Y")).isEmpty, "nothing to copy while the route is asked for")
        let route = Self.route(stops.compactMap { stop in stop.point.map { RouteStop(name: stop.name, point: $0) } })
        _ = App.update(&state, .directions(.routeFound(request: request, .success(route))))
        let shown = try #require(state.directions.current)
        #expect(Fixture.keys(&state, .character("Y")) == [.copy(shown.lines().joined(separator: "\n"))])
        #expect(shown.lines().count == route.maneuvers.count + 1 && shown.lines()[1].hasPrefix("  1. "))
        #expect(state.notice == .directions(.copied(steps: route.maneuvers.count)))
        // Without the panel, Y is the map's: the centre's position.
        _ = Fixture.keys(&state, .escape)
        guard case .copy(let position)? = Fixture.keys(&state, .character("Y")).first else { Issue.record("no position"); return }
        #expect(position.split(separator: ",").count == 2)
    }

    @Test func tabAsksAgainByTheNextTravelMode() throws {
        var state = searched(portlandFirst: true)
        _ = Fixture.keys(&state, .character("t"))
        guard case .directions(.findRoute(let first, let stops, _, nil))? = Fixture.keys(&state, .enter).first else { Issue.record("not asked"); return }
        let located = stops.compactMap { stop in stop.point.map { RouteStop(name: stop.name, point: $0) } }
        var route = Self.route(located)
        route.modeName = nil
        _ = App.update(&state, .directions(.routeFound(request: first, .success(route))))
        #expect(Fixture.keys(&state, .tab) == [.directions(.loadTravelModes)])
        #expect(Fixture.keys(&state, .tab).isEmpty, "asked once")
        let next = App.update(&state, .directions(.travelModes(.success(["Driving Time", "Driving\u{1B}[2J Distance"]))))
        #expect(state.directions.modes == ["Driving Time", "Driving Distance"])
        guard case .directions(.findRoute(let second, stops, _, "Driving Distance"))? = next.first else { Issue.record("\(next)"); return }
        route.modeName = "Driving Distance"
        _ = App.update(&state, .directions(.routeFound(request: second, .success(route))))
        // Round again; and a further stop keeps the mode chosen.
        guard case .directions(.findRoute(_, _, _, "Driving Time"))? = Fixture.keys(&state, .tab).first else { Issue.record("no round"); return }
        _ = Fixture.keys(&state, .character("t"))
        guard case .directions(.findRoute(_, _, _, "Driving Time"))? = Fixture.keys(&state, .enter).first else { Issue.record("mode not kept"); return }
        // A portal with none says so.
        var none = searched(portlandFirst: true)
        _ = Fixture.keys(&none, .character("t"))
        guard case .directions(.findRoute(let request, _, _, _))? = Fixture.keys(&none, .enter).first else { Issue.record("not asked"); return }
        _ = App.update(&none, .directions(.routeFound(request: request, .success(route))))
        _ = Fixture.keys(&none, .tab)
        #expect(App.update(&none, .directions(.travelModes(.success([])))).isEmpty && none.notice == .directions(.noTravelModes))
    }

    @Test func offlineOneSentenceWithTheStraightLineInTheUsersUnits() throws {
        var state = searched(portlandFirst: true, units: .imperial)
        state.portal.network = .offline
        _ = Fixture.keys(&state, .character("t"))
        #expect(Fixture.keys(&state, .enter).isEmpty, "nothing is asked of a service out of reach")
        guard case .failed(let sentence)? = state.directions.current?.outcome else { Issue.record("\(String(describing: state.directions.current))"); return }
        let miles = Geodesy.distance(Self.portland.location, Self.barHarbor.location) / 1609.344
        #expect(sentence == "Directions need the portal's route service, and it cannot be reached now. In a straight line it is \(Int(miles.rounded())) mi.")
        #expect(state.map?.card == .directions && state.isSettled)
        // Back online, r asks again: a new result after the failed one.
        state.portal.network = .online
        let again = Fixture.keys(&state, .character("r"))
        guard case .directions(.findRoute(let request, let stops, .miles, nil))? = again.first else { Issue.record("\(again)"); return }
        #expect(stops.count == 2 && state.directions.results.count == 2 && state.directions.current?.request == request)
        #expect(!Fixture.keys(&state, .character("r")).contains { if case .directions(.findRoute) = $0 { true } else { false } },
                "directions on their way are not asked twice")
    }

    @Test func signedOutTheSentenceOffersTheSignIn() {
        var state = searched(portlandFirst: true)
        _ = Fixture.keys(&state, .character("t"))
        guard case .directions(.findRoute(let request, _, _, _))? = Fixture.keys(&state, .enter).first else { Issue.record("not asked"); return }
        _ = App.update(&state, .directions(.routeFound(request: RequestID(rawValue: request.rawValue + 7), .failure(RouteFailure(problem: LoadFailure(sentence: "x", network: .online, host: ""), straightLine: nil)))))
        #expect(state.directions.current?.outcome == .asking, "an answer to no request is dropped")
        _ = App.update(&state, .directions(.routeFound(request: request, .failure(RouteFailure(
            problem: LoadFailure(sentence: "route.example needs a sign-in\u{1B}[31m.", network: .online, host: "route.example", needsSignIn: true),
            straightLine: 190_000)))))
        #expect(state.directions.current?.outcome == .failed("route.example needs a sign-in. In a straight line it is 190 km. S signs in."))
        #expect(state.portal.signInWanted)
    }

    @Test func toAPinChosenInThePinsTableAndFromTheCentreWhenNothingIsSearched() throws {
        var state = IdentifyTests.openMap()
        let pin = Pin(id: "p1", title: "Quiet cove", note: nil, link: nil, longitude: -68.3, latitude: 44.3, created: Date(timeIntervalSince1970: 0))
        _ = App.update(&state, .pins(.pinsLoaded([pin], problem: nil)))
        _ = Fixture.keys(&state, .character("P"), .character("t"))
        #expect(search(state)?.purpose == .routeStop(stops: [.place(RouteStop(name: "Quiet cove", point: GeoPoint(longitude: -68.3, latitude: 44.3)))],
                                                     first: true, fallback: nil))
        _ = Fixture.keys(&state, .escape, .escape, .character("t"))
        let centre = state.map!.viewport.center.geographic
        guard case .routeStop(let stops, true, nil)? = search(state)?.purpose, let here = stops.first?.point else { Issue.record("no search"); return }
        #expect(here == centre && stops.first?.name == String(format: "%.4f,%.4f", centre.longitude, centre.latitude))
    }

    @Test func thePlainModesDirectionsTakeNamesAndPoints() {
        var state = Fixture.loaded()
        let asked = App.update(&state, .intent(.directions(through: ["-70.26,43.66", "Bangor"])))
        #expect(asked == [.directions(.findRoute(request: 1, stops: [.place(RouteStop(name: "-70.26,43.66", point: GeoPoint(longitude: -70.26, latitude: 43.66))),
                                                         .named("Bangor")], units: .kilometers, mode: nil))])
        #expect(state.directions.current?.title == "-70.26,43.66 → Bangor")
    }
}
