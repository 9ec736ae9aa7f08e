import MapbookCore
import TerminalCanvas
import Geometry

/// What the map view lays over a map's picture: the identified feature, the ruler, a route, the
/// user's pins and a searched place.
public struct MapOverlays: Sendable {
    /// Directions: the route's line (bold), the step being looked at over it, and the stops — the
    /// start and the end marked apart from the stops between.
    public struct RouteLine: Sendable {
        public var path: [GeoPoint]
        public var step: [GeoPoint]
        public var stops: [(name: String, point: GeoPoint)]

        public init(path: [GeoPoint], step: [GeoPoint] = [], stops: [(name: String, point: GeoPoint)]) {
            self.path = path; self.step = step; self.stops = stops
        }
    }

    public struct Ruler: Sendable {
        /// From its first point to the centre, as drawn.
        public var path: [GeoPoint]
        public var points: [GeoPoint]
        public var centre: GeoPoint

        public init(path: [GeoPoint], points: [GeoPoint], centre: GeoPoint) { self.path = path; self.points = points; self.centre = centre }
    }

    /// Where this device is: a mark (an arrow when it moves), its accuracy as a circle.
    public struct Here: Sendable, Equatable {
        public var point: GeoPoint
        /// The accuracy circle's radius, metres.
        public var accuracy: Double?
        /// Degrees from north it moves toward, when it moves.
        public var heading: Double?
        /// False for the last fix of a receiver gone quiet: drawn grey.
        public var isCurrent: Bool

        public init(point: GeoPoint, accuracy: Double? = nil, heading: Double? = nil, isCurrent: Bool = true) {
            self.point = point; self.accuracy = accuracy; self.heading = heading; self.isCurrent = isCurrent
        }

        func glyph(ascii: Bool) -> Character {
            guard let heading, heading.isFinite else { return ascii ? "*" : "◎" }
            let octant = Int((heading.truncatingRemainder(dividingBy: 360) + 360 + 22.5) / 45) % 8
            return ascii ? Array("^/>\\v/<\\")[octant] : Array("↑↗→↘↓↙←↖")[octant]
        }

        func color(_ theme: MapTheme) -> PaletteIndex { isCurrent ? theme.here : theme.neighbourBorder }

        /// Marked among the names, above every other mark.
        func mark(into names: inout LabelPass, ascii: Bool, theme: MapTheme, projection: MapProjection, size: (columns: Int, rows: Int)) {
            names.mark(point, glyph: glyph(ascii: ascii), rank: .identified, color: color(theme), projection: projection, size: size)
        }

        /// The accuracy circle, when it is more than a few dots across.
        func circle(viewport: MapViewport) -> [GeoPoint]? {
            guard let accuracy, accuracy.isFinite, accuracy / viewport.resolution >= 3, accuracy < 1_000_000 else { return nil }
            return (0...48).map { Geodesy.destination(from: point, bearing: Double($0) * 7.5, meters: accuracy) }
        }
    }

    /// A line laid over the map: its paths, colour and weight in braille dots.
    public struct Line: Sendable, Equatable {
        public var paths: [[GeoPoint]]
        public var color: PaletteIndex
        public var dots: Int

        public init(paths: [[GeoPoint]], color: PaletteIndex, dots: Int) { self.paths = paths; self.color = color; self.dots = dots }
    }

    public var identified: (geometry: GeoGeometry, title: String)?
    public var ruler: Ruler?
    public var route: RouteLine?
    public var pins: [(title: String, point: GeoPoint)]
    public var searched: (label: String, point: GeoPoint)?
    /// The part of the view a new area of your own takes.
    public var outline: GeoExtent?
    public var here: Here?
    /// The track being recorded, drawn under the position's mark.
    public var track: [GeoPoint]

    public init(identified: (geometry: GeoGeometry, title: String)? = nil, ruler: Ruler? = nil, route: RouteLine? = nil,
                pins: [(title: String, point: GeoPoint)] = [], searched: (label: String, point: GeoPoint)? = nil, outline: GeoExtent? = nil,
                here: Here? = nil, track: [GeoPoint] = []) {
        self.identified = identified; self.ruler = ruler; self.route = route; self.pins = pins; self.searched = searched
        self.outline = outline; self.here = here; self.track = track
    }

    /// The lines, the lowest first: the route and the step looked at, a new area's outline, the
    /// identified feature's outline, the ruler's path, the track, the position's accuracy circle.
    public func lines(theme: MapTheme, viewport: MapViewport) -> [Line] {
        var lines: [Line] = []
        if let route {
            lines.append(Line(paths: [route.path], color: theme.route, dots: 3))
            if route.step.count > 1 { lines.append(Line(paths: [route.step], color: theme.routeStep, dots: 3)) }
        }
        if let outline { lines.append(Line(paths: [outline.ring], color: theme.ruler, dots: 2)) }
        switch identified?.geometry {
        case .lines(let paths)?: lines.append(Line(paths: paths, color: FeatureHighlight.color, dots: 2))
        case .polygons(let polygons)?: lines.append(Line(paths: Array(polygons.joined()), color: FeatureHighlight.color, dots: 2))
        case .points?, nil: break
        }
        if let ruler { lines.append(Line(paths: [ruler.path], color: theme.ruler, dots: 2)) }
        if track.count > 1 { lines.append(Line(paths: [track], color: theme.here, dots: 1)) }
        if let here, let circle = here.circle(viewport: viewport) { lines.append(Line(paths: [circle], color: here.color(theme), dots: 1)) }
        return lines
    }

    /// `lines` drawn on `surface` (a picture of the map), placed by `projection`: a braille dot of
    /// weight is a pixel and a half.
    public static func stroke<Surface: MapSurface>(_ lines: [Line], onto surface: inout Surface, projection: MapProjection) {
        for line in lines {
            let rgb = XtermPalette.rgb(line.color)
            let color = StyleColor(r: Double(rgb.r), g: Double(rgb.g), b: Double(rgb.b))
            for path in line.paths where path.count > 1 {
                surface.stroke(path.map { projection.dot(MercatorPoint($0)) }, color: color, width: Double(line.dots) * 1.5 + 0.5,
                               dasharray: [], closed: false)
            }
        }
    }

    /// The picture (one drawn for another size shows as far as it fits), then the lines (unless
    /// `linesInPicture`: a picture in pixels has them drawn into it), then every mark and name in
    /// one pass: the identified feature's first, the route's stops, the searched place's, the
    /// pins', the map's own — within the first `namesWidth` columns when a card covers the rest
    /// (nothing is named under it). Returns where names went.
    @discardableResult
    public func draw(over picture: MapPicture?, viewport: MapViewport, into frame: inout Frame, rect: Rect, theme: MapTheme,
                     glyphs: GlyphSet, colors: Bool, namesWidth: Int? = nil, linesInPicture: Bool = false) -> [PlacedLabel] {
        guard !rect.isEmpty else { return [] }
        let ascii = glyphs == .ascii
        let size = (columns: rect.width, rows: rect.height)
        let projection = viewport.projection(columns: rect.width, rows: rect.height)
        var names = LabelPass()
        if let picture {
            frame.paste(picture.frame, at: (rect.x, rect.y), clip: rect)
            names = picture.names
        }
        if !linesInPicture {
            for line in lines(theme: theme, viewport: viewport) {
                FeatureHighlight.drawPath(.lines(line.paths), viewport: viewport, into: &frame, rect: rect, ascii: ascii, colors: colors,
                                          color: line.color, dots: line.dots)
            }
        }
        if let route {
            // The start and the end as the directions list shows them (`ManeuverKind.glyph`).
            for (index, stop) in route.stops.enumerated() {
                let (glyph, color): (Character, PaletteIndex) = switch index {
                case 0: (ascii ? "S" : "◉", theme.routeStart)
                case route.stops.count - 1: (ascii ? "E" : "◆", theme.routeEnd)
                default: (ascii ? "o" : "○", theme.route)
                }
                names.mark(stop.point, glyph: glyph, label: stop.name, rank: .selected, color: color, projection: projection, size: size)
            }
        }
        if let identified {
            names = names + FeatureHighlight.names(identified.geometry, title: identified.title, viewport: viewport, size: size, ascii: ascii)
        }
        if let ruler {
            for point in ruler.points {
                names.mark(point, glyph: ascii ? "o" : "●", rank: .selected, color: theme.ruler, projection: projection, size: size)
            }
            names.mark(ruler.centre, glyph: "+", rank: .selected, color: theme.ruler, projection: projection, size: size)
        }
        // A pin on the searched place's cell stands for it (it was pinned there): the pin shows, first
        // among the names, not hidden under the search marker.
        let searchedCell = searched.flatMap { projection.cell(MercatorPoint($0.point)) }
        var searchedIsPinned = false
        for pin in pins {
            let onSearched = searchedCell.map { cell in projection.cell(MercatorPoint(pin.point)).map { $0 == cell } ?? false } ?? false
            searchedIsPinned = searchedIsPinned || onSearched
            names.mark(pin.point, glyph: ascii ? "P" : "⚑", label: pin.title, rank: onSearched ? .selected : .pin, color: theme.pin,
                       projection: projection, size: size)
        }
        if let searched, !searchedIsPinned {
            names.mark(searched.point, glyph: ascii ? "@" : "◆", label: searched.label, rank: .selected, color: theme.selectedArea,
                       projection: projection, size: size)
        }
        // This device's mark last: over a pin or the place searched in the same cell.
        here?.mark(into: &names, ascii: ascii, theme: theme, projection: projection, size: size)
        let named = Rect(x: rect.x, y: rect.y, width: min(max(namesWidth ?? rect.width, 0), rect.width), height: rect.height)
        return names.draw(into: &frame, rect: named, colors: colors)
    }
}
