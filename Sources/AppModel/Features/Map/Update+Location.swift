import Geometry
import Location
import MapRender
import MapbookCore

/// Where this device is, on the map: the location source's reports kept in `Places.here`; `f`
/// centres the map on the position, again follows it (the view moves as the position does; a pan
/// by hand stops following).
extension App {
    /// Watching starts with the program when the config or GPSD_HOST names a source; else at the first `f`.
    static func watchLocationAtStart(_ state: inout AppState) -> [Effect] {
        guard state.preferences.watchesLocationAtStart, state.places.here == nil else { return [] }
        state.places.here = .searching
        return [.map(.watchLocation(state.preferences.location))]
    }

    static func locationChanged(_ state: inout AppState, _ status: LocationStatus) -> [Effect] {
        // gpsd's sentences name the address the config gave: text that reaches the terminal.
        state.places.here = if case .unavailable(let why) = status { .unavailable(TerminalText.sanitizedLine(why, maxLength: 200)) } else { status }
        guard let map = state.map, map.followsLocation, let point = status.position, !isCentred(map, on: point) else { return [] }
        return centre(&state, on: point)
    }

    /// `f`: watching started (the view then follows the first position), else centred on the
    /// position, else (centred already) following it, else (following) not.
    static func locate(_ state: inout AppState) -> [Effect] {
        guard let map = state.map else { return [] }
        guard let here = state.places.here else {
            state.places.here = .searching
            state.withMap { $0.followsLocation = true }
            state.notice = .map(.locating(source: state.preferences.location.name))
            return [.map(.watchLocation(state.preferences.location))]
        }
        guard let point = here.position else {
            state.withMap { $0.followsLocation = true }
            state.notice = .map(.noPosition(here.summary))
            return []
        }
        if map.followsLocation {
            state.withMap { $0.followsLocation = false }
            state.notice = .map(.stoppedFollowing)
            return []
        }
        if isCentred(map, on: point) {
            state.withMap { $0.followsLocation = true }
            state.notice = .map(.followingPosition)
            return []
        }
        state.notice = .map(.centredOnPosition(here.summary))
        return centre(&state, on: point)
    }

    /// Within a braille cell of the centre (two dots across, four down): near enough not to move
    /// the view, so a receiver's jitter does not redraw the map.
    private static func isCentred(_ map: MapViewState, on point: GeoPoint) -> Bool {
        let target = MercatorPoint(point), centre = map.viewport.center, dot = map.viewport.resolution
        return abs(target.x - centre.x) < 2 * dot && abs(target.y - centre.y) < 4 * dot
    }

    private static func centre(_ state: inout AppState, on point: GeoPoint) -> [Effect] {
        state.withMap { $0.viewport = MapViewport(center: MercatorPoint(point), zoom: $0.viewport.zoom) }
        return requestMapDraw(&state)
    }
}
