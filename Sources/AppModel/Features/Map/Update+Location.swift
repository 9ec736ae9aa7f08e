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
        state.preferences.watchesLocationAtStart ? startWatching(&state) : []
    }

    /// Watching asked for, unless it was already: the one place that starts it.
    private static func startWatching(_ state: inout AppState) -> [Effect] {
        guard state.places.here == nil else { return [] }
        state.places.here = .searching
        return [.map(.watchLocation(state.preferences.location))]
    }

    static func locationChanged(_ state: inout AppState, _ status: LocationStatus) -> [Effect] {
        // gpsd's sentences name the address the config gave: text that reaches the terminal.
        state.places.here = if case .unavailable(let why) = status { .unavailable(TerminalText.sanitizedLine(why, maxLength: 200)) } else { status }
        let recorded = recordFix(&state, status)
        guard let map = state.map, map.followsLocation, let point = status.position, !isCentred(map, on: point) else { return recorded }
        return recorded + centre(&state, on: point)
    }

    /// `f`: watching started (the view then follows the first position), else centred on the
    /// position, else (centred already) following it, else (following) not. Away from a map (the
    /// plain mode's `where`): the position said.
    static func locate(_ state: inout AppState) -> [Effect] {
        guard let here = state.places.here else {
            state.withMap { $0.followsLocation = true }
            state.notice = .map(.locating(source: state.preferences.location.name))
            return startWatching(&state)
        }
        guard let point = here.position else {
            state.withMap { $0.followsLocation = true }
            state.notice = .map(.noPosition(here.summary))
            return []
        }
        guard let map = state.map else {
            state.notice = .map(.position(point.degrees(), here.summary))
            return []
        }
        if map.followsLocation {
            state.withMap { $0.followsLocation = false }
            state.notice = .map(.stoppedFollowing)
            return []
        }
        // Centred: on the position, or where the last `f` put the view (the walker may have gone a
        // cell on between the two presses).
        let centred = isCentred(map, on: point)
        if centred || map.centredOnPosition == map.viewport.center {
            state.withMap { $0.followsLocation = true }
            state.notice = .map(.followingPosition)
            return centred ? [] : centre(&state, on: point)
        }
        state.notice = .map(.centredOnPosition(here.summary))
        let effects = centre(&state, on: point)
        state.withMap { $0.centredOnPosition = $0.viewport.center }
        return effects
    }

    /// Within a braille cell of the centre (two dots across, four down): near enough not to move
    /// the view, so a receiver's jitter does not redraw the map.
    private static func isCentred(_ map: MapViewState, on point: GeoPoint) -> Bool {
        let target = MercatorPoint(point), centre = map.viewport.center, dot = map.viewport.resolution
        return abs(target.x - centre.x) < 2 * dot && abs(target.y - centre.y) < 4 * dot
    }

    private static func centre(_ state: inout AppState, on point: GeoPoint) -> [Effect] {
        state.withMap { $0.viewport = MapViewport(center: MercatorPoint(point), zoom: $0.viewport.zoom) }
        return requestMapDraw(&state, contentChanged: false)
    }
}

extension AppState {
    /// This device's position now (a fix, or the config's), named as stops and orders say it;
    /// nil when there is none (searching, no fix, stale, gpsd gone).
    public var position: MapPin? {
        guard let here = places.here, here.isCurrent, let point = here.position else { return nil }
        return MapPin(point: point, label: "your position")
    }

    /// Where the map's "at the centre" keys act (a pin, what's here, a new feature): the position
    /// itself while the view follows it (the centre is only the nearest cell), else the centre.
    public var mapFocus: GeoPoint? {
        guard let map else { return nil }
        if map.followsLocation, let position { return position.point }
        return map.viewport.center.geographic
    }

    /// The position when the open map shows it: where the ruler starts.
    var positionInView: GeoPoint? {
        guard let position, let request = App.mapRequest(self),
              request.viewport.projection(columns: request.columns, rows: request.rows).cell(MercatorPoint(position.point)) != nil else { return nil }
        return position.point
    }
}

/// `T`: a track recorded from the position, drawn as it grows, kept crash-safe by the handler.
extension App {
    /// A track starts (watching too, when it was not), or the one being recorded ends.
    static func recordTrack(_ state: inout AppState) -> [Effect] {
        if let recording = state.places.recording {
            state.places.recording = nil
            let count = recording.recorder.count
            state.notice = count == 0 ? .map(.trackEmpty)
                : .map(.trackKept(id: recording.id ?? "", points: count, length: state.preferences.units.format(recording.recorder.length)))
            return [.map(.endTrack(keep: count > 0))]
        }
        state.places.recording = TrackRecording()
        state.notice = .map(.recordingTrack)
        return [.map(.startTrack)] + startWatching(&state)
    }

    static func trackStarted(_ state: inout AppState, id: String) -> [Effect] {
        state.places.recording?.id = id
        return []
    }

    /// A fix offered to the track being recorded: the point kept is drawn and written.
    static func recordFix(_ state: inout AppState, _ status: LocationStatus) -> [Effect] {
        guard var recording = state.places.recording, case .fix(let fix, _) = status,
              case .success(let point) = recording.recorder.take(fix, now: fix.heard ?? .distantPast) else { return [] }
        recording.drawn.append(point.position)
        if recording.drawn.count > TrackRecording.mostDrawn {
            recording.drawn = recording.drawn.enumerated().filter { $0.offset % 2 == 0 || $0.offset == recording.drawn.count - 1 }.map(\.element)
        }
        state.places.recording = recording
        return [.map(.appendToTrack([point]))]
    }
}

/// `g`: the go-to card, live: how far and which way a place is from this device's position.
extension App {
    /// Opens the card (watching too, when it was not) for the route's step looked at, the
    /// feature identified, else what `t` would go to (the pin chosen, the place searched, the
    /// centre); again, closes it.
    static func goTo(_ state: inout AppState) -> [Effect] {
        guard let map = state.map else { return [] }
        guard map.goTo == nil else {
            state.withMap { $0.goTo = nil }
            return []
        }
        let place: MapPin
        if map.card == .directions, let shown = state.directions.current, let route = shown.route, let step = shown.step,
           route.maneuvers.indices.contains(step), let start = route.maneuvers[step].path.first {
            place = MapPin(point: start, label: route.maneuvers[step].text)
        } else if let found = map.identify, let hit = found.shown {
            place = MapPin(point: found.point, label: hit.card.title)
        } else {
            let stop = directionsTarget(state, map, searched: true)
            place = MapPin(point: stop.point, label: stop.name)
        }
        state.withMap { $0.goTo = place }
        return startWatching(&state)
    }
}

extension MapPin {
    /// What the go-to card says of this place from `status`: "1.2 km, bearing 45° NE" and how good
    /// the fix is; "Here, within 8 m" once closer than the fix is good (or 10 m); without a
    /// position, why not. Derived as the position moves, so the card follows it.
    public func goToLines(from status: LocationStatus?, units: DistanceUnits) -> [String] {
        guard let status, let from = status.position else {
            return ["No position: \(status?.summary ?? "not watched")."]
        }
        let meters = Geodesy.distance(from, point), near = max(status.accuracy ?? 0, 10)
        let how = status.isCurrent ? status.summary : "\(status.summary), where it was"
        if meters <= near { return ["Here, within \(units.format(near)).", "From your position: \(how)."] }
        let bearing = Geodesy.bearing(from: from, to: point)
        return ["\(units.format(meters)), bearing \(bearing.clampedInt(in: 0...720) % 360)° \(Geodesy.compassPoint(bearing))",
                "From your position: \(how)."]
    }
}
