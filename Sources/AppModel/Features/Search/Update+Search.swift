import Foundation
import ArcGISModel
import MapRender
import MapbookCore
import LibraryModel
import Geometry

/// The search line: what is typed, the geocoder's suggestions, which is chosen.
public struct PlaceSearch: Equatable, Sendable {
    public enum Status: Equatable, Sendable {
        case idle
        /// A request is out.
        case asking
        case nothingFound
        /// One sentence.
        case failed(String)
    }

    public var text = ""
    public var suggestions: [GeocodeSuggestion] = []
    public var selection = 0
    /// The request of the last keystroke (or pick): answers to older ones are dropped.
    public var request: RequestID?
    public var status: Status = .idle
    /// The suggestions are the names on this device (offline, or the geocoder failed).
    public var offline = false
    /// Going to the place, or a stop of a route.
    public var purpose: SearchPurpose

    public init(purpose: SearchPurpose = .goThere) { self.purpose = purpose }
}

/// `s`: search for a place with the portal's geocoder; suggestions as you type, Enter opens the
/// map on the place chosen with a pin, from a downloaded area that holds it when there is one.
extension App {
    /// Suggestions are asked for from this many characters on.
    static let suggestFrom = 2

    static func startSearch(_ state: inout AppState) -> [Effect] {
        guard state.catalog.webMapItem != nil || state.map != nil else { return [] }
        state.overlay = .search(PlaceSearch())
        return []
    }

    static func editSearch(_ state: inout AppState, _ edit: SearchEdit) -> [Effect] {
        guard case .search(var search)? = state.overlay else { return [] }
        var effects: [Effect] = []
        switch edit {
        case .type(let character):
            guard search.text.count < 200, !character.isNewline else { return [] }
            search.text.append(character)
            effects = ask(&search, requests: &state.requests, near: searchCentre(state), online: isOnline(state))
        case .deleteBackward:
            guard !search.text.isEmpty else { return [] }
            search.text.removeLast()
            effects = ask(&search, requests: &state.requests, near: searchCentre(state), online: isOnline(state))
        case .previous:
            search.selection = max(search.selection - 1, 0)
        case .next:
            search.selection = min(search.selection + 1, max(search.suggestions.count - 1, 0))
        case .pick:
            let text = search.text.trimmingCharacters(in: .whitespaces)
            if text.isEmpty, case .routeStop(let stops, let first, let fallback?) = search.purpose {
                return stopChosen(&state, fallback, stops: stops, first: first)
            }
            guard !text.isEmpty else { return [] }
            let chosen = search.suggestions.indices.contains(search.selection) ? search.suggestions[search.selection] : nil
            // The suggestions still to come are not wanted.
            effects = replace(&search, requests: &state.requests)
            let request = state.requests.mint()
            search.request = request
            search.status = .asking
            effects.append(.search(.findPlaces(chosen?.text ?? text, magicKey: chosen?.magicKey, request: request, near: searchCentre(state),
                                       online: isOnline(state))))
        case .close:
            state.overlay = nil
            return []
        }
        state.overlay = .search(search)
        return effects
    }

    /// A new request for what is typed now (or none, for too little), replacing any before it.
    /// The geocoder is worth asking: connected, and the network not known to be cut off.
    private static func isOnline(_ state: AppState) -> Bool { state.portal.isConnected && !state.portal.network.isCutOff }

    private static func ask(_ search: inout PlaceSearch, requests: inout Requests, near: GeoPoint?, online: Bool) -> [Effect] {
        // A keystroke replaces the suggestions asked for before.
        let cancelled = replace(&search, requests: &requests)
        search.selection = 0
        guard search.text.trimmingCharacters(in: .whitespaces).count >= suggestFrom else {
            search.suggestions = []
            search.status = .idle
            return cancelled
        }
        let request = requests.mint()
        search.request = request
        search.status = .asking
        return cancelled + [.search(.suggestPlaces(search.text, request: request, near: near, online: online))]
    }

    /// The search's request still under way, forgotten and cancelled.
    private static func replace(_ search: inout PlaceSearch, requests: inout Requests) -> [Effect] {
        guard let request = search.request, requests.pending.contains(request) else { return [] }
        requests.replaced(request)
        search.request = nil
        return [.cancel(request)]
    }

    /// Where search results are ranked from: the map's centre, else the web map's.
    /// What suggestions are ordered by nearness to: the map's focus (the position while the
    /// view follows it), else this device's position, else the web map's middle.
    private static func searchCentre(_ state: AppState) -> GeoPoint? {
        if let focus = state.mapFocus { return focus }
        if let position = state.position { return position.point }
        return state.webMapExtent.map { GeoPoint(longitude: ($0.xmin + $0.xmax) / 2, latitude: ($0.ymin + $0.ymax) / 2) }
    }

    static func suggestionsArrived(_ state: inout AppState, request: RequestID, _ result: Result<[GeocodeSuggestion], LoadFailure>,
                                   offline: Bool) -> [Effect] {
        state.requests.answered(request)
        guard case .search(var search)? = state.overlay, search.request == request else { return [] }
        search.offline = offline
        switch result {
        case .success(let suggestions):
            search.suggestions = suggestions.prefix(8).map {
                GeocodeSuggestion(text: TerminalText.sanitizedLine($0.text, maxLength: 120), magicKey: $0.magicKey, isCollection: $0.isCollection)
            }
            search.status = suggestions.isEmpty ? .nothingFound : .idle
        case .failure(let failure):
            search.suggestions = []
            search.status = .failed(TerminalText.sanitizedLine(failure.sentence, maxLength: 300))
        }
        search.selection = min(search.selection, max(search.suggestions.count - 1, 0))
        state.overlay = .search(search)
        return []
    }

    /// The place found: the search closes and the map opens on it, pinned. A downloaded area that
    /// holds it draws it (offline-ready); else the online basemap. A feature of the open map (or any
    /// place, on a map opened from a file) is shown where the map is.
    static func placesFound(_ state: inout AppState, request: RequestID, _ result: Result<[GeocodeCandidate], LoadFailure>) -> [Effect] {
        state.requests.answered(request)
        guard case .search(var search)? = state.overlay, search.request == request else { return [] }
        let candidates: [GeocodeCandidate]
        switch result {
        case .success(let found): candidates = found
        case .failure(let failure):
            search.status = .failed(TerminalText.sanitizedLine(failure.sentence, maxLength: 300))
            state.overlay = .search(search)
            return []
        }
        guard let place = candidates.first else {
            search.status = .nothingFound
            state.overlay = .search(search)
            return []
        }
        let label = TerminalText.sanitizedLine(place.label, maxLength: 120)
        let p = place.location
        if case .routeStop(let stops, let first, _) = search.purpose {
            remember(&state, MapPin(point: p, label: label))
            return stopChosen(&state, RouteStop(name: label, point: p), stops: stops, first: first)
        }
        state.overlay = nil
        let view = place.extent ?? GeoExtent(xmin: p.longitude - 0.05, ymin: p.latitude - 0.05, xmax: p.longitude + 0.05, ymax: p.latitude + 0.05)
        // A feature of the open map, or any place on a map opened from a file, is shown on the map
        // open now: framed, pinned.
        if state.map != nil, place.isOnOpenMap || state.map?.isStandalone == true {
            state.withMap { $0.pin = MapPin(point: p, label: label) }
            state.notice = .placeShown(label, from: place.isOnOpenMap ? place.type.map { TerminalText.sanitizedLine($0, maxLength: 80) } : nil)
            return fit(&state, view)
        }
        let holding = state.catalog.areas.filter { $0.extent?.contains(p) == true }
        let bookmarks = state.catalog.webMap?.bookmarks ?? []
        var effects: [Effect]
        if let area = holding.first(where: { state.library.downloads[$0.item.id]?.mapPackages.isEmpty == false }),
           let package = state.library.downloads[area.item.id]?.mapPackages.first {
            let title = TerminalText.sanitizedLine(area.item.title, maxLength: 120)
            effects = open(&state, title: label, sourceName: packageSourceName(title), home: view, bookmarks: bookmarks,
                           source: .package(area: area.item.id, package))
        } else {
            effects = openBasemap(&state, title: label, home: view, bookmarks: bookmarks)
        }
        state.withMap { $0.pin = MapPin(point: p, label: label) }
        remember(&state, MapPin(point: p, label: label))
        // The list's selection moves to the area that holds the place: d then downloads it.
        if let index = state.catalog.areas.firstIndex(where: { $0.item.id == holding.first?.item.id }),
           let row = state.rows.firstIndex(of: .area(index)) {
            state.list.selection = row
            keepSelectionInView(&state)
        }
        if case .nearest = state.list.order { state.list.order = .nearest(MapPin(point: p, label: label)) }
        state.notice = .placeFound(label, areas: holding.map { area in
            TerminalText.sanitizedLine(area.item.title, maxLength: 80) + (state.library.downloads[area.item.id] != nil ? " · on this device" : "")
        })
        return effects
    }

    /// The places searched for, the latest first: the same place moves to the front.
    static func remember(_ state: inout AppState, _ place: MapPin) {
        state.places.recent.removeAll { Geodesy.distance($0.point, place.point) < sameStop }
        state.places.recent.insert(place, at: 0)
        state.places.recent = Array(state.places.recent.prefix(5))
    }

    // MARK: What's here

    /// `w`: what is at the map's centre; the card shows at once, the answer when it comes.
    static func whatsHere(_ state: inout AppState) -> [Effect] {
        guard let map = state.map, let point = state.mapFocus else { return [] }
        let request = state.requests.mint()
        let areas = state.catalog.areas.filter { $0.extent?.contains(point) == true }.map { TerminalText.sanitizedLine($0.item.title, maxLength: 80) + (state.library.downloads[$0.item.id] != nil ? " · on this device" : "") }
        state.withMap { $0.whatsHere = WhatsHere(point: point, request: request, answer: nil, areas: areas) }
        return [.search(.describePlace(point, request: request, online: !map.isStandalone && !state.portal.network.isCutOff && state.portal.isConnected))]
    }

    static func placeDescribed(_ state: inout AppState, request: RequestID, _ description: PlaceDescription) -> [Effect] {
        state.requests.answered(request)
        guard var here = state.map?.whatsHere, here.request == request else { return [] }
        here.answer = switch description {
        case .address(let label): .address(TerminalText.sanitizedLine(label, maxLength: 160))
        case .near(let sentence, let problem):
            .near(sentence: TerminalText.sanitizedLine(sentence, maxLength: 200),
                  geocoderProblem: problem.map { TerminalText.sanitizedLine($0, maxLength: 300) })
        case .nothing: .nothing
        }
        state.withMap { $0.whatsHere = here }
        return []
    }

    // MARK: The order of the areas

    /// `o`: portal → nearest to the place searched last (when there is one) → name → size → portal.
    static func cycleOrder(_ state: inout AppState) {
        let previous = state.selectedRow
        // Nearest to this device's position, then to the place searched last, when there are ones.
        let nearest = [state.position, state.lastPlace].compactMap { $0 }.map(AreaOrder.nearest)
        state.list.order = switch state.list.order {
        case .portal: nearest.first ?? .name
        case .nearest(let place): nearest.drop { $0 != .nearest(place) }.dropFirst().first ?? .name
        case .name: .size
        case .size: .portal
        }
        state.notice = .ordered(state.list.order)
        reselect(&state, previous)
    }
}
