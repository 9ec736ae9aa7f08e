import Foundation
import MapRender
import MapbookCore
import ArcGISModel
import Geometry

/// A list over the map: the web map's bookmarks, the layers with their visibility, the basemaps
/// it can be drawn on, or the user's pins.
public enum MapPanel: Equatable, Sendable {
    case bookmarks, layers, basemaps, pins
}

/// What can lie over the map, one at a time by construction: a list (bookmarks, layers, basemaps,
/// pins) with its selection, what `i` identified, what `w` found at the centre, the ruler, the
/// directions (`AppState.directions`' shown result, its route drawn). Opening one closes the one
/// before; Esc closes it.
public enum MapCard: Equatable, Sendable {
    case list(MapPanel, selection: Int)
    case identify(IdentifyState)
    case whatsHere(WhatsHere)
    case ruler(Ruler)
    case directions
    /// `g`: how far and which way a place is from this device's position, as it moves.
    case goTo(MapPin)
}

/// The map view: what it shows, how, and the last picture drawn. The picture may be for an older
/// viewport while a newer one is being drawn: a stale frame stays until the new one is ready.
public struct MapViewState: Equatable, Sendable {
    /// Which opening of a map this is: results for an earlier one are ignored.
    public var session: Int
    public var title: String
    /// The area whose map this is; nil for the web map's (or a file's).
    public var area: ItemID?
    /// Where the tiles come from, for the header: a file name, or the basemap's name and "online".
    public var sourceName: String
    /// The source it was opened on; nil for a file's map, or none.
    public var source: MapSourceChoice?
    public var viewport: MapViewport
    /// What `0` goes back to; fitted once the map's size is known.
    public var homeExtent: GeoExtent?
    public var mode: MapMode = .braille
    public var image: MapImage?
    /// The source is open: the map can be drawn.
    public var isOpen = false
    /// Its source is still being opened (neither open nor failed yet).
    public var isOpening = false
    /// A drawing is under way; `redrawWanted` when the view changed meanwhile, so the next drawing
    /// starts, with the latest view, as soon as this one ends.
    public var isDrawing = false
    public var redrawWanted = false
    /// The card over the map, if one is open (`MapCard`: at most one by construction).
    public var card: MapCard?
    public var bookmarks: [Bookmark]
    /// The source's layers as the package names them, for the renderer; `layers` shows them.
    public var sourceLayerNames: [String] = []
    /// Layers switched off, by the names the list shows.
    public var hiddenLayers: Set<String> = []
    /// What the last drawing could not draw, for the footer.
    public var problems: [String] = []
    /// Set while the source is being opened, or when it could not be.
    public var status: String?
    /// `mapbook open FILE`: leaving the map quits.
    public var isStandalone = false
    /// Opening fits the home view; a map reopened on another basemap keeps its view instead.
    public var fitsHomeWhenOpened = true
    /// A place searched for, marked on the map with its name.
    public var pin: MapPin?
    /// The view follows this device's position (`f`, twice; a pan by hand stops it).
    public var followsLocation = false
    /// Where `f` last centred the view: while the view stays there, `f` again follows, though the
    /// position has walked on meanwhile.
    public var centredOnPosition: MercatorPoint?
    /// Changes to what the map shows other than where it looks (`MapRequest.content`).
    public var contentChanges = 0
    /// Where the operational layers come from, to open them again on another basemap.
    public var operational: OperationalLayers?
    /// The operational layers' names, top first: the layer list shows them above the basemap's.
    public var operationalLayers: [String] = []
    /// The operational layers are asked for and not yet open (`featureLayersOpened`).
    public var isOpeningLayers = false
    /// Those of them only listed ("Roads (KML) · not drawn"): nothing to show or hide.
    public var listedOnlyLayers: Set<String> = []
    /// Each listed layer's legend, by its name in the list.
    public var legend: [String: [LegendEntry]] = [:]

    /// The source's layers, sanitized for the list.
    public var layers: [String] { sourceLayerNames.map { TerminalText.sanitizedLine($0, maxLength: 80) } }

    public init(session: Int, title: String, sourceName: String, viewport: MapViewport, homeExtent: GeoExtent?, bookmarks: [Bookmark]) {
        self.session = session; self.title = title; self.sourceName = sourceName
        self.viewport = viewport; self.homeExtent = homeExtent; self.bookmarks = bookmarks
    }

    // The card's parts, read and written as if they were fields of their own; writing one opens
    // it in place of whatever card was open, writing nil closes it only if it is the one open.

    /// The list open over the map.
    public var panel: MapPanel? {
        get { if case .list(let panel, _) = card { panel } else { nil } }
        set {
            if let newValue { card = .list(newValue, selection: 0) } else if panel != nil { card = nil }
        }
    }

    /// The selected row of the open list (0 when none is open).
    public var panelSelection: Int {
        get { if case .list(_, let selection) = card { selection } else { 0 } }
        set { if case .list(let panel, _) = card { card = .list(panel, selection: newValue) } }
    }

    /// `i`: what was found under the centre, and which of it is shown.
    public var identify: IdentifyState? {
        get { if case .identify(let found) = card { found } else { nil } }
        set {
            if let newValue { card = .identify(newValue) } else if identify != nil { card = nil }
        }
    }

    /// `w`: what is at the centre, asked for or known.
    public var whatsHere: WhatsHere? {
        get { if case .whatsHere(let here) = card { here } else { nil } }
        set {
            if let newValue { card = .whatsHere(newValue) } else if whatsHere != nil { card = nil }
        }
    }

    /// `g`: the place the go-to card measures to.
    public var goTo: MapPin? {
        get { if case .goTo(let place) = card { place } else { nil } }
        set {
            if let newValue { card = .goTo(newValue) } else if goTo != nil { card = nil }
        }
    }

    /// `R`: the ruler being laid.
    public var ruler: Ruler? {
        get { if case .ruler(let ruler) = card { ruler } else { nil } }
        set {
            if let newValue { card = .ruler(newValue) } else if ruler != nil { card = nil }
        }
    }

}

extension AppState {
    /// The rows of the list open over the map, derived from the state whenever they are read.
    public var mapPanelRows: [String] { mapPanelRows(map?.panel) }

    public func mapPanelRows(_ panel: MapPanel?) -> [String] {
        guard let map else { return [] }
        return switch panel {
        case .bookmarks?: map.bookmarks.map(\.name)
        case .layers?: map.operationalLayers + map.layers
        case .basemaps?: basemapOptions.map(\.label)
        case .pins?: pins.all.map(\.title)
        case nil: []
        }
    }
}

/// `R` in the map view: a path laid point by point. The fixed points come first; the map's centre
/// (the crosshair, moved by panning or the mouse) is the path's live end.
public struct Ruler: Equatable, Sendable {
    public var points: [GeoPoint]

    public init(start: GeoPoint) { points = [start] }

    /// The path with its live end at `centre`.
    public func path(to centre: GeoPoint) -> [GeoPoint] { points + [centre] }

    /// The whole path's length, metres.
    public func length(to centre: GeoPoint) -> Double { Geodesy.length(path(to: centre)) }

    /// The last segment: its length and bearing.
    public func leg(to centre: GeoPoint) -> (meters: Double, bearing: Double) {
        let last = points[points.count - 1]
        return (Geodesy.distance(last, centre), Geodesy.bearing(from: last, to: centre))
    }

    /// What the ruler says, worded once for the card and the plain mode: `4.2 km, bearing 47° NE`
    /// and, with more than one segment, `· total 9.8 km over 3 segments`.
    public func sentence(to centre: GeoPoint, units: DistanceUnits) -> String {
        let leg = leg(to: centre)
        var text = "\(units.format(leg.meters)), bearing \(leg.bearing.clampedInt(in: -360...720) % 360)° \(Geodesy.compassPoint(leg.bearing))"
        if points.count > 1 { text += " · total \(units.format(length(to: centre))) over \(points.count) segments" }
        return text
    }
}

/// A place marked on the map: where, and its name (sanitized).
public struct MapPin: Equatable, Sendable {
    public var point: GeoPoint
    public var label: String

    public init(point: GeoPoint, label: String) { self.point = point; self.label = label }
}

/// `i` in the map view: the point asked about, and what was found there (nil while looking),
/// topmost first; `index` is the one shown and highlighted.
public struct IdentifyState: Equatable, Sendable {
    public var id: Int
    public var point: GeoPoint
    public var hits: [IdentifyHit]?
    public var index = 0

    public init(id: Int, point: GeoPoint) { self.id = id; self.point = point }

    public var shown: IdentifyHit? { hits.flatMap { $0.indices.contains(index) ? $0[index] : nil } }
}

/// `w` in the map view: a point, and what is there once it is known.
public struct WhatsHere: Equatable, Sendable {
    public var point: GeoPoint
    public var request: RequestID
    /// nil while asking.
    public var answer: PlaceDescription?
    /// The map areas that hold the point, each with "· on this device" when it is.
    public var areas: [String]
}

/// What is at a point: its address (online), or the nearest named place (offline, where the
/// geocoder knows nothing, or — with its sentence — when it failed), or nothing known.
public enum PlaceDescription: Equatable, Sendable {
    case address(String)
    /// The nearest named place, said as people say it (`Gazetteer.sentence`: "12 km west of Bangor, …").
    case near(sentence: String, geocoderProblem: String?)
    case nothing
}
